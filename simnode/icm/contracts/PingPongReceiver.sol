// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ITeleporterMessenger, TeleporterFeeInfo, TeleporterMessageInput} from "./ITeleporterMessenger.sol";
import {ITeleporterReceiver} from "./ITeleporterReceiver.sol";

/// A Teleporter receiver for end-to-end tests: ping(...) sends a ping through the messenger; a
/// receiver that gets a ping answers its sender with a pong carrying the same text; a pong is only
/// recorded. Messages are abi.encode(bool isPing, string text, uint256 replyGasLimit).
contract PingPongReceiver is ITeleporterReceiver {
    ITeleporterMessenger public immutable messenger;

    uint256 public pingsReceived;
    uint256 public pongsReceived;
    bytes32 public lastSourceBlockchainID;
    address public lastOriginSender;
    string public lastText;

    event PingSent(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, address destination, string text);
    event PongSent(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, address destination, string text);
    event Received(bytes32 indexed sourceBlockchainID, address indexed originSender, bool isPing, string text);

    constructor(address messenger_) {
        messenger = ITeleporterMessenger(messenger_);
    }

    /// Pings `destination` on `destinationBlockchainID`: the ping runs there with `requiredGasLimit`,
    /// the pong back here with `replyGasLimit`.
    function ping(
        bytes32 destinationBlockchainID,
        address destination,
        string calldata text,
        uint256 requiredGasLimit,
        uint256 replyGasLimit
    ) external returns (bytes32 messageID) {
        messageID = _send(destinationBlockchainID, destination, abi.encode(true, text, replyGasLimit), requiredGasLimit);
        emit PingSent(messageID, destinationBlockchainID, destination, text);
    }

    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external
    {
        require(msg.sender == address(messenger), "PingPongReceiver: unauthorized messenger");
        (bool isPing, string memory text, uint256 replyGasLimit) = abi.decode(message, (bool, string, uint256));
        lastSourceBlockchainID = sourceBlockchainID;
        lastOriginSender = originSenderAddress;
        lastText = text;
        emit Received(sourceBlockchainID, originSenderAddress, isPing, text);
        if (!isPing) {
            ++pongsReceived;
            return;
        }
        ++pingsReceived;
        bytes32 messageID = _send(sourceBlockchainID, originSenderAddress, abi.encode(false, text, uint256(0)), replyGasLimit);
        emit PongSent(messageID, sourceBlockchainID, originSenderAddress, text);
    }

    function _send(bytes32 destinationBlockchainID, address destination, bytes memory message, uint256 gasLimit)
        private
        returns (bytes32)
    {
        return messenger.sendCrossChainMessage(
            TeleporterMessageInput({
                destinationBlockchainID: destinationBlockchainID,
                destinationAddress: destination,
                feeInfo: TeleporterFeeInfo(address(0), 0),
                requiredGasLimit: gasLimit,
                allowedRelayerAddresses: new address[](0),
                message: message
            })
        );
    }
}
