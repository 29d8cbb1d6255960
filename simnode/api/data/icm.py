"""The ICM routes of the Data API, from the index's ICM tables (simnode/index/icm): one message by
ID, every message (filtered by source, destination or either chain, sender `from`, receiver `to`),
and an address's messages (as sender or receiver), newest first.

A message is `pending` until its destination chain receives it, then `delivered` (with both
transactions); one received here from a chain this node does not index is
`delivered_source_not_indexed`. In the forms the document's parameters show: a message ID is 64
hex digits without 0x (`{messageId}` also takes them with 0x), a blockchain ID is CB58 (the
filters also take 0x-hex bytes32, and `sourceBlockchainId`/`destinationBlockchainId` an EVM chain
ID, as the spec says; one no chain of the node has matches nothing).
`rewardDetails` is the message's relayer fee (fee token metadata from the EVM index; an unknown
token or no fee has empty name and symbol and 0 decimals). `network` names the running network.

The deprecated `/v1/teleporter/*` routes, which chainkit 0.3.13 and glacier-sdk 3.0.2 still call
(the current document no longer lists them; reference/data-api-deprecated-routes.md), are these
routes under their old names: the same parameters and messages, the contract address named
`teleporterContractAddress`. Their list's union keeps the ICM form for a message whose source is
not indexed (DeliveredSourceNotIndexedIcmMessage), as their document has it.
"""

from __future__ import annotations

import re
from typing import Any

from ...formats import FormatError
from ...formats.ids import id_from_str, id_to_str
from ...icm.messages import MESSENGER_ADDRESS
from ...index.evm.query import EvmIndex
from ...index.icm.query import IcmMessage, IcmTx, message, messages
from .context import RequestContext
from .errors import bad_request, not_found
from .evm_json import ZERO_ADDRESS, checksum, hex0x
from .evm_reads import index_off, optional_address, page_of
from .resolve import evm_address, evm_chain_id_of, evm_chains
from .spec import DATA, Operation, document, make_operation

_BYTES32 = re.compile(r"0[xX][0-9a-fA-F]{64}\Z")
_MESSAGE_ID = re.compile(r"(0[xX])?[0-9a-fA-F]{64}\Z")


def blockchain_id(name: str, value: str) -> bytes:
    """A blockchain ID given as 0x-hex bytes32 or in CB58 (400 otherwise)."""
    if _BYTES32.match(value):
        return bytes.fromhex(value[2:])
    try:
        return id_from_str(value)
    except (FormatError, ValueError):
        raise bad_request(f"{name} must be a blockchain ID (CB58, or 0x and 64 hex digits)") from None


def _optional_chain(ctx: RequestContext, name: str) -> bytes | None:
    value = ctx.params.get(name)
    return None if value is None else blockchain_id(name, value)


def _store(ctx: RequestContext) -> Any:
    if ctx.node.indexer is None or ctx.store is None:
        raise index_off()
    return ctx.store


def _evm_ids(ctx: RequestContext) -> dict[bytes, str]:
    return {c.chain_id: str(evm_chain_id_of(ctx.node, c)) for c in evm_chains(ctx.node)}


