"""The compiled ICM contracts against warp-icm.md §3: selectors (§3.4), event topics (§3.3), storage
layout (§3.1), and the artifacts reproducing byte for byte from the sources with the pinned solc-js."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simnode.crypto.hashing import keccak256
from simnode.icm import events, messages
from simnode.icm.artifacts import load_artifact

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = ROOT / "simnode" / "icm" / "contracts"
NODE_MODULES = ROOT / "tests" / "js" / "node_modules"
TM = "(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)"
FI = "(address,uint256)"

# warp-icm.md §3.4, the messenger's rows
SECTION_3_4 = {
    "62448850": "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
    "8245a1b0": f"retrySendCrossChainMessage({TM})",
    "8ac0fd04": "addFeeAmount(bytes32,address,uint256)",
    "ccb5f809": "receiveCrossChainMessage(uint32,address)",
    "fc2d6197": f"retryMessageExecution(bytes32,{TM})",
    "a9a85614": f"sendSpecifiedReceipts(bytes32,bytes32[],{FI},address[])",
    "22296c3a": "redeemRelayerRewards(address)",
    "399b77da": "getMessageHash(bytes32)",
    "ebc3b1ba": "messageReceived(bytes32)",
    "2e27c223": "getRelayerRewardAddress(bytes32)",
    "c473eef8": "checkRelayerRewardAmount(address,address)",
    "e69d606a": "getFeeInfo(bytes32)",
    "df20e8bc": "getNextMessageID(bytes32)",
    "2bc8b0bf": "getReceiptQueueSize(bytes32)",
    "892bf412": "getReceiptAtIndex(bytes32,uint256)",
    "a8898181": "calculateMessageID(bytes32,bytes32,uint256)",
    "0af5b4ff": "initializeBlockchainID()",
    "d127dc9b": "blockchainID()",
    "ecc70428": "messageNonce()",
}
# The public getters the published v1.0.0 ABI also has (its public constant and mappings).
V1_PUBLIC_GETTERS = {
    "b771b3bc": "WARP_MESSENGER()",
    "e6e67bd5": "receiptQueues(bytes32)",
    "860a3b06": "receivedFailedMessageHashes(bytes32)",
    "2ca40f55": "sentMessageInfo(bytes32)",
}
# Outputs and mutability as in the v1.0.0 ABI.
V1_OUTPUTS = {
    "sendCrossChainMessage": (["bytes32"], "nonpayable"),
    "retrySendCrossChainMessage": ([], "nonpayable"),
    "addFeeAmount": ([], "nonpayable"),
    "receiveCrossChainMessage": ([], "nonpayable"),
    "retryMessageExecution": ([], "nonpayable"),
    "sendSpecifiedReceipts": (["bytes32"], "nonpayable"),
    "redeemRelayerRewards": ([], "nonpayable"),
    "getMessageHash": (["bytes32"], "view"),
    "messageReceived": (["bool"], "view"),
    "getRelayerRewardAddress": (["address"], "view"),
    "checkRelayerRewardAmount": (["uint256"], "view"),
    "getFeeInfo": (["address", "uint256"], "view"),
    "getNextMessageID": (["bytes32"], "view"),
    "getReceiptQueueSize": (["uint256"], "view"),
    "getReceiptAtIndex": (["(uint256,address)"], "view"),
    "calculateMessageID": (["bytes32"], "view"),
    "initializeBlockchainID": (["bytes32"], "nonpayable"),
    "blockchainID": (["bytes32"], "view"),
    "messageNonce": (["uint256"], "view"),
    "WARP_MESSENGER": (["address"], "view"),
    "receiptQueues": (["uint256", "uint256"], "view"),
    "receivedFailedMessageHashes": (["bytes32"], "view"),
    "sentMessageInfo": (["bytes32", "(address,uint256)"], "view"),
}
# warp-icm.md §3.3: event -> (parameters as (type, indexed, name), topic0)
SECTION_3_3 = {
    "BlockchainIDInitialized": ([("bytes32", True, "blockchainID")],
                                "1eac640109dc937d2a9f42735a05f794b39a5e3759d681951d671aabbce4b104"),
    "SendCrossChainMessage": ([("bytes32", True, "messageID"), ("bytes32", True, "destinationBlockchainID"),
                               (TM, False, "message"), (FI, False, "feeInfo")],
                              "2a211ad4a59ab9d003852404f9c57c690704ee755f3c79d2c2812ad32da99df8"),
    "AddFeeAmount": ([("bytes32", True, "messageID"), (FI, False, "updatedFeeInfo")],
                     "c1bfd1f1208927dfbd414041dcb5256e6c9ad90dd61aec3249facbd34ff7b3e1"),
    "ReceiveCrossChainMessage": ([("bytes32", True, "messageID"), ("bytes32", True, "sourceBlockchainID"),
                                  ("address", True, "deliverer"), ("address", False, "rewardRedeemer"),
                                  (TM, False, "message")],
                                 "292ee90bbaf70b5d4936025e09d56ba08f3e421156b6a568cf3c2840d9343e34"),
    "MessageExecuted": ([("bytes32", True, "messageID"), ("bytes32", True, "sourceBlockchainID")],
                        "34795cc6b122b9a0ae684946319f1e14a577b4e8f9b3dda9ac94c21a54d3188c"),
    "MessageExecutionFailed": ([("bytes32", True, "messageID"), ("bytes32", True, "sourceBlockchainID"),
                                (TM, False, "message")],
                               "4619adc1017b82e02eaefac01a43d50d6d8de4460774bc370c3ff0210d40c985"),
    "ReceiptReceived": ([("bytes32", True, "messageID"), ("bytes32", True, "destinationBlockchainID"),
                         ("address", True, "relayerRewardAddress"), (FI, False, "feeInfo")],
                        "d13a7935f29af029349bed0a2097455b91fd06190a30478c575db3f31e00bf57"),
    "RelayerRewardsRedeemed": ([("address", True, "redeemer"), ("address", True, "asset"),
                                ("uint256", False, "amount")],
                               "3294c84e5b0f29d9803655319087207bc94f4db29f7927846944822773780b88"),
}
# warp-icm.md §3.1
SECTION_3_1 = ["_sendEntered", "_receiveEntered", "blockchainID", "messageNonce", "receiptQueues", "sentMessageInfo",
               "receivedFailedMessageHashes", "_receivedMessageNonces", "_relayerRewardAddresses",
               "_relayerRewardAmounts"]


def abi_type(param: dict) -> str:
    if param["type"].startswith("tuple"):
        return "(" + ",".join(abi_type(c) for c in param["components"]) + ")" + param["type"][len("tuple"):]
    return param["type"]


def signature(entry: dict) -> str:
    return entry["name"] + "(" + ",".join(abi_type(p) for p in entry["inputs"]) + ")"


def artifact_json(name: str) -> dict:
    return json.loads((CONTRACTS / f"{name}.json").read_text())


def test_messenger_functions_are_section_3_4_plus_the_v1_getters():
    art = load_artifact("TeleporterMessenger")
    functions = [e for e in art.abi if e["type"] == "function"]
    by_selector = {keccak256(signature(f).encode())[:4].hex(): signature(f) for f in functions}
    assert by_selector == {**SECTION_3_4, **V1_PUBLIC_GETTERS}
    assert {v: k for k, v in artifact_json("TeleporterMessenger")["methodIdentifiers"].items()} == by_selector
    for f in functions:
        assert ([abi_type(o) for o in f["outputs"]], f["stateMutability"]) == V1_OUTPUTS[f["name"]], f["name"]
    # no constructor arguments, no fallback or receive: nothing but the functions and events
    assert {e["type"] for e in art.abi} == {"constructor", "function", "event"}
    assert next(e for e in art.abi if e["type"] == "constructor")["inputs"] == []


def test_codec_selectors_are_the_contracts():
    assert messages.SEND_CROSS_CHAIN_MESSAGE.hex() == "62448850"
    assert messages.RECEIVE_CROSS_CHAIN_MESSAGE.hex() == "ccb5f809"
    assert messages.RETRY_SEND_CROSS_CHAIN_MESSAGE.hex() == "8245a1b0"
    assert messages.RETRY_MESSAGE_EXECUTION.hex() == "fc2d6197"
    assert messages.ADD_FEE_AMOUNT.hex() == "8ac0fd04"
    assert messages.SEND_SPECIFIED_RECEIPTS.hex() == "a9a85614"
    assert messages.REDEEM_RELAYER_REWARDS.hex() == "22296c3a"


def test_messenger_events_and_topics_are_section_3_3():
    art = load_artifact("TeleporterMessenger")
    found = {}
    for e in art.abi:
        if e["type"] == "event":
            assert e["anonymous"] is False
            params = [(abi_type(p), p["indexed"], p["name"]) for p in e["inputs"]]
            found[e["name"]] = (params, keccak256(signature(e).encode()).hex())
    assert found == SECTION_3_3
    codec = {"BlockchainIDInitialized": events.BLOCKCHAIN_ID_INITIALIZED,
             "SendCrossChainMessage": events.SEND_CROSS_CHAIN_MESSAGE, "AddFeeAmount": events.ADD_FEE_AMOUNT,
             "ReceiveCrossChainMessage": events.RECEIVE_CROSS_CHAIN_MESSAGE,
             "MessageExecuted": events.MESSAGE_EXECUTED, "MessageExecutionFailed": events.MESSAGE_EXECUTION_FAILED,
             "ReceiptReceived": events.RECEIPT_RECEIVED, "RelayerRewardsRedeemed": events.RELAYER_REWARDS_REDEEMED}
    assert {name: topic.hex() for name, topic in codec.items()} == {n: t for n, (_, t) in SECTION_3_3.items()}
    # every topic0 is a PUSH32 in the runtime code, as in the published bytecode
    for _, topic in SECTION_3_3.values():
        assert b"\x7f" + bytes.fromhex(topic) in art.runtime_code


def test_messenger_storage_layout_is_section_3_1():
    storage = load_artifact("TeleporterMessenger").storage_layout["storage"]
    assert [(s["label"], int(s["slot"]), s["offset"]) for s in storage] == [
        (label, slot, 0) for slot, label in enumerate(SECTION_3_1)]
    types = {s["label"]: s["type"] for s in storage}
    assert types["_sendEntered"] == types["_receiveEntered"] == types["messageNonce"] == "t_uint256"
    assert types["blockchainID"] == "t_bytes32"
    assert types["_relayerRewardAmounts"] == "t_mapping(t_address,t_mapping(t_address,t_uint256))"
    queue_type = load_artifact("TeleporterMessenger").storage_layout["types"][
        types["receiptQueues"].split(",", 1)[1][:-1]]
    assert [(m["label"], m["slot"]) for m in queue_type["members"]] == [("first", "0"), ("last", "1"), ("data", "2")]


def test_receiver_implements_the_callback():
    art = artifact_json("PingPongReceiver")
    assert art["methodIdentifiers"]["receiveTeleporterMessage(bytes32,address,bytes)"] == "c868efaa"


def test_artifacts_name_their_compiler_and_sources():
    for name in ("TeleporterMessenger", "PingPongReceiver"):
        art = artifact_json(name)
        built_from = art["sourceKeccak256"]
        assert f"{name}.sol" in built_from and "ITeleporterMessenger.sol" in built_from
        for source, digest in built_from.items():
            assert "0x" + keccak256((CONTRACTS / source).read_bytes()).hex() == digest, \
                f"{name}.json is stale ({source} changed): run scripts/compile_contracts.py"
        assert art["compiler"]["version"].startswith("0.8.37+")
        assert art["settings"]["evmVersion"] == "shanghai" and art["settings"]["optimizer"]["enabled"] is True
    assert len(load_artifact("TeleporterMessenger").runtime_code) <= 24_576  # EIP-170


def test_artifacts_reproduce_with_the_pinned_solc():
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    if not (NODE_MODULES / "solc" / "package.json").exists():
        pytest.skip("tests/js/node_modules has no solc: run `npm ci` in tests/js")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "compile_contracts.py"), "--check",
                           "--node-modules", str(NODE_MODULES)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "artifacts reproduce" in proc.stdout
