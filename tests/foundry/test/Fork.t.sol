// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Cheats} from "../src/Cheats.sol";
import {Vault} from "../src/Vault.sol";

/// `forge test --fork-url <C-Chain>`: reads a Vault deployed on the node, then writes to it on the fork.
contract ForkTest is Cheats {
    function test_forkedVault() public {
        Vault vault = Vault(vm.envAddress("VAULT"));
        address owner = vault.owner();
        require(vault.value() == vm.envUint("VAULT_VALUE"), "forked value differs");
        emit log_named_uint("value", vault.value());
        emit log_named_address("owner", owner);
        emit log_named_uint("ownerBalance", owner.balance);
        emit log_named_uint("chainid", block.chainid);
        emit log_named_uint("block", block.number);
        uint256 next = vault.value() + 1;
        vm.prank(owner);
        vault.set(next);
        emit log_named_uint("valueAfterSet", vault.value());
    }
}
