// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// What the real-client matrix (ethers, viem, Foundry) deploys, reads, writes and reverts on.
contract Vault {
    uint256 public value; // slot 0
    address public owner; // slot 1
    mapping(address => uint256) public deposits; // slot 2

    event ValueSet(address indexed by, uint256 indexed previous, uint256 next);
    event Deposited(address indexed from, uint256 amount);

    error NotOwner(address caller, address owner);

    constructor(uint256 initial) payable {
        owner = msg.sender;
        value = initial;
    }

    function set(uint256 next) external {
        if (msg.sender != owner) revert NotOwner(msg.sender, owner);
        require(next <= 1_000_000, "value too large");
        emit ValueSet(msg.sender, value, next);
        value = next;
    }

    function deposit() external payable {
        deposits[msg.sender] += msg.value;
        emit Deposited(msg.sender, msg.value);
    }
}
