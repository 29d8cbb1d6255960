"""The Warp precompile, 0x0200…0005 (`warpConfig`; subnet-evm's and coreth's precompile/contracts/warp).

Functions (Granite gas):
* getBlockchainID() -> bytes32: the chain's blockchain ID (200 gas);
* sendWarpMessage(bytes payload) -> bytes32: the unsigned message (networkID, this chain,
  AddressedCall(msg.sender, payload)) as the SendWarpMessage(sender, messageID, message) log,
  its ID (sha256 of its bytes) returned; 41,500 + 8 per input byte; write-protected;
* getVerifiedWarpMessage(uint32 i) / getVerifiedWarpBlockHash(uint32 i): the tx's i-th Warp
  predicate (its access-list tuples at this address, predicates.py), 750 + 512 per chunk; a
  missing predicate or one the block builder found invalid answers (zero, false).

A predicate costs PredicateGas instead of the access-list tuple's 2,400 + 1,900 per key:
125,000 + 512 per chunk + 250 per signer; one that does not even parse makes the tx invalid
(`prepare_tx` raises ValidationError, as the intrinsic-gas check would). Whether a predicate's
signature holds (`verify_predicate`) is decided by the block builder, against the source
subnet's validator set at the current P-Chain height (the receiving chain's own set for a
P-Chain message, or for a Primary Network message unless requirePrimaryNetworkSigners), with
quorum quorumNumerator/100 (67 by default); its failures are the tx's bitset in the header extra.

Per state (a block's execution, an eth_call) the chain sets `warp_identity` (network and
blockchain ID) and `warp_failed` (tx hash -> failed-predicate bits); per tx `prepare_tx` sets
the tx's predicates and failed bits, which the functions read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ....codec import CodecError
from ....warp import signatures
from ....warp.errors import WarpError
from ....warp.message import SignedMessage, UnsignedMessage, parse_signed_message, parse_unsigned_message
from ....warp.payload import AddressedCall, Hash, parse_payload
from ....warp.validators import WarpSet
from .. import predicates
from .contract import (LOG_DATA_GAS, LOG_GAS, LOG_TOPIC_GAS, WRITE_GAS_PER_SLOT, BlockContext, ChainParams,
                       ConfigError, JSONError, Module, PrecompileError, address_word, event_topic, json_uint64,
                       selector)

ADDRESS = bytes.fromhex("0200000000000000000000000000000000000005")
KEY = "warpConfig"
PRIMARY_NETWORK_ID = b"\x00" * 32
PLATFORM_CHAIN_ID = b"\x00" * 32

DEFAULT_QUORUM_NUMERATOR = 67
QUORUM_NUMERATOR_MINIMUM = 33
QUORUM_DENOMINATOR = 100

GET_BLOCKCHAIN_ID_GAS = 200
GET_VERIFIED_BASE_GAS = 750
PER_CHUNK_GAS = 512
PER_SIGNER_GAS = 250
VERIFY_PREDICATE_BASE_GAS = 125_000
SEND_BASE_GAS = LOG_GAS + 3 * LOG_TOPIC_GAS + 20_000 + WRITE_GAS_PER_SLOT
PER_BYTE_GAS = LOG_DATA_GAS
ACCESS_LIST_ADDRESS_GAS = 2_400
ACCESS_LIST_KEY_GAS = 1_900
MAX_INT32 = (1 << 31) - 1

SEND_WARP_MESSAGE = event_topic("SendWarpMessage(address,bytes32,bytes)")


@dataclass(frozen=True, slots=True)
class Settings:
    quorum_numerator: int   # 0: the default, 67
    require_primary_network_signers: bool

    @property
    def quorum(self) -> int:
        return self.quorum_numerator or DEFAULT_QUORUM_NUMERATOR


@dataclass(frozen=True, slots=True)
class Identity:
    """What the precompile tells about its chain (the snow context's NetworkID and ChainID)."""

    network_id: int
    blockchain_id: bytes
    subnet_id: bytes


class ValidatorView(Protocol):
    """The P-Chain's answers predicate verification needs (its validator state)."""

    def subnet_of_chain(self, chain_id: bytes) -> bytes | None: ...

    def warp_set(self, subnet_id: bytes, height: int) -> WarpSet: ...

    def height(self) -> int: ...


# ----------------------------------------------------------------------------- per tx


class _PredicateTx:
    """A tx whose intrinsic gas counts its Warp predicates at PredicateGas (everything else is the tx's)."""

    __slots__ = ("_tx", "intrinsic_gas")

    def __init__(self, tx: Any, intrinsic_gas: int) -> None:
        self._tx = tx
        self.intrinsic_gas = intrinsic_gas

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)

    def get_intrinsic_gas(self) -> int:
        return self.intrinsic_gas

    def gas_used_by(self, computation: Any) -> int:
        return self.intrinsic_gas + computation.get_gas_used()


