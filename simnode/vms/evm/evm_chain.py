"""EVMChain: the C-Chain engine (or any EVM chain's). Its state, genesis, state reads, fees and
tx admission; the rest of it is mixed in from one module per job:

    block_rows.py      the block rows, their storage layout and the decoded-block cache
    block_builder.py   building, executing and accepting a block
    mining.py          when blocks are built: automine, interval mining, empty blocks
    warp_lookups.py    Warp predicates, configs and accepted messages
    dev_state.py       dev state edits, snapshot and revert
Raw tx decoding and sender recovery are raw_tx.py's.
"""

from __future__ import annotations

import functools
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...crypto.hashing import keccak256
from ...formats.ids import EVM_VM_ID, ZERO_ID
from ...formats.jsonnum import hex_or_decimal
from ...genesis.cchain import parse_alloc
from ...icm.placement import PLACEMENT_BLOCK
from ...network import params_for
from ..chain_context import ChainContext
from .block_builder import BlockBuilder
from .block_rows import STORAGE_KEY_RULE, BlockInfo, BlockRows
from .db import StoreKV, atomic_db
from .dev_state import DevStateEdits
from .fees import ACP176_RULES, FeeState
from .genesis_state import GenesisState
from .headers import BLACKHOLE, Header, HeaderRules, evm_header, genesis_header
from .mempool import Mempool, PoolError, PoolTx
from .mining import MiningSchedule
from .precompiles import warp
from .precompiles.contract import PrecompileError
from .precompiles.schedule import Schedule
from .precompiles.upgrades import PrecompileConfig
from .vmerrors import ChainError
from .warp_lookups import WarpLookups

if TYPE_CHECKING:
    from eth.abc import SignedTransactionAPI
    from eth.db.account import AccountDB

log = logging.getLogger("simnode.evm")

TX_FEE_CAP_WEI = 100 * 10**18  # coreth RPCTxFeeCap: 100 AVAX
TX_MAX_SIZE = 4 * 32 * 1024  # the txpool's txMaxSize (128 KiB)
# coreth's nativeasset contracts (genesis contract, balance, call)
NATIVE_ASSET_CONTRACTS = tuple(bytes.fromhex("01" + "00" * 18 + n) for n in ("00", "01", "02"))
EIP1820_DEPLOY_HASH = bytes.fromhex("fefb2da535e927b85fe68eb81cb2e4a5827c905f78381a01ef2322aa9b0aee8e")
ZERO_ADDRESS = b"\x00" * 20
STATIC_STATE_RUNS = 256  # static calls on one kept state before it is built anew


def c_chain_header_rules(network_id: int) -> HeaderRules:
    """coreth's: the network's upgrade times (AP3 base fee, AP4 block gas cost and extDataGasUsed)."""
    u = params_for(network_id).upgrades
    return HeaderRules(coreth=True, base_fee=u.apricot_phase3, block_gas_cost=u.apricot_phase4, durango=u.durango,
                       etna=u.etna, granite=u.granite)


def c_chain_precompiles(rules: HeaderRules, prepare_engine: Callable[[], None] = lambda: None) -> Schedule:
    """coreth's precompiles: Warp from Durango (its account gets nonce 1 and code 0x01 in the first
    block at or after it, or in genesis), default quorum, Primary Network messages verified by the
    Primary Network. Its VM classes (py-evm's) are made on first use, after `prepare_engine`."""
    if not rules.coreth:
        return Schedule.deferred(functools.partial(_avalanche_vms, prepare_engine))
    return Schedule.deferred(functools.partial(_coreth_vms, prepare_engine, rules.granite),
                             (PrecompileConfig(warp.MODULE, rules.durango, False, warp.DEFAULT_SETTINGS),))


def _avalanche_vms(prepare_engine: Callable[[], None]) -> tuple[type, tuple[tuple[int, type], ...]]:
    prepare_engine()
    from .rules import AvalancheVM

    return AvalancheVM, ()


def _coreth_vms(prepare_engine: Callable[[], None], granite: int | None) -> tuple[type, tuple[tuple[int, type], ...]]:
    prepare_engine()
    from .fork_vms import with_granite
    from .rules import CorethVM

    return CorethVM, with_granite((), CorethVM, granite)


