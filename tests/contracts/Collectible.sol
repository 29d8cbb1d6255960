// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Minimal ERC-721 (no receiver hooks) for simnode's index tests; token URIs are data: URIs.
contract Collectible {
    string public name;
    string public symbol;
    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;
    mapping(uint256 => address) public getApproved;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x80ac58cd || id == 0x01ffc9a7 || id == 0x5b5e139f;
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        require(ownerOf[tokenId] != address(0), "no such token");
        return string.concat('data:application/json,{"name":"', name, ' #', _digits(tokenId), '"}');
    }

    function mint(address to, uint256 tokenId) external {
        require(to != address(0) && ownerOf[tokenId] == address(0), "cannot mint");
        ownerOf[tokenId] = to;
        balanceOf[to] += 1;
        emit Transfer(address(0), to, tokenId);
    }

    function approve(address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == msg.sender, "not owner");
        getApproved[tokenId] = to;
        emit Approval(msg.sender, to, tokenId);
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        require(ownerOf[tokenId] == from && to != address(0), "bad transfer");
        require(msg.sender == from || getApproved[tokenId] == msg.sender, "not approved");
        delete getApproved[tokenId];
        ownerOf[tokenId] = to;
        balanceOf[from] -= 1;
        balanceOf[to] += 1;
        emit Transfer(from, to, tokenId);
    }

    function burn(uint256 tokenId) external {
        address owner = ownerOf[tokenId];
        require(owner == msg.sender, "not owner");
        delete getApproved[tokenId];
        delete ownerOf[tokenId];
        balanceOf[owner] -= 1;
        emit Transfer(owner, address(0), tokenId);
    }

    function _digits(uint256 v) private pure returns (string memory) {
        if (v == 0) return "0";
        uint256 n;
        for (uint256 t = v; t != 0; t /= 10) n++;
        bytes memory out = new bytes(n);
        for (; v != 0; v /= 10) out[--n] = bytes1(uint8(48 + v % 10));
        return string(out);
    }
}
