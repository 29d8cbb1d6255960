// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// What a contract implements to be the destination of Teleporter messages.
interface ITeleporterReceiver {
    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external;
}
