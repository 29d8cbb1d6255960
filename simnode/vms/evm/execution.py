"""Executing without committing: eth_call, eth_estimateGas, eth_createAccessList, eth_getProof.

Everything runs on a throwaway py-evm state built over the requested block's state root; nothing
is persisted. Errors use geth's wording; a revert becomes code 3 with the revert bytes as data.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import rlp
from eth.exceptions import InvalidInstruction, OutOfGas, Revert
from eth.vm.execution_context import ExecutionContext
from eth.vm.spoof import SpoofTransaction
from trie import HexaryTrie

from ...rpc.jsonrpc import RPCError
from ...crypto.hashing import keccak256
from . import gasprofile
from .chain import RPC_GAS_CAP, BlockInfo, ChainError, evm_header
from .gasprofile import profiling_vm
from .rpcjson import parse_address, parse_quantity
from .rules import AvalancheVM

if TYPE_CHECKING:
    from .chain import EVMChain

# Tests switch this off to compare against executing every probe.
PROFILED_ESTIMATES = True
SHARED_STATES = 4  # block contexts whose state Executor.shared_state keeps
SHARED_STATE_RUNS = 256  # runs on one shared state before it is built anew

PANIC_REASONS = {
    0x00: "generic panic", 0x01: "assert(false)", 0x11: "arithmetic underflow or overflow",
    0x12: "division or modulo by zero", 0x21: "enum overflow", 0x22: "invalid encoded storage byte array accessed",
    0x31: "out-of-bounds array access; popping on an empty array", 0x32: "out-of-bounds access of an array or bytesslice",
    0x41: "out of memory", 0x51: "uninitialized function",
}


@dataclass(slots=True)
class CallArgs:
    sender: bytes
    to: bytes | None
    gas: int | None
    gas_price: int | None
    max_fee: int | None
    tip: int | None
    value: int
    data: bytes
    nonce: int | None
    access_list: list | None


class CallTransaction(SpoofTransaction):
    """py-evm's SpoofTransaction (an unsigned tx with the caller as its sender), each attribute
    kept once read: the tx is immutable, and an execution reads ~50 through __getattr__."""

    def __getattr__(self, attr: str) -> Any:
        value = super().__getattr__(attr)
        self.__dict__[attr] = value
        return value


def with_gas_limit(ctx: ExecutionContext, gas_limit: int) -> ExecutionContext:
    """`ctx` with another block gas limit (the same block otherwise, its hashes included)."""
    return ExecutionContext(coinbase=ctx.coinbase, timestamp=ctx.timestamp, block_number=ctx.block_number,
                            difficulty=ctx.difficulty, mix_hash=ctx.mix_hash, gas_limit=gas_limit,
                            prev_hashes=ctx.prev_hashes, chain_id=ctx.chain_id,
                            base_fee_per_gas=ctx.base_fee_per_gas, excess_blob_gas=ctx.excess_blob_gas)


def revert_message(data: bytes) -> str:
    if data[:4] == bytes.fromhex("08c379a0"):
        from eth_abi import decode as abi_decode  # ~25 ms to import: paid by the first revert, not at start

        try:
            (reason,) = abi_decode(["string"], data[4:])
        except Exception:  # noqa: BLE001 - malformed Error(string): plain "execution reverted"
            reason = None
        if reason is not None:
            return f"execution reverted: {reason}"
    if data[:4] == bytes.fromhex("4e487b71") and len(data) >= 36:
        code = int.from_bytes(data[4:36], "big")
        reason = PANIC_REASONS.get(code, f"unknown panic code: {code:#x}")
        return f"execution reverted: {reason}"
    return "execution reverted"


def revert_error(data: bytes) -> RPCError:
    return RPCError(revert_message(data), 3, "0x" + data.hex())


def vm_error_text(err: Exception) -> str:
    if isinstance(err, OutOfGas):
        return "out of gas"
    if isinstance(err, InvalidInstruction):
        return "invalid opcode: " + (str(err).split()[-1] if str(err) else "INVALID")
    text = str(err) or type(err).__name__
    return text


class Executor:
    def __init__(self, chain: EVMChain) -> None:
        self.chain = chain
        # States kept for the next call with the same block context (shared_state)
        self._shared: OrderedDict[tuple, list] = OrderedDict()

    # -------------------------------------------------------------- state

    def _context_of(self, block: BlockInfo | None, free: bool, gas: int) -> tuple[BlockInfo, dict[str, Any]]:
        """The block whose header a call executes on, and the header fields that change."""
        chain = self.chain
        latest = block is None or block.number == chain.head.number
        base = chain.head if latest else block
        changes: dict[str, Any] = {}
        if latest:
            changes["state_root"] = chain.state_root
        if free:
            changes["base_fee_per_gas"] = 0
        elif latest:
            # "latest" executes like the next block would: with the next block's base fee
            changes["base_fee_per_gas"] = chain.next_base_fee()
        if gas > base.header.gas_limit:
            changes["gas_limit"] = gas
        return base, changes

    def shared_state(self, block: BlockInfo | None, free: bool, gas: int) -> Any:
        """build_state's state (with the estimator's gas profiling hooks, idle unless a profile
        is being recorded), kept for later calls with the same block, state root and base fee:
        a test's eth_call and eth_estimateGas before its next tx share one. Every run on it is
        reverted, as a block reverts a failed tx on its one state, so its account, code and
        storage reads stay warm from call to call. The gas limit is the one field of the block
        context that differs between them (eth_call's cap is above a block's limit), so the
        state gets an execution context with the asked limit instead of a state of its own.
        Renewed after SHARED_STATE_RUNS runs (a run's writes leave py-evm's per-account
        bookkeeping behind, reverted but listed)."""
        base, changes = self._context_of(block, free, gas)
        gas_limit = changes.pop("gas_limit", base.header.gas_limit)
        key = (base.hash, tuple(changes.items()))
        shared = self._shared.get(key)
        if shared is None or shared[1] >= SHARED_STATE_RUNS:
            shared = self._shared[key] = [self.build_state(block, free, gas, profiling=True), 0]
            while len(self._shared) > SHARED_STATES:
                self._shared.popitem(last=False)
        shared[1] += 1
        self._shared.move_to_end(key)
        state = shared[0]
        if state.execution_context.gas_limit != gas_limit:
            state.execution_context = with_gas_limit(state.execution_context, gas_limit)
        return state

    def build_state(self, block: BlockInfo | None, free: bool, gas: int, overrides: dict | None = None,
                    vm_class: Any = None, profiling: bool = False) -> Any:
        base, changes = self._context_of(block, free, gas)
        hdr = evm_header(base.header, **changes)
        if profiling:  # the same VM, its computation recording gas profiles (gasprofile.py)
            vm_class = profiling_vm(vm_class or self.chain.precompiles.vm_class_at(hdr.timestamp))
        state = self.chain.vm_at(hdr, vm_class=vm_class).state
        if overrides:
            apply_overrides(state, overrides)
        return state

    # -------------------------------------------------------------- one execution

    def _tx(self, state: Any, args: CallArgs, gas: int) -> tuple[Any, int]:
        price = self.effective_price(args, state.execution_context.base_fee_per_gas or 0)
        nonce = state.get_nonce(args.sender) if args.nonce is None else args.nonce
        to = args.to if args.to is not None else b""
        if args.access_list:
            # the list's gas counts, and a Warp predicate in it reads as valid (nothing verified it)
            utx = AvalancheVM.get_transaction_builder().new_unsigned_access_list_transaction(
                chain_id=self.chain.evm_chain_id, nonce=nonce, gas_price=price, gas=gas, to=to, value=args.value,
                data=args.data, access_list=_access_list(args.access_list))
        else:
            utx = AvalancheVM.create_unsigned_transaction(nonce=nonce, gas_price=price, gas=gas, to=to,
                                                          value=args.value, data=args.data)
        return CallTransaction(utx, from_=args.sender), price

    @staticmethod
    def effective_price(args: CallArgs, base_fee: int) -> int:
        if args.gas_price is not None:
            return args.gas_price
        if args.max_fee is not None or args.tip is not None:
            max_fee = args.max_fee if args.max_fee is not None else 0
            tip = args.tip if args.tip is not None else 0
            if max_fee == 0 and tip == 0:
                return 0
            return min(max_fee, base_fee + tip) if args.max_fee is not None else base_fee + tip
        return 0

    def run(self, args: CallArgs, block: BlockInfo | None, gas: int | None = None,
            overrides: dict | None = None, state: Any = None) -> Any:
        gas = gas if gas is not None else (args.gas if args.gas is not None else RPC_GAS_CAP)
        paying = bool(args.gas_price or args.max_fee or args.tip)
        if state is None:
            state = (self.build_state(block, not paying, gas, overrides) if overrides
                     else self.shared_state(block, not paying, gas))
        snap = state.snapshot()
        try:
            tx, price = self._tx(state, args, gas)
            base_fee = state.execution_context.base_fee_per_gas or 0
            fee_cap = args.gas_price if args.gas_price is not None else args.max_fee
            if paying and fee_cap is not None and fee_cap < base_fee:
                raise ChainError(f"max fee per gas less than block base fee: address 0x{args.sender.hex()}, "
                                 f"maxFeePerGas: {fee_cap}, baseFee: {base_fee}")
            balance = state.get_balance(args.sender)
            cost = gas * price + args.value
            if balance < cost:
                if price == 0:
                    raise ChainError(f"insufficient funds for transfer: address 0x{args.sender.hex()}")
                raise ChainError(f"insufficient funds for gas * price + value: address 0x{args.sender.hex()} "
                                 f"have {balance} want {cost}")
            if tx.intrinsic_gas > gas:
                raise ChainError(f"intrinsic gas too low: have {gas}, want {tx.intrinsic_gas}")
            from eth_utils import ValidationError
            try:
                return state.apply_transaction(tx)
            except ValidationError as exc:
                raise ChainError(translate_validation(str(exc))) from None
        finally:
            state.revert(snap)

    # -------------------------------------------------------------- RPC-level operations

    def call(self, args: CallArgs, block: BlockInfo | None, overrides: dict | None = None) -> bytes:
        comp = self.run(args, block, overrides=overrides)
        if comp.is_error:
            if isinstance(comp.error, Revert):
                raise revert_error(comp.output)
            raise ChainError(vm_error_text(comp.error))
        return comp.output

    def call_detailed(self, args: CallArgs, block: BlockInfo | None, overrides: dict | None = None) -> dict:
        comp = self.run(args, block, overrides=overrides)
        gas = (args.gas if args.gas is not None else RPC_GAS_CAP)
        used = gas - comp.get_gas_remaining()  # no refunds (rules.py)
        out: dict[str, Any] = {"gas": used, "errCode": 0, "err": "", "returnData": "0x" + comp.output.hex()}
        if comp.is_error:
            out["err"] = revert_message(comp.output) if isinstance(comp.error, Revert) else vm_error_text(comp.error)
            out["errCode"] = 3 if isinstance(comp.error, Revert) else 0
        return out

    def estimate(self, args: CallArgs, block: BlockInfo | None, overrides: dict | None = None) -> int:
        """coreth's estimator (eth/gasestimator): the call at the cap, an optimistic probe, then a
        binary search to within 1.5%. A probe is answered from the first run's gas profile when
        that run could not depend on its gas limit (gasprofile.py), else by executing again."""
        chain = self.chain
        base_block = block or chain.head
        hi_limit = base_block.header.gas_limit if block is not None else chain.next_fees()[2]
        hi = args.gas if args.gas is not None and args.gas >= 21000 else hi_limit
        hi = min(hi, RPC_GAS_CAP)
        paying = bool(args.gas_price or args.max_fee or args.tip)
        state = (self.build_state(block, not paying, hi, overrides, profiling=True) if overrides
                 else self.shared_state(block, not paying, hi))
        if paying:
            fee_cap = args.gas_price if args.gas_price is not None else (args.max_fee or 0)
            if fee_cap:
                balance = state.get_balance(args.sender)
                if args.value > balance:
                    raise ChainError("insufficient funds for transfer")
                allowance = (balance - args.value) // fee_cap
                hi = min(hi, allowance)
        # plain value transfer to an account without code: 21000, as geth
        if not args.data and args.to is not None and not state.get_code(args.to) and not overrides:
            comp = self.run(args, None, gas=21000, state=state) if hi >= 21000 else None
            if comp is not None and not comp.is_error:
                return 21000
        profile = gasprofile.start()
        try:
            comp = self.run(args, None, gas=hi, state=state)
        finally:
            gasprofile.stop()
        if comp.is_error:
            if isinstance(comp.error, Revert):
                raise revert_error(comp.output)
            if isinstance(comp.error, OutOfGas):
                raise ChainError(f"gas required exceeds allowance ({hi})")
            raise ChainError(vm_error_text(comp.error))
        used = hi - comp.get_gas_remaining()  # no refunds (rules.py): what the tx is charged
        if PROFILED_ESTIMATES and not profile.gas_dependent:
            need = profile.needs(hi, used)
            fails = lambda gas: gas < need  # noqa: E731
        else:
            fails = lambda gas: self.run(args, None, gas=gas, state=state).is_error  # noqa: E731
        lo = max(used - 1, 20999)
        optimistic = (used + 2300) * 64 // 63
        if optimistic < hi:
            if fails(optimistic):
                lo = max(lo, optimistic)
            else:
                hi = optimistic
        while lo + 1 < hi:
            if (hi - lo) / hi < 0.015:
                break
            mid = (hi + lo) // 2
            mid = min(mid, lo * 2)
            if fails(mid):
                lo = mid
            else:
                hi = mid
        return hi

    def access_list(self, args: CallArgs, block: BlockInfo | None) -> dict:
        gas = args.gas if args.gas is not None else RPC_GAS_CAP
        paying = bool(args.gas_price or args.max_fee or args.tip)
        state = self.build_state(block, not paying, gas)
        touched: dict[bytes, set[int]] = {}
        orig_addr, orig_slot = state.mark_address_warm, state.mark_storage_warm

        def mark_addr(address: bytes) -> None:
            touched.setdefault(address, set())
            orig_addr(address)

        def mark_slot(address: bytes, slot: int) -> None:
            touched.setdefault(address, set()).add(slot)
            orig_slot(address, slot)

        state.mark_address_warm = mark_addr
        state.mark_storage_warm = mark_slot
        comp = self.run(args, None, gas=gas, state=state)
        precompiles = set(state.computation_class.get_precompiles())
        excluded = {args.sender, args.to, *precompiles}
        if args.to is None:
            from eth._utils.address import generate_contract_address
            excluded.add(generate_contract_address(args.sender, state.get_nonce(args.sender)))
        entries = []
        for addr in sorted(touched):
            if addr in excluded and not touched[addr]:
                continue
            if addr in precompiles:
                continue
            entries.append({"address": "0x" + addr.hex(),
                            "storageKeys": ["0x" + s.to_bytes(32, "big").hex() for s in sorted(touched[addr])]})
        used = gas - comp.get_gas_remaining()  # no refunds (rules.py)
        used += sum(2400 + 1900 * len(e["storageKeys"]) for e in entries)
        out: dict[str, Any] = {"accessList": entries, "gasUsed": hex(used)}
        if comp.is_error:
            out["error"] = revert_message(comp.output) if isinstance(comp.error, Revert) else vm_error_text(comp.error)
        return out

    def proof(self, address: bytes, slots: list[int], block: BlockInfo | None) -> dict:
        chain = self.chain
        root = chain.state_root if block is None or block.number == chain.head.number else block.header.state_root
        view = chain.account_db(root)
        trie = HexaryTrie(chain.db, root)
        account_proof = ["0x" + rlp.encode(node).hex() for node in trie.get_proof(keccak256(address))]
        storage_root = view._get_storage_root(address)
        st_trie = HexaryTrie(chain.db, storage_root)
        storage = []
        for s in slots:
            key = s.to_bytes(32, "big")
            nodes = st_trie.get_proof(keccak256(key))
            storage.append({"key": "0x" + key.hex(), "value": hex(view.get_storage(address, s)),
                            "proof": ["0x" + rlp.encode(n).hex() for n in nodes]})
        return {
            "address": "0x" + address.hex(),
            "accountProof": account_proof,
            "balance": hex(view.get_balance(address)),
            "codeHash": "0x" + view.get_code_hash(address).hex(),
            "nonce": hex(view.get_nonce(address)),
            "storageHash": "0x" + storage_root.hex(),
            "storageProof": storage,
        }


def _access_list(entries: Any) -> list[tuple[bytes, list[int]]]:
    """A JSON accessList ([{address, storageKeys}]) as py-evm takes it."""
    out = []
    try:
        for entry in entries:
            keys = [int(k, 16) for k in entry.get("storageKeys") or []]
            out.append((parse_address(entry["address"]), keys))
    except (AttributeError, KeyError, TypeError, ValueError):
        raise ChainError("invalid access list") from None
    return out


def translate_validation(text: str) -> str:
    low = text.lower()
    if "nonce" in low:
        return "nonce too high" if "expected" in low else "nonce too low"
    if "insufficient" in low or "afford" in low:
        return "insufficient funds for gas * price + value"
    if "intrinsic" in low:
        return "intrinsic gas too low"
    return text


def apply_overrides(state: Any, overrides: dict) -> None:
    """geth state overrides: balance, nonce, code, state (replace all), stateDiff (patch)."""
    for addr_s, ov in overrides.items():
        addr = parse_address(addr_s)
        if not isinstance(ov, dict):
            continue
        if "balance" in ov and ov["balance"] is not None:
            state.set_balance(addr, parse_quantity(ov["balance"]))
        if "nonce" in ov and ov["nonce"] is not None:
            state.set_nonce(addr, parse_quantity(ov["nonce"]))
        if "code" in ov and ov["code"] is not None:
            state.set_code(addr, bytes.fromhex(ov["code"][2:]))
        if ov.get("state") is not None and ov.get("stateDiff") is not None:
            raise ChainError(f"account 0x{addr.hex()} has both 'state' and 'stateDiff'")
        if ov.get("state") is not None:
            state.delete_storage(addr)
            for k, v in ov["state"].items():
                state.set_storage(addr, int(k, 16), int(v, 16))
        if ov.get("stateDiff") is not None:
            for k, v in ov["stateDiff"].items():
                state.set_storage(addr, int(k, 16), int(v, 16))