class EVMChain(BlockRows, BlockBuilder, MiningSchedule, WarpLookups, DevStateEdits):
    """The C-Chain (or any EVM chain): engine + block production; no HTTP here."""

    def __init__(self, ctx: ChainContext, *, genesis_json: dict | None = None, name: str = "C-Chain",
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
        self.precompiles = precompiles or c_chain_precompiles(self.header_rules, ctx.prepare_engine)
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
        self.kv = StoreKV(self.store, prefix + b"s/", block_hash=self.canonical_hash)
        # a data dir written before simnode keyed slots as coreth does (rules.CorethAccountDB reads it)
        self.storage_keys_as_written = False
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

    def last_accepted(self) -> tuple[bytes, int] | None:
        return self.head.hash, self.head.number

    def close(self) -> None:
        self.closed = True
        if self._interval_handle is not None:
            self._interval_handle.cancel()
            self._interval_handle = None

    # ------------------------------------------------------------------ genesis / load

    def _init(self) -> None:
        head = self.store.get(self._key(b"head"))
        if head is None:
            if self.fork is not None:
                self._write_fork_base()
            else:
                self._write_genesis()
        elif self.store.get(self._key(STORAGE_KEY_RULE)) is None:
            self.storage_keys_as_written = True
        self._load_head()
        if self.ctx.indexer is not None:
            self.ctx.indexer.chain_opened(self)  # indexes blocks accepted while indexing was off

    def _write_genesis(self) -> None:
        """Block 0 as core.Genesis.toBlock makes it (its state: genesis_state.py, the tries py-evm
        would write, without py-evm)."""
        g = self.genesis_json
        timestamp = hex_or_decimal(g.get("timestamp", "0x0"))
        state = GenesisState(self.header_rules.coreth)
        self.fill_genesis_state(state)
        root = state.commit(self.kv)
        header = genesis_header(self.header_rules, g, root, self.fee_rules.genesis_base_fee(g))
        batch = self.store.batch()
        base_fee = self.fee_rules.genesis_base_fee(g)
        self._put_block_rows(batch, header, timestamp * 1000, self.fee_rules.genesis_state(base_fee), [], [], [])
        batch.changes[self._key(STORAGE_KEY_RULE)] = b"coreth"
        self.kv.flush_into(batch)
        batch.commit()

    def fill_genesis_state(self, state: Any) -> None:
        """The genesis writes to `state` (a GenesisState; py-evm's AccountDB takes the same calls):
        the upgrades active at the genesis time first (coreth: warp from Durango; an L1: its
        genesis precompile configs), then the alloc."""
        g = self.genesis_json
        timestamp = hex_or_decimal(g.get("timestamp", "0x0"))
        self.apply_upgrades(state, None, hex_or_decimal(g.get("number", "0x0")), timestamp)
        for acct in parse_alloc(g.get("alloc"), "alloc"):
            state.set_balance(acct.address, acct.balance)
            state.set_nonce(acct.address, acct.nonce)
            state.set_code(acct.address, acct.code)
            for slot, value in acct.storage:
                state.set_storage(acct.address, int.from_bytes(slot, "big"), int.from_bytes(value, "big"))

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

    # ------------------------------------------------------------------ py-evm, on first use

    @functools.cached_property
    def db(self) -> Any:
        """py-evm's AtomicDB over the chain's StoreKV: py-evm is imported (after simnode's changes
        to it, ctx.prepare_engine) by the first thing that needs it, not while the chain starts."""
        self.ctx.prepare_engine()
        db = atomic_db(self.kv)
        if self.storage_keys_as_written:
            db.storage_keys_as_written = True  # read by rules.CorethAccountDB
        return db

    @property
    def vm_class(self) -> Any:
        """The chain's base VM class (py-evm's, made on first use)."""
        return self.precompiles.base_vm

    @functools.cached_property
    def chain_class(self) -> Any:
        vm_class = self.vm_class  # simnode's changes to py-evm made first (ctx.prepare_engine)
        from eth.chains.base import Chain as PyEvmChain

        return PyEvmChain.configure(__name__="AvalancheChain", vm_configuration=((0, vm_class),),
                                    chain_id=self.evm_chain_id)

    @functools.cached_property
    def evm(self) -> Any:
        """py-evm's chain over the chain's db (vm_at takes its chaindb and consensus context)."""
        return self.chain_class(self.db)

    def load_engine(self) -> None:
        """Build what the chain runs on py-evm now (the node does it once it is up, after
        primary.load_evm_engine on a thread, so the first execution pays neither)."""
        self.evm  # noqa: B018 - made and kept by the cached property
        self.precompiles.vm_class_at(self.head.header.timestamp)
        self.account_db(self.state_root)

    # ------------------------------------------------------------------ state

    @property
    def account_db_class(self) -> Any:
        """rules.CorethAccountDB (C-Chain) or rules.FastAccountDB (subnet-EVM's Ethereum accounts)."""
        return self.vm_class.get_state_class().get_account_db_class()

    def account_db(self, state_root: bytes) -> AccountDB:
        """The chain's account view at `state_root`."""
        return self.account_db_class(self.db, state_root)

    def static_call(self, row: dict, to: bytes, data: bytes, gas: int = 1_000_000) -> bytes | None:
        """The output of a gas-free call from the zero address at the state after the block of
        `row` (its unflushed overlay included), or None if it fails; nothing is kept. The state
        serves the next calls on the same block (the indexer probes a new token with up to
        seven), each reverted; a block's header fixes its state root, so it reads the same."""
        from eth.vm.spoof import SpoofTransaction
        from eth_utils import ValidationError

        from .rules import AvalancheVM

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
        from eth.vm.chain_context import ChainContext as PyEvmChainContext

        evm = self.evm
        if vm_class is None:
            vm_class = self.precompiles.vm_class_at(header.timestamp)
        vm = vm_class(header=header, chaindb=evm.chaindb, chain_context=PyEvmChainContext(self.evm_chain_id),
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

    # ------------------------------------------------------------------ tx admission

    def submit_raw(self, raw: bytes) -> bytes:
        from .raw_tx import decode_raw, recover_sender  # py-evm's tx classes

        tx, unsigned = decode_raw(raw)
        h = keccak256(raw)
        if raw[0] >= 0x80:  # legacy
            v = tx.v
            if v in (27, 28) and h != EIP1820_DEPLOY_HASH:
                raise ChainError("only replay-protected (EIP-155) transactions allowed over RPC")
            if v not in (27, 28) and (v - 35) // 2 != self.evm_chain_id:
                raise ChainError("invalid chain id for signer")
        elif tx.chain_id != self.evm_chain_id:
            raise ChainError("invalid sender")  # the txpool's signer cannot recover it
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
        gas = tx.gas
        if max_fee * gas > TX_FEE_CAP_WEI and max_fee > 0:
            raise ChainError(f"tx fee ({max_fee * gas / 1e18:.2f} ether) exceeds the configured cap (100.00 ether)")
        # then the txpool's checks, in its order and words (a mined tx is refused as "nonce too low")
        pool = self.pool
        if h in pool.by_hash:
            raise ChainError("already known")
        if len(raw) > TX_MAX_SIZE:
            raise ChainError(f"oversized data: transaction size {len(raw)}, limit {TX_MAX_SIZE}")
        _, base_fee, gas_limit = self.next_fees()
        if gas > gas_limit:
            raise ChainError(f"exceeds block gas limit: tx gas ({gas}) > current max gas ({gas_limit})")
        if tip > max_fee:
            raise ChainError("max priority fee per gas higher than max fee per gas")
        intrinsic = self._intrinsic_gas(tx)
        if gas < intrinsic:
            from eth_utils import to_checksum_address

            raise ChainError(f"intrinsic gas too low: address {to_checksum_address(sender)} tx gas ({gas}), "
                             f"minimum needed {intrinsic}")
        if tx.to == b"" and len(tx.data) > 49152:
            raise ChainError(f"max initcode size exceeded: code size {len(tx.data)} limit 49152")
        if max_fee < base_fee:  # the txpool's minimum fee follows the estimated base fee
            from eth_utils import to_checksum_address

            raise ChainError(f"transaction underpriced: address {to_checksum_address(sender)} have gas fee cap "
                             f"({max_fee}) < pool minimum fee cap ({base_fee})")
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

    # ------------------------------------------------------------------ events

    def _emit(self, kind: str, payload: Any) -> None:
        for fn in list(self.listeners):
            try:
                fn(kind, payload)
            except Exception:
                log.exception("listener failed")
