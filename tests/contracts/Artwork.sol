// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Minimal ERC-721 whose token URIs are given at mint and can be changed: every kind of URI the
/// Data API's NFT metadata meets (data: in base64 and plain, http(s), ipfs, other schemes, broken
/// JSON) and a URI that changes after the mint (for :reindex).
contract Artwork {
    string public name;
    string public symbol;
    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;
    mapping(uint256 => string) private uris;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x80ac58cd || id == 0x01ffc9a7 || id == 0x5b5e139f;
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        require(ownerOf[tokenId] != address(0), "no such token");
        return uris[tokenId];
    }

    function mint(address to, uint256 tokenId, string calldata uri) external {
        require(to != address(0) && ownerOf[tokenId] == address(0), "cannot mint");
        ownerOf[tokenId] = to;
        balanceOf[to] += 1;
        uris[tokenId] = uri;
        emit Transfer(address(0), to, tokenId);
    }

    function setTokenURI(uint256 tokenId, string calldata uri) external {
        uris[tokenId] = uri;
    }

    function transferFrom(address from, address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == from && msg.sender == from && to != address(0), "bad transfer");
        ownerOf[tokenId] = to;
        balanceOf[from] -= 1;
        balanceOf[to] += 1;
        emit Transfer(from, to, tokenId);
    }
}
