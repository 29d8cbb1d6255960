"""simnode's TeleporterMessenger on simnode's EVM engine (py-evm under AvalancheVM's rules).

calculateMessageID runs on a plain C-Chain state. Everything else runs with the real Warp
precompile (simnode/vms/evm/precompiles/warp.py). Two sandboxes with different blockchain IDs play
two chains; "delivering" a message takes the payload the source's precompile logged, signs it as a
Warp message from the source's messenger and sends the destination's messenger
receiveCrossChainMessage with it as predicate 0 in the access list, as a relayer does. Signature
checks and failed predicates are the block builder's: tests/unit/test_warp_precompile.py and the
node's integration tests cover those.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from eth._utils.address import generate_contract_address
from eth.exceptions import Revert
from eth.vm.spoof import SpoofTransaction
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simnode.crypto import bls
from simnode.crypto.hashing import keccak256
from simnode.icm import events as ev
from simnode.icm.artifacts import MESSENGER_DEPLOYER_ADDRESS, load_artifact, messenger_genesis_alloc
from simnode.icm.messages import (
    MESSENGER_ADDRESS,
    NO_FEE,
    TeleporterFeeInfo,
    TeleporterMessage,
    TeleporterMessageInput,
    TeleporterMessageReceipt,
    add_fee_amount_calldata,
    decode_message,
    encode_message,
    message_hash,
    message_id,
    receive_cross_chain_message_calldata,
    redeem_relayer_rewards_calldata,
    retry_message_execution_calldata,
    retry_send_cross_chain_message_calldata,
    send_cross_chain_message_calldata,
    send_specified_receipts_calldata,
)
from simnode.vms.evm import predicates
from simnode.vms.evm.execution import CallArgs, Executor
from simnode.vms.evm.vmerrors import revert_message
from simnode.vms.evm.precompiles import warp
from simnode.vms.evm.precompiles.vmclasses import vm_class_for
from simnode.vms.evm.rules import AvalancheVM
from simnode.warp import signatures
from simnode.warp.message import UnsignedMessage, parse_unsigned_message
from simnode.warp.payload import AddressedCall, parse_addressed_call

from .test_evm_engine import EWOQ_ADDR, make_chain

WARP = bytes.fromhex("0200000000000000000000000000000000000005")
FEE_TOKEN_BURNING = bytes.fromhex("fee0" * 10)  # a stand-in ERC-20 that burns 10% of each transferFrom
CHAIN_A = bytes.fromhex("a1" * 32)
CHAIN_B = bytes.fromhex("b2" * 32)
ALICE = EWOQ_ADDR
RELAYER = bytes.fromhex("77" * 20)
REWARD = bytes.fromhex("88" * 20)
NOBODY = bytes.fromhex("99" * 20)
GAS = 8_000_000
TOKEN = json.loads((Path(__file__).parents[1] / "contracts" / "Token.json").read_text())


def sel(signature: str) -> bytes:
    return keccak256(signature.encode())[:4]


SEND_WARP_MESSAGE_TOPIC = keccak256(b"SendWarpMessage(address,bytes32,bytes)")
NETWORK_ID = 12345
SIGNER = bls.secret_key_from_seed(b"icm messenger test signer".ljust(32, b"."))


def signed_delivery(source_id: bytes, origin: bytes, payload: bytes) -> bytes:
    """A Warp message from `origin` on `source_id`, signed by one validator (the precompile only
    reads it: whether its signature holds is the block builder's question, test_warp_precompile.py)."""
    unsigned = UnsignedMessage(NETWORK_ID, source_id, AddressedCall(origin, payload).encode())
    return signatures.sign_aggregate({0: SIGNER}, unsigned)[1].encoded


def burning_token(computation: Any) -> Any:
    """Test-only fee-on-transfer ERC-20 at FEE_TOKEN_BURNING: balances in its own storage (slot =
    the address), no allowances; transferFrom delivers 90% and burns the rest."""
    state, data, me = computation.state, computation.msg.data_as_bytes, FEE_TOKEN_BURNING

    def move(src: bytes, dst: bytes, amount: int, burn: int) -> None:
        have = state.get_storage(me, int.from_bytes(src, "big"))
        if have < amount:
            raise Revert(b"")
        state.set_storage(me, int.from_bytes(src, "big"), have - amount)
        slot = int.from_bytes(dst, "big")
        state.set_storage(me, slot, state.get_storage(me, slot) + amount - burn)

    head, args = data[:4], data[4:]
    if head == sel("balanceOf(address)"):
        (who,) = abi_decode(["address"], args)
        computation.output = abi_encode(["uint256"], [state.get_storage(me, int(who, 16))])
        return computation
    if head == sel("transferFrom(address,address,uint256)"):
        src, dst, amount = abi_decode(["address", "address", "uint256"], args)
        move(bytes.fromhex(src[2:]), bytes.fromhex(dst[2:]), amount, amount // 10)
    elif head == sel("transfer(address,uint256)"):
        dst, amount = abi_decode(["address", "uint256"], args)
        move(computation.msg.sender, bytes.fromhex(dst[2:]), amount, 0)
    else:
        raise Revert(b"")
    computation.output = abi_encode(["bool"], [True])
    return computation


@dataclass
class Result:
    ok: bool
    output: bytes
    error: str
    logs: list[tuple[bytes, list[bytes], bytes]]

    def events(self) -> list[Any]:
        """The messenger's logs, decoded."""
        return [ev.decode_event(topics, data) for addr, topics, data in self.logs if addr == MESSENGER_ADDRESS]

    def sent_payloads(self) -> list[bytes]:
        """The payloads the messenger handed to sendWarpMessage, read back from the precompile's
        SendWarpMessage logs (the full unsigned message, its ID as topic 2)."""
        out = []
        for addr, topics, data in self.logs:
            if addr == WARP and topics[0] == SEND_WARP_MESSAGE_TOPIC:
                (raw,) = abi_decode(["bytes"], data)
                unsigned = parse_unsigned_message(raw)
                assert topics[2] == unsigned.id and unsigned.network_id == NETWORK_ID
                call = parse_addressed_call(unsigned.payload)
                assert topics[1] == call.source_address.rjust(32, b"\x00") == MESSENGER_ADDRESS.rjust(32, b"\x00")
                out.append(call.payload)
        return out


class Sandbox:
    """One chain: a fresh EVM state on simnode's engine with the real Warp precompile (this
    chain's ID), the messenger placed from its genesis alloc, and the burning token."""

    def __init__(self, blockchain_id: bytes) -> None:
        with_warp = vm_class_for(AvalancheVM, (warp.MODULE,))
        state_class = with_warp._state_class
        precompiles = {**state_class.computation_class._precompiles, FEE_TOKEN_BURNING: burning_token}
        computation = state_class.computation_class.configure(__name__="BurningTokenComputation",
                                                              _precompiles=precompiles)
        vm = with_warp.configure(__name__="SandboxVM", _state_class=state_class.configure(
            __name__="SandboxState", computation_class=computation))
        self.state = Executor(make_chain()).build_state(None, True, vm_class=vm)
        self.state.warp_identity = warp.Identity(NETWORK_ID, blockchain_id, b"\x00" * 32)
        self.state.set_nonce(WARP, 1)
        self.state.set_code(WARP, b"\x01")
        for addr, acct in messenger_genesis_alloc().items():
            a = bytes.fromhex(addr[2:])
            self.state.set_nonce(a, int(acct["nonce"], 16))
            if "code" in acct:
                self.state.set_code(a, bytes.fromhex(acct["code"][2:]))
            for slot, value in acct.get("storage", {}).items():
                self.state.set_storage(a, int(slot, 16), int(value, 16))
        self.state.set_nonce(FEE_TOKEN_BURNING, 1)  # not "empty", so EIP-161 keeps its storage
        self.state.set_storage(FEE_TOKEN_BURNING, int.from_bytes(ALICE, "big"), 10**21)

    def tx(self, to: bytes | None, data: bytes, sender: bytes = ALICE, gas: int = GAS,
           predicate: bytes | None = None) -> Result:
        """`predicate`: a signed Warp message carried in the access list (predicate 0)."""
        if predicate is None:
            utx = AvalancheVM.create_unsigned_transaction(nonce=self.state.get_nonce(sender), gas_price=0, gas=gas,
                                                          to=to if to is not None else b"", value=0, data=data)
        else:
            utx = AvalancheVM.get_transaction_builder().new_unsigned_access_list_transaction(
                chain_id=43112, nonce=self.state.get_nonce(sender), gas_price=0, gas=gas, to=to, value=0, data=data,
                access_list=((WARP, tuple(int.from_bytes(c, "big") for c in predicates.encode(predicate))),))
        comp = self.state.apply_transaction(SpoofTransaction(utx, from_=sender))
        error = ""
        if comp.is_error:
            error = revert_message(comp.output) if isinstance(comp.error, Revert) else repr(comp.error)
        logs = [(addr, [t.to_bytes(32, "big") for t in topics], data) for addr, topics, data in comp.get_log_entries()]
        # both reentrancy guards are back at NOT_ENTERED after every transaction, whatever happened
        assert [self.state.get_storage(MESSENGER_ADDRESS, s) for s in (0, 1)] == [1, 1]
        return Result(not comp.is_error, comp.output, error, logs)

    def ok(self, to: bytes | None, data: bytes, sender: bytes = ALICE, gas: int = GAS) -> Result:
        res = self.tx(to, data, sender, gas)
        assert res.ok, res.error
        return res

    def view(self, signature: str, args: list[Any], outputs: list[str], to: bytes = MESSENGER_ADDRESS) -> Any:
        """A getter with plain (non-tuple) parameters; one output comes back bare."""
        types = signature[signature.index("(") + 1:-1]
        data = sel(signature) + abi_encode(types.split(",") if types else [], args)
        out = abi_decode(outputs, self.ok(to, data).output)
        return out[0] if len(out) == 1 else out

    def deploy(self, creation: bytes, sender: bytes = ALICE) -> bytes:
        nonce = self.state.get_nonce(sender)
        self.ok(None, creation, sender)
        return generate_contract_address(sender, nonce)

    def send(self, message_input: TeleporterMessageInput,
             sender: bytes = ALICE) -> tuple[ev.SendCrossChainMessage, bytes]:
        """Sends; the SendCrossChainMessage event and the payload handed to Warp."""
        res = self.ok(MESSENGER_ADDRESS, send_cross_chain_message_calldata(message_input), sender)
        sent = [e for e in res.events() if isinstance(e, ev.SendCrossChainMessage)]
        assert len(sent) == 1 and res.sent_payloads() == [encode_message(sent[0].message)]
        assert abi_decode(["bytes32"], res.output)[0] == sent[0].message_id
        return sent[0], res.sent_payloads()[0]

    def deliver(self, source_id: bytes, payload: bytes, relayer: bytes = RELAYER, reward: bytes = REWARD,
                gas: int = GAS, origin: bytes = MESSENGER_ADDRESS) -> Result:
        return self.tx(MESSENGER_ADDRESS, receive_cross_chain_message_calldata(0, reward), relayer, gas,
                       signed_delivery(source_id, origin, payload))


def msg_input(dst: bytes = b"\x42" * 20, chain: bytes = CHAIN_B, payload: bytes = b"hello", gas: int = 100_000,
              fee: TeleporterFeeInfo = NO_FEE, relayers: tuple[bytes, ...] = ()) -> TeleporterMessageInput:
    return TeleporterMessageInput(chain, dst, fee, gas, relayers, payload)


def kinds(res: Result) -> list[str]:
    return [type(e).__name__ for e in res.events()]


# ------------------------------------------------------------------------------- message IDs


@cache
def _plain_chain() -> Any:
    chain = make_chain()
    chain.edit_state(lambda s: s.set_code(MESSENGER_ADDRESS, load_artifact("TeleporterMessenger").runtime_code))
    return chain


ids = st.binary(min_size=32, max_size=32)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ids, ids, st.integers(0, 2**256 - 1))
def test_calculate_message_id_on_evm_equals_codec(src: bytes, dst: bytes, nonce: int):
    chain = _plain_chain()
    data = sel("calculateMessageID(bytes32,bytes32,uint256)") + abi_encode(["bytes32", "bytes32", "uint256"],
                                                                            [src, dst, nonce])
    out = Executor(chain).call(CallArgs(ALICE, MESSENGER_ADDRESS, None, None, None, None, 0, data, None, None), None)
    assert out == message_id(src, dst, nonce)


def test_genesis_alloc_matches_a_real_deployment():
    box = Sandbox(CHAIN_A)
    art = load_artifact("TeleporterMessenger")
    deployed = box.deploy(art.creation_code)
    assert box.state.get_code(deployed) == art.runtime_code == box.state.get_code(MESSENGER_ADDRESS)
    for slot in range(10):
        assert box.state.get_storage(deployed, slot) == box.state.get_storage(MESSENGER_ADDRESS, slot)
    assert box.state.get_nonce(deployed) == box.state.get_nonce(MESSENGER_ADDRESS) == 1
    assert box.state.get_nonce(MESSENGER_DEPLOYER_ADDRESS) == 1


# ------------------------------------------------------------------------------- sending


def test_send_ids_nonces_events_and_stored_hash():
    a = Sandbox(CHAIN_A)
    assert a.tx(MESSENGER_ADDRESS, sel("getNextMessageID(bytes32)") + CHAIN_B).error == \
        "execution reverted: TeleporterMessenger: zero blockchain ID"
    first_res = a.ok(MESSENGER_ADDRESS, send_cross_chain_message_calldata(msg_input()))
    assert kinds(first_res) == ["BlockchainIDInitialized", "SendCrossChainMessage"]
    assert first_res.events()[0] == ev.BlockchainIDInitialized(CHAIN_A)
    first = first_res.events()[1]
    assert first.message_id == message_id(CHAIN_A, CHAIN_B, 1)
    assert first.destination_blockchain_id == CHAIN_B and first.fee_info == NO_FEE
    assert first.message == TeleporterMessage(1, ALICE, CHAIN_B, b"\x42" * 20, 100_000, (), (), b"hello")
    assert decode_message(first_res.sent_payloads()[0]) == first.message
    assert a.view("getMessageHash(bytes32)", [first.message_id], ["bytes32"]) == message_hash(first.message)
    assert a.view("blockchainID()", [], ["bytes32"]) == CHAIN_A

    # one global nonce across destinations, announced by getNextMessageID
    expected = a.view("getNextMessageID(bytes32)", [CHAIN_A], ["bytes32"])
    second, _ = a.send(msg_input(chain=CHAIN_A, relayers=(RELAYER, NOBODY)))
    assert second.message_id == expected == message_id(CHAIN_A, CHAIN_A, 2)
    assert second.message.allowed_relayer_addresses == (RELAYER, NOBODY)
    assert a.view("messageNonce()", [], ["uint256"]) == 2


def test_send_without_blockchain_id_reverts():
    a = Sandbox(b"\x00" * 32)
    res = a.tx(MESSENGER_ADDRESS, send_cross_chain_message_calldata(msg_input()))
    assert res.error == "execution reverted: TeleporterMessenger: zero blockchain ID"
    assert a.view("messageNonce()", [], ["uint256"]) == 0


def test_fee_in_a_plain_erc20_then_added():
    a = Sandbox(CHAIN_A)
    token = a.deploy(bytes.fromhex(TOKEN["bytecode"][2:]) + abi_encode(["string", "string", "uint256"],
                                                                      ["Fee", "FEE", 10**24]))
    a.ok(token, sel("approve(address,uint256)") + abi_encode(["address", "uint256"], [MESSENGER_ADDRESS, 10**20]))
    sent, _ = a.send(msg_input(fee=TeleporterFeeInfo(token, 1000)))
    assert sent.fee_info == TeleporterFeeInfo(token, 1000)
    assert a.view("balanceOf(address)", [MESSENGER_ADDRESS], ["uint256"], to=token) == 1000

    added = a.ok(MESSENGER_ADDRESS, add_fee_amount_calldata(sent.message_id, token, 500))
    assert added.events() == [ev.AddFeeAmount(sent.message_id, TeleporterFeeInfo(token, 1500))]
    assert a.view("getFeeInfo(bytes32)", [sent.message_id], ["address", "uint256"]) == (
        "0x" + token.hex(), 1500)
    for args, reason in [
        ((sent.message_id, token, 0), "zero additional fee amount"),
        ((sent.message_id, b"\x00" * 20, 5), "zero fee asset contract address"),
        ((sent.message_id, FEE_TOKEN_BURNING, 5), "invalid fee asset contract address"),
        ((b"\x01" * 32, token, 5), "message not found"),
    ]:
        assert a.tx(MESSENGER_ADDRESS, add_fee_amount_calldata(*args)).error == \
            f"execution reverted: TeleporterMessenger: {reason}"
    no_token = a.tx(MESSENGER_ADDRESS, send_cross_chain_message_calldata(
        msg_input(fee=TeleporterFeeInfo(b"\x00" * 20, 1))))
    assert no_token.error == "execution reverted: TeleporterMessenger: zero fee asset contract address"


def test_fee_on_transfer_token_records_what_arrived():
    a = Sandbox(CHAIN_A)
    sent, _ = a.send(msg_input(fee=TeleporterFeeInfo(FEE_TOKEN_BURNING, 1000)))
    assert sent.fee_info == TeleporterFeeInfo(FEE_TOKEN_BURNING, 900)
    added = a.ok(MESSENGER_ADDRESS, add_fee_amount_calldata(sent.message_id, FEE_TOKEN_BURNING, 100))
    assert added.events() == [ev.AddFeeAmount(sent.message_id, TeleporterFeeInfo(FEE_TOKEN_BURNING, 990))]


def test_retry_send_re_emits_the_same_bytes():
    a = Sandbox(CHAIN_A)
    sent, payload = a.send(msg_input())
    again = a.ok(MESSENGER_ADDRESS, retry_send_cross_chain_message_calldata(sent.message))
    assert again.events() == [sent] and again.sent_payloads() == [payload]
    forged = TeleporterMessage(**{**_fields(sent.message), "message": b"other"})
    assert a.tx(MESSENGER_ADDRESS, retry_send_cross_chain_message_calldata(forged)).error == \
        "execution reverted: TeleporterMessenger: invalid message hash"
    unknown = TeleporterMessage(**{**_fields(sent.message), "message_nonce": 9})
    assert a.tx(MESSENGER_ADDRESS, retry_send_cross_chain_message_calldata(unknown)).error == \
        "execution reverted: TeleporterMessenger: message not found"


def _fields(m: TeleporterMessage) -> dict[str, Any]:
    return {name: getattr(m, name) for name in TeleporterMessage.__slots__}


# ------------------------------------------------------------------------------- receiving


def test_deliver_records_receipt_and_runs_the_receiver_with_exact_gas():
    a, b = Sandbox(CHAIN_A), Sandbox(CHAIN_B)
    probe = bytes.fromhex("5a5f5500")  # GAS PUSH0 SSTORE STOP: stores the gas it was called with
    target = bytes.fromhex("ab" * 20)
    b.state.set_code(target, probe)
    sent, payload = a.send(msg_input(dst=target, gas=77_777))
    res = b.deliver(CHAIN_A, payload)
    assert res.ok, res.error
    assert kinds(res) == ["BlockchainIDInitialized", "ReceiveCrossChainMessage", "MessageExecuted"]
    received = res.events()[1]
    assert received == ev.ReceiveCrossChainMessage(sent.message_id, CHAIN_A, RELAYER, REWARD, sent.message)
    assert res.events()[2] == ev.MessageExecuted(sent.message_id, CHAIN_A)
    assert b.state.get_storage(target, 0) == 77_777 - 2  # GAS itself costs 2
    assert b.view("messageReceived(bytes32)", [sent.message_id], ["bool"]) is True
    assert b.view("getRelayerRewardAddress(bytes32)", [sent.message_id], ["address"]) == "0x" + REWARD.hex()
    assert b.view("getReceiptQueueSize(bytes32)", [CHAIN_A], ["uint256"]) == 1
    assert b.view("getReceiptAtIndex(bytes32,uint256)", [CHAIN_A, 0], ["(uint256,address)"]) == (
        1, "0x" + REWARD.hex())
    assert b.view("receiptQueues(bytes32)", [CHAIN_A], ["uint256", "uint256"]) == (0, 1)


@pytest.mark.parametrize("case, reason", [
    ("no message", "invalid warp message"),
    ("wrong origin", "invalid origin sender address"),
    ("wrong destination", "invalid destination chain ID"),
    ("replay", "message already received"),
    ("unauthorized relayer", "unauthorized relayer"),
    ("short of required gas", "insufficient gas"),
    ("zero nonce", "zero message nonce"),
])
def test_deliveries_the_messenger_rejects(case: str, reason: str):
    a, b = Sandbox(CHAIN_A), Sandbox(CHAIN_B)
    sent, payload = a.send(msg_input(relayers=(RELAYER,) if case == "unauthorized relayer" else (),
                                     gas=2_000_000 if case == "short of required gas" else 100_000))
    if case == "no message":
        res = b.tx(MESSENGER_ADDRESS, receive_cross_chain_message_calldata(0, REWARD), RELAYER)
    elif case == "wrong origin":
        res = b.deliver(CHAIN_A, payload, origin=ALICE)
    elif case == "wrong destination":
        res = Sandbox(bytes.fromhex("c3" * 32)).deliver(CHAIN_A, payload)
    elif case == "replay":
        assert b.deliver(CHAIN_A, payload).ok
        res = b.deliver(CHAIN_A, payload)
    elif case == "unauthorized relayer":
        res = b.deliver(CHAIN_A, payload, relayer=NOBODY)
        assert b.deliver(CHAIN_A, payload, relayer=RELAYER).ok  # the allowed one may
    elif case == "short of required gas":
        res = b.deliver(CHAIN_A, payload, gas=1_000_000)
    else:
        zero = TeleporterMessage(**{**_fields(sent.message), "message_nonce": 0})
        res = b.deliver(CHAIN_A, encode_message(zero))
    assert res.error == f"execution reverted: TeleporterMessenger: {reason}"


def test_failed_execution_and_its_retry():
    a, b = Sandbox(CHAIN_A), Sandbox(CHAIN_B)
    target = bytes.fromhex("cd" * 20)
    sent, payload = a.send(msg_input(dst=target))
    res = b.deliver(CHAIN_A, payload)
    assert res.ok and kinds(res)[-1] == "MessageExecutionFailed"  # no code there: kept for a retry
    assert res.events()[-1] == ev.MessageExecutionFailed(sent.message_id, CHAIN_A, sent.message)
    assert b.view("receivedFailedMessageHashes(bytes32)", [sent.message_id], ["bytes32"]) == message_hash(sent.message)

    retry = retry_message_execution_calldata(CHAIN_A, sent.message)
    assert b.tx(MESSENGER_ADDRESS, retry).error == \
        "execution reverted: TeleporterMessenger: destination address has no code"
    b.state.set_code(target, bytes.fromhex("60006000fd"))  # REVERT(0, 0)
    assert b.tx(MESSENGER_ADDRESS, retry).error == "execution reverted: TeleporterMessenger: retry execution failed"
    forged = TeleporterMessage(**{**_fields(sent.message), "required_gas_limit": 1})
    assert b.tx(MESSENGER_ADDRESS, retry_message_execution_calldata(CHAIN_A, forged)).error == \
        "execution reverted: TeleporterMessenger: invalid message hash"

    b.state.set_code(target, bytes.fromhex("5a5f5500"))
    done = b.ok(MESSENGER_ADDRESS, retry, sender=NOBODY)
    assert done.events() == [ev.MessageExecuted(sent.message_id, CHAIN_A)]
    assert b.state.get_storage(target, 0) > 7_000_000  # a retry forwards all remaining gas
    assert b.view("receivedFailedMessageHashes(bytes32)", [sent.message_id], ["bytes32"]) == b"\x00" * 32
    assert b.tx(MESSENGER_ADDRESS, retry).error == "execution reverted: TeleporterMessenger: message not found"


def test_receiver_running_out_of_its_gas_limit_fails_but_delivers():
    a, b = Sandbox(CHAIN_A), Sandbox(CHAIN_B)
    target = bytes.fromhex("ce" * 20)
    b.state.set_code(target, bytes.fromhex("5b600056"))  # JUMPDEST PUSH1 0 JUMP: loops until out of gas
    sent, payload = a.send(msg_input(dst=target, gas=50_000))
    res = b.deliver(CHAIN_A, payload)
    assert res.ok and kinds(res)[-2:] == ["ReceiveCrossChainMessage", "MessageExecutionFailed"]
    assert b.view("messageReceived(bytes32)", [sent.message_id], ["bool"]) is True


# ------------------------------------------------------------------------------- receipts and rewards


def test_at_most_five_receipts_per_message_first_in_first_out():
    a, b = Sandbox(CHAIN_A), Sandbox(CHAIN_B)
    for n in range(7):
        _, payload = a.send(msg_input(payload=b""))
        assert b.deliver(CHAIN_A, payload, reward=bytes([n + 1]) * 20).ok
    assert b.view("getReceiptQueueSize(bytes32)", [CHAIN_A], ["uint256"]) == 7
    first, _ = b.send(msg_input(chain=CHAIN_A))
    assert first.message.receipts == tuple(TeleporterMessageReceipt(n, bytes([n]) * 20) for n in range(1, 6))
    assert b.view("getReceiptQueueSize(bytes32)", [CHAIN_A], ["uint256"]) == 2
    assert b.view("getReceiptAtIndex(bytes32,uint256)", [CHAIN_A, 0], ["(uint256,address)"])[0] == 6
    # v1's storage: receiptQueues (slot 4) -> {first, last, data}; sent receipts are deleted from data
    queue = int.from_bytes(keccak256(CHAIN_A + (4).to_bytes(32, "big")), "big")
    assert [b.state.get_storage(MESSENGER_ADDRESS, queue + i) for i in (0, 1)] == [5, 7]

    def stored_nonce(index: int) -> int:
        slot = keccak256(index.to_bytes(32, "big") + (queue + 2).to_bytes(32, "big"))
        return b.state.get_storage(MESSENGER_ADDRESS, int.from_bytes(slot, "big"))
    assert [stored_nonce(i) for i in range(7)] == [0, 0, 0, 0, 0, 6, 7]
    assert b.tx(MESSENGER_ADDRESS, sel("getReceiptAtIndex(bytes32,uint256)") + abi_encode(
        ["bytes32", "uint256"], [CHAIN_A, 2])).error == "execution reverted: ReceiptQueue: index out of bounds"
    second, _ = b.send(msg_input(chain=CHAIN_A))
    assert [r.received_message_nonce for r in second.message.receipts] == [6, 7]
    third, _ = b.send(msg_input(chain=CHAIN_A))
    assert third.message.receipts == ()


def test_receipt_pays_the_relayer_once_and_rewards_are_redeemed():
    a, b = Sandbox(CHAIN_A), Sandbox(CHAIN_B)
    token = a.deploy(bytes.fromhex(TOKEN["bytecode"][2:]) + abi_encode(["string", "string", "uint256"],
                                                                      ["Fee", "FEE", 10**24]))
    a.ok(token, sel("approve(address,uint256)") + abi_encode(["address", "uint256"], [MESSENGER_ADDRESS, 10**20]))
    sent, payload = a.send(msg_input(fee=TeleporterFeeInfo(token, 700)))
    assert b.deliver(CHAIN_A, payload, reward=REWARD).ok

    # B's next message to A carries the receipt; delivering it credits REWARD on A
    _, back = b.send(msg_input(chain=CHAIN_A, dst=b"\x00" * 20, payload=b""))
    res = a.deliver(CHAIN_B, back)
    assert res.ok and kinds(res) == ["ReceiptReceived", "ReceiveCrossChainMessage"]
    assert res.events()[0] == ev.ReceiptReceived(sent.message_id, CHAIN_B, REWARD, TeleporterFeeInfo(token, 700))
    assert a.view("checkRelayerRewardAmount(address,address)", [REWARD, token], ["uint256"]) == 700
    assert a.view("getMessageHash(bytes32)", [sent.message_id], ["bytes32"]) == b"\x00" * 32
    assert a.tx(MESSENGER_ADDRESS, retry_send_cross_chain_message_calldata(sent.message)).error == \
        "execution reverted: TeleporterMessenger: message not found"

    # the same receipt again (sendSpecifiedReceipts) pays nothing more
    spec = b.ok(MESSENGER_ADDRESS, send_specified_receipts_calldata(CHAIN_A, [sent.message_id], NO_FEE, []))
    (again,) = [e for e in spec.events() if isinstance(e, ev.SendCrossChainMessage)]
    assert again.message.receipts == (TeleporterMessageReceipt(1, REWARD),)
    assert (again.message.destination_address, again.message.required_gas_limit, again.message.message) == (
        b"\x00" * 20, 0, b"")
    assert kinds(a.deliver(CHAIN_B, spec.sent_payloads()[0])) == ["ReceiveCrossChainMessage"]
    assert a.view("checkRelayerRewardAmount(address,address)", [REWARD, token], ["uint256"]) == 700

    redeemed = a.ok(MESSENGER_ADDRESS, redeem_relayer_rewards_calldata(token), sender=REWARD)
    assert redeemed.events() == [ev.RelayerRewardsRedeemed(REWARD, token, 700)]
    assert a.view("balanceOf(address)", [REWARD], ["uint256"], to=token) == 700
    assert a.tx(MESSENGER_ADDRESS, redeem_relayer_rewards_calldata(token), sender=REWARD).error == \
        "execution reverted: TeleporterMessenger: no reward to redeem"


def test_send_specified_receipts_checks_its_ids():
    a, b = Sandbox(CHAIN_A), Sandbox(CHAIN_B)
    sent, payload = a.send(msg_input())
    assert b.deliver(CHAIN_A, payload).ok
    assert b.tx(MESSENGER_ADDRESS, send_specified_receipts_calldata(CHAIN_A, [b"\x05" * 32], NO_FEE, [])).error == \
        "execution reverted: TeleporterMessenger: receipt not found"
    assert b.tx(MESSENGER_ADDRESS, send_specified_receipts_calldata(CHAIN_B, [sent.message_id], NO_FEE, [])).error \
        == "execution reverted: TeleporterMessenger: message ID not from source blockchain"
    assert b.view("getReceiptQueueSize(bytes32)", [CHAIN_A], ["uint256"]) == 1  # specified receipts stay queued


def test_views_of_unknown_messages():
    b = Sandbox(CHAIN_B)
    unknown = b"\x07" * 32
    assert b.view("messageReceived(bytes32)", [unknown], ["bool"]) is False
    assert b.tx(MESSENGER_ADDRESS, sel("getRelayerRewardAddress(bytes32)") + unknown).error == \
        "execution reverted: TeleporterMessenger: message not received"
    assert b.view("getFeeInfo(bytes32)", [unknown], ["address", "uint256"]) == ("0x" + "00" * 20, 0)
    assert b.view("sentMessageInfo(bytes32)", [unknown], ["bytes32", "(address,uint256)"]) == (
        b"\x00" * 32, ("0x" + "00" * 20, 0))
    assert b.view("WARP_MESSENGER()", [], ["address"]) == "0x" + WARP.hex()


# ------------------------------------------------------------------------------- ping-pong


def test_ping_pong_between_two_chains():
    a, b = Sandbox(CHAIN_A), Sandbox(CHAIN_B)
    creation = load_artifact("PingPongReceiver").creation_code + abi_encode(["address"], [MESSENGER_ADDRESS])
    pa, pb = a.deploy(creation), b.deploy(creation)
    assert pa == pb  # same deployer and nonce on both chains
    ping_call = sel("ping(bytes32,address,string,uint256,uint256)") + abi_encode(
        ["bytes32", "address", "string", "uint256", "uint256"], [CHAIN_B, pb, "hi", 300_000, 200_000])
    sent = a.ok(pa, ping_call)
    (ping,) = sent.sent_payloads()

    at_b = b.deliver(CHAIN_A, ping)
    assert at_b.ok and kinds(at_b) == ["BlockchainIDInitialized", "ReceiveCrossChainMessage",
                                       "SendCrossChainMessage", "MessageExecuted"]
    pong_event = at_b.events()[2]
    assert pong_event.message.origin_sender_address == pb and pong_event.message.destination_address == pa
    assert pong_event.message.receipts == (TeleporterMessageReceipt(1, REWARD),)  # the ping's receipt rides back
    assert b.view("pingsReceived()", [], ["uint256"], to=pb) == 1

    at_a = a.deliver(CHAIN_B, at_b.sent_payloads()[0])
    assert at_a.ok and kinds(at_a) == ["ReceiptReceived", "ReceiveCrossChainMessage", "MessageExecuted"]
    assert a.view("pongsReceived()", [], ["uint256"], to=pa) == 1
    assert a.view("lastText()", [], ["string"], to=pa) == "hi"
    assert a.view("lastSourceBlockchainID()", [], ["bytes32"], to=pa) == CHAIN_B

    # only the messenger may call the receiver
    direct = a.tx(pa, sel("receiveTeleporterMessage(bytes32,address,bytes)") + abi_encode(
        ["bytes32", "address", "bytes"], [CHAIN_B, pb, abi_encode(["bool", "string", "uint256"], [True, "x", 0])]))
    assert direct.error == "execution reverted: PingPongReceiver: unauthorized messenger"
