// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A verified Warp message as the Warp precompile reports it.
struct WarpMessage {
    bytes32 sourceChainID;
    address originSenderAddress;
    bytes payload;
}

/// A verified Warp block hash as the Warp precompile reports it.
struct WarpBlockHash {
    bytes32 sourceChainID;
    bytes32 blockHash;
}

/// The Warp precompile at 0x0200000000000000000000000000000000000005 (subnet-evm and coreth).
interface IWarpMessenger {
    event SendWarpMessage(address indexed sender, bytes32 indexed messageID, bytes message);

    function sendWarpMessage(bytes calldata payload) external returns (bytes32 messageID);

    function getVerifiedWarpMessage(uint32 index) external view returns (WarpMessage memory message, bool valid);

    function getVerifiedWarpBlockHash(uint32 index)
        external
        view
        returns (WarpBlockHash memory warpBlockHash, bool valid);

    function getBlockchainID() external view returns (bytes32 blockchainID);
}
