"""EVMChain: the C-Chain engine. Genesis, state reads, tx admission, block building and accept.

Storage (all under the chain prefix, e.g. b"C/"):
    s/<key>            py-evm's database (trie nodes, code, and the canonical number -> block hash
                       entries BLOCKHASH reads), via StoreKV
    b/<num u64>        block row (msgpack): header RLP (coreth's or subnet-EVM's, headers.py) and
                       its keccak, the block hash; time in ms, fee state, raw txs,
                       senders, receipts with logs, and on the C-Chain the atomic txs
                       (ext = blockExtraData, egu = extDataGasUsed)
    at/<atomic txID>   -> height u64 | signed atomic tx (atomic_pool.py; shared memory is
                          updated in the same batch)
    h/<hash>           -> num
    t/<tx hash>        -> num u64 | index u32
    la/<addr><num>     block `num` has logs emitted by `addr`
    wm/<message ID>    an accepted SendWarpMessage's unsigned message (what the validators sign)
    lb/<num>           block `num` has logs
    head               -> num u64 (last accepted)
    root               -> state root the next block builds on (differs from the head's after
                          anvil_setBalance & co.)
The block row also holds, under "ct", the call frames each tx's execution recorded (calltrace.py;
only when some tx ran code), so the index can be rebuilt from block rows alone.
One accepted block = one Store batch holding all of the above, plus the index rows the node's
indexer (ctx.indexer, simnode/index) derives from the block row.
On a fork (fork_state.py) the chain's first row is the upstream's fork block N, over an empty
state the upstream's fills in as it is read; its blocks before N are the upstream's (fork_rpc.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import coincurve
import msgpack
import rlp
from eth._utils.address import generate_contract_address
from eth.abc import SignedTransactionAPI
from eth.chains.base import Chain as PyEvmChain
from eth.constants import BLANK_ROOT_HASH, EMPTY_UNCLE_HASH
from eth.db.schema import SchemaV1
from eth.db.account import AccountDB
from eth.vm.chain_context import ChainContext
from eth.vm.forks.berlin.transactions import AccessListTransaction, AccountAccesses
from eth.vm.forks.cancun.headers import CancunBlockHeader
from eth.vm.forks.london.transactions import DynamicFeeTransaction
from eth_utils import ValidationError

from ...crypto.hashing import keccak256
from ...fork.errors import ForkError
from ...formats.ids import EVM_VM_ID, ZERO_ID
from . import calltrace
from .db import StoreKV, atomic_db
from ...network import params_for
from .fees import ACP176_RULES, FeeState, fee_state_from_row
from .headers import Header, HeaderRules, block_header, genesis_header
from .mempool import Mempool, PoolError, PoolTx
from ...icm.placement import PLACEMENT_BLOCK, place_messenger
from ...codec import CodecError
from ...warp.message import UnsignedMessage, parse_unsigned_message
from . import predicates
from .fork_vms import with_granite
from .precompiles import warp
from .precompiles.contract import BlockContext, PrecompileError
from .precompiles.schedule import Schedule
from .precompiles.upgrades import PrecompileConfig
from .receipts import logs_bloom, receipt_rlp
from .rlpcodec import item_length, list_header
from .rules import BLACKHOLE, ZERO_HASH, AvalancheVM, CorethVM
from .trieroot import ordered_trie_root

log = logging.getLogger("simnode.evm")

TX_FEE_CAP_WEI = 100 * 10**18  # coreth RPCTxFeeCap: 100 AVAX
RPC_GAS_CAP = 50_000_000
# coreth's nativeasset contracts (genesis contract, balance, call)
NATIVE_ASSET_CONTRACTS = tuple(bytes.fromhex("01" + "00" * 18 + n) for n in ("00", "01", "02"))
EIP1820_DEPLOY_HASH = bytes.fromhex("fefb2da535e927b85fe68eb81cb2e4a5827c905f78381a01ef2322aa9b0aee8e")
ZERO_ADDRESS = b"\x00" * 20
STATIC_STATE_RUNS = 256  # static calls on one kept state before it is built anew
BLOCK_CACHE = 256  # decoded recent blocks (receipt and block lookups); older ones are read back from the store


class ChainError(ValueError):
    """A refusal with geth's wording (becomes a -32000 error)."""


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def _hexint(v: Any) -> int:
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        return int(v, 16) if v.lower().startswith("0x") else int(v)
    raise ValueError(f"bad number {v!r}")


class BlockInfo:
    """A decoded block row (cached)."""

    __slots__ = ("_txs", "ext", "ext_gas", "fee", "hash", "header", "ms", "number", "pre", "raws", "receipts",
                 "senders", "size")

    def __init__(self, row: dict, coreth: bool, header: Header | None = None) -> None:
        # `header`: the already decoded row["hdr"], when the caller has it
        self.header: Header = header if header is not None else Header.decode(row["hdr"], coreth)
        self.number: int = self.header.block_number
        self.hash: bytes = row["h"]
        self.ms: int = row["ms"]
        self.fee = fee_state_from_row(row["fee"])  # FeeState (ACP-176) or subnet_fees.WindowFeeState
        self.raws: list[bytes] = row["txs"]
        self.senders: list[bytes] = row["from"]
        self.receipts: list[list] = row["rc"]
        self.size: int = row.get("size", 0)
        self.pre: bytes | None = row.get("pre")
        self.ext: bytes = row.get("ext", b"")  # atomic txs (blockExtraData), C-Chain only
        self.ext_gas: int = row.get("egu", 0)  # extDataGasUsed
        self._txs: list | None = None

    @property
    def txs(self) -> list:
        if self._txs is None:
            builder = AvalancheVM.get_transaction_builder()
            txs = []
            for raw, sender in zip(self.raws, self.senders, strict=True):
                parsed = read_tx(raw)  # one pass; py-evm's decoder for the forms read_tx declines
                tx = parsed[0] if parsed is not None else builder.decode(raw)
                tx.__dict__["sender"] = sender
                txs.append(tx)
            self._txs = txs
        return self._txs


_SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

# Field layouts of the txs read by read_tx: i = big-endian int, a = `to` (empty or 20 bytes),
# b = bytes, L = access list. A type's position in the tuple is its type byte (0 = legacy).
_LAYOUTS = ("iiiaibiii", "iiiiaibLiii", "iiiiiaibLiii")
_TX_CLASSES = (AvalancheVM.get_transaction_builder().legacy_signed, AccessListTransaction, DynamicFeeTransaction)
_TYPED = AvalancheVM.get_transaction_builder().typed_transaction


