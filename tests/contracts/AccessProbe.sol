// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IBalanceOf {
    function balanceOf(address holder) external view returns (uint256);
}

/// Touches storage, another contract, an account's balance and code, a precompile and the block's
/// coinbase (eth_createAccessList tests: what geth's access-list tracer lists and what it leaves out).
contract AccessProbe {
    uint256 public counter;

    function probe(address token, address holder, address other) external returns (uint256 total) {
        counter += 1;
        total = IBalanceOf(token).balanceOf(holder);
        total += other.balance;
        total += other.code.length;
        total += uint256(sha256(abi.encodePacked(total)));
    }

    function coinbaseBalance() external view returns (uint256) {
        return block.coinbase.balance;
    }
}
