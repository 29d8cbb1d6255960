"""The Webhooks engine: the account's webhooks and shared secret, and the matcher every accepted
block goes through (BlockFeed, below the index in the node's wiring) that stages each message in
the block's own batch. Delivery is delivery.py's job; this module never does I/O but LevelDB.

Matching costs a block nothing when no active webhook watches its chain; otherwise an EVM block
costs a set lookup per address a tx touches, and a P/X block a pass over the rows it indexed.
"""

from __future__ import annotations

import logging
import secrets
import threading
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from ..formats.address import hrp_for_network
from ..formats.bech32 import bech32_decode
from ..formats.ids import PLATFORM_VM_ID, AVM_VM_ID, ZERO_ID
from ..store import Batch, Store
from . import records as r
from .evm_events import EvmMatch, block_messages, latest_tx_message, ref_body
from .primary_events import BlockView, address_events, primary_body, validator_events

log = logging.getLogger("simnode.webhooks")

PRIMARY_VMS = (PLATFORM_VM_ID, AVM_VM_ID)


Staged = tuple[r.Webhook, str, bytes, str, list[Any] | None]  # webhook, message ID, body, label, REF


class BlockIndexer(Protocol):
    def block_accepted(self, chain: Any, row: dict, batch: Batch) -> None: ...

    def chain_opened(self, chain: Any) -> Any: ...