def predicate_gas(chunks: tuple[bytes, ...]) -> int:
    """PredicateGas; PrecompileError (with subnet-evm's text) for a predicate that does not parse."""
    message = _predicate_message(chunks)
    try:
        parse_payload(message.unsigned.payload)
    except CodecError as e:
        raise PrecompileError(f"cannot unpack warp message payload: {e}") from None
    try:
        signers = message.signature.num_signers()
    except WarpError as e:
        raise PrecompileError(f"cannot fetch num signers from warp message: {e}") from None
    return VERIFY_PREDICATE_BASE_GAS + PER_CHUNK_GAS * len(chunks) + PER_SIGNER_GAS * signers


def _predicate_message(chunks: tuple[bytes, ...]) -> SignedMessage:
    try:
        data = predicates.decode(chunks)
    except predicates.PredicateError as e:
        raise PrecompileError(f"cannot unpack predicate bytes: {e}") from None
    try:
        return parse_signed_message(data)
    except CodecError as e:
        raise PrecompileError(f"cannot unpack warp message: {e}") from None


def tx_predicates(tx: Any) -> list[tuple[bytes, ...]]:
    return predicates.from_access_list(getattr(tx, "access_list", ()), ADDRESS)


def intrinsic_gas(tx: Any, found: list[tuple[bytes, ...]]) -> int:
    """The tx's intrinsic gas with its Warp predicates (`found`) at PredicateGas
    (AccessListGasWithPredicates); PrecompileError for a predicate that does not parse."""
    plain = sum(ACCESS_LIST_ADDRESS_GAS + ACCESS_LIST_KEY_GAS * len(p) for p in found)
    return tx.intrinsic_gas - plain + sum(predicate_gas(p) for p in found)


def prepare_tx(state: Any, tx: Any) -> Any:
    """Before `tx` runs: its predicates and failed bits for the functions, and its intrinsic gas
    with PredicateGas (ValidationError when a predicate does not parse or the gas falls short)."""
    found = tx_predicates(tx)
    state.warp_predicates = found
    if not found:
        state.warp_tx_failed = 0
        return tx
    from eth.vm.spoof import SpoofTransaction  # loaded already: the tx runs on py-evm
    from eth_utils import ValidationError

    tx_hash = getattr(tx, "hash", None)
    state.warp_tx_failed = getattr(state, "warp_failed", {}).get(tx_hash, 0)
    try:
        intrinsic = intrinsic_gas(tx, found)
    except PrecompileError as e:
        raise ValidationError(f"invalid predicate: {e}") from None
    if tx.gas < intrinsic:
        raise ValidationError(f"intrinsic gas too low: have {tx.gas}, want {intrinsic}")
    if isinstance(tx, SpoofTransaction):  # eth_call & co.: still a spoofed tx (no account checks)
        return SpoofTransaction(tx, intrinsic_gas=intrinsic, get_intrinsic_gas=lambda: intrinsic)
    return _PredicateTx(tx, intrinsic)


def verifying_subnet(settings: Settings | None, source: bytes, source_subnet: bytes, own_subnet: bytes) -> bytes:
    """The subnet whose validators a chain of `own_subnet` (Warp `settings`, None: not active)
    verifies a message from chain `source` of `source_subnet` with: a Primary Network message is
    verified by the receiving chain's own validators, unless it sets requirePrimaryNetworkSigners
    (a P-Chain message always is), as subnet-evm's predicate check does."""
    if source_subnet == PRIMARY_NETWORK_ID and (
            settings is None or not settings.require_primary_network_signers or source == PLATFORM_CHAIN_ID):
        return own_subnet
    return source_subnet


