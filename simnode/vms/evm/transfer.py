"""A fast path for plain value transfers: the state changes of py-evm's full transaction path
without building a message, a computation, snapshots and the executor around them.

It applies only when the outcome is fully determined: a call (not a create) with no data to an
account without code that is not a precompile, no blobs, gas at least the intrinsic gas, and
credits that cannot overflow. Then the sender pays `intrinsic gas × effective price + value`
and its nonce goes up, the recipient gets the value, the coinbase gets `intrinsic gas × tip`
(`state.get_tip`: the Avalanche states credit the whole effective price), and EIP-161 removes
the recipient or coinbase if the transfer leaves it touched and empty. Everything else (and
every state whose computation class is not in PLAIN_COMPUTATIONS, e.g. debug tracing's) goes
through py-evm's executor unchanged. A stateful precompile is never bypassed: its address is a
precompile of the state's computation class, and the tx allow list is part of
`state.validate_transaction`.

Validation is py-evm's own: the same `transaction.validate()` and `state.validate_transaction`
calls, so invalid transactions raise the same ValidationError before any state is touched.
"""

from __future__ import annotations

from eth.abc import ComputationAPI, SignedTransactionAPI
from eth.constants import CREATE_CONTRACT_ADDRESS, EMPTY_SHA3, UINT_256_MAX
from eth.vm.forks.cancun.computation import CancunComputation
from eth.vm.forks.cancun.constants import BLOB_TX_TYPE
from eth.vm.forks.cancun.state import CancunState

from .tracing.block_frames import RecordingComputation

# Tests switch this off to compare against py-evm's full path.
FAST_TRANSFERS = True

# Computation classes that run no code of their own for a message to an account without code
# (they may add precompiles, which `is_plain_transfer` checks): plain Cancun's, the block
# recorder's (it records nothing for a call that runs no code), the classes rules.py adds and
# the stateful-precompile classes (precompiles/vmclasses.py). Debug tracing's is not one.
PLAIN_COMPUTATIONS: set[type] = {CancunComputation, RecordingComputation}


class TransferComputation:
    """What callers read from the computation of a finished plain transfer (py-evm's
    `make_receipt` and `Chain.get_transaction_result`, block_builder.py's builder, execution.py's
    eth_call/estimateGas): success, no output, no logs, no refund, the message gas untouched."""

    __slots__ = ("_gas_remaining",)

    is_error = False
    output = b""
    data_floor_gas = 0

    def __init__(self, gas_remaining: int) -> None:
        self._gas_remaining = gas_remaining

    def get_gas_remaining(self) -> int:
        return self._gas_remaining

    def get_gas_refund(self) -> int:
        return 0

    def get_log_entries(self) -> tuple:
        return ()

    def raise_if_error(self) -> None:
        return None


class TransferFastPathState(CancunState):
    """CancunState whose `apply_transaction` settles plain value transfers directly."""

    def apply_transaction(self, transaction: SignedTransactionAPI) -> ComputationAPI:
        if FAST_TRANSFERS and is_plain_transfer(self, transaction):
            return apply_plain_transfer(self, transaction)
        return super().apply_transaction(transaction)


def is_plain_transfer(state: CancunState, tx: SignedTransactionAPI) -> bool:
    """True when full execution could only move value and fees (checks have no side effects)."""
    to = tx.to
    if to == CREATE_CONTRACT_ADDRESS or tx.data or tx.type_id == BLOB_TX_TYPE:
        return False
    # another computation class may run code of its own for any message (tracing)
    # (`_precompiles` is what messages run: stateful precompiles too, which are not kept warm)
    if state.computation_class not in PLAIN_COMPUTATIONS or to in state.computation_class._precompiles:
        return False
    intrinsic_gas = tx.intrinsic_gas
    # with less gas the full path fails after buying gas (a negative message gas)
    if tx.gas < intrinsic_gas:
        return False
    if state.get_code_hash(to) != EMPTY_SHA3:
        return False
    # an overflowing credit raises mid-transfer in the full path, leaving its partial changes
    return (state.get_balance(to) + tx.value <= UINT_256_MAX
            and state.get_balance(state.coinbase) + intrinsic_gas * state.get_tip(tx) <= UINT_256_MAX)


def apply_plain_transfer(state: CancunState, tx: SignedTransactionAPI) -> TransferComputation:
    """The full path's validation and state changes for a transfer `is_plain_transfer` accepted."""
    tx.validate()
    state.validate_transaction(tx)
    sender, to, value = tx.sender, tx.to, tx.value
    intrinsic_gas = tx.intrinsic_gas
    gas_remaining = tx.gas - intrinsic_gas
    # all gas is bought at the effective price; the unused part comes back at the transaction
    # context's price (the two differ only under py-evm's costless execution)
    bought = tx.gas * state.get_gas_price(tx)
    refunded = gas_remaining * state.get_transaction_context(tx).gas_price
    state.set_balance(sender, state.get_balance(sender) - bought - value + refunded)
    state.increment_nonce(sender)
    # the EIP-2929 warm set as the full path leaves it (reset by the next tx's lock_changes)
    state.mark_address_warm(sender)
    state.mark_address_warm(to)
    for address, slots in tx.access_list:
        state.mark_address_warm(address)
        for slot in slots:
            state.mark_storage_warm(address, slot)
    if value:
        state.delta_balance(to, value)
    fee = intrinsic_gas * state.get_tip(tx)
    if fee:
        state.delta_balance(state.coinbase, fee)
    # EIP-161: both are touched even by a zero credit, and removed if that leaves them empty
    # (an absent account stays absent: the full path creates it by touching, then deletes it)
    for address in (to, state.coinbase):
        if state.account_exists(address) and state.account_is_empty(address):
            state.delete_account(address)
    return TransferComputation(gas_remaining)