class Webhooks:
    def __init__(self, store: Store, now_ms: Callable[[], int], network_id: int, avax_asset: bytes,
                 network_token: Callable[[Any], tuple[str, str, int] | None],
                 chain_of: Callable[[bytes], Any] | None = None) -> None:
        self.store = store
        self.chain_of = chain_of  # the node's chain of an ID (builds the bodies of EVM messages)
        self._seen: dict[bytes, Any] = {}  # the chains whose blocks were matched (when no chain_of)
        self.now_ms = now_ms
        self.hrp = hrp_for_network(network_id)
        self.avax_asset = avax_asset
        self.network_token = network_token
        self.webhooks: dict[str, r.Webhook] = r.load_webhooks(store)
        self._evm: dict[bytes, EvmMatch] = {}
        self._primary: dict[bytes, list[r.Webhook]] = {}
        self._lock = threading.Lock()
        self.staged: list[bytes] = []  # outbox keys staged since the worker last looked
        self.on_staged: Callable[[], None] | None = None  # the delivery worker's wake-up
        self._rebuild()

    # ------------------------------------------------------------------ records

    def _rebuild(self) -> None:
        evm: dict[bytes, list[r.Webhook]] = {}
        primary: dict[bytes, list[r.Webhook]] = {}
        for w in sorted(self.webhooks.values(), key=lambda w: (w.created_at, w.id)):
            if not w.active:
                continue
            (evm if w.event_type == r.ADDRESS_ACTIVITY else primary).setdefault(w.chain, []).append(w)
        self._evm = {chain: EvmMatch(hooks) for chain, hooks in evm.items()}
        self._primary = primary

    def save(self, webhook: r.Webhook) -> r.Webhook:
        r.save_webhook(self.store, webhook)
        self.webhooks[webhook.id] = webhook
        self._rebuild()
        if self.on_staged is not None:
            self.on_staged()  # a webhook made active again delivers what waited
        return webhook

    def new_id(self) -> str:
        return str(uuid.uuid4())

    def listed(self, status: str | None = None) -> list[r.Webhook]:
        """The webhooks, newest first (as the hosted list shows them)."""
        hooks = [w for w in self.webhooks.values() if status is None or w.status == status]
        return sorted(hooks, key=lambda w: (-w.created_at, w.id))

    def secret(self) -> str:
        """The shared secret, made on first use (every delivery is signed with it)."""
        found = r.read_secret(self.store)
        return found if found is not None else self.rotate_secret()

    def rotate_secret(self) -> str:
        secret = secrets.token_hex(32)
        r.save_secret(self.store, secret)
        return secret

    # ------------------------------------------------------------------ matching

    def watches_primary(self, chain: Any) -> bool:
        return chain.chain_id in self._primary

    def block_accepted(self, chain: Any, row: dict, batch: Batch, before: dict[bytes, bytes | None] | None) -> None:
        """Stage the messages of `chain`'s accepted block `row` in its `batch` (the index rows of
        the block are staged already; `before` is the batch's content before they were, for a
        P/X block some primary webhook watches)."""
        match = self._evm.get(chain.chain_id)
        if match is not None and "rc" in row:
            self._seen[chain.chain_id] = chain
            found = block_messages(chain, row, batch, match)
            self._stage(batch, [(w, mid, b"", label, ref) for w, mid, ref, label in found])
        hooks = self._primary.get(chain.chain_id)
        if hooks and before is not None and chain.vm_id in PRIMARY_VMS:
            self._stage(batch, self.primary_messages(chain, batch, before, hooks))

    def primary_messages(self, chain: Any, batch: Batch, before: dict[bytes, bytes | None],
                         hooks: list[r.Webhook]) -> list[Staged]:
        new = {k: v for k, v in batch.changes.items() if k not in before or before[k] != v}
        earlier = Batch(self.store)
        earlier.changes = before
        alias = "P" if chain.chain_id == ZERO_ID else "X"
        view = BlockView(chain.chain_id, alias, self.hrp, self.avax_asset, new, earlier.get, batch.get,
                         earlier.iterate, batch.iterate)
        out: list[Staged] = []

        def emit(w: r.Webhook, mid: str, event: dict[str, Any], label: str) -> None:
            out.append((w, mid, primary_body(w, mid, event), label, None))

        address_hooks = [(w, primary_payloads(w)) for w in hooks if w.event_type == r.PRIMARY_ADDRESS_ACTIVITY]
        if address_hooks:
            address_events(view, address_hooks, emit)
        validator_hooks = [w for w in hooks if w.event_type == r.VALIDATOR_ACTIVITY]
        if validator_hooks:
            validator_events(view, validator_hooks, emit)
        return out

    def _stage(self, batch: Batch, messages: list[Staged]) -> None:
        if not messages:
            return
        now = self.now_ms()
        keys = [r.stage_message(batch, w.id, mid, body, now, label, ref) for w, mid, body, label, ref in messages]
        with self._lock:
            self.staged.extend(keys)
        if self.on_staged is not None:
            self.on_staged()

    def send_test_event(self, chain: Any, webhook: r.Webhook) -> str:
        """Queue a test delivery for an address_activity webhook, built from its chain's latest tx
        (outside any block: the message is no chain event, its ID is a fresh UUID); returns the
        message ID. ValueError when there is nothing to send."""
        if webhook.event_type != r.ADDRESS_ACTIVITY:
            raise ValueError("test events are built from an EVM tx: they exist for address_activity webhooks")
        mid = str(uuid.uuid4())
        batch = self.store.batch()
        body = latest_tx_message(chain, batch, webhook, mid, self.network_token(chain))
        if body is None:
            raise ValueError(f"chain {webhook.chain_id} has no transaction yet to send as a test event")
        key = r.stage_message(batch, webhook.id, mid, body, self.now_ms(), "test event")
        self.store.put_unversioned(batch.changes)
        with self._lock:
            self.staged.append(key)
        if self.on_staged is not None:
            self.on_staged()
        return mid

    def body(self, msg: r.Message) -> bytes | None:
        """The message's body: staged with it, or built from its REF (once; the delivery worker's
        thread). None while its chain is not loaded yet (a restart); ValueError when its block is
        gone."""
        if msg.body or msg.ref is None:
            return msg.body
        chain_id = msg.ref[0]
        chain = self.chain_of(chain_id) if self.chain_of is not None else self._seen.get(chain_id)
        if chain is None or not hasattr(chain, "block_row"):
            return None
        body = ref_body(chain, self.store.get, msg.ref, msg.webhook_id, msg.message_id, self.network_token(chain))
        if body is None:
            raise ValueError(f"block {msg.ref[1]} of its chain is gone")
        msg.body = body
        return body

    def take_staged(self) -> list[bytes]:
        with self._lock:
            keys, self.staged = self.staged, []
        return keys


def primary_payloads(w: r.Webhook) -> set[bytes]:
    """The 20-byte addresses a primary_network_address_activity webhook watches (its keys were
    checked when it was made: `P-local1…`, `X-local1…` or `local1…`)."""
    return {bech32_decode(key.rpartition("-")[2])[1] for key in w.addresses}


class BlockFeed:
    """What the node hands its chains as their BlockIndexer: the index first, then the webhooks,
    both in the block's batch. A chain catching up (chain_opened) feeds the index only: the
    webhooks see blocks as they are accepted, never history."""

    def __init__(self, indexer: BlockIndexer | None, webhooks: Webhooks) -> None:
        self.indexer = indexer
        self.webhooks = webhooks

    def block_accepted(self, chain: Any, row: dict, batch: Batch) -> None:
        before = dict(batch.changes) if self.webhooks.watches_primary(chain) else None
        if self.indexer is not None:
            self.indexer.block_accepted(chain, row, batch)
        try:
            self.webhooks.block_accepted(chain, row, batch, before)
        except Exception:  # a bad webhook must never cost a block
            log.exception("webhook matching failed for a block of %s", getattr(chain, "name", "?"))

    def chain_opened(self, chain: Any, *args: Any) -> Any:
        return self.indexer.chain_opened(chain, *args) if self.indexer is not None else 0
