"""An EVM chain on a fork: the upstream chain's state at the fork block, read as execution needs it.

The chain's own trie starts empty and holds only what the fork changed. An account or slot the
trie does not hold is the upstream's at the fork block: `eth_getBalance`, `eth_getTransactionCount`
and `eth_getCode` of an account (one batched request; code kept by its hash), `eth_getStorageAt`
of a slot, each fetched once and kept in the fork cache (simnode/fork), so a restart fetches
nothing again. To tell "not changed here" from "made empty here", the fork writes what py-evm
would delete: an account it deletes becomes a tombstone, a slot it zeroes an explicit zero. An
account's storage goes on upstream only if the upstream has that account (one the fork creates
where the upstream has none starts empty, so a contract deployed on the fork asks nothing).

`ChainFork` ties a chain to its fork point: the VM classes (the fork's account database, BLOCKHASH
of blocks up to the fork block from the upstream), the fork base block (the upstream's block N
with the fork's own, empty state root; the first local block is N+1 on top of it, its parent hash
the upstream's and its fees continuing from the upstream header) and the upstream's answers for
blocks, txs and receipts up to N (fork_rpc.py serves them).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import rlp
from eth.constants import BLANK_ROOT_HASH, EMPTY_SHA3
from eth.db.account import AccountDB
from eth.db.storage import AccountStorageDB
from eth.vm.base import VM
from eth.vm.interrupt import MissingStorageTrieNode
from eth_typing import Address
from eth_utils import int_to_big_endian

from ...crypto.hashing import keccak256
from ...fork.client import UpstreamAnswerError
from ...fork.errors import ForkError, NotForked
from ...fork.identity import block_time_ms
from ...formats.ids import id_to_str
from .fees import FeeState
from .headers import Header
from .rules import FastAccount, account_rlp

log = logging.getLogger("simnode.fork")

MEMORY_ACCOUNTS = 100_000  # decoded upstream accounts kept in memory (all of them stay in the fork cache)
TOMBSTONE = b"\x00"  # an account the fork deleted (never a valid account RLP)
ZERO_VALUE = rlp.encode(0)  # a slot the fork set to zero (read back as 0, not as "absent")


def _q(v: Any) -> int:
    return int(v, 16) if isinstance(v, str) else int(v)


def _b(v: str | None, size: int = 0) -> bytes:
    return bytes(size) if v is None else bytes.fromhex(v[2:])


def _u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def header_from_json(block: dict, coreth: bool) -> Header:
    """The header an eth_getBlockBy* answer describes (RPCMarshalHeader's fields)."""
    def opt(key: str) -> int | None:
        return None if block.get(key) is None else _q(block[key])

    return Header(
        parent_hash=_b(block["parentHash"]), uncles_hash=_b(block["sha3Uncles"]), coinbase=_b(block["miner"]),
        state_root=_b(block["stateRoot"]), transaction_root=_b(block["transactionsRoot"]),
        receipt_root=_b(block["receiptsRoot"]), bloom=int.from_bytes(_b(block["logsBloom"]), "big"),
        difficulty=_q(block["difficulty"]), block_number=_q(block["number"]), gas_limit=_q(block["gasLimit"]),
        gas_used=_q(block["gasUsed"]), timestamp=_q(block["timestamp"]), extra_data=_b(block["extraData"]),
        mix_hash=_b(block["mixHash"]), nonce=_b(block["nonce"]),
        ext_data_hash=_b(block.get("extDataHash"), 32) if coreth else None,
        base_fee_per_gas=opt("baseFeePerGas"), ext_data_gas_used=opt("extDataGasUsed") if coreth else None,
        block_gas_cost=opt("blockGasCost"), blob_gas_used=opt("blobGasUsed"), excess_blob_gas=opt("excessBlobGas"),
        parent_beacon_block_root=None if block.get("parentBeaconBlockRoot") is None
        else _b(block["parentBeaconBlockRoot"]),
        timestamp_ms=opt("timestampMilliseconds"), min_delay_excess=opt("minDelayExcess"))


def fee_state_of(fee_rules: Any, header: Header) -> Any:
    """The fee state a block's header carries, as its child's fee rules continue from it."""
    if header.block_number == 0:  # a genesis block carries none
        return fee_rules.genesis_state(header.base_fee_per_gas or 0)
    if getattr(fee_rules, "name", "") == "subnet-evm":
        from .subnet_fees import WindowFeeState, parse_window
        return WindowFeeState(parse_window(header.extra_data), header.base_fee_per_gas or 0, header.block_gas_cost,
                              header.gas_used, False)
    return FeeState.decode(header.extra_data[:24])


class ForkState:
    """The upstream chain's accounts, code and storage at the fork block, fetched once each."""

    def __init__(self, fork: Any, path: str, key: bytes, block_number: int, account_tail: tuple[bytes, ...]) -> None:
        self.fork = fork
        self.upstream = fork.upstream
        self.cache = fork.cache
        self.path = path  # the upstream chain's alias or ID in /ext/bc/<path>/rpc
        self.key = key  # cache key prefix of this chain
        self.block_number = block_number
        self.tag = hex(block_number)
        self.tail = account_tail
        self._accounts: dict[bytes, tuple[int, int, bytes]] = {}
        self._encoded: dict[bytes, bytes] = {}

    # ------------------------------------------------------------------ accounts, code, storage

    def _account_key(self, address: bytes) -> bytes:
        return self.key + b"a/" + address

    def _slot_key(self, address: bytes, slot: int) -> bytes:
        return self.key + b"s/" + address + slot.to_bytes(32, "big")

    def account(self, address: bytes) -> tuple[int, int, bytes]:
        """(nonce, balance, code hash) of `address` at the fork block."""
        hit = self._accounts.get(address)
        if hit is not None:
            return hit
        key = self._account_key(address)
        try:
            rec = self.cache.get(key)
        except KeyError:
            self.prefetch((address,))
            rec = self.cache.get(key)
        if len(self._accounts) >= MEMORY_ACCOUNTS:
            self._accounts.clear()
            self._encoded.clear()
        hit = self._accounts[address] = (rec[0], int.from_bytes(rec[1], "big"), rec[2])
        return hit

    def encoded_account(self, address: bytes) -> bytes:
        """The account as this chain's trie would hold it (storage root: the fork's own, empty at
        first); b"" for an empty account."""
        hit = self._encoded.get(address)
        if hit is None:
            nonce, balance, code_hash = self.account(address)
            hit = b"" if nonce == 0 and balance == 0 and code_hash == EMPTY_SHA3 else \
                account_rlp(FastAccount(nonce, balance, BLANK_ROOT_HASH, code_hash), self.tail)
            self._encoded[address] = hit
        return hit

    def has_storage(self, address: bytes) -> bool:
        """May the upstream hold storage of `address`? Not when it has no such account (an account
        the fork creates there starts with empty storage)."""
        return self.encoded_account(address) != b""

    def code(self, code_hash: bytes) -> bytes:
        return self.cache.get(self.key + b"c/" + code_hash)

    def storage(self, address: bytes, slot: int) -> int:
        key = self._slot_key(address, slot)
        try:
            return int.from_bytes(self.cache.get(key), "big")
        except KeyError:
            self.prefetch((), ((address, slot),))
            return int.from_bytes(self.cache.get(key), "big")

    def prefetch(self, addresses: Iterable[bytes], slots: Iterable[tuple[bytes, int]] = ()) -> None:
        """Fetch, in one upstream request, every account and slot not kept yet."""
        cache = self.cache
        need = [a for a in dict.fromkeys(addresses) if a not in self._accounts and not cache.has(self._account_key(a))]
        need_slots = [s for s in dict.fromkeys(slots) if not cache.has(self._slot_key(*s))]
        if not need and not need_slots:
            return
        tag = self.tag
        calls: list[tuple[str, list[Any]]] = []
        for a in need:
            h = "0x" + a.hex()
            calls += [("eth_getBalance", [h, tag]), ("eth_getTransactionCount", [h, tag]), ("eth_getCode", [h, tag])]
        for a, s in need_slots:
            calls.append(("eth_getStorageAt", ["0x" + a.hex(), "0x" + s.to_bytes(32, "big").hex(), tag]))
        results = self.upstream.eth_batch(calls, self.path)
        items: dict[bytes, Any] = {}
        for i, a in enumerate(need):
            balance, nonce, code = results[3 * i:3 * i + 3]
            code_bytes = _b(code)
            code_hash = keccak256(code_bytes) if code_bytes else EMPTY_SHA3
            if code_bytes:
                items[self.key + b"c/" + code_hash] = code_bytes
            # msgpack holds 64-bit integers: balances and slots are kept as big-endian bytes
            items[self._account_key(a)] = [_q(nonce), _q(balance).to_bytes(32, "big"), code_hash]
        for j, (a, s) in enumerate(need_slots):
            items[self._slot_key(a, s)] = _q(results[3 * len(need) + j]).to_bytes(32, "big")
        cache.put_many(items)

    # ------------------------------------------------------------------ blocks

    def block(self, number: int, full: bool = False) -> dict | None:
        """The upstream's eth_getBlockByNumber answer for a block up to the fork block."""
        return self.fork.cached(self.key + b"b/" + _u64(number) + (b"f" if full else b"h"),
                                lambda: self.upstream.eth("eth_getBlockByNumber", [hex(number), full], self.path))

    def block_hash(self, number: int) -> bytes:
        """BLOCKHASH of a block up to the fork block."""
        block = self.block(number)
        if block is None:
            raise ForkError(f"fork upstream {self.upstream.url}: no block {number} on chain {self.path}")
        return _b(block["hash"])

    def call(self, name: str, method: str, params: list[Any]) -> Any:
        """An upstream answer about history up to the fork block, kept under `name`."""
        return self.fork.cached(self.key + b"q/" + name.encode(), lambda: self.upstream.eth(method, params, self.path))


# ---------------------------------------------------------------------- py-evm classes over a fork


class ForkStorageDB(AccountStorageDB):
    """An account's storage whose slots the fork has not written are the upstream's."""

    fork_state: ForkState
    wiped = False

    def get(self, slot: int, from_journal: bool = True) -> int:
        self._accessed_slots.add(slot)
        key = int_to_big_endian(slot)
        lookup_db = self._journal_storage if from_journal else self._locked_changes
        try:
            encoded = lookup_db[key]
        except MissingStorageTrieNode:
            raise
        except KeyError:
            return 0
        if encoded == b"":
            return 0 if self.wiped else self.fork_state.storage(self._address, slot)
        return rlp.decode(encoded, sedes=rlp.sedes.big_endian_int)

    def set(self, slot: int, value: int) -> None:
        self._journal_storage[int_to_big_endian(slot)] = rlp.encode(value) if value else ZERO_VALUE

    def delete(self) -> None:
        super().delete()
        self.wiped = True


def fork_account_db_class(base: type, state: ForkState) -> type:
    class ForkAccountDB(base):  # type: ignore[misc]
        fork_state = state

        def _get_encoded_account(self, address: Address, from_journal: bool = True) -> bytes:
            encoded = AccountDB._get_encoded_account(self, address, from_journal)
            if encoded:
                return b"" if encoded == TOMBSTONE else encoded
            return state.encoded_account(address)

        def delete_account(self, address: bytes) -> None:
            super().delete_account(address)
            if state.encoded_account(address):
                self._journaltrie[address] = TOMBSTONE

        def get_code(self, address: bytes) -> bytes:
            code_hash = self.get_code_hash(address)
            if code_hash == EMPTY_SHA3:
                return b""
            try:
                return self._journaldb[code_hash]
            except KeyError:
                return state.code(code_hash)

        def _get_address_store(self, address: Address) -> Any:
            store = self._account_stores.get(address)
            if store is None:
                root = self._get_storage_root(address)
                if state.has_storage(address):
                    store = ForkStorageDB(self._raw_store_db, root, address)
                    store.fork_state = state
                else:
                    store = AccountStorageDB(self._raw_store_db, root, address)
                self._account_stores[address] = store
            return store

    ForkAccountDB.__name__ = ForkAccountDB.__qualname__ = f"Fork{base.__name__}"
    return ForkAccountDB


def fork_vm_class(base_vm: type, state: ForkState) -> type:
    """`base_vm` reading the upstream's state where the fork's own trie has nothing, and the
    upstream's block hashes up to the fork block."""
    if not issubclass(base_vm, VM):
        raise TypeError(f"{base_vm.__name__} is not a py-evm VM class")
    base_state = base_vm._state_class
    account_db = fork_account_db_class(base_state.account_db_class, state)
    state_class = type(f"Fork{base_state.__name__}", (base_state,), {"account_db_class": account_db})
    first = state.block_number

    def previous_hashes(self: Any) -> Any:
        number = self.get_header().block_number
        canonical = self.chaindb.get_canonical_block_hash
        return (canonical(n) if n >= first else state.block_hash(n)
                for n in range(number - 1, max(number - 257, -1), -1))

    return type(f"Fork{base_vm.__name__}", (base_vm,), {"_state_class": state_class,
                                                          "previous_hashes": property(previous_hashes)})


# ---------------------------------------------------------------------- a chain's fork point

UPSTREAM_CHAINS_KEY = b"P/chains"  # the chain IDs the upstream P-Chain listed at the fork point


def forks_chain(fork: Any, chain_id: bytes) -> bool:
    """Does the fork take `chain_id` from the upstream (the C-Chain, an L1 the upstream had)?"""
    if chain_id == fork.identity.c_chain_id:
        return True
    try:
        return chain_id in fork.cache.get(UPSTREAM_CHAINS_KEY)
    except KeyError:
        return False



class ChainFork:
    """What an EVMChain on a fork knows of its upstream: the fork point and the lazy state."""

    def __init__(self, fork: Any, chain: Any) -> None:
        self.fork = fork
        self.store = chain.store
        self.chain_id = chain.chain_id
        self.hrp = chain.ctx.genesis.hrp
        identity = fork.identity
        self.is_c_chain = chain.chain_id == identity.c_chain_id
        self.path = "C" if self.is_c_chain else id_to_str(chain.chain_id)
        self.key = b"C/" if self.is_c_chain else chain.chain_id + b"/"
        if self.is_c_chain:
            self.block_number, self.block_hash = identity.block_number, identity.block_hash
        else:
            self.block_number, self.block_hash = self._l1_point(chain, identity.block_time_ms)
        tail = chain.precompiles.base_vm.get_state_class().get_account_db_class().account_tail
        self.state = ForkState(fork, self.path, self.key, self.block_number, tail)
        # txs left out of a block because the upstream could not give what they read: hash -> why
        # (their receipt lookups answer with it)
        self.failed: dict[bytes, str] = {}

    @property
    def atomic_utxos(self) -> Any:
        """The C-Chain's shared memory on a fork: what X and P exported to it upstream, brought in
        for an address when first touched (vms/fork_utxos.py)."""
        hit = self.__dict__.get("_atomic_utxos")
        if hit is None:
            from ...codec import decode_utxo
            from ..fork_utxos import UTXOFork
            from .atomic_txs import C_REGISTRY

            def owners(raw: bytes) -> tuple[bytes, ...]:
                return getattr(getattr(decode_utxo(raw, C_REGISTRY).out, "owners", None), "addresses", ())

            hit = self._atomic_utxos = UTXOFork(self.fork, self.store, self.chain_id, "/ext/bc/C/avax", "avax", "C",
                                                self.hrp, owners, None)
        return hit

    @property
    def upstream_url(self) -> str:
        return f"{self.fork.url}/ext/bc/{self.path}/rpc"

    def _l1_point(self, chain: Any, time_ms: int) -> tuple[int, bytes]:
        """An L1's fork block: its last block at or before the C-Chain fork block's time, found
        once (by bisection over the upstream's blocks) and kept."""
        key = self.key + b"point"
        try:
            point = self.fork.cache.get(key)
        except KeyError:
            point = None
        else:
            if isinstance(point, str):  # found not served at an earlier start
                raise NotForked(point)
            return point[0], point[1]
        upstream = self.fork.upstream
        try:
            head = upstream.eth("eth_getBlockByNumber", ["latest", False], self.path)
        except ForkError as exc:
            if isinstance(exc, UpstreamAnswerError):
                reason = exc.upstream_message
            elif "HTTP 404" in str(exc):
                reason = "HTTP 404"
            else:
                raise
            why = f"the upstream does not serve its RPC ({reason})"
            self.fork.cache.put(key, why)
            raise NotForked(why) from None
        lo, hi = 0, _q(head["number"])
        if block_time_ms(head) > time_ms:
            while lo < hi:  # the last block whose time is at most time_ms
                mid = (lo + hi + 1) // 2
                block = upstream.eth("eth_getBlockByNumber", [hex(mid), False], self.path)
                if block_time_ms(block) <= time_ms:
                    lo = mid
                else:
                    hi = mid - 1
            head = upstream.eth("eth_getBlockByNumber", [hex(lo), False], self.path)
        point = (_q(head["number"]), _b(head["hash"]))
        self.fork.cache.put(key, list(point))
        return point

    def prefetch_tx(self, tx: Any, accounts: Iterable[bytes]) -> None:
        """Fetch in one request the accounts a tx will read that the fork does not hold yet: its
        sender and the `accounts` the chain names (coinbase, credits), its recipient, the
        accounts of its access list."""
        addresses = list(accounts)
        if tx.to:
            addresses.append(tx.to)
        addresses += [address for address, _ in getattr(tx, "access_list", ())]
        self.state.prefetch(addresses)

    def schedule(self, precompiles: Any) -> Any:
        """The chain's precompile schedule over its VM reading the fork."""
        from .precompiles.schedule import Schedule
        return Schedule(fork_vm_class(precompiles.base_vm, self.state), precompiles.genesis, precompiles.upgrades,
                        precompiles.chain)

    def base_row(self, coreth: bool, fee_rules: Any) -> tuple[Header, dict]:
        """The fork base block's row: the upstream block N's header, with the fork's own (empty)
        state root in place of the upstream's, under the upstream's hash."""
        block = self.state.block(self.block_number)
        if block is None or _b(block["hash"]) != self.block_hash:
            raise ForkError(f"fork upstream {self.upstream_url}: block {self.block_number} is no longer "
                            f"0x{self.block_hash.hex()}")
        header = header_from_json(block, coreth)
        if header.hash() != self.block_hash:
            log.info("fork block %d: its header as JSON does not hash to 0x%s (fields simnode does not know); "
                     "its hash is taken as the upstream gives it", self.block_number, self.block_hash.hex())
        local = replace(header, state_root=BLANK_ROOT_HASH)
        row = {"hdr": local.encode(), "h": self.block_hash, "ms": block_time_ms(block),
               "fee": fee_state_of(fee_rules, header).to_row(), "txs": [], "from": [], "rc": [],
               "size": _q(block.get("size", "0x0"))}
        return local, row