def _rlp_items(data: bytes, pos: int, end: int) -> tuple[list, list[int]] | None:
    """The items of the RLP list payload data[pos:end] (bytes; lists for nested lists) and where
    each one's encoding starts. Canonical RLP only: None for anything else, which is then left to
    pyrlp for its exact verdict and wording."""
    items: list = []
    starts: list[int] = []
    while pos < end:
        starts.append(pos)
        b0 = data[pos]
        if b0 < 0x80:
            items.append(data[pos:pos + 1])
            pos += 1
            continue
        if b0 < 0xb8 or 0xc0 <= b0 < 0xf8:
            start = pos + 1
            n = b0 - (0x80 if b0 < 0xc0 else 0xc0)
        else:
            start = pos + 1 + b0 - (0xb7 if b0 < 0xc0 else 0xf7)
            if start > end or data[pos + 1] == 0:
                return None
            n = int.from_bytes(data[pos + 1:start], "big")
            if n < 56:
                return None
        stop = start + n
        if stop > end:
            return None
        if b0 < 0xc0:
            if n == 1 and data[start] < 0x80:
                return None
            items.append(data[start:stop])
        else:
            sub = _rlp_items(data, start, stop)
            if sub is None:
                return None
            items.append(sub[0])
        pos = stop
    return items, starts


def _access_list(item: Any) -> tuple | None:
    if type(item) is not list:
        return None
    out = []
    for entry in item:
        if type(entry) is not list or len(entry) != 2:
            return None
        account, keys = entry
        if type(account) is list or len(account) not in (0, 20) or type(keys) is not list:
            return None
        for k in keys:
            if type(k) is list or len(k) != 32:
                return None
        out.append(AccountAccesses(account, tuple(int.from_bytes(k, "big") for k in keys)))
    return tuple(out)


def read_tx(raw: bytes) -> tuple[SignedTransactionAPI, bytes] | None:
    """One pass over a legacy, EIP-2930 or EIP-1559 tx: the py-evm tx (as its own decoder builds
    it, RLP cache included) and the concatenated RLP of the fields its signature covers (the
    first 6 for legacy, all but y/r/s for typed). None when the bytes are not canonical RLP of
    that shape (py-evm then decides, with its own error text)."""
    if raw[0] >= 0xc0:
        type_id = off = 0
    elif raw[0] in (1, 2) and len(raw) > 1:
        type_id, off = raw[0], 1
    else:
        return None
    b0 = raw[off]
    if b0 < 0xc0:
        return None
    if b0 < 0xf8:
        start = off + 1
        n = b0 - 0xc0
    else:
        start = off + 1 + b0 - 0xf7
        if start > len(raw) or raw[off + 1] == 0:
            return None
        n = int.from_bytes(raw[off + 1:start], "big")
        if n < 56:
            return None
    if start + n != len(raw):
        return None
    parsed = _rlp_items(raw, start, len(raw))
    layout = _LAYOUTS[type_id]
    if parsed is None or len(parsed[0]) != len(layout):
        return None
    items, starts = parsed
    values: list = []
    for kind, item in zip(layout, items):
        if kind == "L":
            item = _access_list(item)
            if item is None:
                return None
        elif type(item) is list:
            return None
        elif kind == "i":
            if item[:1] == b"\x00":  # big_endian_int refuses leading zeros
                return None
            item = int.from_bytes(item, "big")
        elif kind == "a" and len(item) not in (0, 20):
            return None
        values.append(item)
    tx = _TX_CLASSES[type_id](*values)
    if type_id:
        tx._cached_rlp = raw[1:]
        return _TYPED(type_id, tx), raw[start:starts[-3]]
    tx._cached_rlp = raw
    return tx, raw[start:starts[6]]


def _unsigned_rlp(raw: bytes) -> bytes:
    """read_tx's second result the general way, for what py-evm accepts and read_tx declines
    (pyrlp reads an empty list as the integer 0, for one)."""
    if raw[0] >= 0x80:
        return b"".join(rlp.encode(f) for f in rlp.decode(raw)[:6])
    return b"".join(rlp.encode(f) for f in rlp.decode(raw[1:])[:-3])


