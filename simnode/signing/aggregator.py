"""The signature aggregator's core: what the Data API's `aggregateSignatures` routes and the
self-hosted icm-services `POST /aggregate-signatures` do, without HTTP.

Given a message (the unsigned message's bytes, or the SendWarpMessage event data that carries
them), its justification, a signing subnet, a quorum percentage (+ buffer) and an optional P-Chain
height, it asks the signing subnet's validators (at that height) to sign and returns the signed
message with the minimal heaviest signer subset reaching quorum + buffer (all signers when the
buffer cannot be reached but the quorum can), so the signed bytes are deterministic for a
validator set. Anything else is an `AggregationRefused` naming what is wrong and the HTTP status
the REST layer answers with.

The signing subnet defaults to the source chain's subnet, except for the P-Chain's ACP-77
messages: those are for an L1 and its own validators sign them (the L1's ValidatorManager
verifies them against its validator set), so the default is that L1. (icm-services would default
to the Primary Network there; its callers pass the L1 explicitly.)
"""

from __future__ import annotations

from dataclasses import dataclass

from simnode.codec import CodecError
from simnode.formats import id_to_str
from simnode.vms.platform import txs as t
from simnode.vms.platform.state import PLATFORM_CHAIN_ID, PRIMARY
from simnode.vms.platform.vm import PlatformVM
from simnode.warp import acp77, signatures
from simnode.warp.errors import WarpError
from simnode.warp.message import SignedMessage, UnsignedMessage, parse_signed_message, parse_unsigned_message
from simnode.warp.payload import AddressedCall, parse_addressed_call
from simnode.warp.validators import WarpSet

from .justify import Refusal
from .signer import WarpSigner

DEFAULT_QUORUM_PERCENTAGE = 67


class AggregationRefused(ValueError):
    """No signed message: `status` is the HTTP status to answer with: 400 for a bad request or too
    little signing weight, 404 for an unknown transaction, chain or subnet (500 only if simnode's
    own aggregate failed to verify, which would be a bug)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _bad(message: str) -> AggregationRefused:
    return AggregationRefused(400, message)


def _not_found(message: str) -> AggregationRefused:
    return AggregationRefused(404, message)


@dataclass(frozen=True, slots=True)
class AggregationRequest:
    message: bytes
    justification: bytes = b""
    signing_subnet_id: bytes | None = None
    quorum_percentage: int = DEFAULT_QUORUM_PERCENTAGE
    quorum_percentage_buffer: int = 0
    p_chain_height: int | None = None  # None: the current height


def _abi_bytes(data: bytes) -> bytes | None:
    """The one ABI-encoded `bytes` value of SendWarpMessage's event data (head: offset; tail:
    length, then the bytes, zero-padded), or None if `data` is not that."""
    if len(data) < 64:
        return None
    offset = int.from_bytes(data[:32], "big")
    if offset > len(data) - 32:
        return None
    length = int.from_bytes(data[offset:offset + 32], "big")
    end = offset + 32 + length
    return data[offset + 32:end] if end <= len(data) else None


def parse_message_input(data: bytes) -> UnsignedMessage:
    """An unsigned message from the SendWarpMessage event data or from its own bytes, as
    icm-services' UnpackWarpMessage accepts both (the event form first)."""
    inner = _abi_bytes(data)
    if inner is not None:
        try:
            return parse_unsigned_message(inner)
        except CodecError:
            pass
    try:
        return parse_unsigned_message(data)
    except CodecError as e:
        raise _bad(f"Error unpacking warp message: {e}") from None