def verify_predicate(settings: Settings, chunks: tuple[bytes, ...], identity: Identity,
                     validators: ValidatorView) -> str | None:
    """VerifyPredicate: None when the signed message holds, else why not (subnet-evm's text)."""
    try:
        message = _predicate_message(chunks)
    except PrecompileError as e:
        return str(e)
    source = message.unsigned.source_chain_id
    source_subnet = validators.subnet_of_chain(source)
    if source_subnet is None:
        return f"cannot retrieve validator set: unknown chain {source.hex()}"
    subnet = verifying_subnet(settings, source, source_subnet, identity.subnet_id)
    try:
        warp_set = validators.warp_set(subnet, validators.height())
        signatures.verify(message, identity.network_id, warp_set, settings.quorum, QUORUM_DENOMINATOR)
    except (WarpError, KeyError, ValueError) as e:
        return f"cannot verify warp signature: {e}"
    return None


def accepted_messages(logs: list) -> list[UnsignedMessage]:
    """The unsigned messages of a block's SendWarpMessage logs ([address, topics, data] rows),
    what subnet-evm's Accept hook stores."""
    out = []
    for address, topics, data in logs:
        if address == ADDRESS and topics and int.from_bytes(topics[0], "big") == SEND_WARP_MESSAGE:
            length = int.from_bytes(data[32:64], "big")
            out.append(parse_unsigned_message(data[64:64 + length]))
    return out


# ----------------------------------------------------------------------------- functions


def _abi_bytes_arg(args: bytes) -> bytes:
    """One ABI `bytes` argument, as go-ethereum's abi unpacks it."""
    if len(args) < 32:
        raise PrecompileError("invalid sendWarpMessage input: abi: cannot marshal in to go type: length "
                              f"insufficient {len(args)} require 32")
    offset = int.from_bytes(args[:32], "big")
    if offset + 32 > len(args):
        raise PrecompileError(f"invalid sendWarpMessage input: abi: cannot marshal in to go slice: offset "
                              f"{offset + 32} would go over slice boundary (len={len(args)})")
    length = int.from_bytes(args[offset:offset + 32], "big")
    if offset + 32 + length > len(args):
        raise PrecompileError(f"invalid sendWarpMessage input: abi: cannot marshal in to go type: length "
                              f"insufficient {len(args)} require {offset + 32 + length}")
    return args[offset + 32:offset + 32 + length]


def _abi_bytes_value(data: bytes) -> bytes:
    return (32).to_bytes(32, "big") + len(data).to_bytes(32, "big") + data + b"\x00" * (-len(data) % 32)


def _identity(env: Any) -> Identity:
    identity = getattr(env.state, "warp_identity", None)
    if identity is None:
        raise PrecompileError("warp precompile: no chain identity")
    return identity


def _get_blockchain_id(env: Any, _args: bytes) -> bytes:
    env.deduct(GET_BLOCKCHAIN_ID_GAS)
    return _identity(env).blockchain_id


def _send(env: Any, args: bytes) -> bytes:
    env.deduct(SEND_BASE_GAS)
    env.deduct(PER_BYTE_GAS * len(args))
    env.require_writable()
    payload = _abi_bytes_arg(args)
    identity = _identity(env)
    unsigned = UnsignedMessage(identity.network_id, identity.blockchain_id,
                               AddressedCall(env.caller, payload).encode())
    env.log([SEND_WARP_MESSAGE, address_word(env.caller), int.from_bytes(unsigned.id, "big")],
            _abi_bytes_value(unsigned.encoded))
    return unsigned.id


_MESSAGE_FAILED = b"".join(v.to_bytes(32, "big") for v in (0x40, 0, 0, 0, 0x60, 0))
_BLOCK_HASH_FAILED = b"\x00" * 96


