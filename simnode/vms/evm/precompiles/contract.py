"""What a stateful precompile is (subnet-evm's precompile/contract); how py-evm runs one is
vmclasses.py's (this module imports nothing of py-evm: chains write their genesis with it first).

A precompile is a `Module`: its config key and address, its functions by 4-byte selector, how
its config JSON is read and verified, and what activating it does to the state (`configure`).
Optional hooks let a module refuse a transaction's sender (`check_tx`, as the tx allow list) or
a contract creation's origin (`check_create`, as the deployer allow list), or read what a tx
carries for it before the tx runs (`prepare_tx`, as Warp's predicates).

A function is `fn(env, args) -> output bytes` with `env` an `Env`: the caller, the precompile's
own address, the py-evm state (its storage lives at its own address), gas (`env.deduct`, out of
gas as geth's DeductGas), logs (`env.log`) and `env.read_only` (a STATICCALL context). As in
libevm, every error a function raises consumes all the gas of the call and returns no data:
`PrecompileError` (the message is what eth_call reports; the runner raises it as a py-evm
VMError), py-evm's WriteProtection for a write in a static call, OutOfGas. Value sent with a
call stays at the precompile's address.

The rules are those of a chain where Durango and Granite are active, whatever the chain's own
times (an L1 may schedule them later; its EVM follows them, fork_vms.py, its precompiles do not):
inputs are decoded without the pre-Durango length checks, events are emitted, setManager exists,
and a DELEGATECALL or CALLCODE into a stateful precompile reverts with no gas left.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ....crypto.hashing import keccak256
from ....formats import FormatError
from ....formats.jsonnum import hex_or_decimal, json_kind
from simnode.errors import InvalidInput

WRITE_GAS_PER_SLOT = 20_000
READ_GAS_PER_SLOT = 5_000
LOG_GAS = 375
LOG_TOPIC_GAS = 375
LOG_DATA_GAS = 8
MAX_U64 = (1 << 64) - 1
MAX_U256 = (1 << 256) - 1


class PrecompileError(Exception):
    """A precompile's error (geth: any error but ErrExecutionReverted): all gas is used (the
    runner, vmclasses.make_runner, raises it to py-evm as vmclasses.PrecompileVMError)."""


class ConfigError(InvalidInput):
    """A precompile config that subnet-evm's Verify refuses."""


class JSONError(ConfigError):
    """A precompile config that Go's JSON decoder refuses."""


@dataclass(frozen=True, slots=True)
class BlockContext:
    """The block an activation happens in (subnet-evm's ConfigurationBlockContext)."""

    number: int
    timestamp: int


@dataclass(frozen=True, slots=True)
class ChainParams:
    """What a precompile's configure may read from its chain's config."""

    fee_config: Any  # subnet_fees.SubnetFeeConfig: the genesis feeConfig
    allow_fee_recipients: bool


Function = Callable[["Env", bytes], bytes]


@dataclass(frozen=True, slots=True, eq=False)  # compared and hashed by identity: one per precompile
class Module:
    key: str                                  # config key, e.g. "txAllowListConfig"
    address: bytes
    functions: Mapping[bytes, Function]       # 4-byte selector -> function
    parse: Callable[[dict], Any]              # config JSON -> verified settings (upgrades.py reads
                                              # blockTimestamp and disable)
    configure: Callable[[Any, Any, BlockContext, ChainParams], None]  # (settings, state, block, chain)
    to_json: Callable[[Any], dict]            # settings -> JSON fields, in subnet-evm's order
    check_tx: Callable[[Any, bytes], str | None] | None = None      # (state, sender) -> refusal
    check_create: Callable[[Any, bytes], str | None] | None = None  # (state, tx.origin) -> refusal
    prepare_tx: Callable[[Any, Any], Any] | None = None  # (state, tx) -> the tx to run (predicates)


