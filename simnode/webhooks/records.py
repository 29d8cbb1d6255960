"""Webhook records, the shared secret, the outbox and the delivery history in the node's LevelDB.

Keys (namespace `wh/`):

    wh/w/<webhook id>                 -> WEBHOOK (a map, below)           account data: unversioned
    wh/s                              -> the shared secret (UTF-8)        unversioned
    wh/q                              -> u64: the next outbox sequence    in each block's batch
    wh/o/<seq u64><message id 16>     -> OUTBOX [webhook id, message id, body, created ms, label(, ref)]
                                         written in the accepted block's own batch (so a block and
                                         its messages are committed together); deleted (unversioned)
                                         once delivered or given up. An EVM message holds an empty
                                         body and a REF [chain ID, block number, tx index, include
                                         logs, include internal txs, event signatures]: the worker
                                         builds its body from the block's rows, which never change
                                         once accepted (so the block pays no JSON, and every
                                         redelivery has the same bytes); other messages (and rows
                                         written before refs existed) hold their body
    wh/h/<webhook id><seq u64><message id 16> -> HISTORY {messageId, status, attempts, ...}
                                         unversioned; per webhook the newest HISTORY_KEPT are kept
                                         (pruned every few deliveries, delivery.py)

Webhooks and the secret are the account's, not the chain's: a snapshot revert leaves them alone
(as it leaves the hosted service's). Outbox rows belong to their block: a revert that removes the
block removes its undelivered messages with it.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from ..store import Batch, Store, pack, unpack

NS = b"wh/"
WEBHOOKS = NS + b"w/"
SECRET = NS + b"s"
SEQUENCE = NS + b"q"
OUTBOX = NS + b"o/"
HISTORY = NS + b"h/"
HISTORY_KEPT = 100

ADDRESS_ACTIVITY = "address_activity"
PRIMARY_ADDRESS_ACTIVITY = "primary_network_address_activity"
VALIDATOR_ACTIVITY = "validator_activity"


@dataclass(frozen=True, slots=True)
class Webhook:
    id: str
    url: str
    chain_id: str           # as the client named it ("43112", "p-chain", …)
    chain: bytes            # the blockchain ID it watches (32 bytes)
    event_type: str
    network: str
    metadata: dict[str, Any]
    name: str = ""
    description: str = ""
    status: str = "active"
    created_at: int = 0     # unix seconds
    include_internal_txs: bool | None = None
    include_logs: bool | None = None

    @property
    def active(self) -> bool:
        return self.status == "active"

    def record(self) -> dict[str, Any]:
        return {"id": self.id, "url": self.url, "chainId": self.chain_id, "chain": self.chain,
                "eventType": self.event_type, "network": self.network, "metadata": self.metadata,
                "name": self.name, "description": self.description, "status": self.status,
                "createdAt": self.created_at, "itx": self.include_internal_txs, "logs": self.include_logs}

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> Webhook:
        return cls(r["id"], r["url"], r["chainId"], r["chain"], r["eventType"], r["network"], r["metadata"],
                   r["name"], r["description"], r["status"], r["createdAt"], r["itx"], r["logs"])

    def with_(self, **changes: Any) -> Webhook:
        return replace(self, **changes)

    @property
    def addresses(self) -> list[str]:
        """The watched keys: EVM addresses (address_activity), P/X addresses or node/subnet IDs."""
        md = self.metadata
        return list((md.get("addresses") if self.event_type == ADDRESS_ACTIVITY else md.get("keys")) or [])


@dataclass(slots=True)
class Message:
    """One outbox row, as the delivery worker holds it."""

    key: bytes              # the outbox key (seq + message id)
    webhook_id: str
    message_id: str
    body: bytes
    created_ms: int
    label: str              # what it is about (a tx hash and event), for the explorer
    ref: list[Any] | None = None  # an EVM message's REF: its body is built at delivery (evm_events.ref_body)
    attempts: list[list[Any]] = field(default_factory=list)  # [at ms, HTTP status or error, latency ms]
    next_retry_ms: int | None = None


def message_id(webhook_id: str, *parts: bytes | str) -> str:
    """A stable UUID for (webhook, chain, tx, event): the same message keeps its ID across
    redeliveries and restarts. It is uuid5(…uuid5(uuid5(NAMESPACE_URL, webhook_id), part)…),
    computed on bytes: uuid.uuid5 builds a UUID object per step, which cost a block as much as
    the rest of staging a message."""
    h = _webhook_namespace(webhook_id)
    for p in parts:
        h = _uuid5(h, p.hex() if isinstance(p, bytes) else p)
    x = h.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


def _uuid5(namespace: bytes, name: str) -> bytes:
    """uuid.uuid5(UUID(bytes=namespace), name).bytes: SHA-1's first 16 bytes, version 5, RFC 4122 variant."""
    d = bytearray(hashlib.sha1(namespace + name.encode()).digest()[:16])
    d[6] = d[6] & 0x0F | 0x50
    d[8] = d[8] & 0x3F | 0x80
    return bytes(d)


@functools.lru_cache(maxsize=4096)
def _webhook_namespace(webhook_id: str) -> bytes:
    return _uuid5(uuid.NAMESPACE_URL.bytes, webhook_id)


def load_webhooks(store: Store) -> dict[str, Webhook]:
    return {w.id: w for w in (Webhook.from_record(unpack(v)) for _, v in store.iterate(WEBHOOKS))}


def save_webhook(store: Store, webhook: Webhook) -> None:
    store.put_unversioned({WEBHOOKS + webhook.id.encode(): pack(webhook.record())})


def read_secret(store: Store) -> str | None:
    raw = store.get(SECRET)
    return None if raw is None else raw.decode()


def save_secret(store: Store, secret: str) -> None:
    store.put_unversioned({SECRET: secret.encode()})


def stage_message(batch: Batch, webhook_id: str, msg_id: str, body: bytes, created_ms: int, label: str,
                  ref: list[Any] | None = None) -> bytes:
    """Put one message in the outbox in `batch` (a block's): its body, or an empty body and the
    REF it is built from at delivery; returns its key."""
    raw = batch.get(SEQUENCE)
    seq = int.from_bytes(raw, "big") if raw else 0
    batch.changes[SEQUENCE] = (seq + 1).to_bytes(8, "big")
    key = OUTBOX + seq.to_bytes(8, "big") + uuid.UUID(msg_id).bytes
    batch.changes[key] = pack([webhook_id, msg_id, body, created_ms, label] + ([ref] if ref is not None else []))
    return key


def outbox(store: Store) -> list[Message]:
    """Every message not delivered nor given up yet, in outbox order."""
    return [Message(k, *unpack(v)) for k, v in store.iterate(OUTBOX)]


def history_key(webhook_id: str, outbox_key: bytes) -> bytes:
    return HISTORY + webhook_id.encode() + outbox_key[len(OUTBOX):]


def history(store: Store, webhook_id: str) -> list[dict[str, Any]]:
    """The webhook's kept deliveries, newest first."""
    return [unpack(v) for _, v in store.iterate(HISTORY + webhook_id.encode(), reverse=True)]
