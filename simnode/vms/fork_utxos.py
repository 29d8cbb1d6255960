"""UTXOs on a fork: an address's upstream UTXOs come into the fork the first time it is touched.

X-, P- and C-Chain (its shared memory) alike: when a balance or UTXO query names an address, or a
tx spends UTXOs the fork does not hold (its signers' addresses are recovered from its credentials),
the chain asks the upstream's `getUTXOs` for the address (its own UTXOs, or the shared-memory
UTXOs another chain exported to it) and writes them into its state in one batch, with markers:
the address is touched (never asked again) and each UTXO was taken once (a UTXO the fork spent is
not brought back when another of its owners is touched). From then on the fork owns them. The
markers are state (a snapshot revert undoes them with the UTXOs); the upstream's answers are
not kept anywhere else.

AvalancheGo serves no UTXO history: what is fetched is the upstream's set when it is asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..crypto.secp256k1 import recover_address
from ..formats.address import format_address
from ..formats.hexenc import decode_bytes
from ..formats.ids import id_to_str, utxo_id
from ..store import Batch, Store
from . import atomic

MARK = b"forkutxo/"
PAGE = 1024

DecodeOwners = Callable[[bytes], tuple[bytes, ...]]  # UTXO bytes -> owner addresses
PutOwn = Callable[[Batch, bytes, bytes, tuple[bytes, ...]], None]  # (batch, UTXO ID, bytes, owners)


def signer_addresses(unsigned_hash: bytes, credentials: Iterable[Any]) -> set[bytes]:
    """The addresses whose keys signed a tx (its credentials' signatures over `unsigned_hash`)."""
    out: set[bytes] = set()
    for cred in credentials:
        for sig in getattr(cred, "signatures", ()):
            try:
                out.add(recover_address(unsigned_hash, sig))
            except Exception:  # noqa: BLE001 - a bad signature: verification says why
                continue
    return out


class UTXOFork:
    """One chain's upstream UTXOs (its own, and shared memory from each source chain)."""

    def __init__(self, fork: Any, store: Store, chain_id: bytes, endpoint: str, api: str, alias: str, hrp: str,
                 decode_owners: DecodeOwners, put_own: PutOwn | None) -> None:
        self.fork = fork
        self.store = store
        self.chain_id = chain_id
        self.endpoint = endpoint  # e.g. "/ext/bc/X"
        self.method = f"{api}.getUTXOs"
        self.alias = alias
        self.hrp = hrp
        self.decode_owners = decode_owners
        self.put_own = put_own  # None: the chain has no UTXOs of its own (the C-Chain)

    def _touched(self, address: bytes, source: bytes | None) -> bytes:
        return MARK + self.chain_id + (source or self.chain_id) + b"t" + address

    def _taken(self, uid: bytes) -> bytes:
        return MARK + self.chain_id + b"u" + uid

    def touch(self, addresses: Iterable[bytes], source: bytes | None = None) -> None:
        """Bring the upstream UTXOs of `addresses` (from `source`'s exports, or the chain's own)
        into the fork, once per address."""
        store = self.store
        todo = sorted({a for a in addresses if store.get(self._touched(a, source)) is None})
        if not todo:
            return
        fetched = self._fetch(todo, source)
        batch = store.batch()
        for uid, raw in reversed(fetched):  # oldest first, so the fork lists them newest first as the upstream did
            if store.get(self._taken(uid)) is not None:
                continue
            owners = self.decode_owners(raw)
            if source is None:
                assert self.put_own is not None
                self.put_own(batch, uid, raw, owners)
            else:
                atomic.put_utxo(batch, self.chain_id, source, atomic.AtomicUTXO(uid, raw, owners))
            batch.put(self._taken(uid), b"")
        for a in todo:
            batch.put(self._touched(a, source), b"")
        batch.commit()

    def _fetch(self, addresses: list[bytes], source: bytes | None) -> list[tuple[bytes, bytes]]:
        params: dict[str, Any] = {"addresses": [format_address(self.alias, self.hrp, a) for a in addresses],
                                  "limit": PAGE, "encoding": "hex"}
        if source is not None:
            params["sourceChain"] = id_to_str(source)
        out: dict[bytes, bytes] = {}
        while True:
            page = self.fork.upstream.avax(self.endpoint, self.method, params)
            for text in page.get("utxos") or []:
                raw = decode_bytes(text, "hex")
                out[utxo_id(raw[2:34], int.from_bytes(raw[34:38], "big"))] = raw
            if int(page.get("numFetched", "0")) < PAGE:
                return list(out.items())
            params["startIndex"] = page["endIndex"]
