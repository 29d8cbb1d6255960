"""The `warp_*` JSON-RPC methods subnet-evm and coreth serve on an EVM chain (warp/service.go).

* warp_getMessage(messageID): the unsigned bytes of an accepted SendWarpMessage;
* warp_getMessageSignature(messageID) / warp_getBlockSignature(blockID): this node's BLS
  signature of that message, or of the Hash payload of an accepted block;
* warp_getMessageAggregateSignature(messageID, quorumNum, subnetID) /
  warp_getBlockAggregateSignature(blockID, quorumNum, subnetID): the signed message, aggregated
  from the signing subnet's validators (the chain's own subnet when subnetID is "") at the
  current P-Chain height, by the node's aggregator.

"This node" is the validator of the chain's subnet whose node ID is the node's, else the first
validator in canonical order whose key simnode holds (simnode is every validator). IDs are cb58,
as ids.ID is in JSON; simnode also takes a 0x-prefixed 32-byte hex ID (as SendWarpMessage's
topic 2 reads in a receipt).
"""

from __future__ import annotations

from typing import Any

from ..formats import id_to_str
from ..formats.ids import id_from_str
from ..rpc.jsonrpc import InvalidParams, RPCError
from ..signing.aggregator import AggregationRefused, AggregationRequest
from ..signing.justify import Refusal
from ..warp.message import UnsignedMessage
from ..warp.payload import Hash


def _id(value: Any) -> bytes:
    if not isinstance(value, str):
        raise InvalidParams("invalid argument 0: json: cannot unmarshal non-string into Go value of type ids.ID")
    if value[:2].lower() == "0x" and len(value) == 66:  # simnode also takes the 0x form logs carry
        try:
            return bytes.fromhex(value[2:])
        except ValueError:
            pass
    try:
        return id_from_str(value)
    except ValueError as e:
        raise InvalidParams(f"invalid argument 0: {e}") from None


def _quorum(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidParams("invalid argument 1: json: cannot unmarshal into Go value of type uint64")
    return value


def register(svc: Any, chain: Any, node: Any) -> None:
    """Add the warp_* methods for `chain` (an EVM chain, a ChainWarpBackend) to its eth service."""

    def message(message_id: bytes) -> UnsignedMessage:
        unsigned = chain.accepted_message(message_id)
        if unsigned is None:
            raise RPCError(f"failed to get message {id_to_str(message_id)} with error not found")
        return unsigned

    def own_signature(unsigned: UnsignedMessage) -> str:
        platform = node.warp_validators
        warp_set = platform.warp_set(chain.subnet_id, platform.height())
        held = node.warp_signer.holders(warp_set)
        own = [i for i in held if node.node_id in warp_set.validators[i].node_ids]
        if not (own or held):
            raise RPCError("no validator of this chain's subnet signs on this node")
        signatures = node.warp_signer.sign(unsigned, b"", warp_set, (own or held)[:1])
        return "0x" + next(iter(signatures.values())).hex()

    def aggregate(unsigned: UnsignedMessage, quorum: Any, subnet: Any) -> str:
        subnet_id = chain.subnet_id
        if subnet:
            try:
                subnet_id = id_from_str(subnet)
            except ValueError:
                raise RPCError(f'failed to parse subnetID: "{subnet}"') from None
        try:
            signed = node.aggregator.aggregate(AggregationRequest(unsigned.encoded, b"", subnet_id, _quorum(quorum)))
        except AggregationRefused as e:
            raise RPCError(e.message) from None
        return "0x" + signed.encoded.hex()

    def block_message(block_id: bytes) -> UnsignedMessage:
        return UnsignedMessage(chain.warp_identity.network_id, chain.chain_id, Hash(block_id).encode())

    def get_message(message_id: Any) -> str:
        return "0x" + message(_id(message_id)).encoded.hex()

    def get_message_signature(message_id: Any) -> str:
        unsigned = message(_id(message_id))
        try:
            return own_signature(unsigned)
        except Refusal as e:
            raise RPCError(f"failed to get signature for message {id_to_str(unsigned.id)} with error "
                           f"{e.message}") from None

    def get_block_signature(block_id: Any) -> str:
        bid = _id(block_id)
        try:
            return own_signature(block_message(bid))
        except Refusal as e:
            raise RPCError(f"failed to get signature for block {id_to_str(bid)} with error {e.message}") from None

    svc.register("warp_getMessage", get_message, 1, 1)
    svc.register("warp_getMessageSignature", get_message_signature, 1, 1)
    svc.register("warp_getBlockSignature", get_block_signature, 1, 1)
    svc.register("warp_getMessageAggregateSignature",
                 lambda mid, quorum, subnet="": aggregate(message(_id(mid)), quorum, subnet), 2, 3)
    svc.register("warp_getBlockAggregateSignature",
                 lambda bid, quorum, subnet="": aggregate(block_message(_id(bid)), quorum, subnet), 2, 3)
