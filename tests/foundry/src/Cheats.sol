// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// The few forge cheatcodes the script and the fork test use (forge-std is not installed: its
/// repository cannot be fetched here). The address is keccak256("hevm cheat code")'s last 20 bytes.
interface Vm {
    function envAddress(string calldata name) external view returns (address);
    function envUint(string calldata name) external view returns (uint256);
    function prank(address sender) external;
    function startBroadcast() external;
    function stopBroadcast() external;
}

abstract contract Cheats {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    // forge decodes these (ds-test's) events into a test's "decoded_logs"
    event log_named_uint(string key, uint256 val);
    event log_named_address(string key, address val);
}