class Aggregator:
    def __init__(self, platform: PlatformVM, signer: WarpSigner) -> None:
        self.platform = platform
        self.signer = signer

    # ------------------------------------------------------------------------------ requests

    def aggregate(self, request: AggregationRequest) -> SignedMessage:
        quorum, buffer = request.quorum_percentage, request.quorum_percentage_buffer
        if not 0 < quorum <= 100:
            raise _bad(f"invalid quorum percentage: {quorum}")
        if buffer < 0 or quorum + buffer > 100:
            raise _bad(f"invalid quorum percentage buffer: {buffer} (quorum + buffer must be at most 100)")
        unsigned = parse_message_input(request.message)
        if unsigned.network_id != self.platform.network_id:
            raise _bad(f"wrong networkID: the message is for network {unsigned.network_id}, "
                       f"this is network {self.platform.network_id}")
        state = self.platform.state
        source_subnet = state.subnet_of_chain(unsigned.source_chain_id)
        if source_subnet is None:
            raise _not_found(f"source blockchain not found for chain ID {id_to_str(unsigned.source_chain_id)}")
        subnet = request.signing_subnet_id
        if subnet is None:
            subnet = self._l1_of(unsigned, request.justification) or source_subnet
        if subnet != PRIMARY and subnet not in state.subnets:
            raise _not_found(f"subnet {id_to_str(subnet)} not found")
        height = state.meta.height if request.p_chain_height is None else request.p_chain_height
        if height > state.meta.height:
            raise _bad(f"current P-chain height ({state.meta.height}) < requested P-Chain height ({height})")
        warp_set = state.warp_set(subnet, height)
        return self._collect(unsigned, request.justification, subnet, warp_set, quorum, quorum + buffer)

    def aggregate_tx(self, tx_id: bytes, quorum_percentage: int = DEFAULT_QUORUM_PERCENTAGE,
                     quorum_percentage_buffer: int = 0, p_chain_height: int | None = None) -> SignedMessage:
        """The signed Warp message of an L1-related P-Chain tx (the Data API's GET by txHash)."""
        unsigned, justification, subnet = self.message_for_tx(tx_id)
        return self.aggregate(AggregationRequest(unsigned.encoded, justification, subnet, quorum_percentage,
                                                 quorum_percentage_buffer, p_chain_height))

    def message_for_tx(self, tx_id: bytes) -> tuple[UnsignedMessage, bytes, bytes]:
        """(unsigned message, justification, signing subnet) the P-Chain attests for an accepted tx:
        ConvertSubnetToL1Tx -> SubnetToL1Conversion; RegisterL1ValidatorTx -> L1ValidatorRegistration
        (registered); SetL1ValidatorWeightTx -> L1ValidatorWeight, or L1ValidatorRegistration (not
        registered) when the weight is 0."""
        state = self.platform.state
        rec = state.get_tx(tx_id)
        if rec is None or rec[1] != "Committed":
            raise _not_found(f"P-Chain transaction {id_to_str(tx_id)} not found")
        tx = t.parse_tx(rec[0]).unsigned
        justification = b""
        msg: acp77.PChainMessage
        if isinstance(tx, t.ConvertSubnetToL1Tx):
            subnet = tx.subnet_id
            conversion_id = state.subnets[subnet].conversion_id
            if conversion_id is None:  # accepting the tx set it: the state is inconsistent, an internal error
                raise RuntimeError(f"subnet {id_to_str(subnet)} was converted but has no conversion id")
            msg = acp77.SubnetToL1Conversion(conversion_id)
            justification = subnet
        elif isinstance(tx, (t.RegisterL1ValidatorTx, t.SetL1ValidatorWeightTx)):
            signed = parse_signed_message(tx.message)
            source_subnet = state.subnet_of_chain(signed.unsigned.source_chain_id)
            if source_subnet is None:  # accepting the tx checked its source chain: an internal error
                raise RuntimeError(f"the source chain of committed tx {id_to_str(tx_id)} is unknown")
            subnet = source_subnet
            payload = parse_addressed_call(signed.unsigned.payload).payload
            if isinstance(tx, t.RegisterL1ValidatorTx):
                msg = acp77.L1ValidatorRegistration(acp77.parse_register_l1_validator(payload).validation_id, True)
            else:
                weight = acp77.parse_l1_validator_weight(payload)
                if weight.weight:
                    msg = weight
                else:
                    msg = acp77.L1ValidatorRegistration(weight.validation_id, False)
                    justification = state.l1_preimage(weight.validation_id) or b""
        else:
            raise _bad(f"transaction {id_to_str(tx_id)} is a {type(tx).__name__}, not an L1-related P-Chain "
                       "transaction with a Warp message")
        unsigned = UnsignedMessage(self.platform.network_id, PLATFORM_CHAIN_ID,
                                   AddressedCall(b"", msg.encode()).encode())
        return unsigned, justification, subnet

    # ------------------------------------------------------------------------------ internals

    def _l1_of(self, unsigned: UnsignedMessage, justification: bytes) -> bytes | None:
        """The L1 a P-Chain ACP-77 message is about, when the state tells."""
        if unsigned.source_chain_id != PLATFORM_CHAIN_ID:
            return None
        try:
            msg = acp77.parse_pchain_message(parse_addressed_call(unsigned.payload).payload)
        except CodecError:
            return None
        state = self.platform.state
        if isinstance(msg, acp77.SubnetToL1Conversion):
            return justification if justification in state.subnets else None
        if isinstance(msg, (acp77.L1ValidatorRegistration, acp77.L1ValidatorWeight)):
            v = state.l1.get(msg.validation_id)
            return None if v is None else v.subnet_id
        return None

    def _collect(self, unsigned: UnsignedMessage, justification: bytes, subnet: bytes, warp_set: WarpSet,
                 quorum: int, target: int) -> SignedMessage:
        holders = self.signer.holders(warp_set)
        chosen = signatures.heaviest_signers(warp_set, holders, target)
        if chosen is None and signatures.heaviest_signers(warp_set, holders, quorum) is not None:
            chosen = holders  # the buffer is out of reach: as much weight as there is
        if not chosen:
            reachable = sum(warp_set.validators[i].weight for i in holders)
            raise _bad(f"failed to collect a threshold of signatures: the validators simnode signs for hold "
                       f"{reachable} of the {warp_set.total_weight} weight of subnet {id_to_str(subnet)}, "
                       f"{quorum}% is required")
        try:
            signed = self.signer.sign_aggregate(unsigned, justification, warp_set, chosen)
        except Refusal as r:
            raise _bad(f"failed to collect a threshold of signatures: the validators refused to sign "
                       f"(code {r.code}): {r.message}") from None
        try:
            signatures.verify(signed, self.platform.network_id, warp_set, quorum, 100)
        except WarpError as e:  # cannot happen with the keys the keystore holds; never hand out a bad message
            raise AggregationRefused(500, f"aggregated signature does not verify: {e}") from None
        return signed
