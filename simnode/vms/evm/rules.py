"""The Avalanche C-Chain VM on py-evm: Cancun execution with Avalanche header rules.

Differences from Ethereum that matter here:
* difficulty is 1 after genesis (coreth), not 0; the nonce and mix hash stay zero;
* a child may share its parent's timestamp (seconds): blocks are timed in milliseconds;
* gas limit and base fee come from ACP-176 (fees.py), not from EIP-1559's parent-gas rules;
* the block builder sets every header field itself, so py-evm's header/block re-validation is
  skipped (it would recompute the tx trie a second time per block);
* plain value transfers are settled without py-evm's executor (transfer.py), same outcome;
* every other tx's call frames are recorded while the block executes (tracing/block_frames.py);
* no gas is refunded and the whole fee goes to the coinbase (`AvalancheComputation`,
  `AvalancheState`, one rule for both chain kinds): coreth's state transition since Apricot
  Phase 1 leaves the refund counter (SSTORE clears) unused (`refundGas(IsApricotPhase1)`) and
  credits gasUsed × effective gas price, base fee included, to the coinbase, BlackholeAddr on
  the C-Chain; subnet-evm's does the same (`ShouldRefundGas` is false once SubnetEVM is active).
  simnode runs these current rules at every height.

Block hashes are coreth's (headers.py), not keccak of py-evm's header encoding: BLOCKHASH reads
them from the canonical number -> hash entries the chain writes (block_rows.py). C-Chain accounts are
coreth's five-field StateAccount (`CorethVM`); subnet-EVM's are Ethereum's four (`AvalancheVM`).

L1 (subnet-EVM) chains run SubnetEVMVM (AvalancheVM's four-field accounts and fee rules): the
whole fee goes to the block's coinbase, the blackhole, or the reward address / fee recipient the
reward manager or `allowFeeRecipients` chooses. Stateful precompiles (precompiles/) extend these
classes per block.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from operator import attrgetter
from typing import Any, cast

from eth._utils.address import generate_contract_address
from eth.abc import BlockAPI, BlockHeaderAPI, ComputationAPI, MessageAPI, SignedTransactionAPI
from eth.constants import BLANK_ROOT_HASH, CREATE_CONTRACT_ADDRESS, EMPTY_SHA3
from eth.db.account import AccountDB
from eth.rlp.accounts import Account
from eth.validation import validate_length_lte
from eth.vm.forks.cancun import CancunVM
from eth.vm.forks.cancun.constants import BLOB_TX_TYPE
from eth.vm.forks.cancun.state import CancunTransactionExecutor
from eth.vm.message import Message
from eth.vm.forks.cancun.transactions import BlobTransaction
from eth_typing import Address, Hash32
from eth_utils import ExtendedDebugLogger, ValidationError, get_extended_debug_logger

from . import rlpcodec, speedups
from .genesis_state import STATE_KEY_BIT
from .tracing.block_frames import RecordingComputation
from .headers import BLACKHOLE, ZERO_HASH  # noqa: F401 - the C-Chain's coinbase and zero hash, here for the VM's users
from .transfer import PLAIN_COMPUTATIONS, TransferFastPathState

EMPTY_RLP_HASH = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")


def _uint(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")  # RLP's big-endian int: 0 is b""


class FastAccount(Account):
    """py-evm's Account (the same RLP, equality, hash and copies), made and read without pyrlp's
    per-field generic code: ~0.2 us to make against ~1.3, a field read through a C getter. An
    execution makes and reads them dozens of times."""

    nonce = property(attrgetter("_nonce"))
    balance = property(attrgetter("_balance"))
    storage_root = property(attrgetter("_storage_root"))
    code_hash = property(attrgetter("_code_hash"))

    def __init__(self, nonce: int = 0, balance: int = 0, storage_root: bytes = BLANK_ROOT_HASH,
                 code_hash: bytes = EMPTY_SHA3) -> None:
        self._nonce = nonce
        self._balance = balance
        self._storage_root = storage_root
        self._code_hash = code_hash


def account_rlp(a: Account, tail: tuple[bytes, ...] = ()) -> bytes:
    """rlp.encode(a, sedes=Account), about five times cheaper; `tail`: fields after Ethereum's four."""
    return rlpcodec.encode([_uint(a.nonce), _uint(a.balance), a.storage_root, a.code_hash, *tail])