class Env:
    """One call of a precompile function (subnet-evm's AccessibleState plus the call's args)."""

    __slots__ = ("address", "caller", "computation", "read_only", "state")

    def __init__(self, computation: Any, address: bytes) -> None:
        self.computation = computation
        self.state = computation.state
        self.caller: bytes = computation.msg.sender
        self.address = address
        self.read_only: bool = computation.msg.is_static

    def deduct(self, gas: int) -> None:
        self.computation.consume_gas(gas, reason="stateful precompile")

    def require_writable(self) -> None:
        if self.read_only:
            from eth.exceptions import WriteProtection

            raise WriteProtection("write protection")

    def log(self, topics: list[int], data: bytes = b"") -> None:
        self.computation.add_log_entry(self.address, tuple(topics), data)

    def get(self, slot: int) -> int:
        return self.state.get_storage(self.address, slot)

    def set(self, slot: int, value: int) -> None:
        self.state.set_storage(self.address, slot, value)


# ----------------------------------------------------------------------------- ABI helpers


def selector(signature: str) -> bytes:
    return keccak256(signature.encode())[:4]


def event_topic(signature: str) -> int:
    return int.from_bytes(keccak256(signature.encode()), "big")


def abi_words(args: bytes, count: int, error_prefix: str = "") -> list[int]:
    """`count` static 32-byte arguments, decoded as go-ethereum's abi does (no padding checks;
    its errors for a short input, after `error_prefix` where the precompile wraps them)."""
    if not args and count:
        raise PrecompileError(f"{error_prefix}abi: attempting to unmarshal an empty string while arguments "
                              "are expected")
    if len(args) < 32 * count:
        need = (len(args) // 32 + 1) * 32
        raise PrecompileError(f"{error_prefix}abi: cannot marshal in to go type: length insufficient {len(args)} "
                              f"require {need}")
    return [int.from_bytes(args[i * 32:i * 32 + 32], "big") for i in range(count)]


def word_address(word: int) -> bytes:
    """common.BytesToAddress of a 32-byte word: its last 20 bytes."""
    return (word & ((1 << 160) - 1)).to_bytes(20, "big")


def address_word(address: bytes) -> int:
    return int.from_bytes(address, "big")


def encode_words(*values: int) -> bytes:
    return b"".join(v.to_bytes(32, "big") for v in values)


def checksum(address: bytes) -> str:
    """An address as Go's %s prints common.Address: EIP-55 checksummed."""
    from eth_utils import to_checksum_address

    return to_checksum_address(address)


# ----------------------------------------------------------------------------- config JSON


def json_address(value: Any, field: str) -> bytes:
    """A common.Address from JSON: "0x" and 40 hex digits (hexutil's rules and wording)."""
    where = f"into Go struct field {field} of type common.Address"
    if not isinstance(value, str):
        raise JSONError(f"json: cannot unmarshal {json_kind(value)} {where}")
    if value[:2].lower() != "0x":
        raise JSONError(f"json: cannot unmarshal hex string without 0x prefix {where}")
    digits = value[2:]
    if len(digits) != 40:
        raise JSONError(f"hex string has length {len(digits)}, want 40 for common.Address")
    try:
        return bytes.fromhex(digits)
    except ValueError:
        raise JSONError(f"json: cannot unmarshal invalid hex string {where}") from None


def json_addresses(value: Any, field: str) -> tuple[bytes, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise JSONError(f"json: cannot unmarshal {json_kind(value)} into Go struct field {field} "
                          "of type []common.Address")
    return tuple(json_address(v, field) for v in value)


def json_uint64(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_U64:
        raise JSONError(f"json: cannot unmarshal {json_kind(value)} into Go struct field {field} of type uint64")
    return value


def json_big(value: Any, field: str) -> int:
    """A HexOrDecimal256: a JSON number, or a string of decimal or 0x-hex digits."""
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        try:
            number = hex_or_decimal(value, signed=True)
        except FormatError:
            raise JSONError(f"invalid hex or decimal integer {value!r} for {field}") from None
    else:
        raise JSONError(f"json: cannot unmarshal {json_kind(value)} into Go struct field {field}")
    if not -MAX_U256 <= number <= MAX_U256:
        raise JSONError(f"number {value!r} for {field} exceeds 256 bits")
    return number




def hex_address(address: bytes) -> str:
    """An address as common.Address marshals to JSON: lower-case hex."""
    return "0x" + address.hex()
