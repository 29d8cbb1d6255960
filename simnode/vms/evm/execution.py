"""Executing without committing: eth_call, eth_estimateGas, eth_createAccessList, eth_getProof.

Everything runs on a throwaway py-evm state built over the requested block's state root; nothing
is persisted. Errors use geth's wording; a revert becomes code 3 with the revert bytes as data.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

import rlp
from eth._utils.address import generate_contract_address
from eth.constants import CREATE_CONTRACT_ADDRESS
from eth.exceptions import OutOfGas, Revert
from eth.abc import UnsignedTransactionAPI
from eth.vm.forks.berlin.transactions import calculate_txn_intrinsic_gas_berlin
from eth.vm.forks.cancun.transactions import CancunTransactionBuilder
from eth.vm.spoof import SpoofTransaction
from eth_typing import Address
from eth_utils import ValidationError
from trie import HexaryTrie

from ...crypto.hashing import keccak256
from ...rpc.jsonrpc import RPCError
from . import estimate_profile
from .access_list import AccessListTracer
from .block_rows import BlockInfo
from .call_args import RPC_GAS_CAP, CallArgs
from .estimate_profile import profiling_vm
from .headers import evm_header
from .rpcjson import AccountOverride
from .rules import AvalancheVM
from .tracing.hooks import tracing, tracing_vm
from .vmerrors import ChainError, revert_error, vm_error_text

if TYPE_CHECKING:
    from .evm_chain import EVMChain

# Tests switch this off to compare against executing every probe.
PROFILED_ESTIMATES = True
SHARED_STATES = 4  # block contexts whose state Executor.shared_state keeps
SHARED_STATE_RUNS = 256  # runs on one shared state before it is built anew
PREPARED_TXS = 8  # a new head's txs whose accounts prepare_head reads
MAX_INITCODE_SIZE = 49152  # EIP-3860 (Durango)
Overrides = dict[bytes, AccountOverride]  # a StateOverride, parsed (rpcjson.parse_state_overrides)

class MessageRefused(ChainError):
    """core.ApplyMessage's refusal of a message before it runs (fee checks, gas purchase,
    intrinsic gas, value transfer). Each RPC method wraps core's text its own way."""

    def __init__(self, text: str, intrinsic: bool = False) -> None:
        super().__init__(text)
        self.text = text
        self.intrinsic = intrinsic


def checksummed(address: bytes) -> str:
    """common.Address.Hex(): EIP-55, as core's error texts print an address."""
    from eth_utils import to_checksum_address

    return to_checksum_address(address)


class CallTransaction(SpoofTransaction):
    """py-evm's SpoofTransaction (an unsigned tx with the caller as its sender), each attribute
    kept once read: the tx is immutable, and an execution reads ~50 through __getattr__."""

    def __getattr__(self, attr: str) -> Any:
        value = super().__getattr__(attr)
        self.__dict__[attr] = value
        return value


@dataclass(frozen=True, slots=True)
class CallTx:
    """A call's message as py-evm's executor reads it (AvalancheState.apply_call): coreth's
    ToMessage of the args as a legacy tx, or an EIP-2930 one with an access list, whose one gas
    price is both fee caps. `spoofed` is the same tx as py-evm's own (debug_traceCall's settled run)."""

    sender: Address
    to: Address  # CREATE_CONTRACT_ADDRESS for a creation
    gas: int
    value: int
    data: bytes
    gas_price: int
    access_list: Sequence[tuple[Address, Sequence[int]]]
    type_id: int | None  # None: legacy (as py-evm's spoof of one reads), 1: EIP-2930
    intrinsic_gas: int = field(init=False)

    def __post_init__(self) -> None:
        # py-evm's rule for both tx types (Berlin's: Istanbul's plus the access list's)
        object.__setattr__(self, "intrinsic_gas", calculate_txn_intrinsic_gas_berlin(cast(Any, self)))

    @property
    def max_fee_per_gas(self) -> int:
        return self.gas_price

    @property
    def max_priority_fee_per_gas(self) -> int:
        return self.gas_price

    def spoofed(self, chain_id: int, nonce: int) -> CallTransaction:
        """py-evm's unsigned tx of these fields, from the sender (its `nonce`: the sender's own)."""
        if self.type_id:
            utx: UnsignedTransactionAPI = _tx_builder().new_unsigned_access_list_transaction(
                chain_id=chain_id, nonce=nonce, gas_price=self.gas_price, gas=self.gas, to=self.to,
                value=self.value, data=self.data, access_list=self.access_list)
        else:
            utx = AvalancheVM.create_unsigned_transaction(nonce=nonce, gas_price=self.gas_price, gas=self.gas,
                                                          to=self.to, value=self.value, data=self.data)
        return CallTransaction(utx, from_=self.sender)