def recover_sender(raw: bytes, tx: Any, unsigned: bytes) -> bytes:
    """ecrecover with coincurve (~4x cheaper than py-evm's path); `unsigned` as read_tx gives it."""
    try:
        if raw[0] >= 0x80:
            v, r, s = tx.v, tx.r, tx.s
            if v in (27, 28):
                rec, payload = v - 27, unsigned
            else:
                rec = (v - 35) % 2
                payload = unsigned + rlp.encode(_int_bytes((v - 35) // 2)) + b"\x80\x80"
            msg = list_header(len(payload)) + payload
        else:
            rec, r, s = tx.y_parity, tx.r, tx.s
            msg = raw[:1] + list_header(len(unsigned)) + unsigned
        if not (0 < r < _SECP256K1_N and 0 < s <= _SECP256K1_N // 2) or rec not in (0, 1):
            raise ChainError("invalid transaction v, r, s values")
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big") + bytes([rec])
        pub = coincurve.PublicKey.from_signature_and_message(sig, keccak256(msg), hasher=None)
        return keccak256(pub.format(compressed=False)[1:])[12:]
    except ChainError:
        raise
    except Exception:  # noqa: BLE001
        raise ChainError("invalid sender") from None


def _int_bytes(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""


def receipt_row(status: int, cum: int, used: int, price: int, contract: bytes | None, logs: list) -> list:
    return [status, cum, used, price, contract, logs]


def evm_header(header: Header, **changes: Any) -> CancunBlockHeader:
    """py-evm's header for executing on top of `header` (block context: number, time, coinbase,
    gas limit, base fee); its own hash is never used."""
    fields = dict(
        parent_hash=header.parent_hash, uncles_hash=header.uncles_hash, coinbase=header.coinbase,
        state_root=header.state_root, transaction_root=header.transaction_root, receipt_root=header.receipt_root,
        bloom=header.bloom, difficulty=header.difficulty, block_number=header.block_number,
        gas_limit=header.gas_limit, gas_used=header.gas_used, timestamp=header.timestamp,
        extra_data=header.extra_data, mix_hash=header.mix_hash, nonce=header.nonce,
        base_fee_per_gas=header.base_fee_per_gas or 0, withdrawals_root=BLANK_ROOT_HASH,
        blob_gas_used=header.blob_gas_used or 0, excess_blob_gas=header.excess_blob_gas or 0,
        parent_beacon_block_root=header.parent_beacon_block_root or ZERO_HASH)
    fields.update(changes)
    return CancunBlockHeader(**fields)


def c_chain_header_rules(network_id: int) -> HeaderRules:
    """coreth's: the network's upgrade times (AP3 base fee, AP4 block gas cost and extDataGasUsed)."""
    u = params_for(network_id).upgrades
    return HeaderRules(coreth=True, base_fee=u.apricot_phase3, block_gas_cost=u.apricot_phase4, durango=u.durango,
                       etna=u.etna, granite=u.granite)


def c_chain_precompiles(rules: HeaderRules) -> Schedule:
    """coreth's precompiles: Warp from Durango (its account gets nonce 1 and code 0x01 in the first
    block at or after it, or in genesis), default quorum, Primary Network messages verified by the
    Primary Network."""
    if not rules.coreth:
        return Schedule(AvalancheVM)
    return Schedule(CorethVM, (PrecompileConfig(warp.MODULE, rules.durango, False, warp.DEFAULT_SETTINGS),),
                    base_vms=with_granite((), CorethVM, rules.granite))


class EVMChain:
    """The C-Chain (or any EVM chain): engine + block production; no HTTP here."""

    def __init__(self, ctx: Any, *, genesis_json: dict | None = None, name: str = "C-Chain",
                 aliases: tuple[str, ...] = ("C", "evm"), prefix: bytes = b"C/", fee_rules: Any = None,
                 vm_id: bytes = EVM_VM_ID, subnet_id: bytes = ZERO_ID, header_rules: HeaderRules | None = None,
                 precompiles: Schedule | None = None) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.store = ctx.store
        self.clock = ctx.clock
        self.chain_id: bytes = ctx.chain_id
        self.subnet_id: bytes = subnet_id
        self.name = name
        self.vm_id = vm_id
        # base fee, gas limit and header extra: fees.ACP176FeeRules or subnet_fees.SubnetEVMFeeRules
        self.fee_rules = fee_rules or ACP176_RULES
        self.default_aliases = aliases
        self.prefix = prefix
        self.genesis_json = genesis_json or ctx.genesis.c_chain_genesis.parsed
        self.evm_chain_id: int = int(self.genesis_json["config"]["chainId"])
        # which header fields and account encoding: coreth's (C-Chain) or subnet-EVM's
        self.header_rules = header_rules or c_chain_header_rules(self.config.network_id)
        # stateful precompiles by block timestamp over the chain's own VM class (on the C-Chain,
        # coreth's set: Warp from Durango)
        self.precompiles = precompiles or c_chain_precompiles(self.header_rules)
        # on a fork of a live network, a chain the upstream has reads its state from there
        # (fork_state.py) and starts after the upstream's fork block
        self.fork: Any = None
        self.first_local_block = PLACEMENT_BLOCK
        if getattr(ctx, "fork", None) is not None:
            from .fork_state import ChainFork, forks_chain
            if forks_chain(ctx.fork, ctx.chain_id):
                self.fork = ChainFork(ctx.fork, self)
                self.precompiles = self.fork.schedule(self.precompiles)
                self.first_local_block = self.fork.block_number + 1
        # what the Warp precompile says of the chain, and the P-Chain's validators that verify
        # its predicates (from the node; without them every predicate fails)
        self.warp_identity = warp.Identity(self.config.network_id, self.chain_id, subnet_id)
        self.warp_validators: warp.ValidatorView | None = getattr(ctx, "warp_validators", None)
        # credited at the start of block 1 (on a fork N+1), like an activation: block 0 stays the real genesis
        self.first_block_credits: tuple[tuple[bytes, int], ...] = tuple(getattr(ctx, "first_block_credits", ()))
        self.vm_class = self.precompiles.base_vm
        self.kv = StoreKV(self.store, prefix + b"s/")
        self.db = atomic_db(self.kv)
        self.chain_class = PyEvmChain.configure(
            __name__="AvalancheChain", vm_configuration=((0, self.vm_class),), chain_id=self.evm_chain_id)
        self.pool = Mempool()
        self._blocks: OrderedDict[int, BlockInfo] = OrderedDict()
        self._view: AccountDB | None = None
        self._static: list | None = None  # [(header row, gas), state, runs]: static_call's kept state
        self.listeners: list[Callable[[str, Any], None]] = []
        self._mine_scheduled = False
        self.automine = float(getattr(self.config, "block_time", 0) or 0) == 0
        self.interval_ms = 0 if self.automine else int(float(self.config.block_time) * 1000)
        self._interval_handle: Any = None
        self.next_timestamp: int | None = None  # evm_setNextBlockTimestamp (seconds)
        self.time_offset = 0  # evm_increaseTime total, seconds
        self.impersonated: set[bytes] = set()
        self.auto_impersonate = False
        self.dev_keys: dict[bytes, bytes] = {}  # address -> private key (unlocked dev accounts)
        self.closed = False
        self._init()
        if self.interval_ms:
            self._schedule_interval()

    # ------------------------------------------------------------------ identity / Chain protocol

    @property
    def atomic(self) -> Any:
        """The atomic-tx pool (atomic_pool.AtomicPool) on the C-Chain; None on other EVM chains."""
        if "_atomic" not in self.__dict__:
            from .atomic_pool import make_pool
            self._atomic = make_pool(self)
        return self._atomic

    def has_pending(self) -> bool:
        """Anything a block would include now: executable eth txs or atomic txs."""
        if self.pool.has_executable(self.nonce_of):
            return True
        atomic = self.atomic
        return atomic is not None and atomic.has_pending()

    def is_bootstrapped(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True
        if self._interval_handle is not None:
            self._interval_handle.cancel()
            self._interval_handle = None

    # ------------------------------------------------------------------ genesis / load

    def _key(self, *parts: bytes) -> bytes:
        return self.prefix + b"".join(parts)

    def _init(self) -> None:
        head = self.store.get(self._key(b"head"))
        if head is None:
            if self.fork is not None:
                self._write_fork_base()
            else:
                self._write_genesis()
        self.evm = self.chain_class(self.db)
        self._load_head()
        if self.ctx.indexer is not None:
            self.ctx.indexer.chain_opened(self)  # indexes blocks accepted while indexing was off

    def _genesis_alloc(self) -> dict[bytes, dict]:
        alloc = {}
        for addr, acct in (self.genesis_json.get("alloc") or {}).items():
            a = bytes.fromhex(addr[2:] if addr.lower().startswith("0x") else addr)
            storage = {_hexint(k): _hexint(v) for k, v in (acct.get("storage") or {}).items()}
            alloc[a] = {
                "balance": _hexint(acct.get("balance", "0x0")),
                "nonce": _hexint(acct.get("nonce", "0x0")),
                "code": bytes.fromhex((acct.get("code") or "0x")[2:]),
                "storage": storage,
            }
        return alloc

    def _write_genesis(self) -> None:
        """Block 0 as core.Genesis.toBlock makes it: the upgrades active at the genesis time
        first (coreth: warp from Durango; an L1: its genesis precompile configs), then the alloc."""
        g = self.genesis_json
        state = self.account_db(BLANK_ROOT_HASH)
        timestamp = _hexint(g.get("timestamp", "0x0"))
        self.apply_upgrades(state, None, _hexint(g.get("number", "0x0")), timestamp)
        for addr, acct in self._genesis_alloc().items():
            state.set_balance(addr, acct["balance"])
            state.set_nonce(addr, acct["nonce"])
            state.set_code(addr, acct["code"])
            for slot, value in acct["storage"].items():
                state.set_storage(addr, slot, value)
        state.persist()
        header = genesis_header(self.header_rules, g, state.state_root, self.fee_rules.genesis_base_fee(g))
        batch = self.store.batch()
        base_fee = self.fee_rules.genesis_base_fee(g)
        self._put_block_rows(batch, header, timestamp * 1000, self.fee_rules.genesis_state(base_fee), [], [], [])
        self.kv.flush_into(batch)
        batch.commit()

    def _write_fork_base(self) -> None:
        """The fork base block N (the upstream's, over the fork's own empty state; not indexed:
        the index starts at N+1) as the head, and its canonical hash for BLOCKHASH."""
        header, row = self.fork.base_row(self.header_rules.coreth, self.fee_rules)
        num = header.block_number
        batch = self.store.batch()
        ch = batch.changes
        ch[self._key(b"b/", u64(num))] = msgpack.packb(row, use_bin_type=True)
        ch[self._key(b"h/", row["h"])] = u64(num)
        ch[self._key(b"head")] = u64(num)
        ch[self._key(b"root")] = header.state_root
        self.kv[SchemaV1.make_block_number_to_hash_lookup_key(num)] = rlp.encode(row["h"])
        self.kv.flush_into(batch)
        batch.commit()

    @property
    def first_indexed_block(self) -> int:
        """The first block the index derives rows from (on a fork: the first local one)."""
        return 0 if self.fork is None else self.first_local_block

    def _load_head(self) -> None:
        num = int.from_bytes(self.store.get(self._key(b"head")), "big")
        self.head = self.block(num)
        assert self.head is not None
        root = self.store.get(self._key(b"root"))
        self.state_root: bytes = root if root is not None else self.head.header.state_root
        self._view = None

    # ------------------------------------------------------------------ rows

    def _block_size(self, header_rlp: bytes, raws: list[bytes], ext: bytes) -> int:
        """Length of the block's RLP, counted, not encoded: coreth's [header, txs, uncles,
        version u32, extData], subnet-EVM's [header, txs, uncles]. A legacy tx is an RLP list
        already, a typed tx is a byte string inside the list."""
        txs = sum(len(r) if r[0] >= 0xC0 else item_length(len(r)) for r in raws)
        body = len(header_rlp) + item_length(txs) + 1
        if self.header_rules.coreth:
            body += 1 + item_length(len(ext))
        return item_length(body)

    def _put_block_rows(self, batch: Any, header: Header, ms: int, fee: FeeState, raws: list[bytes],
                        senders: list[bytes], receipts: list[list], pre: bytes | None = None,
                        ext: bytes = b"", ext_gas: int = 0, frames: list[list] | None = None) -> bytes:
        """Stage the block's rows in `batch` (and its canonical hash in the py-evm overlay, which
        the caller flushes into `batch` afterwards, so the indexer can still read the block's
        state there); returns the packed block row."""
        num = header.block_number
        hdr = header.encode()
        h = keccak256(hdr)
        row = {"hdr": hdr, "h": h, "ms": ms, "fee": fee.to_row(),
               "txs": raws, "from": senders, "rc": receipts, "size": self._block_size(hdr, raws, ext)}
        if pre is not None:
            row["pre"] = pre  # the state the block executed on (differs from the parent's after dev edits)
        if ext:
            row["ext"] = ext
            row["egu"] = ext_gas
        if frames is not None and any(frames):
            row["ct"] = frames  # per tx, the call frames its execution recorded (calltrace.py)
        ch = batch.changes
        packed = msgpack.packb(row, use_bin_type=True)
        ch[self._key(b"b/", u64(num))] = packed
        ch[self._key(b"h/", h)] = u64(num)
        has_logs = False
        addrs: set[bytes] = set()
        for i, raw in enumerate(raws):
            ch[self._key(b"t/", keccak256(raw))] = u64(num) + i.to_bytes(4, "big")
        for rc in receipts:
            for lg in rc[5]:
                has_logs = True
                addrs.add(lg[0])
            for message in warp.accepted_messages(rc[5]):
                ch[self._key(b"wm/", message.id)] = message.encoded  # subnet-evm's Accept hook
        if has_logs:
            ch[self._key(b"lb/", u64(num))] = b""
            for a in sorted(addrs):
                ch[self._key(b"la/", a, u64(num))] = b""
        ch[self._key(b"head")] = u64(num)
        ch[self._key(b"root")] = header.state_root
        self.kv[SchemaV1.make_block_number_to_hash_lookup_key(num)] = rlp.encode(h)
        if self.ctx.indexer is not None:
            self.ctx.indexer.block_accepted(self, row, batch)
        return packed

    @property
    def account_db_class(self) -> Any:
        """rules.CorethAccountDB (C-Chain) or rules.FastAccountDB (subnet-EVM's Ethereum accounts)."""
        return self.vm_class.get_state_class().get_account_db_class()

    def account_db(self, state_root: bytes) -> AccountDB:
        """The chain's account view at `state_root`."""
        return self.account_db_class(self.db, state_root)

    def block_row(self, num: int) -> dict | None:
        """Block `num`'s stored row as _put_block_rows wrote it (what the indexer derives from)."""
        raw = self.store.get(self._key(b"b/", u64(num)))
        return None if raw is None else msgpack.unpackb(raw, raw=False)

    def static_call(self, row: dict, to: bytes, data: bytes, gas: int = 1_000_000) -> bytes | None:
        """The output of a gas-free call from the zero address at the state after the block of
        `row` (its unflushed overlay included), or None if it fails; nothing is kept. The state
        serves the next calls on the same block (the indexer probes a new token with up to
        seven), each reverted; a block's header fixes its state root, so it reads the same."""
        from eth.vm.spoof import SpoofTransaction
        key = (row["hdr"], gas)
        kept = self._static
        if kept is None or kept[0] != key or kept[2] >= STATIC_STATE_RUNS:
            header = Header.decode(row["hdr"], self.header_rules.coreth)
            vm = self.vm_at(evm_header(header, base_fee_per_gas=0, gas_limit=max(gas, header.gas_limit)))
            kept = self._static = [key, vm.state, 0]
        kept[2] += 1
        state = kept[1]
        utx = AvalancheVM.create_unsigned_transaction(nonce=state.get_nonce(ZERO_ADDRESS), gas_price=0, gas=gas,
                                                      to=to, value=0, data=data)
        snap = state.snapshot()
        try:
            comp = state.apply_transaction(SpoofTransaction(utx, from_=ZERO_ADDRESS))
        except ValidationError:
            return None
        finally:
            state.revert(snap)
        return None if comp.is_error else comp.output

    def block(self, num: int) -> BlockInfo | None:
        info = self._blocks.get(num)
        if info is not None:
            return info
        raw = self.store.get(self._key(b"b/", u64(num)))
        if raw is None:
            return None
        info = BlockInfo(msgpack.unpackb(raw, raw=False), self.header_rules.coreth)
        self._blocks[num] = info
        if len(self._blocks) > BLOCK_CACHE:
            self._blocks.popitem(last=False)
        return info

    def block_by_hash(self, h: bytes) -> BlockInfo | None:
        num = self.store.get(self._key(b"h/", h))
        if num is None:
            return None
        return self.block(int.from_bytes(num, "big"))

    def tx_location(self, h: bytes) -> tuple[BlockInfo, int] | None:
        loc = self.store.get(self._key(b"t/", h))
        if loc is None:
            return None
        b = self.block(int.from_bytes(loc[:8], "big"))
        if b is None:
            return None
        return b, int.from_bytes(loc[8:12], "big")

    def pre_state_root(self, block: BlockInfo) -> bytes:
        """The state root `block` executed on."""
        if block.pre is not None:
            return block.pre
        if block.number == 0:
            return block.header.state_root
        parent = self.block(block.number - 1)
        return parent.header.state_root if parent is not None else block.header.state_root

    @property
    def head_number(self) -> int:
        return self.head.number

    # ------------------------------------------------------------------ state reads

    def view(self, block: BlockInfo | None = None) -> AccountDB:
        """Read-only account view at `block` (None = latest, including dev edits)."""
        if block is None or block.number == self.head.number:
            if self._view is None:
                self._view = self.account_db(self.state_root)
            return self._view
        return self.account_db(block.header.state_root)

    def nonce_of(self, addr: bytes) -> int:
        return self.view().get_nonce(addr)

    def pending_nonce(self, addr: bytes) -> int:
        return self.pool.pending_nonce(addr, self.nonce_of(addr))

    # ------------------------------------------------------------------ fees

    # (head, clock ms, fees): admission asks once per tx, and the answer only moves with either
    _fees_memo: tuple[BlockInfo, int, tuple[FeeState, int, int]] | None = None

    def next_fees(self, at_ms: int | None = None) -> tuple[FeeState, int, int]:
        now = self.clock.now_ms() if at_ms is None else at_ms
        head = self.head
        memo = self._fees_memo
        if memo is not None and memo[0] is head and memo[1] == now:
            return memo[2]
        fees = self.fee_rules_for(head).next_block_fees(head.fee, head.ms, max(now, head.ms))
        self._fees_memo = (head, now, fees)
        return fees

    def next_base_fee(self) -> int:
        return self.next_fees()[1]

    def fee_rules_for(self, parent: BlockInfo) -> Any:
        """The fee rules of `parent`'s child (an L1's fee manager can change them)."""
        return self.fee_rules

    def coinbase_for(self, parent: BlockInfo) -> bytes:
        """The coinbase of `parent`'s child (an L1's reward manager can choose it)."""
        return BLACKHOLE

    def vm_at(self, header: Any, warp_failed: dict[bytes, int] | None = None, vm_class: Any = None) -> Any:
        """A py-evm VM for `header`, with the precompiles active at its timestamp (`warp_failed`:
        the block's failed Warp predicates by tx hash; `vm_class`: that VM class made to trace or
        profile, instead of it)."""
        evm = self.evm
        if vm_class is None:
            vm_class = self.precompiles.vm_class_at(header.timestamp)
        vm = vm_class(header=header, chaindb=evm.chaindb, chain_context=ChainContext(self.evm_chain_id),
                      consensus_context=evm.consensus_context)
        vm.state.warp_identity = self.warp_identity
        vm.state.warp_failed = {} if warp_failed is None else warp_failed
        return vm

    def active_precompiles(self, timestamp: int) -> frozenset[bytes]:
        """coreth's (subnet-EVM's) vm.ActivePrecompiles at `timestamp`: Ethereum's and Granite's
        P256VERIFY as the VM runs them; on the C-Chain the nativeasset contracts too (deprecated,
        still precompiles). The stateful precompiles (Warp, allow lists, ...) are not among them."""
        computation = self.precompiles.vm_class_at(timestamp).get_state_class().computation_class
        active = set(computation.get_precompiles())
        if self.header_rules.coreth:
            active.update(NATIVE_ASSET_CONTRACTS)
        return frozenset(active)

    def warp_failed_of(self, block: BlockInfo) -> dict[bytes, int]:
        """A block's failed Warp predicates by tx hash, from its header extra (re-execution)."""
        extra = block.header.extra_data
        fee_len = len(block.fee.encode())
        if len(extra) <= fee_len:
            return {}
        try:
            results = predicates.parse_results(extra[fee_len:])
        except CodecError:
            return {}
        return {h: int.from_bytes(by_addr.get(warp.ADDRESS, b""), "big") for h, by_addr in results.items()}

    # ------------------------------------------------------------------ tx admission

    def decode_raw(self, raw: bytes) -> tuple[SignedTransactionAPI, bytes]:
        """The py-evm tx and the RLP of the fields its signature covers (see read_tx)."""
        if not raw:
            raise ChainError("typed transaction too short")
        if raw[0] == 3:
            raise ChainError("transaction type not supported")
        if raw[0] < 0x7f and raw[0] not in (1, 2):
            raise ChainError("transaction type not supported")
        parsed = read_tx(raw)
        if parsed is not None:
            return parsed
        try:
            tx = AvalancheVM.get_transaction_builder().decode(raw)
        except Exception as exc:  # noqa: BLE001 - any decoding failure
            raise ChainError(f"rlp: {exc}") from None
        return tx, _unsigned_rlp(raw)

    def submit_raw(self, raw: bytes) -> bytes:
        tx, unsigned = self.decode_raw(raw)
        h = keccak256(raw)
        if raw[0] >= 0x80:  # legacy
            v = tx.v
            if v in (27, 28) and h != EIP1820_DEPLOY_HASH:
                raise ChainError("only replay-protected (EIP-155) transactions allowed over RPC")
            if v not in (27, 28) and (v - 35) // 2 != self.evm_chain_id:
                raise ChainError("invalid chain id for signer")
        elif tx.chain_id != self.evm_chain_id:
            raise ChainError("invalid chain id for signer")
        sender = recover_sender(raw, tx, unsigned)
        return self.submit_tx(tx, raw, sender, h)

    def submit_tx(self, tx: SignedTransactionAPI, raw: bytes, sender: bytes, h: bytes | None = None) -> bytes:
        """Admit a decoded tx; `h` is keccak256(raw) when the caller already has it."""
        tx.__dict__["sender"] = sender
        if h is None:
            h = keccak256(raw)
        type_id = tx.type_id or 0
        if type_id == 0:
            max_fee = tip = tx.gas_price
        else:
            max_fee, tip = tx.max_fee_per_gas, tx.max_priority_fee_per_gas
        if tip > max_fee:
            raise ChainError(f"max priority fee per gas higher than max fee per gas: address 0x{sender.hex()}, "
                             f"maxPriorityFeePerGas: {tip}, maxFeePerGas: {max_fee}")
        gas = tx.gas
        if max_fee * gas > TX_FEE_CAP_WEI and max_fee > 0:
            raise ChainError(f"tx fee ({max_fee * gas / 1e18:.2f} ether) exceeds the configured cap (100.00 ether)")
        _, base_fee, gas_limit = self.next_fees()
        if gas > gas_limit:
            raise ChainError("exceeds block gas limit")
        intrinsic = self._intrinsic_gas(tx)
        if gas < intrinsic:
            raise ChainError(f"intrinsic gas too low: gas {gas}, minimum needed {intrinsic}")
        if tx.to == b"" and len(tx.data) > 49152:
            raise ChainError(f"max initcode size exceeded: code size {len(tx.data)} limit 49152")
        if max_fee < base_fee:
            raise ChainError(f"max fee per gas less than block base fee: address 0x{sender.hex()}, "
                             f"maxFeePerGas: {max_fee}, baseFee: {base_fee}")
        pool = self.pool
        if h in pool.by_hash or self.tx_location(h) is not None:
            raise ChainError("already known")
        if self.fork is not None:  # the accounts the tx names, from the upstream in one request
            first = self.head.number + 1 == self.first_local_block
            self.fork.prefetch_tx(tx, (sender, self.coinbase_for(self.head),
                                       *(a for a, _ in self.first_block_credits if first)))
        view = self.view()
        nonce = tx.nonce
        state_nonce = view.get_nonce(sender)
        if nonce < state_nonce:
            raise ChainError(f"nonce too low: next nonce {state_nonce}, tx nonce {nonce}")
        balance = view.get_balance(sender)
        value = tx.value
        cost = gas * max_fee + value
        if balance < cost:
            raise ChainError(f"insufficient funds for gas * price + value: balance {balance}, "
                             f"tx cost {cost}, overshot {cost - balance}")
        refusal = self.precompiles.check_tx(view, sender, self.head.header.timestamp)
        if refusal is not None:
            raise ChainError(refusal)
        ptx = PoolTx(tx=tx, raw=raw, hash=h, sender=sender, nonce=nonce, gas=gas, max_fee=max_fee, tip=tip,
                     value=value, type_id=type_id)
        try:
            pool.add(ptx)
        except PoolError as exc:
            raise ChainError(str(exc)) from None
        self._emit("pending", ptx)
        if self.automine:
            self.request_mine()
        return h

    def _intrinsic_gas(self, tx: SignedTransactionAPI) -> int:
        """With Warp active, predicates cost PredicateGas (a ChainError if one does not parse)."""
        found = warp.tx_predicates(tx)
        if not found or self.warp_config(max(self.clock.now_ms(), self.head.ms) // 1000) is None:
            return tx.intrinsic_gas
        try:
            return warp.intrinsic_gas(tx, found)
        except PrecompileError as e:
            raise ChainError(f"invalid predicate: {e}") from None

    # ------------------------------------------------------------------ block production

    def request_mine(self) -> None:
        """Automine: build as soon as the loop is free, batching everything that arrived."""
        if self._mine_scheduled or not self.ctx.block_building.automatic:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.mine_pending()
            return
        self._mine_scheduled = True
        loop.call_soon(self._mine_soon)

    def _mine_soon(self) -> None:
        self._mine_scheduled = False
        if not self.closed and self.automine:
            try:
                self.mine_pending()
            except Exception:
                log.exception("automine failed")

    def mine_pending(self, max_blocks: int = 1_000_000) -> int:
        """Build blocks while executable txs remain; returns how many were built."""
        built = 0
        while built < max_blocks and self.has_pending():
            info = self.build_block()
            built += 1
            if info is None or not (info.raws or info.ext):
                break
        return built

    def mine(self, blocks: int) -> int:
        """Node-wide `mine`: `blocks` blocks now (pending txs first, then empty ones)."""
        built = 0
        while built < blocks and self.has_pending():
            self.build_block()
            built += 1
        if built < blocks:
            self.mine_empty(blocks - built)
        return blocks

    def _block_time_ms(self) -> int:
        now = self.clock.now_ms()
        parent_ms = self.head.ms
        if self.next_timestamp is not None:
            ts = self.next_timestamp * 1000
            self.next_timestamp = None
            return max(ts, parent_ms)
        return max(now, parent_ms)

    def build_block(self, ts_ms: int | None = None, include_txs: bool = True) -> BlockInfo | None:
        """Build, execute and accept one block from the pool (possibly empty)."""
        if ts_ms is None:
            ts_ms = self._block_time_ms()
        parent = self.head
        fee_state, base_fee, gas_limit = self.fee_rules_for(parent).next_block_fees(parent.fee, parent.ms, ts_ms)
        coinbase = self.coinbase_for(parent)
        header = CancunBlockHeader(
            parent_hash=parent.hash, uncles_hash=EMPTY_UNCLE_HASH, coinbase=coinbase,
            state_root=self.state_root, transaction_root=BLANK_ROOT_HASH, receipt_root=BLANK_ROOT_HASH,
            bloom=0, difficulty=1, block_number=parent.number + 1, gas_limit=gas_limit, gas_used=0,
            timestamp=ts_ms // 1000, extra_data=b"", mix_hash=ZERO_HASH, nonce=b"\x00" * 8,
            base_fee_per_gas=base_fee, withdrawals_root=BLANK_ROOT_HASH, blob_gas_used=0, excess_blob_gas=0,
            parent_beacon_block_root=ZERO_HASH,
        )
        vm = self.vm_at(header)
        state = vm.state
        self.apply_upgrades(state, parent.header.timestamp, header.block_number, header.timestamp)
        warp_failed = state.warp_failed
        results: dict[bytes, dict[bytes, bytes]] = {}  # included txs' predicate results
        included: list[PoolTx] = []
        receipts: list[bytes] = []  # consensus RLP, for the receipt trie
        rows: list[list] = []
        frames: list[list[list]] = []  # per included tx, its recorded call frames
        dropped: list[PoolTx] = []
        gas_used = 0
        bloom = 0
        if include_txs:
            it = self.pool.iter_for_block(base_fee, self.nonce_of)
            p = next(it, None)
            while p is not None:
                ok = True
                if gas_used + p.gas > gas_limit:
                    ok = False
                    if gas_limit - gas_used < 21000:
                        break
                else:
                    failed = self.warp_results(p.tx, p.hash, header.timestamp)
                    if failed is not None:
                        warp_failed[p.tx.hash] = failed
                    traced = calltrace.start()
                    # py-evm's VM.apply_transaction, its receipt built from the rows' own form
                    # (receipts.py) instead of py-evm's receipt objects; the block's gas limit
                    # was checked above
                    state.lock_changes()
                    snap = state.snapshot() if self.fork is not None else None
                    try:
                        comp = state.apply_transaction(p.tx)
                    except ValidationError as exc:
                        log.debug("tx 0x%s dropped from block: %s", p.hash.hex(), exc)
                        dropped.append(p)
                        ok = False
                    except ForkError as exc:  # a fork's upstream could not give a value the tx read
                        state.revert(snap)
                        log.warning("tx 0x%s dropped from block: %s", p.hash.hex(), exc)
                        self.fork.failed[p.hash] = exc.message
                        dropped.append(p)
                        ok = False
                    else:
                        used = vm.finalize_gas_used(p.tx, comp)
                        gas_used += used
                        logs = [[address, [t.to_bytes(32, "big") for t in topics], data]
                                for address, topics, data in comp.get_log_entries()]
                        tx_bloom = logs_bloom(logs)
                        bloom |= tx_bloom
                        eff = min(p.max_fee, base_fee + p.tip)
                        contract = generate_contract_address(p.sender, p.nonce) if p.tx.to == b"" else None
                        status = 0 if comp.is_error else 1
                        rows.append(receipt_row(status, gas_used, used, eff, contract, logs))
                        receipts.append(receipt_rlp(p.type_id, status == 1, gas_used, tx_bloom, logs))
                        included.append(p)
                        if failed is not None:
                            results[p.hash] = {warp.ADDRESS: predicates.bits_bytes(
                                i for i in range(failed.bit_length()) if failed >> i & 1)}
                        frames.append(traced)
                try:
                    p = it.send(ok)
                except StopIteration:
                    p = None
        calltrace.stop()
        built_atomic = None
        if include_txs and self.atomic is not None and self.atomic.has_pending():
            built_atomic = self.atomic.build(state, base_fee, ts_ms // 1000)
        ext = built_atomic.ext if built_atomic is not None else b""
        ext_gas = built_atomic.gas if built_atomic is not None else 0
        fee_after = fee_state.consume(gas_used + ext_gas)
        # py-evm's finalize_block without its parts that do nothing here (no PoS block rewards)
        # or cost without use (a block object, two header copies, a formatted debug line)
        state.persist()
        raws = [p.raw for p in included]
        final_header = block_header(
            self.header_rules, parent=parent.header, parent_hash=parent.hash, coinbase=coinbase,
            state_root=state.state_root, transaction_root=ordered_trie_root(raws),
            receipt_root=ordered_trie_root(receipts), bloom=bloom, gas_limit=gas_limit, gas_used=gas_used,
            ts_ms=ts_ms, fee_extra=fee_after.encode(), base_fee=base_fee, block_gas_cost=fee_state.block_gas_cost,
            ext=ext, ext_gas_used=ext_gas, predicate_results=predicates.encode_results(results))
        batch = self.store.batch()
        packed = self._put_block_rows(batch, final_header, ts_ms, fee_after, raws, [p.sender for p in included],
                                      rows, pre=header.state_root, ext=ext, ext_gas=ext_gas, frames=frames)
        self.kv.flush_into(batch)
        if built_atomic is not None:
            self.atomic.write_accepted(batch, built_atomic, final_header.block_number)
        batch.commit()
        if built_atomic is not None:
            self.atomic.after_accept(built_atomic)
        for p in dropped:
            self.pool.remove(p.hash)
        for p in included:
            self.pool.remove(p.hash)
        # the new head straight from the row just committed (what _load_head would read back)
        info = BlockInfo(msgpack.unpackb(packed, raw=False), self.header_rules.coreth, final_header)
        info._txs = [p.tx for p in included]  # already decoded, senders set (submit_tx)
        self._blocks.pop(info.number, None)
        self._blocks[info.number] = info
        if len(self._blocks) > BLOCK_CACHE:
            self._blocks.popitem(last=False)
        self.head = info
        self.state_root = info.header.state_root
        self._view = None
        self._emit("block", self.head)
        return self.head

    def apply_upgrades(self, state: Any, parent_time: int | None, number: int, time: int) -> None:
        """What block `number` at `time` (s) on a parent at `parent_time` (None: the genesis,
        before its alloc) does to the state before its first tx, as coreth's and subnet-evm's
        ApplyUpgrades: the precompile configs that activate (or disable) in it (on the C-Chain,
        Warp's account at Durango); the chain's first block (block 1; on a fork N+1, with the
        upstream's messenger, or none) first places the ICM messenger (icm/placement.py) and
        credits `first_block_credits`."""
        if number == self.first_local_block and parent_time is not None:
            if self.fork is None:  # a forked chain has the upstream's messenger, or none
                place_messenger(state)
            for address, amount in self.first_block_credits:
                state.set_balance(address, state.get_balance(address) + amount)
        self.precompiles.activate(state, parent_time, BlockContext(number, time))

    def _upgrades_between(self, parent_time: int, time: int, number: int) -> bool:
        """Does block `number` at `time` on a parent at `parent_time` change the state before its txs?"""
        return number == self.first_local_block or bool(self.precompiles.activating(parent_time, time))

    # ------------------------------------------------------------------ Warp

    def warp_results(self, tx: Any, tx_hash: bytes, timestamp: int) -> int | None:
        """The failed-predicate bits of `tx` in a block at `timestamp` (None: no Warp predicates)."""
        config = self.warp_config(timestamp)
        if config is None:
            return None
        found = warp.tx_predicates(tx)
        if not found:
            return None
        failed = 0
        for i, chunks in enumerate(found):
            reason = ("no P-Chain validators" if self.warp_validators is None
                      else warp.verify_predicate(config.settings, chunks, self.warp_identity, self.warp_validators))
            if reason is not None:
                log.debug("tx 0x%s: warp predicate %d failed: %s", tx_hash.hex(), i, reason)
                failed |= 1 << i
        return failed

    def warp_config(self, timestamp: int) -> Any:
        for config in self.precompiles.active(timestamp):
            if config.module is warp.MODULE:
                return config
        return None

    def accepted_message(self, message_id: bytes) -> UnsignedMessage | None:
        """ChainWarpBackend: the unsigned message of an accepted SendWarpMessage with this ID."""
        raw = self.store.get(self._key(b"wm/", message_id))
        return None if raw is None else parse_unsigned_message(raw)

    def accepted_messages(self) -> list[UnsignedMessage]:
        """The unsigned message of every accepted SendWarpMessage (by message ID)."""
        return [parse_unsigned_message(raw) for _, raw in self.store.iterate(self._key(b"wm/"))]

    def is_accepted_block(self, block_id: bytes) -> bool:
        """ChainWarpBackend: is `block_id` the hash of an accepted block?"""
        return self.store.get(self._key(b"h/", block_id)) is not None

    def mine_empty(self, count: int, interval_s: int | None = None) -> None:
        """anvil_mine / hardhat_mine: `count` empty blocks, O(1) each, committed in chunks."""
        remaining = count
        while remaining > 0:
            chunk = min(remaining, 500)
            batch = self.store.batch()
            for _ in range(chunk):
                parent = self.head
                if interval_s is not None and interval_s > 0:
                    ts_ms = parent.ms + interval_s * 1000
                else:
                    ts_ms = self._block_time_ms()
                if self._upgrades_between(parent.header.timestamp, ts_ms // 1000, parent.number + 1):
                    # an upgrade that changes state (coreth's warp account, a precompile
                    # activation): this one block is built the executing way, after the blocks before it
                    self.kv.flush_into(batch)
                    batch.commit()
                    batch = self.store.batch()
                    self.build_block(ts_ms, include_txs=False)
                    continue
                fee_state, base_fee, gas_limit = self.fee_rules_for(parent).next_block_fees(parent.fee, parent.ms,
                                                                                             ts_ms)
                header = block_header(
                    self.header_rules, parent=parent.header, parent_hash=parent.hash,
                    coinbase=self.coinbase_for(parent), state_root=self.state_root, transaction_root=BLANK_ROOT_HASH,
                    receipt_root=BLANK_ROOT_HASH, bloom=0, gas_limit=gas_limit, gas_used=0, ts_ms=ts_ms,
                    fee_extra=fee_state.encode(), base_fee=base_fee, block_gas_cost=fee_state.block_gas_cost)
                # the canonical hash stays in kv.pending until the chunk ends
                packed = self._put_block_rows(batch, header, ts_ms, fee_state, [], [], [])
                # make the new head visible to the next iteration without a store round trip
                info = BlockInfo(msgpack.unpackb(packed, raw=False), self.header_rules.coreth, header)
                self._blocks[info.number] = info
                self.head = info
                self._emit("block", info)
            self.kv.flush_into(batch)
            batch.commit()
            remaining -= chunk
            if len(self._blocks) > BLOCK_CACHE:
                while len(self._blocks) > BLOCK_CACHE:
                    self._blocks.popitem(last=False)
        self._load_head()
        if self.head.ms > self.clock.now_ms():
            try:
                self.clock.set_ms(self.head.ms)
            except Exception:  # noqa: BLE001 - a clock that cannot move keeps its time
                log.debug("clock not moved to %s", self.head.ms)

    # ------------------------------------------------------------------ interval mining

    def set_interval(self, seconds: float) -> None:
        if self._interval_handle is not None:
            self._interval_handle.cancel()
            self._interval_handle = None
        self.interval_ms = int(seconds * 1000)
        if self.interval_ms > 0:
            self.automine = False
            self._schedule_interval()
            notify = getattr(self.clock, "_notify", None)
            if notify is not None:
                notify()

    def set_automine(self, on: bool) -> None:
        self.automine = bool(on)
        if on:
            if self._interval_handle is not None:
                self._interval_handle.cancel()
                self._interval_handle = None
            self.interval_ms = 0
            if self.has_pending():
                self.request_mine()

    def _schedule_interval(self) -> None:
        at = self.clock.now_ms() + self.interval_ms
        self._interval_handle = self.clock.scheduler.schedule(at, self._on_interval)

    def _on_interval(self, _at_ms: int) -> None:
        self._interval_handle = None
        if self.closed or self.interval_ms <= 0:
            return
        try:
            if self.has_pending() and self.ctx.block_building.automatic:
                self.build_block()
        except Exception:
            log.exception("interval block failed")
        self._schedule_interval()

    # ------------------------------------------------------------------ events

    def _emit(self, kind: str, payload: Any) -> None:
        for fn in list(self.listeners):
            try:
                fn(kind, payload)
            except Exception:
                log.exception("listener failed")

    # ------------------------------------------------------------------ dev state edits

    def edit_state(self, fn: Callable[[AccountDB], None]) -> None:
        """Apply a direct state edit (anvil_setBalance & co.) on top of the latest state."""
        acct = self.account_db(self.state_root)
        fn(acct)
        acct.persist()
        root = acct.state_root
        batch = self.store.batch()
        self.kv.flush_into(batch)
        batch.put(self._key(b"root"), root)
        batch.commit()
        self.state_root = root
        self._view = None

    # ------------------------------------------------------------------ snapshot / revert

    def snapshot(self) -> int:
        """A node-wide snapshot (evm_snapshot): reverting it restores every chain."""
        return self.ctx.snapshots.take()

    def revert(self, snap_id: int) -> bool:
        """evm_revert: False for an unknown (or already consumed) snapshot, as Anvil answers."""
        return self.ctx.snapshots.revert(snap_id)

    def reload(self) -> None:
        """Re-read everything from the store (after a node-wide revert)."""
        self.kv.reset_cache()
        self._blocks.clear()
        self.evm = self.chain_class(self.db)
        self._load_head()
        if self.__dict__.get("_atomic") is not None:
            self._atomic.clear()
        view = self.view()
        for sender in list(self.pool.by_sender):
            self.pool.drop_stale(sender, view.get_nonce(sender))