def account_from_rlp(data: bytes) -> Account:
    """Ethereum's four fields (coreth's fifth, isMultiCoin, is always false here)."""
    nonce, balance, storage_root, code_hash = rlpcodec.decode(data)[:4]
    return FastAccount(int.from_bytes(nonce, "big"), int.from_bytes(balance, "big"), storage_root, code_hash)


class FastAccountDB(AccountDB):
    """py-evm's AccountDB, but account updates build a new Account instead of `.copy()`
    (rlp Serializable.copy deep-copies: ~19 µs against ~3 µs, five times per transfer)."""

    # A block's account and storage trie changes are committed in one batch per trie.
    make_state_root = speedups.batched_make_state_root
    account_tail: tuple[bytes, ...] = ()  # account fields after Ethereum's four

    def __init__(self, db: Any, state_root: Hash32 = BLANK_ROOT_HASH) -> None:
        super().__init__(db, state_root)
        self._codes: dict[bytes, bytes] = {}  # code by its hash, as read

    def get_code(self, address: Address) -> bytes:
        """py-evm's, each code read through its journal and caches once per view: every call to a
        contract reads its code (a shared call state serves hundreds). Keyed by hash, an entry
        cannot go stale: an account's code hash changes, never the code behind a hash."""
        code_hash = self.get_code_hash(address)
        if code_hash == EMPTY_SHA3:
            return b""
        code = self._codes.get(code_hash)
        if code is None:
            code = self._codes[code_hash] = super().get_code(address)
        elif code_hash in self._get_accessed_node_hashes():  # py-evm's bookkeeping of a read
            self._accessed_bytecodes.add(address)
        return code

    def _get_account(self, address: Address, from_journal: bool = True) -> Account:
        # py-evm's, with the account RLP decoded by rlpcodec instead of pyrlp's sedes
        if from_journal:
            cached = self._account_cache.get(address)
            if cached is not None:
                return cached
        encoded = self._get_encoded_account(address, from_journal)
        account = account_from_rlp(encoded) if encoded else FastAccount()
        if from_journal:
            self._account_cache[address] = account
        return account

    def _set_account(self, address: Address, account: Account) -> None:
        self._account_cache[address] = account
        self._journaltrie[address] = account_rlp(account, self.account_tail)

    def _set_storage_root(self, address: Address, new_storage_root: Hash32) -> None:
        a = self._get_account(address)
        self._set_account(address, FastAccount(a.nonce, a.balance, new_storage_root, a.code_hash))

    def set_balance(self, address: Address, balance: int) -> None:
        if balance < 0 or balance >= 1 << 256:
            super().set_balance(address, balance)  # raises py-evm's ValidationError
            return
        a = self._get_account(address)
        self._set_account(address, FastAccount(a.nonce, balance, a.storage_root, a.code_hash))

    def set_nonce(self, address: Address, nonce: int) -> None:
        if nonce < 0 or nonce >= 1 << 64:
            super().set_nonce(address, nonce)
            return
        a = self._get_account(address)
        self._set_account(address, FastAccount(nonce, a.balance, a.storage_root, a.code_hash))

    def increment_nonce(self, address: Address) -> None:
        a = self._get_account(address)
        self._set_account(address, FastAccount(a.nonce + 1, a.balance, a.storage_root, a.code_hash))

    @staticmethod
    def storage_key(slot: int) -> int:
        """The key `slot` is stored under in the storage trie (subnet-evm: as written)."""
        return slot

    def set_storage_as_written(self, address: Address, slot: int, value: int) -> None:
        """A write keyed as written even where reads and SSTOREs transform keys (geth's
        StateDB.SetStorage, which eth_call's `state` override uses)."""
        AccountDB.set_storage(self, address, slot, value)