class Executor:
    def __init__(self, chain: EVMChain) -> None:
        self.chain = chain
        # States kept for the next call with the same block context (shared_state)
        self._shared: OrderedDict[tuple, list] = OrderedDict()

    # -------------------------------------------------------------- state

    def _context_of(self, block: BlockInfo | None, free: bool,
                    block_overrides: dict[str, Any] | None = None) -> tuple[BlockInfo, dict[str, Any]]:
        """The block whose header a call executes on, and the header fields that change
        (`block_overrides`: eth_call's, as header fields). A call's gas may be above the block's
        gas limit (eth_call's cap is), and GASLIMIT still reads the block's, as in coreth."""
        chain = self.chain
        latest = block is None or block.number == chain.head.number
        base = chain.head if latest else block
        changes: dict[str, Any] = {}
        if latest:
            changes["state_root"] = chain.state_root
            if not free:  # "latest" executes like the next block would: with the next block's base fee
                changes["base_fee_per_gas"] = chain.next_base_fee()
        if block_overrides:
            changes.update(block_overrides)
        if free:  # NoBaseFee with a zero gas price: the EVM sees base fee 0
            changes["base_fee_per_gas"] = 0
        return base, changes

    def shared_state(self, block: BlockInfo | None, free: bool, traced: bool = False, run: bool = True) -> Any:
        """build_state's state (with the estimator's gas profiling hooks, or with `traced` the
        tracing hooks, idle unless a profile is being recorded or a tracer is active), kept for
        later calls with the same block, state root and base fee: a test's eth_call and
        eth_estimateGas before its next tx share one, eth_createAccessList's runs another. Every
        run on it is reverted, as a block reverts a failed tx on its one state, so its account,
        code and storage reads stay warm from call to call. Renewed after SHARED_STATE_RUNS runs
        (a run's writes leave py-evm's per-account bookkeeping behind, reverted but listed);
        `run=False` counts none (prepare_head)."""
        base, changes = self._context_of(block, free)
        key = (base.hash, tuple(changes.items()), traced)
        shared = self._shared.get(key)
        if shared is None or shared[1] >= SHARED_STATE_RUNS:
            if traced:
                at = block or self.chain.head
                state = self.build_state(block, free, vm_class=tracing_vm(
                    self.chain.precompiles.vm_class_at(at.header.timestamp)))
            else:
                state = self.build_state(block, free, profiling=True)
            shared = self._shared[key] = [state, 0]
            while len(self._shared) > SHARED_STATES:
                self._shared.popitem(last=False)
        shared[1] += run
        self._shared.move_to_end(key)
        return shared[0]

    def prepare_head(self) -> None:
        """The head's shared state for fee-less calls (what eth_call and eth_estimateGas without
        fees run on), built when a block is accepted instead of by the next call, with the
        accounts the block's txs touched (senders, recipients, their code and storage trie) read
        into its caches: the reads a test's next call makes first. The same state and reads as a
        call would make, only earlier."""
        if self.chain.closed or self.chain.has_pending():  # more blocks are coming: the head moves on
            return
        head = self.chain.head
        state = self.shared_state(None, True, run=False)
        for tx in head.txs[:PREPARED_TXS]:
            state.get_balance(tx.sender)
            if tx.to and state.get_code(tx.to):
                state.get_storage(tx.to, 0)  # opens the contract's storage (its root, its trie's top)

    def build_state(self, block: BlockInfo | None, free: bool, overrides: Overrides | None = None,
                    vm_class: Any = None, profiling: bool = False,
                    block_overrides: dict[str, Any] | None = None) -> Any:
        header_overrides = dict(block_overrides or {})
        blob_base_fee = header_overrides.pop("blob_base_fee", None)
        base, changes = self._context_of(block, free, header_overrides)
        hdr = evm_header(base.header, **changes)
        if profiling:  # the same VM, its computation recording gas profiles (estimate_profile.py)
            vm_class = profiling_vm(vm_class or self.chain.precompiles.vm_class_at(hdr.timestamp))
        state = self.chain.vm_at(hdr, vm_class=vm_class).state
        if blob_base_fee is not None:
            with_blob_base_fee(state, blob_base_fee)
        if overrides:
            apply_overrides(state, overrides)
        return state

    # -------------------------------------------------------------- one execution

    def _message(self, state: Any, args: CallArgs, gas: int) -> CallTx:
        """core.ApplyMessage's checks of a call message, in its order (preCheck without the
        account checks, buyGas, intrinsic gas, the value, Durango's init code limit), then the tx
        py-evm runs with the message's gas price (the args' nonce is not read)."""
        base_fee = state.execution_context.base_fee_per_gas or 0
        price, fee_cap, tip_cap = args.fees(base_fee)
        if fee_cap or tip_cap:  # NoBaseFee skips the fee checks of an all-zero message only
            if fee_cap < tip_cap:
                raise MessageRefused(f"max priority fee per gas higher than max fee per gas: address "
                                     f"{checksummed(args.sender)}, maxPriorityFeePerGas: {tip_cap}, "
                                     f"maxFeePerGas: {fee_cap}")
            if fee_cap < base_fee:
                raise MessageRefused(f"max fee per gas less than block base fee: address {checksummed(args.sender)}, "
                                     f"maxFeePerGas: {fee_cap}, baseFee: {base_fee}")
        balance = state.get_balance(args.sender)
        want = gas * fee_cap + args.value
        if want >= 1 << 256:
            raise MessageRefused(f"insufficient funds for gas * price + value: address {checksummed(args.sender)} "
                                 "required balance exceeds 256 bits")
        if balance < want:
            raise MessageRefused(f"insufficient funds for gas * price + value: address {checksummed(args.sender)} "
                                 f"have {balance} want {want}")
        # with an access list, the list's gas counts, and a Warp predicate in it reads as valid
        # (nothing verified it)
        tx = CallTx(args.sender, args.to if args.to is not None else CREATE_CONTRACT_ADDRESS, gas, args.value,
                    args.data, price, args.access_list or (), 1 if args.access_list else None)
        if tx.intrinsic_gas > gas:
            raise MessageRefused(f"intrinsic gas too low: have {gas}, want {tx.intrinsic_gas}", intrinsic=True)
        if args.value and balance - gas * price < args.value:
            raise MessageRefused(f"insufficient funds for transfer: address {checksummed(args.sender)}")
        if args.to is None and len(args.data) > MAX_INITCODE_SIZE:
            raise MessageRefused(f"max initcode size exceeded: code size {len(args.data)} limit {MAX_INITCODE_SIZE}")
        return tx

    def run(self, args: CallArgs, block: BlockInfo | None, gas: int | None = None,
            overrides: Overrides | None = None, state: Any = None,
            block_overrides: dict[str, Any] | None = None, settle: bool = True) -> Any:
        """The call's computation on a state of `block` (its changes reverted afterwards);
        MessageRefused where core would not run the message. Without `settle` the message runs
        as AvalancheState.apply_call runs it: no validation after core's checks, no settlement
        after execution (the unused gas back to the sender, the fee to the coinbase, EIP-161's
        deletions), as nothing eth_call, eth_estimateGas or eth_createAccessList answers reads it
        (no refunds on Avalanche: the gas used is the computation's); a tracer's post-state
        (debug_traceCall) does read it: with `settle`, py-evm's whole tx path."""
        gas = gas if gas is not None else call_gas(args)
        if state is None:
            state = (self.build_state(block, not args.paying, overrides, block_overrides=block_overrides)
                     if overrides or block_overrides else self.shared_state(block, not args.paying))
        snap = state.snapshot()
        try:
            tx = self._message(state, args, gas)
            try:
                if settle:
                    return state.apply_transaction(tx.spoofed(self.chain.evm_chain_id, state.get_nonce(args.sender)))
                return state.apply_call(tx)
            except ValidationError as exc:  # py-evm refusing what core's checks let through (Warp's predicates)
                raise MessageRefused(str(exc)) from None
        finally:
            state.revert(snap)

    # -------------------------------------------------------------- RPC-level operations

    def call(self, args: CallArgs, block: BlockInfo | None, overrides: Overrides | None = None,
             block_overrides: dict[str, Any] | None = None) -> bytes:
        comp = self._call(args, block, overrides, block_overrides)
        if comp.is_error:
            raise execution_error(comp)
        return comp.output

    def _call(self, args: CallArgs, block: BlockInfo | None, overrides: Overrides | None,
              block_overrides: dict[str, Any] | None = None) -> Any:
        """coreth's doCall: a refused message is an error naming the gas supplied."""
        try:
            return self.run(args, block, overrides=overrides, block_overrides=block_overrides, settle=False)
        except MessageRefused as exc:
            raise ChainError(f"err: {exc.text} (supplied gas {call_gas(args)})") from None

    def call_detailed(self, args: CallArgs, block: BlockInfo | None, overrides: Overrides | None = None) -> dict:
        comp = self._call(args, block, overrides)
        used = call_gas(args) - comp.get_gas_remaining()  # no refunds (rules.py)
        out: dict[str, Any] = {"gas": used, "errCode": 0, "err": "", "returnData": "0x" + comp.output.hex()}
        if comp.is_error:
            err = execution_error(comp)
            out["err"] = err.message if isinstance(err, RPCError) else str(err)
            out["errCode"] = err.code if isinstance(err, RPCError) else 0
        return out

    def estimate(self, args: CallArgs, block: BlockInfo | None, overrides: Overrides | None = None) -> int:
        """coreth's estimator (eth/gasestimator): the call at the cap, an optimistic probe, then a
        binary search to within 1.5%. A probe is answered from the first run's gas profile when
        that run could not depend on its gas limit (estimate_profile.py), else by executing again."""
        chain = self.chain
        base_block = block or chain.head
        hi_limit = base_block.header.gas_limit if block is not None else chain.next_fees()[2]
        requested = min(args.gas, RPC_GAS_CAP) if args.gas is not None else hi_limit
        hi = requested if requested >= 21000 else hi_limit
        state = (self.build_state(block, not args.paying, overrides, profiling=True) if overrides
                 else self.shared_state(block, not args.paying))
        fee_cap = args.fees(state.execution_context.base_fee_per_gas or 0)[1]
        if fee_cap:
            balance = state.get_balance(args.sender)
            if args.value >= balance:
                raise ChainError("insufficient funds for transfer")
            hi = min(hi, (balance - args.value) // fee_cap)
        hi = min(hi, RPC_GAS_CAP)

        def execute(gas: int) -> Any:
            """The run at `gas`, None where core refuses for want of intrinsic gas (a failure
            the search raises the gas for); any other refusal ends the estimate."""
            try:
                return self.run(args, None, gas=gas, state=state, settle=False)
            except MessageRefused as exc:
                if exc.intrinsic:
                    return None
                raise ChainError(f"failed with {gas} gas: {exc.text}") from None

        # plain value transfer to an account without code: 21000, as geth
        if not args.data and args.to is not None and not state.get_code(args.to):
            try:
                comp = self.run(args, None, gas=21000, state=state, settle=False)
            except MessageRefused:
                comp = None
            if comp is not None and not comp.is_error:
                return 21000
        profile = estimate_profile.start()
        try:
            comp = execute(hi)
        finally:
            estimate_profile.stop()
        if comp is None or (comp.is_error and isinstance(comp.error, OutOfGas)):
            raise ChainError(f"gas required exceeds allowance ({hi})")
        if comp.is_error:
            raise execution_error(comp)
        used = hi - comp.get_gas_remaining()  # no refunds (rules.py): what the tx is charged
        if PROFILED_ESTIMATES and not profile.gas_dependent:
            need = profile.needs(hi, used)
            fails = lambda gas: gas < need  # noqa: E731
        else:
            def fails(gas: int) -> bool:
                probe = execute(gas)
                return probe is None or probe.is_error
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
        """coreth's AccessList: run with geth's access-list tracer, again with the list it found,
        until a run finds the list it ran with; that list and that run's gas. `args` have
        setDefaults' values (fees, nonce, gas)."""
        chain = self.chain
        to = args.to if args.to is not None else generate_contract_address(args.sender, args.nonce or 0)
        state = self.shared_state(block, not args.paying, traced=True)
        excluded = frozenset({args.sender, to, *chain.active_precompiles(state.execution_context.timestamp)})
        found = AccessListTracer(args.access_list or [], excluded)
        while True:
            listed = found.entries()
            args_with_list = replace(args, access_list=listed)
            found = AccessListTracer(listed, excluded)
            try:
                with tracing(found):
                    comp = self.run(args_with_list, None, state=state, settle=False)
            except MessageRefused as exc:
                tx_hash = args_transaction(chain, args_with_list, (0, 0, 0)).hash
                raise ChainError(f"failed to apply transaction: 0x{tx_hash.hex()} "
                                 f"err: {exc.text}") from None
            if found.entries() == listed:
                break
        out: dict[str, Any] = {
            "accessList": [{"address": "0x" + a.hex(),
                            "storageKeys": ["0x" + k.to_bytes(32, "big").hex() for k in keys]}
                           for a, keys in listed],
            "gasUsed": hex(call_gas(args) - comp.get_gas_remaining()),  # no refunds (rules.py)
        }
        if comp.is_error:
            out["error"] = vm_error_text(comp.error)
        return out

    def proof(self, address: Address, slots: list[int], block: BlockInfo | None) -> dict:
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


def call_gas(args: CallArgs) -> int:
    """The message's gas limit: the args' gas, at most the RPC gas cap (coreth caps, it does not refuse)."""
    return min(args.gas, RPC_GAS_CAP) if args.gas is not None else RPC_GAS_CAP


def execution_error(comp: Any) -> Exception:
    """A failed run as eth_call answers it: a revert with data is code 3 with the data (and its
    reason); anything else, an empty revert included, is the EVM's error text."""
    if isinstance(comp.error, Revert) and comp.output:
        return revert_error(comp.output)
    return ChainError(vm_error_text(comp.error))


def _tx_builder() -> type[CancunTransactionBuilder]:
    # py-evm types a VM's builder as TransactionBuilderAPI, without the typed-tx constructors
    # (EIP-2930, EIP-1559) that AvalancheVM's builder, Cancun's, has
    return cast(type[CancunTransactionBuilder], AvalancheVM.get_transaction_builder())


def args_transaction(chain: EVMChain, args: CallArgs, signature: tuple[int, int, int] | None = None) -> Any:
    """The tx the args describe, as coreth's toTransaction types it (fee cap: EIP-1559; an access
    list: EIP-2930; else legacy): unsigned, or with `signature` (v or y-parity, r, s)."""
    builder = _tx_builder()
    # keyword arguments of four builders, each its fields' types
    fields: dict[str, Any] = dict(nonce=args.nonce or 0, gas=call_gas(args) if args.gas is None else args.gas,
                                  to=args.to if args.to is not None else CREATE_CONTRACT_ADDRESS, value=args.value,
                                  data=args.data)
    if args.max_fee is not None:
        fields.update(chain_id=chain.evm_chain_id, max_priority_fee_per_gas=args.tip or 0,
                      max_fee_per_gas=args.max_fee, access_list=args.access_list or [])
        if signature is None:
            return builder.new_unsigned_dynamic_fee_transaction(**fields)
        return builder.new_dynamic_fee_transaction(**fields, y_parity=signature[0], r=signature[1], s=signature[2])
    if args.access_list is not None:
        fields.update(chain_id=chain.evm_chain_id, gas_price=args.gas_price or 0, access_list=args.access_list)
        if signature is None:
            return builder.new_unsigned_access_list_transaction(**fields)
        return builder.new_access_list_transaction(**fields, y_parity=signature[0], r=signature[1], s=signature[2])
    if signature is None:
        return builder.create_unsigned_transaction(gas_price=args.gas_price or 0, **fields)
    return builder.new_transaction(gas_price=args.gas_price or 0, v=signature[0], r=signature[1], s=signature[2],
                                   **fields)


_BLOB_FEE_CLASSES: dict[type, type] = {}


def with_blob_base_fee(state: Any, fee: int) -> None:
    """`state` reading `fee` as the blob base fee (eth_call's blobBaseFee override; py-evm derives
    it from the header's excess blob gas, which cannot express every fee)."""
    cls = type(state)
    sub = _BLOB_FEE_CLASSES.get(cls)
    if sub is None:
        sub = _BLOB_FEE_CLASSES[cls] = type(cls.__name__, (cls,), {
            "blob_base_fee": property(lambda self: self.blob_base_fee_override)})
    state.__class__ = sub
    state.blob_base_fee_override = fee


def apply_overrides(state: Any, overrides: Overrides) -> None:
    """geth's StateOverride.Apply: nonce, code, balance, then the storage replaced or patched.
    `stateDiff` writes as SetState does (on the C-Chain, coreth's key rule: rules.CorethAccountDB);
    `state` as SetStorage does, each key as written."""
    for address, account in overrides.items():
        if account.nonce is not None:
            state.set_nonce(address, account.nonce)
        if account.code is not None:
            state.set_code(address, account.code)
        if account.balance is not None:
            state.set_balance(address, account.balance)
        if account.state is not None and account.state_diff is not None:
            raise ChainError(f"account {checksummed(address)} has both 'state' and 'stateDiff'")
        if account.state is not None:
            state.delete_storage(address)
            write = state._account_db.set_storage_as_written
        else:
            write = state.set_storage
        for slot, value in (account.state or account.state_diff or {}).items():
            write(address, slot, value)
