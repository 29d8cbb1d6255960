// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Cheats} from "../src/Cheats.sol";
import {Vault} from "../src/Vault.sol";

/// `forge script script/Deploy.s.sol --broadcast`: three txs from the --private-key account.
contract Deploy is Cheats {
    function run() external returns (Vault vault) {
        vm.startBroadcast();
        vault = new Vault(7);
        vault.set(8);
        vault.deposit{value: 1000}();
        vm.stopBroadcast();
    }
}
