// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Vault} from "./Vault.sol";

/// Touches its own storage, another contract's storage (through a call) and an account's balance:
/// the three things an access list (eth_createAccessList) records.
contract Reader {
    uint256 public reads; // slot 0

    function peek(Vault vault, address who) external returns (uint256 value, uint256 balance) {
        reads += 1;
        value = vault.value();
        balance = who.balance;
    }
}