def _tx(tx: IcmTx) -> dict[str, Any]:
    return {"txHash": hex0x(tx.tx_hash), "timestamp": tx.ms // 1000, "gasSpent": str(tx.gas_used)}


def _reward(ctx: RequestContext, m: IcmMessage) -> dict[str, Any]:
    token = m.fee_token if m.fee_token is not None else ZERO_ADDRESS
    meta = EvmIndex(ctx.store, m.source).token(token) if token != ZERO_ADDRESS else None
    return {"address": checksum(token), "name": (meta.name if meta else None) or "",
            "symbol": (meta.symbol if meta else None) or "", "decimals": (meta.decimals if meta else None) or 0,
            "ercType": "ERC-20", "value": str(m.fee_amount)}


def message_json(ctx: RequestContext, m: IcmMessage, evm_ids: dict[bytes, str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "messageId": m.message_id.hex(), "icmContractAddress": checksum(MESSENGER_ADDRESS),
        "sourceBlockchainId": id_to_str(m.source), "destinationBlockchainId": id_to_str(m.destination),
        "sourceEvmChainId": evm_ids.get(m.source, ""), "destinationEvmChainId": evm_ids.get(m.destination, ""),
        "messageNonce": str(m.nonce), "from": checksum(m.sender), "to": checksum(m.receiver), "data": hex0x(m.data),
        "messageExecuted": m.delivered is not None and m.delivered.executed,
        "receipts": [{"receivedMessageNonce": str(n), "relayerRewardAddress": checksum(a)} for n, a in m.receipts],
        "receiptDelivered": m.receipt_delivered, "rewardDetails": _reward(ctx, m),
    }
    if m.sent is not None:
        out["sourceTransaction"] = _tx(m.sent)
    if m.delivered is not None:
        d = m.delivered
        out["destinationTransaction"] = {**_tx(d.tx), "rewardRedeemer": checksum(d.reward_redeemer),
                                         "delivererAddress": checksum(d.deliverer)}
    out["status"] = ("pending" if m.delivered is None else "delivered" if m.sent is not None
                     else "delivered_source_not_indexed")
    return out


def get_message(ctx: RequestContext) -> dict[str, Any]:
    value = ctx.params["messageId"]
    if _MESSAGE_ID.match(value) is None:
        raise bad_request("messageId must be an ICM message ID (64 hex digits)")
    m = message(_store(ctx), bytes.fromhex(value[-64:]))
    if m is None:
        raise not_found(f"ICM message {value} not found")
    return message_json(ctx, m, _evm_ids(ctx))


_NO_SUCH_CHAIN = b""


def _source_or_destination(ctx: RequestContext, name: str, by_evm_id: dict[str, bytes]) -> bytes | None:
    """The spec lets these two filters name a chain by its EVM chain ID too (_NO_SUCH_CHAIN: no EVM
    chain of the node has that ID)."""
    value = ctx.params.get(name)
    if value is not None and value.isdigit() and len(value) <= 20:
        return by_evm_id.get(value, _NO_SUCH_CHAIN)
    return _optional_chain(ctx, name)


def list_messages(ctx: RequestContext) -> dict[str, Any]:
    store = _store(ctx)
    evm_ids = _evm_ids(ctx)
    by_evm_id = {evm_id: chain_id for chain_id, evm_id in evm_ids.items()}
    filters = {"source": _source_or_destination(ctx, "sourceBlockchainId", by_evm_id),
               "destination": _source_or_destination(ctx, "destinationBlockchainId", by_evm_id),
               "chain": _optional_chain(ctx, "blockchainId"),
               "sender": optional_address(ctx, "from"), "receiver": optional_address(ctx, "to")}
    if _NO_SUCH_CHAIN in (filters["source"], filters["destination"]):
        return {"messages": []}
    page = page_of(ctx, lambda cursor: messages(store, ctx.params["pageSize"], cursor, **filters))
    return ctx.paged({"messages": [message_json(ctx, m, evm_ids) for m in page.items]}, page.next)


def list_address_messages(ctx: RequestContext) -> dict[str, Any]:
    store = _store(ctx)
    address = evm_address("address", ctx.params["address"])
    page = page_of(ctx, lambda cursor: messages(store, ctx.params["pageSize"], cursor, address=address))
    evm_ids = _evm_ids(ctx)
    return ctx.paged({"messages": [message_json(ctx, m, evm_ids) for m in page.items]}, page.next)


# deprecated route -> (the ICM route whose parameters it has, its operationId)
DEPRECATED_ROUTES = {
    "/v1/teleporter/messages/{messageId}": ("/v1/icm/messages/{messageId}", "getTeleporterMessage"),
    "/v1/teleporter/messages": ("/v1/icm/messages", "listTeleporterMessages"),
    "/v1/teleporter/addresses/{address}/messages": ("/v1/icm/addresses/{address}/messages",
                                                    "listTeleporterMessagesByAddress"),
}


def deprecated_operations() -> list[Operation]:
    doc = document(DATA)
    return [make_operation(DATA, "get", route, {**doc["paths"][icm_route]["get"], "operationId": operation_id,
                                                "deprecated": True}, doc)
            for route, (icm_route, operation_id) in DEPRECATED_ROUTES.items()]


def teleporter_form(m: dict[str, Any]) -> dict[str, Any]:
    return {("teleporterContractAddress" if key == "icmContractAddress" else key): value for key, value in m.items()}


def _teleporter_list(answer: dict[str, Any]) -> dict[str, Any]:
    return {**answer, "messages": [m if m["status"] == "delivered_source_not_indexed" else teleporter_form(m)
                                   for m in answer["messages"]]}


def get_teleporter_message(ctx: RequestContext) -> dict[str, Any]:
    return teleporter_form(get_message(ctx))


def list_teleporter_messages(ctx: RequestContext) -> dict[str, Any]:
    return _teleporter_list(list_messages(ctx))


def list_teleporter_address_messages(ctx: RequestContext) -> dict[str, Any]:
    return _teleporter_list(list_address_messages(ctx))
