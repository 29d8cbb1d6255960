"""IDs of AvalancheGo: ids.ID (32 B), ids.ShortID (20 B), ids.NodeID, private keys, UTXO IDs, VM/Fx IDs."""

import hashlib

from simnode.formats.cb58 import cb58_decode, cb58_encode
from simnode.formats.errors import FormatError

ID_LEN = 32
SHORT_ID_LEN = 20
PRIVATE_KEY_LEN = 32
NODE_ID_PREFIX = "NodeID-"
PRIVATE_KEY_PREFIX = "PrivateKey-"

ZERO_ID = bytes(ID_LEN)
ZERO_SHORT_ID = bytes(SHORT_ID_LEN)


def _check_len(payload: bytes, expected: int) -> bytes:
    # Same text as AvalancheGo's hashing.ToHash256/ToHash160.
    if len(payload) != expected:
        raise FormatError(f"invalid hash length: expected {expected} bytes but got {len(payload)}")
    return payload


def id_to_str(id_bytes: bytes) -> str:
    return cb58_encode(_check_len(bytes(id_bytes), ID_LEN))


def id_from_str(text: str) -> bytes:
    return _check_len(cb58_decode(text), ID_LEN)


def short_id_to_str(short_id: bytes) -> str:
    return cb58_encode(_check_len(bytes(short_id), SHORT_ID_LEN))


def short_id_from_str(text: str) -> bytes:
    return _check_len(cb58_decode(text), SHORT_ID_LEN)


def _strip_prefix(text: str, prefix: str) -> str:
    if not isinstance(text, str) or not text.startswith(prefix):
        raise FormatError(f"ID: {text} is missing the prefix: {prefix}")
    return text[len(prefix):]


def node_id_to_str(node_id: bytes) -> str:
    return NODE_ID_PREFIX + short_id_to_str(node_id)


def node_id_from_str(text: str) -> bytes:
    return short_id_from_str(_strip_prefix(text, NODE_ID_PREFIX))


def private_key_to_str(key: bytes) -> str:
    return PRIVATE_KEY_PREFIX + cb58_encode(_check_len(bytes(key), PRIVATE_KEY_LEN))


def private_key_from_str(text: str) -> bytes:
    if not isinstance(text, str) or not text.startswith(PRIVATE_KEY_PREFIX):
        raise FormatError(f"private key missing {PRIVATE_KEY_PREFIX} prefix")
    return _check_len(cb58_decode(text[len(PRIVATE_KEY_PREFIX):]), PRIVATE_KEY_LEN)


def utxo_id(tx_id: bytes, output_index: int) -> bytes:
    """AvalancheGo's UTXOID.InputID(): sha256(u64be(outputIndex) ‖ txID)."""
    _check_len(tx_id, ID_LEN)
    if not 0 <= output_index < 1 << 32:
        raise FormatError(f"output index {output_index} is not a uint32")
    return hashlib.sha256(output_index.to_bytes(8, "big") + tx_id).digest()


def vm_id_from_name(name: str) -> bytes:
    """A VM or Fx ID made from its ASCII name, zero-padded to 32 bytes (ids.ID from a string)."""
    raw = name.encode("ascii")
    if len(raw) > ID_LEN:
        raise FormatError(f"name {name!r} is longer than {ID_LEN} bytes")
    return raw.ljust(ID_LEN, b"\0")


AVM_VM_ID = vm_id_from_name("avm")
EVM_VM_ID = vm_id_from_name("evm")
PLATFORM_VM_ID = vm_id_from_name("platformvm")
SUBNET_EVM_VM_ID = vm_id_from_name("subnetevm")  # srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy
SECP256K1FX_ID = vm_id_from_name("secp256k1fx")
NFTFX_ID = vm_id_from_name("nftfx")
PROPERTYFX_ID = vm_id_from_name("propertyfx")
