"""P-Chain state: UTXOs (incl. stakeable-locked), stakers, subnets, chains, L1 validators, history.

Everything lives in the store under ``P/``; the sets the chain needs on every block (stakers by end
time, current validator sets, active L1 validators by fee) are also kept in memory and rebuilt
from the store on start (`load`). Writes go to the batch of the block being built (`self.w`), so
one block = one commit.

Keys (after ``P/``):
    u<utxoID>                 UTXO bytes (u16 0 | UTXO)
    a<addr20><utxoID>         address index (u64 seq), with o…, N, O: newest first (utxo_order.py)
    t<txID>                   msgpack [tx bytes, status, height, block time]
    b<blockID> / h<height8>   block bytes / block ID
    m                         chain metadata (height, last block, time, supply, fee states)
    s<txID>                   staker record (current stakers only)
    n<subnetID>               subnet record (owner, conversion)
    c<chainID>                chain record
    l<validationID>           L1 validator record; k<subnet><nodeID> -> validationID
    e<expiry8><validationID>  RegisterL1Validator expiries (replay protection)
    p<validationID>           how an L1 validator came to be, as the justification the P-Chain
                              wants to sign L1ValidatorRegistration(false) for it
    r<stakerTxID><idx4>       reward UTXO bytes (getRewardUTXOs)
    y<txID>                   staking history (status, rewards) for the Data API
    v<height8>                validator-set diffs of the block at that height
    f<height8>                what the block did that the state does not keep (facts.py), for the index

Validator sets (`vset`, what getValidatorsAt and Warp read) are as AvalancheGo's validator
manager holds them: an L1's inactive validators are one keyless entry under the empty node ID
(their weight counts, they never sign), and a permissioned subnet validator has the BLS key of
its primary network validator.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from collections.abc import Iterator
from typing import Any

from simnode.codec import UTXO, OutputOwners, TransferOutput, decode_utxo, encode_utxo
from simnode.codec.stakeable import StakeableLockOut
from simnode.store import Batch, Store, pack, unpack
from simnode.vms import utxo_order
from simnode.warp.validators import WarpSet, canonical_set

from .facts import DELEGATORS, VALIDATORS, BlockFacts
from .txs import P_REGISTRY

PREFIX = b"P/"
K_UTXO = PREFIX + b"u"
K_TX = PREFIX + b"t"
K_BLOCK = PREFIX + b"b"
K_HEIGHT = PREFIX + b"h"
K_META = PREFIX + b"m"
K_STAKER = PREFIX + b"s"
K_SUBNET = PREFIX + b"n"
K_CHAIN = PREFIX + b"c"
K_L1 = PREFIX + b"l"
K_L1_NODE = PREFIX + b"k"
K_EXPIRY = PREFIX + b"e"
K_REWARD = PREFIX + b"r"
K_HISTORY = PREFIX + b"y"
K_VDIFF = PREFIX + b"v"
K_L1_PREIMAGE = PREFIX + b"p"
K_FACTS = PREFIX + b"f"

PRIMARY = bytes(32)
PLATFORM_CHAIN_ID = bytes(32)
EMPTY_NODE_ID = bytes(20)  # an L1's inactive weight, in its validator set

# Current-staker priorities (txs/priorities.go): ties in end time are processed in this order.
PRIO_SUBNET_PERMISSIONED = 7
PRIO_SUBNET_DELEGATOR = 8
PRIO_SUBNET_VALIDATOR = 9
PRIO_PRIMARY_DELEGATOR = 10
PRIO_PRIMARY_VALIDATOR = 11


def utxo_owners(out: Any) -> OutputOwners | None:
    if isinstance(out, StakeableLockOut):
        out = out.out
    return getattr(out, "owners", None)


@dataclass(slots=True)
class Staker:
    tx_id: bytes
    node_id: bytes
    subnet_id: bytes
    priority: int
    weight: int
    start: int
    end: int
    potential_reward: int = 0
    public_key: bytes | None = None
    delegation_shares: int = 0
    delegatee_reward: int = 0

    @property
    def is_validator(self) -> bool:
        return self.priority in (PRIO_PRIMARY_VALIDATOR, PRIO_SUBNET_VALIDATOR, PRIO_SUBNET_PERMISSIONED)

    def to_record(self) -> list:
        return [self.tx_id, self.node_id, self.subnet_id, self.priority, self.weight, self.start, self.end,
                self.potential_reward, self.public_key, self.delegation_shares, self.delegatee_reward]

    @classmethod
    def from_record(cls, rec: list) -> Staker:
        return cls(*rec)


@dataclass(slots=True)
class L1Validator:
    validation_id: bytes
    subnet_id: bytes
    node_id: bytes
    public_key: bytes  # 48-byte compressed
    remaining_balance_owner: bytes  # PChainOwner bytes (threshold, addresses)
    deactivation_owner: bytes
    start_time: int
    weight: int
    min_nonce: int
    end_accumulated_fee: int

    def to_record(self) -> list:
        return [self.validation_id, self.subnet_id, self.node_id, self.public_key, self.remaining_balance_owner,
                self.deactivation_owner, self.start_time, self.weight, self.min_nonce, self.end_accumulated_fee]

    @classmethod
    def from_record(cls, rec: list) -> L1Validator:
        return cls(*rec)


@dataclass(slots=True)
class Subnet:
    subnet_id: bytes
    owner: bytes  # typed OutputOwners bytes (u32 11 | owners), without codec version
    conversion_id: bytes | None = None
    manager_chain_id: bytes | None = None
    manager_address: bytes | None = None

    def to_record(self) -> list:
        return [self.subnet_id, self.owner, self.conversion_id, self.manager_chain_id, self.manager_address]

    def conversion(self) -> tuple[bytes, bytes, bytes] | None:
        """(conversion ID, manager chain ID, manager address) of a subnet converted to an L1
        (ConvertSubnetToL1Tx sets the three together), else None."""
        if self.conversion_id is None or self.manager_chain_id is None or self.manager_address is None:
            return None
        return self.conversion_id, self.manager_chain_id, self.manager_address


@dataclass(slots=True)
class ChainRecord:
    chain_id: bytes
    subnet_id: bytes
    name: str
    vm_id: bytes
    genesis_data: bytes = b""


@dataclass(slots=True)
class Meta:
    height: int = 0
    last_block_id: bytes = bytes(32)
    timestamp: int = 0
    supply: dict[bytes, int] = field(default_factory=dict)
    fee_capacity: int = 0
    fee_excess: int = 0
    l1_excess: int = 0
    accrued_fees: int = 0

    def to_record(self) -> list:
        return [self.height, self.last_block_id, self.timestamp, self.supply, self.fee_capacity, self.fee_excess,
                self.l1_excess, self.accrued_fees]


class State:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.w: Batch | None = None
        self.meta = Meta()
        self.stakers: dict[bytes, Staker] = {}  # every current staker by txID
        self.validators: dict[bytes, dict[bytes, Staker]] = {}  # subnet -> nodeID -> validator staker
        self.delegators: dict[tuple[bytes, bytes], dict[bytes, Staker]] = {}  # (subnet, node) -> txID -> staker
        self.end_heap: list[tuple[int, int, bytes]] = []
        self.subnets: dict[bytes, Subnet] = {}
        self.chains: dict[bytes, ChainRecord] = {}
        self.l1: dict[bytes, L1Validator] = {}
        self.l1_by_node: dict[tuple[bytes, bytes], bytes] = {}
        self.l1_active_heap: list[tuple[int, bytes]] = []
        self.num_active_l1 = 0
        # weights of the validator sets (what getValidatorsAt and Warp use): subnet -> node -> [weight, pk]
        self.vset: dict[bytes, dict[bytes, list]] = {}
        self._vdiff: dict[tuple[bytes, bytes], tuple[int, bytes | None]] = {}
        self.facts = BlockFacts()  # of the block being built
        # on a fork: the upstream's bytes of a tx the state refers to (a forked staker's, subnet's,
        # chain's), read when first needed (vms/platform/fork.py)
        self.upstream_tx: Any = None

    # ----------------------------------------------------------------------------- raw access

    def get(self, key: bytes) -> bytes | None:
        return self.w.get(key) if self.w is not None else self.store.get(key)

    def put(self, key: bytes, value: bytes) -> None:
        assert self.w is not None, "no block open"
        self.w.put(key, value)

    def delete(self, key: bytes) -> None:
        assert self.w is not None, "no block open"
        self.w.delete(key)

    def iterate(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        return self.w.iterate(prefix) if self.w is not None else self.store.iterate(prefix)

    @property
    def reader(self) -> Any:
        return self.w if self.w is not None else self.store

    def is_initialized(self) -> bool:
        return self.store.get(K_META) is not None

    # ----------------------------------------------------------------------------- load

    def load(self) -> None:
        m = unpack(self.store.get(K_META))
        self.meta = Meta(m[0], m[1], m[2], dict(m[3]), m[4], m[5], m[6], m[7])
        for _, v in self.store.iterate(K_STAKER):
            self._index_staker(Staker.from_record(unpack(v)))
        for _, v in self.store.iterate(K_SUBNET):
            rec = unpack(v)
            self.subnets[rec[0]] = Subnet(*rec)
        for _, v in self.store.iterate(K_CHAIN):
            rec = unpack(v)
            self.chains[rec[0]] = ChainRecord(*rec)
        for _, v in self.store.iterate(K_L1):
            self._index_l1(L1Validator.from_record(unpack(v)))
        self._vdiff.clear()

    def save_meta(self) -> None:
        self.put(K_META, pack(self.meta.to_record()))

    # ----------------------------------------------------------------------------- UTXOs

    def get_utxo(self, utxo_id: bytes) -> UTXO | None:
        raw = self.get(K_UTXO + utxo_id)
        return None if raw is None else decode_utxo(raw, P_REGISTRY)

    def add_utxo(self, utxo: UTXO) -> None:
        uid = utxo.id
        self.put(K_UTXO + uid, encode_utxo(utxo, P_REGISTRY))
        owners = utxo_owners(utxo.out)
        utxo_order.add(self, PREFIX, owners.addresses if owners else (), uid)

    def add_refund(self, utxo: UTXO) -> None:
        """An L1 validator's balance paid back: a UTXO no tx output says, so the block's facts list it."""
        self.add_utxo(utxo)
        self.facts.refunds.append(encode_utxo(utxo, P_REGISTRY))
    def delete_utxo(self, utxo_id: bytes) -> None:
        utxo = self.get_utxo(utxo_id)
        if utxo is None:
            return
        self.delete(K_UTXO + utxo_id)
        owners = utxo_owners(utxo.out)
        utxo_order.remove(self, PREFIX, owners.addresses if owners else (), utxo_id)

    def utxo_ids_of(self, address: bytes, after: bytes | None = None) -> Iterator[bytes]:
        """Newest first, after `after` if it is one of them (utxo_order.py)."""
        return utxo_order.ids_of(self.w if self.w is not None else self.store, PREFIX, address, after)

    # ----------------------------------------------------------------------------- stakers

    def _index_staker(self, s: Staker) -> None:
        self.stakers[s.tx_id] = s
        if s.is_validator:
            self.validators.setdefault(s.subnet_id, {})[s.node_id] = s
        else:
            self.delegators.setdefault((s.subnet_id, s.node_id), {})[s.tx_id] = s
        heapq.heappush(self.end_heap, (s.end, s.priority, s.tx_id))
        entry = self.vset.setdefault(s.subnet_id, {}).get(s.node_id)
        if entry is None:
            self.vset[s.subnet_id][s.node_id] = [s.weight, s.public_key]
        else:
            entry[0] += s.weight
            if s.is_validator:
                entry[1] = s.public_key

    def put_staker(self, s: Staker) -> None:
        self._note_vset(s.subnet_id, s.node_id)
        self._index_staker(s)
        self.facts.staker(s.subnet_id, VALIDATORS if s.is_validator else DELEGATORS, 1, s.weight)
        self.put(K_STAKER + s.tx_id, pack(s.to_record()))

    def update_staker(self, s: Staker) -> None:
        self.put(K_STAKER + s.tx_id, pack(s.to_record()))

    def remove_staker(self, s: Staker) -> None:
        self._note_vset(s.subnet_id, s.node_id)
        self.facts.staker(s.subnet_id, VALIDATORS if s.is_validator else DELEGATORS, -1, -s.weight)
        self.stakers.pop(s.tx_id, None)
        if s.is_validator:
            vs = self.validators.get(s.subnet_id, {})
            vs.pop(s.node_id, None)
        else:
            ds = self.delegators.get((s.subnet_id, s.node_id), {})
            ds.pop(s.tx_id, None)
            if not ds:
                self.delegators.pop((s.subnet_id, s.node_id), None)
        entry = self.vset.get(s.subnet_id, {}).get(s.node_id)
        if entry is not None:
            entry[0] -= s.weight
            if entry[0] <= 0 or s.is_validator and entry[0] == 0:
                del self.vset[s.subnet_id][s.node_id]
        self.delete(K_STAKER + s.tx_id)

    def next_staker_end(self) -> tuple[int, int, bytes] | None:
        heap = self.end_heap
        while heap:
            end, prio, tx_id = heap[0]
            s = self.stakers.get(tx_id)
            if s is None or s.end != end:
                heapq.heappop(heap)
                continue
            return heap[0]
        return None

    def pop_permissioned_ending_by(self, t: int) -> list[Staker]:
        """AdvanceTimeTo's removals: the leading current stakers with end ≤ t while they are permissioned
        subnet validators (their priority sorts them first among equal end times); the stakers stay in the
        sets until removed. Every other staker leaves through a RewardValidatorTx."""
        out = []
        while (nxt := self.next_staker_end()) is not None and nxt[0] <= t and nxt[1] == PRIO_SUBNET_PERMISSIONED:
            heapq.heappop(self.end_heap)
            out.append(self.stakers[nxt[2]])
        return out

    def get_validator(self, subnet_id: bytes, node_id: bytes) -> Staker | None:
        return self.validators.get(subnet_id, {}).get(node_id)

    def delegators_of(self, subnet_id: bytes, node_id: bytes) -> list[Staker]:
        return list(self.delegators.get((subnet_id, node_id), {}).values())

    # ----------------------------------------------------------------------------- validator sets

    def _note_vset(self, subnet_id: bytes, node_id: bytes) -> None:
        key = (subnet_id, node_id)
        if key not in self._vdiff:
            entry = self.vset.get(subnet_id, {}).get(node_id)
            self._vdiff[key] = (entry[0], entry[1]) if entry else (0, None)

    def flush_vdiff(self, height: int) -> None:
        """Record, for this block's height, each changed (subnet, node)'s weight and key before the block."""
        if not self._vdiff:
            return
        rows = []
        for (subnet, node), (old_w, old_pk) in sorted(self._vdiff.items()):
            entry = self.vset.get(subnet, {}).get(node)
            new = (entry[0], entry[1]) if entry else (0, None)
            if new != (old_w, old_pk):
                rows.append([subnet, node, old_w, old_pk])
        self._vdiff.clear()
        if rows:
            self.put(K_VDIFF + height.to_bytes(8, "big"), pack(rows))

    def validator_set_at(self, subnet_id: bytes, height: int) -> dict[bytes, list]:
        """node ID -> [weight, BLS key or None] of a subnet after the block at `height` (the current
        set with the later blocks' diffs undone). A permissioned subnet validator has the key of its
        primary network validator."""
        current = {k: list(v) for k, v in self.vset.get(subnet_id, {}).items()}
        if height < self.meta.height:
            start = (height + 1).to_bytes(8, "big")
            diffs = [(k, v) for k, v in self.store.iterate(K_VDIFF, start=K_VDIFF + start)]
            for _, v in reversed(diffs):
                for subnet, node, old_w, old_pk in unpack(v):
                    if subnet != subnet_id:
                        continue
                    if old_w == 0:
                        current.pop(node, None)
                    else:
                        current[node] = [old_w, old_pk]
        if subnet_id != PRIMARY and any(pk is None and n != EMPTY_NODE_ID for n, (_, pk) in current.items()):
            primary = self.validator_set_at(PRIMARY, height)
            for node, entry in current.items():
                if entry[1] is None and node in primary:
                    entry[1] = primary[node][1]
        return current

    def warp_set(self, subnet_id: bytes, height: int) -> WarpSet:
        """The canonical Warp validator set of a subnet at a P-Chain height."""
        return canonical_set((node, w, pk) for node, (w, pk) in self.validator_set_at(subnet_id, height).items())

    # ----------------------------------------------------------------------------- subnets, chains

    def put_subnet(self, s: Subnet) -> None:
        self.subnets[s.subnet_id] = s
        self.put(K_SUBNET + s.subnet_id, pack(s.to_record()))

    def subnet_of_chain(self, chain_id: bytes) -> bytes | None:
        if chain_id == PLATFORM_CHAIN_ID:
            return PRIMARY
        rec = self.chains.get(chain_id)
        return None if rec is None else rec.subnet_id

    def put_chain(self, c: ChainRecord) -> None:
        self.chains[c.chain_id] = c
        self.put(K_CHAIN + c.chain_id, pack([c.chain_id, c.subnet_id, c.name, c.vm_id, c.genesis_data]))

    # ----------------------------------------------------------------------------- L1 validators

    def _index_l1(self, v: L1Validator) -> None:
        """Index a stored L1 validator whose validation ID is not indexed yet."""
        self.l1[v.validation_id] = v
        self.l1_by_node[(v.subnet_id, v.node_id)] = v.validation_id
        if v.end_accumulated_fee != 0:
            self.num_active_l1 += 1
            heapq.heappush(self.l1_active_heap, (v.end_accumulated_fee, v.validation_id))
            self.vset.setdefault(v.subnet_id, {})[v.node_id] = [v.weight, v.public_key]
        else:
            self._add_inactive_weight(v.subnet_id, v.weight)

    def _unindex_l1(self, v: L1Validator) -> None:
        del self.l1[v.validation_id]
        self.l1_by_node.pop((v.subnet_id, v.node_id), None)
        if v.end_accumulated_fee != 0:
            self.num_active_l1 -= 1
            self.vset.get(v.subnet_id, {}).pop(v.node_id, None)
        else:
            self._add_inactive_weight(v.subnet_id, -v.weight)

    def _add_inactive_weight(self, subnet_id: bytes, delta: int) -> None:
        sub = self.vset.setdefault(subnet_id, {})
        weight = sub.get(EMPTY_NODE_ID, [0])[0] + delta
        if weight:
            sub[EMPTY_NODE_ID] = [weight, None]
        else:
            sub.pop(EMPTY_NODE_ID, None)

    def put_l1(self, v: L1Validator) -> None:
        self._note_vset(v.subnet_id, v.node_id)
        self._note_vset(v.subnet_id, EMPTY_NODE_ID)
        old = self.l1.get(v.validation_id)
        if old is not None:
            self._unindex_l1(old)
            self.facts.staker(v.subnet_id, VALIDATORS, -1, -old.weight)
        if v.weight:
            self.facts.staker(v.subnet_id, VALIDATORS, 1, v.weight)
        self.facts.l1[v.validation_id] = v.to_record()
        if v.weight == 0:
            # Removed: drop it entirely (AvalancheGo deletes the validator with weight 0).
            self.delete(K_L1 + v.validation_id)
            self.delete(K_L1_NODE + v.subnet_id + v.node_id)
        else:
            self._index_l1(v)
            self.put(K_L1 + v.validation_id, pack(v.to_record()))
            self.put(K_L1_NODE + v.subnet_id + v.node_id, v.validation_id)

    def put_l1_preimage(self, validation_id: bytes, justification: bytes) -> None:
        self.put(K_L1_PREIMAGE + validation_id, justification)

    def l1_preimage(self, validation_id: bytes) -> bytes | None:
        return self.get(K_L1_PREIMAGE + validation_id)

    def next_l1_to_deactivate(self) -> L1Validator | None:
        heap = self.l1_active_heap
        while heap:
            fee, vid = heap[0]
            v = self.l1.get(vid)
            if v is None or v.end_accumulated_fee != fee:
                heapq.heappop(heap)
                continue
            return v
        return None

    def l1_weight(self, subnet_id: bytes) -> int:
        return sum(v.weight for v in self.l1.values() if v.subnet_id == subnet_id)

    def has_expiry(self, expiry: int, vid: bytes) -> bool:
        return self.get(K_EXPIRY + expiry.to_bytes(8, "big") + vid) is not None

    def put_expiry(self, expiry: int, vid: bytes) -> None:
        self.put(K_EXPIRY + expiry.to_bytes(8, "big") + vid, b"")

    def remove_stale_expiries(self, now: int) -> None:
        for k, _ in list(self.iterate(K_EXPIRY)):
            if int.from_bytes(k[len(K_EXPIRY):len(K_EXPIRY) + 8], "big") > now:
                break
            self.delete(k)

    # ----------------------------------------------------------------------------- txs, blocks, history

    def put_tx(self, tx_id: bytes, tx_bytes: bytes, status: str, height: int) -> None:
        self.put(K_TX + tx_id, pack([tx_bytes, status, height]))

    def get_tx(self, tx_id: bytes) -> list | None:
        raw = self.get(K_TX + tx_id)
        if raw is None:
            if self.upstream_tx is not None and (tx_id in self.stakers or tx_id in self.subnets
                                                 or tx_id in self.chains):
                tx_bytes = self.upstream_tx(tx_id)
                return None if tx_bytes is None else [tx_bytes, "Committed", 0]
            return None
        return unpack(raw)

    def put_facts(self, height: int, time: int) -> list:
        """Store the facts gathered since the last block at `height` (a block's time); returns them."""
        record = self.facts.record(time, self.meta.accrued_fees)
        self.facts = BlockFacts()
        self.put(K_FACTS + height.to_bytes(8, "big"), pack(record))
        return record

    def facts_at(self, height: int) -> list | None:
        raw = self.get(K_FACTS + height.to_bytes(8, "big"))
        return None if raw is None else unpack(raw)

    def put_block(self, block_id: bytes, height: int, block_bytes: bytes) -> None:
        self.put(K_BLOCK + block_id, block_bytes)
        self.put(K_HEIGHT + height.to_bytes(8, "big"), block_id)

    def block_by_id(self, block_id: bytes) -> bytes | None:
        return self.get(K_BLOCK + block_id)

    def block_id_at(self, height: int) -> bytes | None:
        return self.get(K_HEIGHT + height.to_bytes(8, "big"))

    def put_reward_utxo(self, staker_tx_id: bytes, index: int, utxo: UTXO) -> None:
        self.put(K_REWARD + staker_tx_id + index.to_bytes(4, "big"), encode_utxo(utxo, P_REGISTRY))

    def reward_utxos(self, staker_tx_id: bytes) -> list[bytes]:
        return [v for _, v in self.iterate(K_REWARD + staker_tx_id)]

    def put_history(self, tx_id: bytes, record: dict) -> None:
        self.put(K_HISTORY + tx_id, pack(record))

    def get_history(self, tx_id: bytes) -> dict | None:
        raw = self.get(K_HISTORY + tx_id)
        return None if raw is None else unpack(raw)

    def iter_history(self) -> Iterator[tuple[bytes, Any]]:
        for k, v in self.iterate(K_HISTORY):
            yield k[len(K_HISTORY):], unpack(v)


def reward_output(amount: int, owner: OutputOwners) -> TransferOutput:
    return TransferOutput(amount, owner)