class CorethAccountDB(FastAccountDB):
    """coreth's StateAccount RLP ends with isMultiCoin (libevm extras), so every C-Chain account,
    and so the state root, has it: false (0x80), as only AVAX crosses to the C-Chain here.

    coreth keys storage as its StateDB's GetState, GetCommittedState and SetState do (libevm's
    TransformStateKey hook, extstate.normalizeStateKey): the lowest bit of the slot's first byte
    cleared, as odd first bytes are its multicoin balances' keys. So every SLOAD, SSTORE (its gas
    reads current and original values too), eth_getStorageAt, eth_getProof's value and the
    genesis alloc read or write the even twin; the access list (warm/cold) and eth_getProof's
    proof keep the key as written, as geth's code there does not go through the hook.
    subnet-evm registers no such hook: L1 chains keep FastAccountDB's keys as written."""

    account_tail = (b"",)
    # A data dir written before simnode keyed slots as coreth keeps its slots keyed as written
    # (its tries hold only hashed keys, so they cannot be re-keyed): EVMChain marks its db.
    keys_as_written = False

    def __init__(self, db: Any, state_root: Hash32 = BLANK_ROOT_HASH) -> None:
        super().__init__(db, state_root)
        if getattr(db, "storage_keys_as_written", False):
            self.keys_as_written = True

    def get_storage(self, address: Address, slot: int, from_journal: bool = True) -> int:
        if slot >> 248 & 1 and not self.keys_as_written:  # no new int unless the bit is set
            slot ^= STATE_KEY_BIT
        return AccountDB.get_storage(self, address, slot, from_journal)

    def set_storage(self, address: Address, slot: int, value: int) -> None:
        if slot >> 248 & 1 and not self.keys_as_written:
            slot ^= STATE_KEY_BIT
        AccountDB.set_storage(self, address, slot, value)

    def storage_key(self, slot: int) -> int:  # type: ignore[override]  # FastAccountDB's needs no instance
        return slot ^ STATE_KEY_BIT if slot >> 248 & 1 and not self.keys_as_written else slot


P256_VERIFY = bytes.fromhex("00" * 18 + "0100")  # EIP-7951's P256VERIFY, from Granite
P256_VERIFY_GAS = 6900  # libevm's params.P256VerifyGas (EIP-7951's price)


def p256_verify(computation: Any) -> Any:
    """P256VERIFY (libevm's vm.P256Verify): 160 bytes of digest, r, s, x, y give 32 bytes of 1
    for a valid signature; anything else, no output. Its gas is paid either way."""
    computation.consume_gas(P256_VERIFY_GAS, reason="P256VERIFY precompile")
    data = computation.msg.data_as_bytes
    if len(data) == 160:
        from ...crypto import p256  # cryptography's OpenSSL bindings, loaded by the first call

        r, s, x, y = (int.from_bytes(data[i:i + 32], "big") for i in range(32, 160, 32))
        if p256.verify(data[:32], r, s, x, y):
            computation.output = (1).to_bytes(32, "big")
    return computation


class AvalancheComputation(RecordingComputation):
    """No gas refunds: the refund counter never reaches the sender, the receipt's gasUsed or
    the fee (coreth after Apricot Phase 1, subnet-evm). Blocks record their call frames as they
    execute (tracing/block_frames.py); nothing else pays for it. Granite's P256VERIFY is among its
    precompiles (fork_vms.vm_before_granite leaves it out)."""

    _precompiles = {**RecordingComputation._precompiles, P256_VERIFY: p256_verify}

    def get_gas_refund(self) -> int:
        return 0


PLAIN_COMPUTATIONS.add(AvalancheComputation)


# py-evm's Message declares `create_address: Address = None` (None: the message creates nothing);
# typed as declared once here, not cast per tx
_NOT_A_CREATE = cast("Address", None)


class AvalancheTransactionExecutor(CancunTransactionExecutor):
    def build_evm_message(self, transaction: SignedTransactionAPI) -> MessageAPI:
        """Cancun's, without formatting its debug line while that is off: the line holds the
        tx's repr, a hash of its data and the hex of the code it calls (kilobytes for a token),
        built for every tx, eth_call and estimate."""
        state = self.vm_state
        if state.logger.show_debug2:
            return super().build_evm_message(transaction)
        fee = transaction.gas * state.get_gas_price(transaction)
        if transaction.type_id == BLOB_TX_TYPE:  # py-evm's type_id does not narrow the tx: it casts too
            fee += self.calc_data_fee(cast("BlobTransaction", transaction))
        if fee:  # a call's is 0: no account write (the nonce's below writes it anyway)
            state.delta_balance(transaction.sender, -fee)
        state.increment_nonce(transaction.sender)
        if transaction.to == CREATE_CONTRACT_ADDRESS:
            contract_address = generate_contract_address(transaction.sender, state.get_nonce(transaction.sender) - 1)
            data, code, delegation = b"", transaction.data, None
        else:
            contract_address, data = _NOT_A_CREATE, transaction.data
            code, delegation = self.get_code_at_address(transaction.to)
        return Message(gas=transaction.gas - transaction.intrinsic_gas, to=transaction.to, sender=transaction.sender,
                       value=transaction.value, data=data, code=code, create_address=contract_address,
                       refund=self.calc_message_refund(transaction), is_delegation=delegation is not None)


