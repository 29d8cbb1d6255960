"""The C-Chain transaction pool: per-sender nonce queues, geth's replacement rule, block packing.

A tx is *pending* when its nonce continues its sender's executable run from the state nonce;
otherwise it is *queued* until the gap closes (then it is promoted with no further action:
packing simply walks each sender's run). Packing order: effective tip, then arrival sequence.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any
from simnode.errors import Refused

PRICE_BUMP = 10  # percent, geth's default
# coreth's tx-pool-global-slots + tx-pool-global-queue: past that many txs (pending and queued) a
# new one is refused, so txs that never become executable (a nonce gap) cannot fill the memory
CAPACITY = 5120 + 1024


class PoolError(Refused):
    pass


@dataclass(slots=True)
class PoolTx:
    tx: Any  # py-evm signed transaction (sender already resolved)
    raw: bytes
    hash: bytes
    sender: bytes
    nonce: int
    gas: int
    max_fee: int
    tip: int
    value: int
    seq: int = 0
    type_id: int = 0

    def effective_tip(self, base_fee: int) -> int:
        return min(self.tip, self.max_fee - base_fee)

    def cost(self) -> int:
        return self.gas * self.max_fee + self.value


class Mempool:
    def __init__(self) -> None:
        self.by_hash: dict[bytes, PoolTx] = {}
        self.by_sender: dict[bytes, dict[int, PoolTx]] = {}
        self._seq = 0

    def __len__(self) -> int:
        return len(self.by_hash)

    def get(self, h: bytes) -> PoolTx | None:
        return self.by_hash.get(h)

    def add(self, ptx: PoolTx) -> PoolTx | None:
        """Insert; returns the tx it replaced. Raises PoolError (geth wording) when refused."""
        if ptx.hash in self.by_hash:
            raise PoolError("already known")
        queue = self.by_sender.setdefault(ptx.sender, {})
        old = queue.get(ptx.nonce)
        if old is not None:
            # geth: both fee cap and tip must rise by at least PRICE_BUMP percent
            need_fee = old.max_fee * (100 + PRICE_BUMP) // 100
            need_tip = old.tip * (100 + PRICE_BUMP) // 100
            if ptx.max_fee < need_fee or ptx.tip < need_tip:
                raise PoolError("replacement transaction underpriced")
            del self.by_hash[old.hash]
        elif len(self.by_hash) >= CAPACITY:
            raise PoolError("txpool is full")
        self._seq += 1
        ptx.seq = self._seq
        queue[ptx.nonce] = ptx
        self.by_hash[ptx.hash] = ptx
        return old

    def remove(self, h: bytes) -> PoolTx | None:
        ptx = self.by_hash.pop(h, None)
        if ptx is None:
            return None
        queue = self.by_sender.get(ptx.sender)
        if queue is not None and queue.get(ptx.nonce) is ptx:
            del queue[ptx.nonce]
            if not queue:
                del self.by_sender[ptx.sender]
        return ptx

    def drop_stale(self, sender: bytes, state_nonce: int) -> list[PoolTx]:
        """Forget a sender's txs below its state nonce (mined or replaced by a reverted state)."""
        queue = self.by_sender.get(sender)
        if not queue:
            return []
        gone = [p for n, p in queue.items() if n < state_nonce]
        for p in gone:
            self.remove(p.hash)
        return gone

    def clear(self) -> None:
        self.by_hash.clear()
        self.by_sender.clear()

    def pending_nonce(self, sender: bytes, state_nonce: int) -> int:
        queue = self.by_sender.get(sender)
        n = state_nonce
        if queue:
            while n in queue:
                n += 1
        return n

    def split(self, nonce_of: Callable[[bytes], int]) -> tuple[dict[bytes, list[PoolTx]], dict[bytes, list[PoolTx]]]:
        """(pending, queued) per sender, each sorted by nonce."""
        pending: dict[bytes, list[PoolTx]] = {}
        queued: dict[bytes, list[PoolTx]] = {}
        for sender, queue in self.by_sender.items():
            n = nonce_of(sender)
            for nonce in sorted(queue):
                p = queue[nonce]
                if nonce == n:
                    pending.setdefault(sender, []).append(p)
                    n += 1
                elif nonce > n:
                    queued.setdefault(sender, []).append(p)
        return pending, queued

    def has_executable(self, nonce_of: Callable[[bytes], int]) -> bool:
        for sender, queue in self.by_sender.items():
            if nonce_of(sender) in queue:
                return True
        return False

    def iter_for_block(self, base_fee: int,
                       nonce_of: Callable[[bytes], int]) -> Generator[PoolTx, bool | None, None]:
        """Executable txs, best effective tip first (ties by arrival), sender runs kept in order.

        The consumer `send()`s False back to skip the rest of that sender's run (e.g. the tx did
        not fit); any other value continues with the sender's next nonce.
        """
        heap: list[tuple[int, int, bytes, int]] = []
        for sender, queue in self.by_sender.items():
            n = nonce_of(sender)
            p = queue.get(n)
            if p is not None and p.max_fee >= base_fee:
                heapq.heappush(heap, (-p.effective_tip(base_fee), p.seq, sender, n))
        while heap:
            _, _, sender, n = heapq.heappop(heap)
            queue = self.by_sender.get(sender, {})
            p = queue.get(n)
            if p is None:
                continue
            keep_going = yield p
            if keep_going is False:
                continue
            nxt = queue.get(n + 1)
            if nxt is not None and nxt.max_fee >= base_fee:
                heapq.heappush(heap, (-nxt.effective_tip(base_fee), nxt.seq, sender, n + 1))
