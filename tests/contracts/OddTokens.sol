// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// An ERC-20 whose Transfer logs do not add up to its balances: it can log a transfer it never
/// makes, so an index deriving balances from its logs sees numbers balanceOf does not (below zero).
contract OddToken {
    string public constant name = "Odd Token";
    string public constant symbol = "ODD";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(uint256 supply) {
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "insufficient balance");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function logOnly(address from, address to, uint256 value) external {
        emit Transfer(from, to, value);
    }
}

/// The same for ERC-1155: TransferSingle logs that move nothing.
contract OddMultiToken {
    mapping(uint256 => mapping(address => uint256)) private balances;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0xd9b67a26 || id == 0x01ffc9a7;
    }

    function uri(uint256) external pure returns (string memory) {
        return "data:application/json;base64,eyJuYW1lIjoiT2RkIn0=";
    }

    function balanceOf(address owner, uint256 id) external view returns (uint256) {
        return balances[id][owner];
    }

    function mint(address to, uint256 id, uint256 value) external {
        balances[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
    }

    function logOnly(address from, address to, uint256 id, uint256 value) external {
        emit TransferSingle(msg.sender, from, to, id, value);
    }
}