def _verified(env: Any, args: bytes, failed: bytes) -> SignedMessage | bytes:
    env.deduct(GET_VERIFIED_BASE_GAS)
    if len(args) < 32:
        raise PrecompileError(f"invalid index to specify warp message: abi: cannot marshal in to go type: length "
                              f"insufficient {len(args)} require 32")
    word = int.from_bytes(args[:32], "big")
    if word >> 32:
        raise PrecompileError("invalid index to specify warp message: abi: improperly encoded uint32 value")
    if word > MAX_INT32:
        raise PrecompileError("invalid index to specify warp message: larger than MaxInt32")
    found = getattr(env.state, "warp_predicates", [])
    if word >= len(found) or (getattr(env.state, "warp_tx_failed", 0) >> word) & 1:
        return failed
    chunks = found[word]
    env.deduct(PER_CHUNK_GAS * len(chunks))
    return _predicate_message(chunks)


def _get_verified_message(env: Any, args: bytes) -> bytes:
    message = _verified(env, args, _MESSAGE_FAILED)
    if isinstance(message, bytes):
        return message
    try:
        call = parse_payload(message.unsigned.payload)
    except CodecError as e:
        raise PrecompileError(f"cannot unpack addressed payload: {e}") from None
    if not isinstance(call, AddressedCall):
        raise PrecompileError("cannot unpack addressed payload: wrong payload type")
    origin = call.source_address[-20:].rjust(20, b"\x00")
    return (b"".join(v.to_bytes(32, "big") for v in (0x40, 1)) + message.unsigned.source_chain_id
            + origin.rjust(32, b"\x00") + (0x60).to_bytes(32, "big") + len(call.payload).to_bytes(32, "big")
            + call.payload + b"\x00" * (-len(call.payload) % 32))


def _get_verified_block_hash(env: Any, args: bytes) -> bytes:
    message = _verified(env, args, _BLOCK_HASH_FAILED)
    if isinstance(message, bytes):
        return message
    try:
        payload = parse_payload(message.unsigned.payload)
    except CodecError as e:
        raise PrecompileError(f"cannot unpack block hash payload: {e}") from None
    if not isinstance(payload, Hash):
        raise PrecompileError("cannot unpack block hash payload: wrong payload type")
    return message.unsigned.source_chain_id + payload.hash + (1).to_bytes(32, "big")


FUNCTIONS = {
    selector("getBlockchainID()"): _get_blockchain_id,
    selector("sendWarpMessage(bytes)"): _send,
    selector("getVerifiedWarpMessage(uint32)"): _get_verified_message,
    selector("getVerifiedWarpBlockHash(uint32)"): _get_verified_block_hash,
}


# ----------------------------------------------------------------------------- config


def _parse(data: dict) -> Settings:
    numerator = json_uint64(data.get("quorumNumerator", 0), "Config.quorumNumerator")
    require = data.get("requirePrimaryNetworkSigners", False)
    if not isinstance(require, bool):
        raise JSONError("json: cannot unmarshal requirePrimaryNetworkSigners into Go struct field "
                        "Config.requirePrimaryNetworkSigners of type bool")
    if numerator > QUORUM_DENOMINATOR:
        raise ConfigError(f"invalid warp quorum ratio: cannot specify numerator ({numerator}) > denominator "
                          f"({QUORUM_DENOMINATOR})")
    if numerator and numerator < QUORUM_NUMERATOR_MINIMUM:
        raise ConfigError(f"invalid warp quorum ratio: cannot specify numerator ({numerator}) < min numerator "
                          f"({QUORUM_NUMERATOR_MINIMUM})")
    return Settings(numerator, require)


def _configure(_s: Settings, _state: Any, _block: BlockContext, _chain: ChainParams) -> None:
    """Nothing beyond the account's nonce and code (the schedule sets them)."""


def _to_json(s: Settings) -> dict:
    return {"quorumNumerator": s.quorum_numerator, "requirePrimaryNetworkSigners": s.require_primary_network_signers}


DEFAULT_SETTINGS = Settings(0, False)

MODULE = Module(key=KEY, address=ADDRESS, functions=FUNCTIONS, parse=_parse, configure=_configure, to_json=_to_json,
                prepare_tx=prepare_tx)
