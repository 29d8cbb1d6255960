// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IWarpMessenger, WarpMessage} from "./IWarpMessenger.sol";
import {
    ITeleporterMessenger,
    TeleporterFeeInfo,
    TeleporterMessage,
    TeleporterMessageInput,
    TeleporterMessageReceipt
} from "./ITeleporterMessenger.sol";
import {ITeleporterReceiver} from "./ITeleporterReceiver.sol";

/// The part of ERC-20 the messenger uses for relayer fees.
interface IERC20Fees {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// simnode's TeleporterMessenger: ABI-, event- and storage-compatible with ICM's TeleporterMessenger
/// v1 (the contract every ICM tool expects at 0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf), written for
/// simnode. Messages leave through the Warp precompile's sendWarpMessage and arrive through its
/// getVerifiedWarpMessage; a message is trusted because it was sent by this same address on its
/// source chain.
contract TeleporterMessenger is ITeleporterMessenger {
    /// FIFO of receipts owed to one chain; entries live in data[first, last).
    struct ReceiptQueue {
        uint256 first;
        uint256 last;
        mapping(uint256 index => TeleporterMessageReceipt receipt) data;
    }

    /// What the sender keeps of a message until its receipt comes back.
    struct SentMessageInfo {
        bytes32 messageHash;
        TeleporterFeeInfo feeInfo;
    }

    IWarpMessenger public constant WARP_MESSENGER = IWarpMessenger(0x0200000000000000000000000000000000000005);

    uint256 private constant _NOT_ENTERED = 1;
    uint256 private constant _ENTERED = 2;
    uint256 private constant _MAX_RECEIPTS_PER_MESSAGE = 5;

    // The storage order below is part of the compatibility: a genesis allocation presets slots 0
    // and 1 to _NOT_ENTERED, and tools read the slots directly.
    uint256 private _sendEntered;
    uint256 private _receiveEntered;
    bytes32 public blockchainID;
    uint256 public messageNonce;
    mapping(bytes32 sourceBlockchainID => ReceiptQueue queue) public receiptQueues;
    mapping(bytes32 messageID => SentMessageInfo info) public sentMessageInfo;
    mapping(bytes32 messageID => bytes32 messageHash) public receivedFailedMessageHashes;
    mapping(bytes32 messageID => uint256 messageNonce) internal _receivedMessageNonces;
    mapping(bytes32 messageID => address relayerRewardAddress) internal _relayerRewardAddresses;
    mapping(address relayer => mapping(address feeAsset => uint256 amount)) internal _relayerRewardAmounts;

    // Sending and receiving are guarded separately: a delivered message may send a new one (ping-pong),
    // but neither path may re-enter itself.
    modifier senderNonReentrant() {
        require(_sendEntered == _NOT_ENTERED, "ReentrancyGuards: sender reentrancy");
        _sendEntered = _ENTERED;
        _;
        _sendEntered = _NOT_ENTERED;
    }

    modifier receiverNonReentrant() {
        require(_receiveEntered == _NOT_ENTERED, "ReentrancyGuards: receiver reentrancy");
        _receiveEntered = _ENTERED;
        _;
        _receiveEntered = _NOT_ENTERED;
    }

    constructor() {
        _sendEntered = _NOT_ENTERED;
        _receiveEntered = _NOT_ENTERED;
    }

    // ------------------------------------------------------------------ sending

    function sendCrossChainMessage(TeleporterMessageInput calldata messageInput)
        external
        senderNonReentrant
        returns (bytes32)
    {
        TeleporterMessageReceipt[] memory receipts = _dequeueReceipts(receiptQueues[messageInput.destinationBlockchainID]);
        return _send(messageInput, receipts);
    }

    function retrySendCrossChainMessage(TeleporterMessage calldata message) external senderNonReentrant {
        bytes32 messageID = calculateMessageID(blockchainID, message.destinationBlockchainID, message.messageNonce);
        SentMessageInfo memory info = sentMessageInfo[messageID];
        require(info.messageHash != bytes32(0), "TeleporterMessenger: message not found");
        bytes memory encoded = abi.encode(message);
        require(keccak256(encoded) == info.messageHash, "TeleporterMessenger: invalid message hash");
        emit SendCrossChainMessage(messageID, message.destinationBlockchainID, message, info.feeInfo);
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    /// Both guards: the token's transferFrom must not be able to deliver the receipt that pays out
    /// this very fee while the fee is still being raised.
    function addFeeAmount(bytes32 messageID, address feeTokenAddress, uint256 additionalFeeAmount)
        external
        senderNonReentrant
        receiverNonReentrant
    {
        require(additionalFeeAmount > 0, "TeleporterMessenger: zero additional fee amount");
        require(feeTokenAddress != address(0), "TeleporterMessenger: zero fee asset contract address");
        SentMessageInfo storage info = sentMessageInfo[messageID];
        require(info.messageHash != bytes32(0), "TeleporterMessenger: message not found");
        require(info.feeInfo.feeTokenAddress == feeTokenAddress, "TeleporterMessenger: invalid fee asset contract address");
        info.feeInfo.amount += _pullFee(feeTokenAddress, additionalFeeAmount);
        emit AddFeeAmount(messageID, info.feeInfo);
    }

    /// Sends receipts for messages already received from `sourceBlockchainID`, in an empty message.
    /// They stay in their queue too: a receipt that arrives twice pays nothing the second time.
    function sendSpecifiedReceipts(
        bytes32 sourceBlockchainID,
        bytes32[] calldata messageIDs,
        TeleporterFeeInfo calldata feeInfo,
        address[] calldata allowedRelayerAddresses
    ) external senderNonReentrant returns (bytes32) {
        bytes32 ownID = blockchainID;
        TeleporterMessageReceipt[] memory receipts = new TeleporterMessageReceipt[](messageIDs.length);
        for (uint256 i; i < messageIDs.length; ++i) {
            bytes32 receivedID = messageIDs[i];
            uint256 nonce = _receivedMessageNonces[receivedID];
            require(nonce != 0, "TeleporterMessenger: receipt not found");
            require(
                receivedID == calculateMessageID(sourceBlockchainID, ownID, nonce),
                "TeleporterMessenger: message ID not from source blockchain"
            );
            receipts[i] = TeleporterMessageReceipt(nonce, _relayerRewardAddresses[receivedID]);
        }
        TeleporterMessageInput memory input = TeleporterMessageInput({
            destinationBlockchainID: sourceBlockchainID,
            destinationAddress: address(0),
            feeInfo: feeInfo,
            requiredGasLimit: 0,
            allowedRelayerAddresses: allowedRelayerAddresses,
            message: ""
        });
        return _send(input, receipts);
    }

    // ------------------------------------------------------------------ receiving

    function receiveCrossChainMessage(uint32 messageIndex, address relayerRewardAddress)
        external
        receiverNonReentrant
    {
        (WarpMessage memory warpMessage, bool valid) = WARP_MESSENGER.getVerifiedWarpMessage(messageIndex);
        require(valid, "TeleporterMessenger: invalid warp message");
        require(
            warpMessage.originSenderAddress == address(this), "TeleporterMessenger: invalid origin sender address"
        );
        TeleporterMessage memory message = abi.decode(warpMessage.payload, (TeleporterMessage));
        bytes32 ownID = initializeBlockchainID();
        require(message.destinationBlockchainID == ownID, "TeleporterMessenger: invalid destination chain ID");

        bytes32 sourceID = warpMessage.sourceChainID;
        bytes32 messageID = calculateMessageID(sourceID, ownID, message.messageNonce);
        require(_receivedMessageNonces[messageID] == 0, "TeleporterMessenger: message already received");
        require(_isAllowedRelayer(msg.sender, message.allowedRelayerAddresses), "TeleporterMessenger: unauthorized relayer");
        // A zero nonce could not be told apart from "not received".
        require(message.messageNonce != 0, "TeleporterMessenger: zero message nonce");
        _receivedMessageNonces[messageID] = message.messageNonce;
        if (relayerRewardAddress != address(0)) {
            _relayerRewardAddresses[messageID] = relayerRewardAddress;
        }

        // Receipts carried by this message acknowledge messages this chain sent to the source chain.
        for (uint256 i; i < message.receipts.length; ++i) {
            _settleReceipt(ownID, sourceID, message.receipts[i]);
        }
        ReceiptQueue storage queue = receiptQueues[sourceID];
        queue.data[queue.last++] = TeleporterMessageReceipt(message.messageNonce, relayerRewardAddress);

        emit ReceiveCrossChainMessage(messageID, sourceID, msg.sender, relayerRewardAddress, message);

        if (message.message.length > 0) {
            _executeOnDelivery(messageID, sourceID, message);
        }
    }

    /// Runs a received message whose execution failed, with all the gas the caller gives; a failure
    /// reverts, so it can be tried again.
    function retryMessageExecution(bytes32 sourceBlockchainID, TeleporterMessage calldata message)
        external
        receiverNonReentrant
    {
        bytes32 messageID = calculateMessageID(sourceBlockchainID, blockchainID, message.messageNonce);
        bytes32 failedHash = receivedFailedMessageHashes[messageID];
        require(failedHash != bytes32(0), "TeleporterMessenger: message not found");
        require(keccak256(abi.encode(message)) == failedHash, "TeleporterMessenger: invalid message hash");
        require(
            message.destinationAddress.code.length > 0, "TeleporterMessenger: destination address has no code"
        );
        // Cleared before the call, so the message can run successfully at most once.
        delete receivedFailedMessageHashes[messageID];
        emit MessageExecuted(messageID, sourceBlockchainID);
        bool ok = _callReceiver(
            message.destinationAddress,
            gasleft(),
            _receiverCalldata(sourceBlockchainID, message.originSenderAddress, message.message)
        );
        require(ok, "TeleporterMessenger: retry execution failed");
    }

    // ------------------------------------------------------------------ relayer rewards

    function redeemRelayerRewards(address feeAsset) external {
        uint256 amount = _relayerRewardAmounts[msg.sender][feeAsset];
        require(amount > 0, "TeleporterMessenger: no reward to redeem");
        delete _relayerRewardAmounts[msg.sender][feeAsset];
        emit RelayerRewardsRedeemed(msg.sender, feeAsset, amount);
        _callToken(feeAsset, abi.encodeCall(IERC20Fees.transfer, (msg.sender, amount)));
    }

    // ------------------------------------------------------------------ views

    function getMessageHash(bytes32 messageID) external view returns (bytes32) {
        return sentMessageInfo[messageID].messageHash;
    }

    function messageReceived(bytes32 messageID) external view returns (bool) {
        return _receivedMessageNonces[messageID] != 0;
    }

    function getRelayerRewardAddress(bytes32 messageID) external view returns (address) {
        require(_receivedMessageNonces[messageID] != 0, "TeleporterMessenger: message not received");
        return _relayerRewardAddresses[messageID];
    }

    function checkRelayerRewardAmount(address relayer, address feeAsset) external view returns (uint256) {
        return _relayerRewardAmounts[relayer][feeAsset];
    }

    function getFeeInfo(bytes32 messageID) external view returns (address, uint256) {
        TeleporterFeeInfo storage fee = sentMessageInfo[messageID].feeInfo;
        return (fee.feeTokenAddress, fee.amount);
    }

    function getNextMessageID(bytes32 destinationBlockchainID) external view returns (bytes32) {
        bytes32 ownID = blockchainID;
        require(ownID != bytes32(0), "TeleporterMessenger: zero blockchain ID");
        return calculateMessageID(ownID, destinationBlockchainID, messageNonce + 1);
    }

    function getReceiptQueueSize(bytes32 sourceBlockchainID) external view returns (uint256) {
        ReceiptQueue storage queue = receiptQueues[sourceBlockchainID];
        return queue.last - queue.first;
    }

    function getReceiptAtIndex(bytes32 sourceBlockchainID, uint256 index)
        external
        view
        returns (TeleporterMessageReceipt memory)
    {
        ReceiptQueue storage queue = receiptQueues[sourceBlockchainID];
        require(index < queue.last - queue.first, "ReceiptQueue: index out of bounds");
        return queue.data[queue.first + index];
    }

    /// Reads this chain's blockchain ID from the Warp precompile once, then keeps it.
    function initializeBlockchainID() public returns (bytes32) {
        bytes32 ownID = blockchainID;
        if (ownID == bytes32(0)) {
            ownID = WARP_MESSENGER.getBlockchainID();
            require(ownID != bytes32(0), "TeleporterMessenger: zero blockchain ID");
            blockchainID = ownID;
            emit BlockchainIDInitialized(ownID);
        }
        return ownID;
    }

    function calculateMessageID(bytes32 sourceBlockchainID, bytes32 destinationBlockchainID, uint256 nonce)
        public
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(address(this), sourceBlockchainID, destinationBlockchainID, nonce));
    }

