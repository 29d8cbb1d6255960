"""The P-Chain's Warp checks on RegisterL1ValidatorTx / SetL1ValidatorWeightTx, the messages its
validators agree to sign, and the aggregator core over a P-Chain VM."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pytest

from simnode.crypto import bls
from simnode.signing.aggregator import AggregationRefused, AggregationRequest, parse_message_input
from simnode.signing.justify import Refusal
from simnode.vms.platform import fees
from simnode.vms.platform.wallet import PBuilder, address_of
from simnode.vms.platform.state import EMPTY_NODE_ID
from simnode.vms.platform.vm import IssueError
from simnode.warp import acp77, signatures
from simnode.warp.errors import WarpError
from simnode.warp.justification import SubnetIDIndex, encode_justification
from simnode.warp.message import BitSetSignature, SignedMessage, UnsignedMessage
from simnode.warp.payload import AddressedCall, Hash, parse_addressed_call

from .platform_helpers import EWOQ, manager_message, new_vm, warp_tools

AVAX = 10**9
MANAGER = b"\x0f" * 20
PRIMARY = bytes(32)


def node(i: int) -> bytes:
    return hashlib.sha256(f"warp-node-{i}".encode()).digest()[:20]


def blskey(i: int) -> bls.SecretKey:
    return bls.secret_key_from_seed(hashlib.sha256(f"warp-bls-{i}".encode()).digest())


@dataclass
class L1:
    vm: object
    svc: dict
    clock: object
    signer: object
    aggregator: object
    subnet: bytes
    chain: bytes


def issue(vm, stx) -> bytes:
    return vm.issue_tx(stx.tx_bytes)


def make_l1(validators: list[tuple[int, int]], held: list[int] | None = None, vm_svc_clock=None) -> L1:
    """An L1 converted with (key/node index, weight) validators; simnode holds the keys `held`
    (all of them by default), as if they came from a user for the others."""
    vm, svc, clock = vm_svc_clock or new_vm()
    held = [i for i, _ in validators] if held is None else held
    signer, aggregator = warp_tools(vm, [blskey(i) for i in held])
    w = PBuilder(vm, [EWOQ])
    sub = w.create_subnet()
    issue(vm, sub)
    w = PBuilder(vm, [EWOQ])
    chain = w.create_chain(sub.tx_id, "l1", b"subnetevm".ljust(32, b"\0"), b"{}")
    issue(vm, chain)
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.convert_subnet(sub.tx_id, chain.tx_id, MANAGER, [(node(i), wt, 10 * AVAX, blskey(i))
                                                                 for i, wt in validators]))
    return L1(vm, svc, clock, signer, aggregator, sub.tx_id, chain.tx_id)


def register_message(l1: L1, i: int, weight: int, expiry_in: int = 3600) -> acp77.RegisterL1Validator:
    po = acp77.PChainOwner(1, (address_of(EWOQ),))
    return acp77.RegisterL1Validator(l1.subnet, node(i), bls.public_key(blskey(i)), l1.vm.next_block_time() + expiry_in,
                                     po, po, weight)


def from_manager(l1: L1, msg, **request) -> SignedMessage:
    return l1.aggregator.aggregate(AggregationRequest(manager_message(l1.signer, l1.chain, MANAGER, msg), **request))


def state_digest(vm) -> str:
    h = hashlib.sha256()
    for k, v in vm.ctx.store.iterate(b"P/"):
        h.update(k + b"=" + v + b";")
    return h.hexdigest()


def rejects(l1: L1, stx, text: str) -> str:
    before = state_digest(l1.vm), l1.vm.height, dict(l1.vm.state.l1)
    with pytest.raises(IssueError) as err:
        l1.vm.issue_tx(stx.tx_bytes)
    assert text in str(err.value), str(err.value)
    assert (state_digest(l1.vm), l1.vm.height, dict(l1.vm.state.l1)) == before
    return str(err.value)


def register_tx(l1: L1, i: int, signed: SignedMessage):
    return PBuilder(l1.vm, [EWOQ]).register_l1_validator(AVAX, blskey(i), signed.encoded)


def weight_tx(l1: L1, signed: SignedMessage):
    return PBuilder(l1.vm, [EWOQ]).set_l1_validator_weight(signed.encoded)


# ------------------------------------------------------------------------------ accepted messages


def test_register_and_reweigh_with_aggregated_messages():
    l1 = make_l1([(1, 100), (2, 60)], held=[1, 2, 3])
    reg = register_message(l1, 3, 40)
    signed = from_manager(l1, reg)
    # 100 of 160 is 62.5%: both validators sign; bitset = the canonical indices
    assert signed.signature.num_signers() == 2 and signed.signature.signers == b"\x03"
    issue(l1.vm, register_tx(l1, 3, signed))
    vid = reg.validation_id
    got = l1.svc["getL1Validator"]({"validationID": _id(vid)})
    assert got["weight"] == "40" and got["publicKey"] == "0x" + bls.public_key(blskey(3)).hex()
    # the L1's set is now 200: the two heaviest (160) are enough, the lightest is left out
    signed = from_manager(l1, acp77.L1ValidatorWeight(vid, 0, 45))
    ws = l1.vm.state.warp_set(l1.subnet, l1.vm.height)
    chosen = [ws.validators[i].weight for i in range(3) if signed.signature.signer_bits() >> i & 1]
    assert sorted(chosen) == [60, 100]
    issue(l1.vm, weight_tx(l1, signed))
    assert l1.svc["getL1Validator"]({"validationID": _id(vid)})["weight"] == "45"


def _id(raw: bytes) -> str:
    from simnode.formats import id_to_str

    return id_to_str(raw)


# ------------------------------------------------------------------------------ rejected as AvalancheGo rejects


def test_insufficient_quorum_is_rejected_and_changes_nothing():
    l1 = make_l1([(1, 100), (2, 60)], held=[1, 2, 3])
    reg = register_message(l1, 3, 40)
    unsigned = UnsignedMessage(l1.vm.network_id, l1.chain, AddressedCall(MANAGER, reg.encode()).encode())
    ws = l1.vm.state.warp_set(l1.subnet, l1.vm.height)
    heavy = ws.index_of(bls.public_key(blskey(1)))
    only_heavy = signatures.aggregate(unsigned, {heavy: bls.sign(blskey(1), unsigned.encoded)})
    text = rejects(l1, register_tx(l1, 3, only_heavy), "failed verifying warp messages: signature weight is insufficient")
    assert text == ("couldn't issue tx: failed verification: failed verifying warp messages: "
                    "signature weight is insufficient: 67*160 > 100*100")
    # the aggregator refuses the same way when only 100 of 160 can sign (key 2 brought by a user)
    l1b = make_l1([(1, 100), (2, 60)], held=[1])
    with pytest.raises(AggregationRefused) as err:
        from_manager(l1b, register_message(l1b, 3, 40))
    assert err.value.status == 400 and "failed to collect a threshold of signatures" in err.value.message
    assert "hold 100 of the 160 weight" in err.value.message


def test_signers_from_the_wrong_subnet_are_rejected():
    l1 = make_l1([(1, 100), (2, 60)], held=[1, 2, 3, 4, 5])
    other = make_l1([(4, 100), (5, 60)], vm_svc_clock=(l1.vm, l1.svc, l1.clock))
    other.signer, other.aggregator = l1.signer, l1.aggregator
    reg = register_message(l1, 3, 40)
    # a message from the right manager, signed by the other L1's validators
    signed = from_manager(l1, reg, signing_subnet_id=other.subnet)
    assert signed.signature.signers == b"\x03"
    rejects(l1, register_tx(l1, 3, signed), "failed verifying warp messages: signature is invalid")
    # and by the Primary Network's (the genesis stakers sign with their real keys)
    signed = from_manager(l1, reg, signing_subnet_id=PRIMARY)
    rejects(l1, register_tx(l1, 3, signed), "failed verifying warp messages: ")
    # a message from the other L1's chain, properly signed there, names the wrong source
    wrong_source = other.aggregator.aggregate(AggregationRequest(
        manager_message(other.signer, other.chain, MANAGER, reg)))
    rejects(l1, register_tx(l1, 3, wrong_source), "wrong warp message source chain ID expected")


def test_tampered_signature_and_message_are_rejected(monkeypatch):
    l1 = make_l1([(1, 100), (2, 60)], held=[1, 2, 3])
    signed = from_manager(l1, register_message(l1, 3, 40))
    sig = signed.signature
    flipped = SignedMessage(signed.unsigned, BitSetSignature(sig.signers, sig.signature[:-1] + bytes([sig.signature[-1] ^ 1])))
    rejects(l1, register_tx(l1, 3, flipped), "failed verifying warp messages: ")
    other_point = SignedMessage(signed.unsigned, BitSetSignature(sig.signers, bls.sign(blskey(1), b"something else")))
    rejects(l1, register_tx(l1, 3, other_point), "failed verifying warp messages: signature is invalid")
    reg = register_message(l1, 3, 41)  # the weight changed after signing
    tampered = UnsignedMessage(signed.unsigned.network_id, l1.chain, AddressedCall(MANAGER, reg.encode()).encode())
    rejects(l1, register_tx(l1, 3, SignedMessage(tampered, sig)), "failed verifying warp messages: signature is invalid")
    def unpriceable(raw: bytes):
        """A tx whose message the fee rules cannot price (a client that pays by size alone)."""
        with monkeypatch.context() as m:
            m.setattr(fees, "warp_complexity", lambda message: (len(message), 0, 0, 0))
            return PBuilder(l1.vm, [EWOQ]).register_l1_validator(AVAX, blskey(3), raw)

    padded = SignedMessage(signed.unsigned, BitSetSignature(b"\x00" + sig.signers, sig.signature))
    rejects(l1, unpriceable(padded.encoded), "failed verifying warp messages: bitset is invalid")
    unknown = SignedMessage(signed.unsigned, BitSetSignature(b"\x07", sig.signature))
    rejects(l1, register_tx(l1, 3, unknown),
            "failed verifying warp messages: unknown validator: NumIndices (2) >= NumFilteredValidators (2)")
    wrong_net = UnsignedMessage(1, l1.chain, signed.unsigned.payload)
    rejects(l1, register_tx(l1, 3, SignedMessage(wrong_net, sig)), "failed verifying warp messages: wrong networkID")
    nowhere = UnsignedMessage(signed.unsigned.network_id, b"\x42" * 32, signed.unsigned.payload)
    rejects(l1, register_tx(l1, 3, SignedMessage(nowhere, sig)),
            'failed verifying warp messages: problem retrieving blockchain "')
    rejects(l1, unpriceable(signed.encoded[:-1]),
            "failed verifying warp messages: packer has insufficient length for input")


def test_replayed_messages_are_rejected():
    l1 = make_l1([(1, 100)], held=[1, 3])
    reg = register_message(l1, 3, 50)
    request = AggregationRequest(manager_message(l1.signer, l1.chain, MANAGER, reg))
    first = l1.aggregator.aggregate(request)
    issue(l1.vm, register_tx(l1, 3, first))
    # the bytes signed by the L1's validators of then no longer carry a quorum of its validators of now
    rejects(l1, register_tx(l1, 3, first), "failed verifying warp messages: ")
    # signed again for the L1's current validators, the same registration is a replay
    rejects(l1, register_tx(l1, 3, l1.aggregator.aggregate(request)),
            f"warp message already issued for validationID {_id(reg.validation_id)}")
    vid = reg.validation_id
    issue(l1.vm, weight_tx(l1, from_manager(l1, acp77.L1ValidatorWeight(vid, 0, 70))))
    rejects(l1, weight_tx(l1, from_manager(l1, acp77.L1ValidatorWeight(vid, 0, 80))),
            "warp message contains stale nonce 0 must be at least 1")
    # expiry rules
    late = register_message(l1, 4, 10, expiry_in=2 * 24 * 3600)
    l1.signer.keystore.add(blskey(4))
    rejects(l1, register_tx(l1, 4, from_manager(l1, late)), "warp message not yet allowed because time is")
    soon = register_message(l1, 4, 10, expiry_in=60)
    signed = from_manager(l1, soon)
    l1.clock.advance(120)
    rejects(l1, register_tx(l1, 4, signed), f"warp message expired at {soon.expiry} and it is currently")
    reserved = from_manager(l1, acp77.L1ValidatorWeight(vid, acp77.MAX_U64, 1))
    rejects(l1, weight_tx(l1, reserved), "maxUint64 nonce is reserved for removal")


# ------------------------------------------------------------------------------ what the P-Chain signs


def _pchain_unsigned(vm, msg) -> UnsignedMessage:
    return UnsignedMessage(vm.network_id, bytes(32), AddressedCall(b"", msg.encode()).encode())


def test_pchain_justifications():
    l1 = make_l1([(1, 100), (2, 60)], held=[1, 2, 3])
    vm, signer = l1.vm, l1.signer
    sub = vm.state.subnets[l1.subnet]

    def refused(msg, justification: bytes, code: int, text: str) -> None:
        with pytest.raises(Refusal) as err:
            signer.justify(msg if isinstance(msg, UnsignedMessage) else _pchain_unsigned(vm, msg), justification)
        assert (err.value.code, err.value.message) == (code, text), err.value.message

    ones, twos, threes = b"\1" * 32, b"\2" * 32, b"\3" * 32
    signer.justify(_pchain_unsigned(vm, acp77.SubnetToL1Conversion(sub.conversion_id)), l1.subnet)
    refused(acp77.SubnetToL1Conversion(ones), l1.subnet, 7,
            f'provided conversionID "{_id(ones)}" != expected conversionID "{_id(sub.conversion_id)}"')
    refused(acp77.SubnetToL1Conversion(sub.conversion_id), twos, 6, f'subnet "{_id(twos)}" has not been converted')
    refused(acp77.SubnetToL1Conversion(sub.conversion_id), b"\2", 5,
            "failed to parse justification: invalid hash length: expected 32 bytes but got 1")
    vid0 = acp77.subnet_validation_id(l1.subnet, 0)
    signer.justify(_pchain_unsigned(vm, acp77.L1ValidatorRegistration(vid0, True)), b"")
    refused(acp77.L1ValidatorRegistration(threes, True), b"", 11, f'validation "{_id(threes)}" does not exist')
    refused(acp77.L1ValidatorWeight(threes, 0, 1), b"", 11, f'validation "{_id(threes)}" does not exist')
    refused(acp77.L1ValidatorWeight(vid0, 0, 100), b"", 16, "provided nonce 0 != expected nonce (0 - 1)")
    issue(vm, weight_tx(l1, from_manager(l1, acp77.L1ValidatorWeight(vid0, 0, 90))))
    signer.justify(_pchain_unsigned(vm, acp77.L1ValidatorWeight(vid0, 0, 90)), b"")
    refused(acp77.L1ValidatorWeight(vid0, 0, 100), b"", 17, "provided weight 100 != expected weight 90")
    refused(acp77.L1ValidatorWeight(vid0, acp77.MAX_U64, 0), b"", 15, "impossible nonce")
    # not registered, justified by the conversion index: only once the validator is gone
    just0 = encode_justification(SubnetIDIndex(l1.subnet, 0))
    refused(acp77.L1ValidatorRegistration(vid0, False), just0, 12, f'validation "{_id(vid0)}" exists')
    refused(acp77.L1ValidatorRegistration(vid0, False), encode_justification(SubnetIDIndex(l1.subnet, 1)), 10,
            f'validationID "{_id(vid0)}" != justificationID "{_id(acp77.subnet_validation_id(l1.subnet, 1))}"')
    refused(acp77.L1ValidatorRegistration(vid0, False), b"", 8, "invalid justification type: <nil>")
    refused(acp77.L1ValidatorRegistration(vid0, False), b"\x0a", 5,
            "failed to parse justification: proto: cannot parse invalid wire-format data")
    # not registered, justified by a RegisterL1Validator message that can still be registered
    reg = register_message(l1, 3, 10)
    by_msg = encode_justification(reg.encode())
    refused(acp77.L1ValidatorRegistration(reg.validation_id, False), by_msg, 14,
            f'validation "{_id(reg.validation_id)}" can be registered until {reg.expiry}')
    # other payloads and sources
    refused(_pchain_unsigned(vm, reg), b"", 4, "unsupported warp addressed call payload type: *message.RegisterL1Validator")
    refused(UnsignedMessage(vm.network_id, bytes(32), AddressedCall(b"\1", acp77.L1ValidatorRegistration(vid0, True).encode()).encode()),
            b"", 2, "source address should be empty")
    refused(UnsignedMessage(vm.network_id, bytes(32), Hash(bytes(32)).encode()), b"", 1,
            "failed to parse warp addressed call: wrong payload type: *payload.Hash")
    refused(UnsignedMessage(vm.network_id, bytes(32), AddressedCall(b"", b"\0\0").encode()), b"", 3,
            "failed to parse warp addressed call payload: couldn't unmarshal interface: packer has insufficient length for input")
    refused(UnsignedMessage(1, bytes(32), b""), b"", 1, "wrong networkID")


def test_evm_chain_messages_need_a_justification():
    l1 = make_l1([(1, 100)])
    vm, signer = l1.vm, l1.signer
    unsigned = UnsignedMessage(vm.network_id, l1.chain, AddressedCall(b"\1" * 20, b"teleporter bytes").encode())
    with pytest.raises(Refusal, match="failed to parse addressed call message"):
        signer.justify(unsigned, b"")
    with pytest.raises(AggregationRefused) as err:
        l1.aggregator.aggregate(AggregationRequest(unsigned.encoded))
    assert err.value.status == 400 and "the validators refused to sign (code 1)" in err.value.message
    block = UnsignedMessage(vm.network_id, l1.chain, Hash(b"\5" * 32).encode())
    with pytest.raises(Refusal, match="failed to get block"):
        signer.justify(block, b"")

    class Accepted:
        """What the EVM chain will report (its accepted SendWarpMessage and block hashes)."""

        def accepted_message(self, message_id: bytes):
            return unsigned if message_id == unsigned.id else None

        def is_accepted_block(self, block_id: bytes) -> bool:
            return block_id == b"\5" * 32

    signer.register_chain(l1.chain, Accepted())
    signer.justify(unsigned, b"")
    signer.justify(block, b"")
    signed = l1.aggregator.aggregate(AggregationRequest(unsigned.encoded))
    signatures.verify(signed, vm.network_id, vm.state.warp_set(l1.subnet, vm.height), 67, 100)
    # off-chain messages: this network's EVM chains only
    with pytest.raises(ValueError, match="wrong networkID"):
        signer.add_off_chain_message(UnsignedMessage(1, l1.chain, AddressedCall(b"", b"").encode()).encoded)
    with pytest.raises(ValueError, match="wrong SourceChainID"):
        signer.add_off_chain_message(_pchain_unsigned(vm, acp77.L1ValidatorRegistration(bytes(32), True)).encoded)
    with pytest.raises(ValueError, match="failed to parse off-chain message"):
        signer.add_off_chain_message(UnsignedMessage(vm.network_id, l1.chain, Hash(bytes(32)).encode()).encoded)


def test_validator_uptime_messages():
    l1 = make_l1([(1, 100)])
    vid0 = acp77.subnet_validation_id(l1.subnet, 0)
    l1.clock.advance(1000)

    def uptime(seconds: int, vid: bytes = vid0) -> UnsignedMessage:
        return UnsignedMessage(l1.vm.network_id, l1.chain,
                               AddressedCall(b"", acp77.ValidatorUptime(vid, seconds).encode()).encode())

    l1.signer.justify(uptime(1000), b"")
    with pytest.raises(Refusal, match="current uptime 1000 is less than queried uptime 1001"):
        l1.signer.justify(uptime(1001), b"")
    with pytest.raises(Refusal, match="failed to get uptime"):
        l1.signer.justify(uptime(1, b"\7" * 32), b"")
    signed = l1.aggregator.aggregate(AggregationRequest(uptime(900).encoded))
    assert signed.signature.signers == b"\x01"


# ------------------------------------------------------------------------------ the aggregator


def test_aggregate_by_tx_for_each_l1_tx():
    l1 = make_l1([(1, 100), (2, 60)], held=[1, 2, 3])
    vm = l1.vm
    convert_tx = next(tx_id for tx_id, rec in _txs(vm) if rec == "ConvertSubnetToL1Tx")
    signed = l1.aggregator.aggregate_tx(convert_tx)
    assert signed.unsigned.source_chain_id == bytes(32)
    call = parse_addressed_call(signed.unsigned.payload)
    assert call.source_address == b""
    assert acp77.parse_pchain_message(call.payload) == acp77.SubnetToL1Conversion(vm.state.subnets[l1.subnet].conversion_id)
    signatures.verify(signed, vm.network_id, vm.state.warp_set(l1.subnet, vm.height), 67, 100)

    reg = register_message(l1, 3, 40)
    register = register_tx(l1, 3, from_manager(l1, reg))
    issue(vm, register)
    signed = l1.aggregator.aggregate_tx(register.tx_id)
    msg = acp77.parse_pchain_message(parse_addressed_call(signed.unsigned.payload).payload)
    assert msg == acp77.L1ValidatorRegistration(reg.validation_id, True)
    signatures.verify(signed, vm.network_id, vm.state.warp_set(l1.subnet, vm.height), 67, 100)

    reweigh = weight_tx(l1, from_manager(l1, acp77.L1ValidatorWeight(reg.validation_id, 0, 45)))
    issue(vm, reweigh)
    signed = l1.aggregator.aggregate_tx(reweigh.tx_id)
    assert acp77.parse_pchain_message(parse_addressed_call(signed.unsigned.payload).payload) == \
        acp77.L1ValidatorWeight(reg.validation_id, 0, 45)

    remove = weight_tx(l1, from_manager(l1, acp77.L1ValidatorWeight(reg.validation_id, 1, 0)))
    issue(vm, remove)
    assert reg.validation_id not in vm.state.l1
    signed = l1.aggregator.aggregate_tx(remove.tx_id)
    assert acp77.parse_pchain_message(parse_addressed_call(signed.unsigned.payload).payload) == \
        acp77.L1ValidatorRegistration(reg.validation_id, False)
    signatures.verify(signed, vm.network_id, vm.state.warp_set(l1.subnet, vm.height), 67, 100)
    # an initial validator removed: justified by its conversion index
    vid1 = acp77.subnet_validation_id(l1.subnet, 1)
    v1 = vm.state.l1[vid1]
    remove1 = weight_tx(l1, from_manager(l1, acp77.L1ValidatorWeight(vid1, v1.min_nonce, 0)))
    issue(vm, remove1)
    signed = l1.aggregator.aggregate_tx(remove1.tx_id)
    assert acp77.parse_pchain_message(parse_addressed_call(signed.unsigned.payload).payload) == \
        acp77.L1ValidatorRegistration(vid1, False)

    with pytest.raises(AggregationRefused) as err:
        l1.aggregator.aggregate_tx(b"\x09" * 32)
    assert err.value.status == 404
    create_subnet = next(tx_id for tx_id, rec in _txs(vm) if rec == "CreateSubnetTx")
    with pytest.raises(AggregationRefused) as err:
        l1.aggregator.aggregate_tx(create_subnet)
    assert err.value.status == 400 and "CreateSubnetTx" in err.value.message


def _txs(vm):
    from simnode.vms.platform.state import K_TX
    from simnode.vms.platform.txs import parse_tx
    from simnode.store import unpack

    for k, v in vm.ctx.store.iterate(K_TX):
        yield k[len(K_TX):], type(parse_tx(unpack(v)[0]).unsigned).__name__


def test_aggregator_requests():
    l1 = make_l1([(1, 100), (2, 60)], held=[1, 2, 3])
    vm, agg = l1.vm, l1.aggregator
    conversion = _pchain_unsigned(vm, acp77.SubnetToL1Conversion(vm.state.subnets[l1.subnet].conversion_id))
    # the default signing subnet of a P-Chain message about an L1 is that L1
    signed = agg.aggregate(AggregationRequest(conversion.encoded, l1.subnet))
    signatures.verify(signed, vm.network_id, vm.state.warp_set(l1.subnet, vm.height), 67, 100)
    # quorum + buffer: 67 needs both, and so does 90
    assert agg.aggregate(AggregationRequest(conversion.encoded, l1.subnet, quorum_percentage=60)).signature.signers \
        in (b"\x01", b"\x02")
    assert agg.aggregate(AggregationRequest(conversion.encoded, l1.subnet, quorum_percentage=60,
                                            quorum_percentage_buffer=30)).signature.signers == b"\x03"
    # the message may come as the SendWarpMessage event data (ABI bytes)
    from eth_abi import encode as abi_encode

    assert parse_message_input(abi_encode(["bytes"], [conversion.encoded])) == conversion
    signed_again = agg.aggregate(AggregationRequest(abi_encode(["bytes"], [conversion.encoded]), l1.subnet))
    assert signed_again.encoded == signed.encoded  # deterministic signed bytes

    def refused(status: int, text: str, **kw) -> None:
        with pytest.raises(AggregationRefused) as err:
            agg.aggregate(AggregationRequest(**({"message": conversion.encoded, "justification": l1.subnet} | kw)))
        assert err.value.status == status and text in err.value.message, err.value.message

    refused(400, "invalid quorum percentage: 0", quorum_percentage=0)
    refused(400, "invalid quorum percentage: 101", quorum_percentage=101)
    refused(400, "quorum + buffer must be at most 100", quorum_percentage=80, quorum_percentage_buffer=30)
    refused(400, "Error unpacking warp message", message=b"\1\2\3")
    refused(400, "wrong networkID", message=UnsignedMessage(1, bytes(32), conversion.payload).encoded)
    refused(404, "source blockchain not found for chain ID", message=UnsignedMessage(vm.network_id, b"\4" * 32, b"").encoded)
    refused(404, "subnet", signing_subnet_id=b"\6" * 32)
    refused(400, f"current P-chain height ({vm.height}) < requested P-Chain height ({vm.height + 1})",
            p_chain_height=vm.height + 1)
    refused(400, "the validators refused to sign (code 6)", justification=b"\6" * 32, signing_subnet_id=l1.subnet)


def test_validator_set_at_a_past_height_signs():
    l1 = make_l1([(1, 100)], held=[1, 3])
    vm = l1.vm
    before = vm.height
    reg = register_message(l1, 3, 300)
    issue(vm, register_tx(l1, 3, from_manager(l1, reg)))
    conversion = _pchain_unsigned(vm, acp77.SubnetToL1Conversion(vm.state.subnets[l1.subnet].conversion_id))
    old = l1.aggregator.aggregate(AggregationRequest(conversion.encoded, l1.subnet, p_chain_height=before))
    assert old.signature.signers == b"\x01"  # only validator 1 existed then
    signatures.verify(old, vm.network_id, vm.state.warp_set(l1.subnet, before), 67, 100)
    now = l1.aggregator.aggregate(AggregationRequest(conversion.encoded, l1.subnet))
    assert now.signature.num_signers() == 1  # 300 of 400 alone is enough now
    assert bls.public_key(blskey(3)) in [v.public_key for v in vm.state.warp_set(l1.subnet, vm.height).validators]
    with pytest.raises(WarpError, match="signature weight is insufficient"):
        signatures.verify(old, vm.network_id, vm.state.warp_set(l1.subnet, vm.height), 67, 100)


def test_inactive_weight_counts_and_survives_a_restart():
    from simnode.vms.platform.vm import PlatformVM

    l1 = make_l1([(1, 100), (2, 60)])
    vm = l1.vm
    vid2 = vm.state.l1_by_node[(l1.subnet, node(2))]
    issue(vm, PBuilder(vm, [EWOQ]).disable_l1_validator(vid2))
    vset = vm.state.vset[l1.subnet]
    assert vset[EMPTY_NODE_ID] == [60, None]  # inactive: counted, keyless
    ws = vm.state.warp_set(l1.subnet, vm.height)
    assert ws.total_weight == 160 and len(ws.validators) == 1
    at = l1.svc["getValidatorsAt"]({"subnetID": _id(l1.subnet), "height": str(vm.height)})
    assert at["NodeID-111111111111111111116DBWJs"] == {"publicKey": None, "weight": "60"}
    assert l1.svc["getTotalStake"]({"subnetID": _id(l1.subnet)})["weight"] == "160"
    # 100 of 160 is not a quorum: validator 0 alone cannot sign for the L1 any more
    with pytest.raises(AggregationRefused, match="hold 100 of the 160 weight"):
        from_manager(l1, register_message(l1, 3, 1))
    restarted = PlatformVM(vm.ctx)
    assert restarted.state.vset[l1.subnet] == vset
    assert restarted.state.warp_set(l1.subnet, restarted.height) == ws


def test_subnet_validators_sign_with_their_primary_key():
    vm, svc, clock = new_vm()
    w = PBuilder(vm, [EWOQ])
    sub = w.create_subnet()
    issue(vm, sub)
    genesis_node = sorted(vm.state.validators[PRIMARY])[0]
    w = PBuilder(vm, [EWOQ])
    issue(vm, w.add_subnet_validator(sub.tx_id, genesis_node, vm.next_block_time() + 2 * 24 * 3600, 10))
    pk = vm.state.validators[PRIMARY][genesis_node].public_key
    ws = vm.state.warp_set(sub.tx_id, vm.height)
    assert [(v.public_key, v.weight, v.node_ids) for v in ws.validators] == [(pk, 10, (genesis_node,))]
    at = svc["getValidatorsAt"]({"subnetID": _id(sub.tx_id), "height": str(vm.height)})
    assert at[next(iter(at))]["publicKey"] == "0x" + pk.hex()


def test_data_api_example_message_is_event_data():
    """The Data API's SignatureAggregatorRequest example sends the SendWarpMessage event data (the
    ABI `bytes` of the unsigned message); it is the unsigned Fuji message of warp-vectors.json."""
    import json
    from pathlib import Path

    spec = json.loads(Path("/work/shared/reference/openapi/data-api.openapi.json").read_text())
    example = spec["components"]["schemas"]["SignatureAggregatorRequest"]["properties"]["message"]["examples"][0]
    (vector,) = json.loads((Path(__file__).resolve().parent.parent / "vectors" / "warp-vectors.json").read_text())
    unsigned = parse_message_input(bytes.fromhex(example))
    assert unsigned.encoded.hex() == vector["unsignedMessageHex"][2:]
    assert parse_message_input(unsigned.encoded) == unsigned  # the message's own bytes work too