@functools.cache
def _state_logger(state_class: type) -> ExtendedDebugLogger:
    return get_extended_debug_logger(f"eth.vm.state.{state_class.__name__}")


class AvalancheState(TransferFastPathState):
    account_db_class = FastAccountDB
    computation_class = AvalancheComputation
    transaction_executor_class = AvalancheTransactionExecutor

    @property
    def logger(self) -> ExtendedDebugLogger:
        # py-evm's, without building the logger's name again at each use (three times per tx)
        return _state_logger(type(self))

    def get_tip(self, transaction: Any) -> int:
        # the coinbase is credited gas used × the effective gas price, base fee included
        return self.get_gas_price(transaction)

    def prepare_transaction(self, transaction: Any) -> Any:
        """The tx as it runs, once the active precompiles have read it (precompiles/vmclasses.py:
        Warp's predicates and their intrinsic gas); here, as it is."""
        return transaction

    def apply_call(self, transaction: Any) -> ComputationAPI:
        """A call's execution (eth_call, eth_estimateGas, eth_createAccessList; execution.py):
        py-evm's executor, the same message and computation as `apply_transaction`'s, without
        its validation (core's checks of a call, execution.py's `_message`, come first and cover
        it) and without the settlement after execution (the unused gas back, the fee to the
        coinbase, EIP-161's deletions): a call's answer never reads it and its state is reverted.
        `transaction` is anything with the fields the executor reads (execution.CallTx)."""
        transaction = self.prepare_transaction(transaction)
        executor = self.get_transaction_executor()
        message = executor.build_evm_message(transaction)
        computation = executor.build_computation(message, transaction)
        self.clear_transient_storage()  # as Cancun's executor does after a tx
        return computation


class AvalancheVM(CancunVM):
    fork = "avalanche-cancun"
    _state_class = AvalancheState

    @classmethod
    def validate_header(cls, header: BlockHeaderAPI, parent_header: BlockHeaderAPI) -> None:
        if parent_header is None:
            raise ValidationError("Must have access to parent header to validate current header")
        validate_length_lte(header.extra_data, cls.extra_data_max_bytes, title="BlockHeader.extra_data")
        if header.block_number != parent_header.block_number + 1:
            raise ValidationError("Blocks must be numbered consecutively")
        if header.timestamp < parent_header.timestamp:
            raise ValidationError("timestamp older than parent")
        if header.gas_used > header.gas_limit:
            raise ValidationError("gas used exceeds the gas limit")

    @classmethod
    def validate_gas(cls, header: BlockHeaderAPI, parent_header: BlockHeaderAPI) -> None:
        return None

    def validate_block(self, block: BlockAPI) -> None:
        # Blocks are only ever built here; the builder fills every field.
        return None

    @property
    def previous_hashes(self) -> Iterator[Hash32]:
        """The 256 ancestors' hashes for BLOCKHASH, parent first: the chain's canonical entries."""
        number = self.get_header().block_number
        canonical = self.chaindb.get_canonical_block_hash
        return (canonical(n) for n in range(number - 1, max(number - 257, -1), -1))


CorethVM = AvalancheVM.configure(
    __name__="CorethVM",
    _state_class=AvalancheState.configure(__name__="CorethState", account_db_class=CorethAccountDB))


class SubnetEVMVM(AvalancheVM):
    """An L1's VM: AvalancheVM's accounts and fee rules (the coinbase the L1's block chooses)."""

    fork = "subnet-evm-cancun"
