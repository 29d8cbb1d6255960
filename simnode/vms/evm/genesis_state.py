"""An EVM chain's genesis state, written without py-evm: the alloc and the precompile
activations of block 0 in plain dicts, then committed to the chain's database with the same
tries (trie_commit.py) and account RLP (rlpcodec.py) py-evm's AccountDB writes, node for node.

So a chain writes its genesis, counts as bootstrapped and answers reads of its head before
py-evm is imported (~0.25 s of a node's start); py-evm loads on the chain's first execution.
The result is AccountDB.persist()'s: each account of the alloc or touched by an activation
(empty ones too: py-evm keeps an account it was asked to set), its code under its keccak (the
empty code too), its storage trie (zero values not stored), coreth's storage key rule and
five-field accounts on the C-Chain, Ethereum's four fields and keys as written on an L1.
tests/unit/test_genesis_state.py compares both writes byte for byte.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field

from ...crypto.hashing import keccak256
from .rlpcodec import encode
from .trie_commit import BLANK_ROOT, commit_updates

EMPTY_CODE_HASH = keccak256(b"")
STATE_KEY_BIT = 1 << 248  # the lowest bit of a storage key's first byte (coreth's multicoin marker)
_U256 = 1 << 256
_U64 = 1 << 64


def _uint(n: int) -> bytes:
    return n.to_bytes((n.bit_length() + 7) // 8, "big")  # RLP's big-endian int: 0 is b""


@dataclass(slots=True)
class _Account:
    nonce: int = 0
    balance: int = 0
    code_hash: bytes = EMPTY_CODE_HASH
    storage: dict[int, int] = field(default_factory=dict)


class GenesisState:
    """The state interface block 0's writers use (parse_alloc's accounts, Schedule.activate and
    the precompiles' configure), over an empty state."""

    def __init__(self, coreth: bool) -> None:
        # coreth: C-Chain accounts (isMultiCoin false as a fifth field) and storage keys;
        # otherwise subnet-EVM's (Ethereum's accounts, keys as written)
        self.coreth = coreth
        self.accounts: dict[bytes, _Account] = {}
        self.codes: dict[bytes, bytes] = {}  # by hash: every code set stays stored, as py-evm's does

    def _account(self, address: bytes) -> _Account:
        account = self.accounts.get(address)
        if account is None:
            account = self.accounts[address] = _Account()
        return account

    def _slot(self, slot: int) -> int:
        return slot ^ STATE_KEY_BIT if self.coreth and slot >> 248 & 1 else slot

    def get_balance(self, address: bytes) -> int:
        account = self.accounts.get(address)
        return 0 if account is None else account.balance

    def set_balance(self, address: bytes, balance: int) -> None:
        if not 0 <= balance < _U256:
            _refuse_uint(balance, 256, "Account Balance")
        self._account(address).balance = balance

    def set_nonce(self, address: bytes, nonce: int) -> None:
        if not 0 <= nonce < _U64:
            _refuse_uint(nonce, 64, "Nonce")
        self._account(address).nonce = nonce

    def set_code(self, address: bytes, code: bytes) -> None:
        code_hash = keccak256(code)
        self.codes[code_hash] = code
        self._account(address).code_hash = code_hash

    def get_storage(self, address: bytes, slot: int) -> int:
        account = self.accounts.get(address)
        return 0 if account is None else account.storage.get(self._slot(slot), 0)

    def set_storage(self, address: bytes, slot: int, value: int) -> None:
        if not 0 <= value < _U256:
            _refuse_uint(value, 256, "Storage Value")
        if not 0 <= slot < _U256:
            _refuse_uint(slot, 256, "Storage Slot")
        self._account(address).storage[self._slot(slot)] = value

    def delete_account(self, address: bytes) -> None:
        self.accounts.pop(address, None)

    def commit(self, db: MutableMapping[bytes, bytes]) -> bytes:
        """Write the state's code, storage tries and account trie to `db`; returns the state root."""
        tail = (b"",) if self.coreth else ()
        for code_hash, code in self.codes.items():
            db[code_hash] = code
        updates: dict[bytes, bytes] = {}
        for address, account in self.accounts.items():
            slots = {keccak256(slot.to_bytes(32, "big")): encode(_uint(value))
                     for slot, value in account.storage.items() if value}
            storage_root = commit_updates(db, BLANK_ROOT, slots) if slots else BLANK_ROOT
            updates[keccak256(address)] = encode([_uint(account.nonce), _uint(account.balance), storage_root,
                                                  account.code_hash, *tail])
        return commit_updates(db, BLANK_ROOT, updates) if updates else BLANK_ROOT


def _refuse_uint(value: int, bits: int, title: str) -> None:
    """py-evm's ValidationError for a value out of range, in its words (its validator raises it)."""
    from eth.validation import validate_uint64, validate_uint256

    (validate_uint64 if bits == 64 else validate_uint256)(value, title=title)