    // ------------------------------------------------------------------ internals

    function _send(TeleporterMessageInput memory input, TeleporterMessageReceipt[] memory receipts)
        private
        returns (bytes32 messageID)
    {
        bytes32 ownID = initializeBlockchainID();
        uint256 nonce = ++messageNonce;
        messageID = calculateMessageID(ownID, input.destinationBlockchainID, nonce);
        TeleporterMessage memory message = TeleporterMessage({
            messageNonce: nonce,
            originSenderAddress: msg.sender,
            destinationBlockchainID: input.destinationBlockchainID,
            destinationAddress: input.destinationAddress,
            requiredGasLimit: input.requiredGasLimit,
            allowedRelayerAddresses: input.allowedRelayerAddresses,
            receipts: receipts,
            message: input.message
        });
        bytes memory encoded = abi.encode(message);

        // A zero fee is allowed (self-relaying); a non-zero one is recorded as what actually arrived.
        TeleporterFeeInfo memory fee = TeleporterFeeInfo(input.feeInfo.feeTokenAddress, 0);
        if (input.feeInfo.amount > 0) {
            require(fee.feeTokenAddress != address(0), "TeleporterMessenger: zero fee asset contract address");
            fee.amount = _pullFee(fee.feeTokenAddress, input.feeInfo.amount);
        }
        sentMessageInfo[messageID] = SentMessageInfo(keccak256(encoded), fee);

        emit SendCrossChainMessage(messageID, input.destinationBlockchainID, message, fee);
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    function _dequeueReceipts(ReceiptQueue storage queue) private returns (TeleporterMessageReceipt[] memory receipts) {
        uint256 first = queue.first;
        uint256 count = queue.last - first;
        if (count > _MAX_RECEIPTS_PER_MESSAGE) {
            count = _MAX_RECEIPTS_PER_MESSAGE;
        }
        receipts = new TeleporterMessageReceipt[](count);
        for (uint256 i; i < count; ++i) {
            receipts[i] = queue.data[first + i];
            delete queue.data[first + i];
        }
        queue.first = first + count;
    }

    /// Pays the relayer named in a receipt for a message this chain sent; an unknown message or a
    /// repeated receipt is ignored.
    function _settleReceipt(bytes32 ownID, bytes32 destinationID, TeleporterMessageReceipt memory receipt) private {
        bytes32 messageID = calculateMessageID(ownID, destinationID, receipt.receivedMessageNonce);
        SentMessageInfo memory info = sentMessageInfo[messageID];
        if (info.messageHash == bytes32(0)) {
            return;
        }
        delete sentMessageInfo[messageID];
        _relayerRewardAmounts[receipt.relayerRewardAddress][info.feeInfo.feeTokenAddress] += info.feeInfo.amount;
        emit ReceiptReceived(messageID, destinationID, receipt.relayerRewardAddress, info.feeInfo);
    }

    /// The relayer must provide requiredGasLimit (else the whole delivery reverts); anything that
    /// goes wrong inside the receiver only marks the message for retryMessageExecution.
    function _executeOnDelivery(bytes32 messageID, bytes32 sourceID, TeleporterMessage memory message) private {
        require(gasleft() >= message.requiredGasLimit, "TeleporterMessenger: insufficient gas");
        bool ok = message.destinationAddress.code.length > 0
            && _callReceiver(
                message.destinationAddress,
                message.requiredGasLimit,
                _receiverCalldata(sourceID, message.originSenderAddress, message.message)
            );
        if (ok) {
            emit MessageExecuted(messageID, sourceID);
        } else {
            receivedFailedMessageHashes[messageID] = keccak256(abi.encode(message));
            emit MessageExecutionFailed(messageID, sourceID, message);
        }
    }

    function _receiverCalldata(bytes32 sourceID, address originSender, bytes memory payload)
        private
        pure
        returns (bytes memory)
    {
        return abi.encodeCall(ITeleporterReceiver.receiveTeleporterMessage, (sourceID, originSender, payload));
    }

    /// A call with exactly `gasLimit` gas that never copies return data, so a receiver cannot make
    /// the messenger pay for a huge return value.
    function _callReceiver(address target, uint256 gasLimit, bytes memory data) private returns (bool ok) {
        assembly ("memory-safe") {
            ok := call(gasLimit, target, 0, add(data, 0x20), mload(data), 0, 0)
        }
    }

    function _isAllowedRelayer(address deliverer, address[] memory allowed) private pure returns (bool) {
        if (allowed.length == 0) {
            return true;
        }
        for (uint256 i; i < allowed.length; ++i) {
            if (allowed[i] == deliverer) {
                return true;
            }
        }
        return false;
    }

    /// transferFrom the caller, measured as the change of this contract's balance, so fee-on-transfer
    /// tokens credit only what arrived.
    function _pullFee(address token, uint256 amount) private returns (uint256 received) {
        uint256 before = IERC20Fees(token).balanceOf(address(this));
        _callToken(token, abi.encodeCall(IERC20Fees.transferFrom, (msg.sender, address(this), amount)));
        uint256 afterwards = IERC20Fees(token).balanceOf(address(this));
        require(afterwards > before, "SafeERC20TransferFrom: balance not increased");
        received = afterwards - before;
    }

    /// An ERC-20 call that accepts tokens returning nothing as well as those returning true.
    function _callToken(address token, bytes memory data) private {
        (bool ok, bytes memory result) = token.call(data);
        if (!ok) {
            if (result.length > 0) {
                assembly ("memory-safe") {
                    revert(add(result, 0x20), mload(result))
                }
            }
            revert("SafeERC20: low-level call failed");
        }
        if (result.length == 0) {
            require(token.code.length > 0, "Address: call to non-contract");
        } else {
            require(abi.decode(result, (bool)), "SafeERC20: ERC20 operation did not succeed");
        }
    }
}
