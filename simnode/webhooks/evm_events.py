"""address_activity on an EVM chain: which watched addresses each tx of an accepted block touches,
and the delivery body (WebhookAddressActivityResponse) of each match.

A tx is activity of an address when the address is its sender, its recipient, the contract it
created, or the from/to of an ERC-20/721/1155 transfer log it emitted. A webhook with
`metadata.eventSignatures` takes only the txs that emitted a log whose topic0 is one of them (and
its `event.logs` are those logs). Amounts are decimal strings in the token's smallest unit, as the
Data API writes them; ERC token metadata is what the index read when it first saw the token.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

import orjson

from ..crypto.hashing import keccak256
from ..index.evm.layout import ERC20, ERC721, FRAME_KINDS, space
from ..index.keys import marker
from ..index.evm.rows import decode_tx, log_transfers, tx_fields
from ..store import Batch, unpack
from ..vms.evm.headers import decoded_header
from .records import ADDRESS_ACTIVITY, Webhook, message_id

STANDARD_NAMES = {ERC20: "ERC20", ERC721: "ERC721"}
TRANSFER_KEYS = {"ERC20": "erc20Transfers", "ERC721": "erc721Transfers", "ERC1155": "erc1155Transfers"}
TOKEN_KEYS = {"ERC20": "erc20Token", "ERC721": "erc721Token", "ERC1155": "erc1155Token"}


@functools.lru_cache(maxsize=65536)
def checksum(address: bytes) -> str:
    plain = address.hex()
    digest = keccak256(plain.encode()).hex()
    return "0x" + "".join(c.upper() if d in "89abcdef" else c for c, d in zip(plain, digest))


def hex0x(data: bytes) -> str:
    return "0x" + data.hex()


def with_decimals(value: int, decimals: int) -> str:
    if decimals <= 0:
        return str(value)
    text = format(Decimal(value).scaleb(-decimals), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


class EvmMatch:
    """The watched addresses of one chain: address -> the active webhooks that watch it."""

    __slots__ = ("by_address",)

    def __init__(self, webhooks: Iterable[Webhook]) -> None:
        self.by_address: dict[bytes, list[Webhook]] = {}
        for w in webhooks:
            for a in w.addresses:
                self.by_address.setdefault(bytes.fromhex(a[2:].lower()), []).append(w)


def block_messages(chain: Any, row: dict, batch: Batch,
                   match: EvmMatch) -> list[tuple[Webhook, str, list[Any], str]]:
    """(webhook, message ID, REF, label) for every (webhook, tx) of the block that matches. The
    body is not built here but at delivery (ref_body), from the block's rows: a block pays the
    matching only."""
    by_address = match.by_address
    found: list[tuple[int, list[Webhook]]] = []
    # the block's number is the index marker the index just set in this batch, when it runs
    n8 = batch.changes.get(marker(chain.chain_id))
    for i, raw in enumerate(row["txs"]):
        receipt = row["rc"][i]
        touched = {row["from"][i]}
        touched.add(decode_tx(raw)[3] or receipt[4] or b"")
        for lg in receipt[5]:
            for item in log_transfers(lg[1], lg[2]):
                touched.add(item[1])
                touched.add(item[2])
        matched = {w.id: w for a in touched for w in by_address.get(a, ())}
        if matched:
            found.append((i, sorted(matched.values(), key=lambda w: w.id)))
    if not found:
        return []
    number = int.from_bytes(n8, "big") if n8 else decoded_header(row["hdr"], chain.header_rules.coreth).block_number
    out = []
    for i, hooks in found:
        h = keccak256(row["txs"][i])
        logs = row["rc"][i][5]
        for w in hooks:
            signatures = sorted({s.lower() for s in w.metadata.get("eventSignatures") or ()})
            if signatures and not any(lg[1] and hex0x(lg[1][0]) in signatures for lg in logs):
                continue
            mid = message_id(w.id, chain.chain_id, h, ADDRESS_ACTIVITY)
            ref = [chain.chain_id, number, i, bool(w.include_logs), bool(w.include_internal_txs), signatures]
            out.append((w, mid, ref, f"tx {h.hex()}"))
    return out


def ref_body(chain: Any, get: Callable[[bytes], bytes | None], ref: list[Any], webhook_id: str, msg_id: str,
             network_token: tuple[str, str, int] | None) -> bytes | None:
    """The body of the message REF names (records.py), from its block's stored rows (and the
    token metadata the index keeps; `get` reads the store); None when the block is gone."""
    _chain_id, number, i, include_logs, internals, signatures = ref
    row = chain.block_row(number)
    if row is None or i >= len(row["txs"]):
        return None
    logs_before = sum(len(rc[5]) for rc in row["rc"][:i])
    event = _TxBlock(chain, row, get, network_token).event(i, logs_before, include_logs, internals, set(signatures))
    return orjson.dumps({"webhookId": webhook_id, "eventType": ADDRESS_ACTIVITY, "messageId": msg_id, "event": event})


class _TxBlock:
    """The Transaction JSON of a block's txs, built for the matched ones only."""

    def __init__(self, chain: Any, row: dict, get: Callable[[bytes], bytes | None],
                 network_token: tuple[str, str, int] | None) -> None:
        self.chain = chain
        self.row = row
        self.get = get
        self.header = decoded_header(row["hdr"], chain.header_rules.coreth)
        self.time = row["ms"] // 1000
        self.network_token = network_token
        self.tokens: dict[bytes, tuple[str, str, int] | None] = {}

    def token(self, address: bytes) -> tuple[str, str, int] | None:
        if address not in self.tokens:
            raw = self.get(space(self.chain.chain_id).tm + address)
            rec = unpack(raw) if raw is not None else None
            self.tokens[address] = (rec[1] or "", rec[2] or "", rec[3] or 0) if rec else None
        return self.tokens[address]

    def event(self, i: int, log_base: int, include_logs: bool, internals: bool, signatures: set[str]) -> dict[str, Any]:
        """The event of tx `i` for a webhook with these settings (`signatures` picks its logs)."""
        logs = self.row["rc"][i][5]
        event: dict[str, Any] = {"transaction": self.transaction(i, log_base, internals)}
        if include_logs:
            event["logs"] = [self.log(lg, i, log_base + n) for n, lg in enumerate(logs)
                             if not signatures or lg[1] and hex0x(lg[1][0]) in signatures]
        return event

    def transaction(self, i: int, log_base: int, internals: bool) -> dict[str, Any]:
        row = self.row
        raw = row["txs"][i]
        type_id, nonce, gas, to, value, data, max_fee, tip = decode_tx(raw)
        status, cumulative, used, price, contract, logs = row["rc"][i]
        h = keccak256(raw)
        tx: dict[str, Any] = {
            "blockHash": hex0x(row["h"]), "blockNumber": str(self.header.block_number),
            "from": checksum(row["from"][i]), "gas": str(gas), "gasPrice": str(price),
            "maxFeePerGas": str(max_fee if max_fee is not None else price),
            "maxPriorityFeePerGas": str(tip if tip is not None else price),
            "txHash": hex0x(h), "txStatus": str(status), "input": hex0x(data), "nonce": str(nonce),
            "to": checksum(to) if to else "", "transactionIndex": i, "value": str(value), "type": type_id,
            "chainId": str(self.chain.evm_chain_id), "receiptCumulativeGasUsed": str(cumulative),
            "receiptGasUsed": str(used), "receiptEffectiveGasPrice": str(price),
            "receiptRoot": hex0x(self.header.receipt_root), "blockTimestamp": self.time,
            "erc20Transfers": [], "erc721Transfers": [], "erc1155Transfers": []}
        if contract:
            tx["contractAddress"] = checksum(contract)
        for n, lg in enumerate(logs):
            for standard, frm, dst, amount, token_id in log_transfers(lg[1], lg[2]):
                name = STANDARD_NAMES.get(standard, "ERC1155")
                tx[TRANSFER_KEYS[name]].append(self.transfer(name, lg[0], frm, dst, amount, token_id, h,
                                                             log_base + n))
        if internals:
            tx["internalTransactions"] = self.internals(i, h)
        if type_id in (1, 2):
            tx["accessList"] = access_list(raw)
        if self.network_token is not None:
            name, symbol, decimals = self.network_token
            tx["networkToken"] = {"tokenName": name, "tokenSymbol": symbol, "tokenDecimals": decimals,
                                  "valueWithDecimals": with_decimals(value, decimals)}
        return tx

    def transfer(self, kind: str, token: bytes, frm: bytes, to: bytes, amount: int, token_id: bytes, h: bytes,
                 log_index: int) -> dict[str, Any]:
        out: dict[str, Any] = {"transactionHash": hex0x(h), "type": kind, "from": checksum(frm), "to": checksum(to),
                               "value": str(amount), "blockTimestamp": self.time, "logIndex": log_index}
        if token_id:
            out["tokenId"] = str(int.from_bytes(token_id, "big"))
        meta = self.token(token)
        name, symbol, decimals = meta if meta is not None else ("", "", 0)
        decimals = decimals if kind == "ERC20" else 0
        out[TOKEN_KEYS[kind]] = {"address": checksum(token), "name": name, "symbol": symbol, "decimals": decimals,
                                 "valueWithDecimals": with_decimals(amount, decimals)}
        return out

    def log(self, lg: list, i: int, log_index: int) -> dict[str, Any]:
        address, topics, data = lg[0], lg[1], lg[2]
        out: dict[str, Any] = {"address": checksum(address), "topic0": hex0x(topics[0]) if topics else "0x",
                               "data": hex0x(data), "transactionIndex": i, "logIndex": log_index, "removed": False}
        for k, t in enumerate(topics[1:4], start=1):
            out[f"topic{k}"] = hex0x(t)
        return out

    def internals(self, i: int, h: bytes) -> list[dict[str, Any]]:
        """The tx's call frames below the tx itself, as the node recorded them while executing."""
        traces = self.row.get("ct")
        frames = traces[i] if traces else None
        out = []
        for kind, frm, to, value, gas, used, depth, _failed in frames or ():
            if depth == 0:
                continue
            amount = int.from_bytes(value, "big") if isinstance(value, bytes) else value  # calltrace's big bytes
            out.append({"from": checksum(frm), "to": checksum(to), "internalTxType": FRAME_KINDS[kind],
                        "value": str(amount), "gasUsed": str(used), "gasLimit": str(gas), "transactionHash": hex0x(h)})
        return out


def access_list(raw: bytes) -> list[dict[str, Any]]:
    fields = tx_fields(raw[1:])
    entries = fields[7] if raw[0] == 1 else fields[8]
    return [{"accessAddresses": checksum(a), "storageKeys": [hex0x(k) for k in keys]} for a, keys in entries]


def latest_tx_message(chain: Any, batch: Batch, w: Webhook, msg_id: str,
                      network_token: tuple[str, str, int] | None, depth: int = 1000) -> bytes | None:
    """A test event for `w`: its body built from the chain's most recent tx (within `depth`
    blocks of the head), whoever sent it; None when there is none."""
    head = chain.head.number
    for number in range(head, max(-1, head - depth), -1):
        row = chain.block_row(number)
        if row is None or not row["txs"]:
            continue
        i = len(row["txs"]) - 1
        logs_before = sum(len(rc[5]) for rc in row["rc"][:i])
        event = _TxBlock(chain, row, batch.get, network_token).event(i, logs_before, bool(w.include_logs),
                                                                     bool(w.include_internal_txs), set())
        return orjson.dumps({"webhookId": w.id, "eventType": ADDRESS_ACTIVITY, "messageId": msg_id, "event": event})
    return None
