"""Token standard detection and metadata, read by static calls at one block's state.

The indexer asks once per token contract (when it is created, or when its first transfer log
appears) and once per NFT token ID (when it first appears), always at the state right after the
block it is indexing. The same block gives the same state on every replay and on a reindex, so
the rows are the same too.

`call(to, data)` is the chain's static call at that state: the output, or None when it fails.
"""

from __future__ import annotations

from collections.abc import Callable

from ...crypto.hashing import keccak256
from .layout import ERC20, ERC721, ERC1155

Call = Callable[[bytes, bytes], "bytes | None"]


def selector(signature: str) -> bytes:
    return keccak256(signature.encode())[:4]


NAME = selector("name()")
SYMBOL = selector("symbol()")
DECIMALS = selector("decimals()")
TOTAL_SUPPLY = selector("totalSupply()")
SUPPORTS_INTERFACE = selector("supportsInterface(bytes4)")
TOKEN_URI = selector("tokenURI(uint256)")
URI = selector("uri(uint256)")
ERC721_INTERFACE = bytes.fromhex("80ac58cd")
ERC1155_INTERFACE = bytes.fromhex("d9b67a26")


def abi_uint(data: bytes | None) -> int | None:
    """A single uint256 return value, or None if `data` is not one."""
    if data is None or len(data) < 32:
        return None
    return int.from_bytes(data[:32], "big")


def abi_string(data: bytes | None) -> str | None:
    """A `string` return value; old tokens (MKR) return bytes32 instead, NUL-padded."""
    if data is None:
        return None
    if len(data) == 32:
        return data.rstrip(b"\x00").decode("utf-8", "replace")
    if len(data) < 64:
        return None
    offset = int.from_bytes(data[:32], "big")
    if offset + 32 > len(data):
        return None
    length = int.from_bytes(data[offset:offset + 32], "big")
    if offset + 32 + length > len(data):
        return None
    return data[offset + 32:offset + 32 + length].decode("utf-8", "replace")


def _supports(call: Call, token: bytes, interface: bytes) -> bool:
    return abi_uint(call(token, SUPPORTS_INTERFACE + interface.ljust(32, b"\x00"))) == 1


def probe_standard(call: Call, token: bytes) -> int | None:
    """ERC-165 for ERC-721 and ERC-1155; ERC-20 when decimals() and totalSupply() answer as one
    does; None for anything else."""
    if _supports(call, token, ERC721_INTERFACE):
        return ERC721
    if _supports(call, token, ERC1155_INTERFACE):
        return ERC1155
    decimals = abi_uint(call(token, DECIMALS))
    if decimals is not None and decimals < 256 and abi_uint(call(token, TOTAL_SUPPLY)) is not None:
        return ERC20
    return None


def metadata(call: Call, token: bytes, standard: int) -> tuple[str | None, str | None, int | None]:
    """(name, symbol, decimals): decimals for ERC-20 only; None where the call gives nothing."""
    name = abi_string(call(token, NAME))
    symbol = abi_string(call(token, SYMBOL))
    decimals = None
    if standard == ERC20:
        value = abi_uint(call(token, DECIMALS))
        decimals = value if value is not None and value < 256 else None
    return name, symbol, decimals


def token_uri(call: Call, token: bytes, standard: int, token_id: bytes) -> str | None:
    """ERC-721 tokenURI(id) or ERC-1155 uri(id)."""
    return abi_string(call(token, (TOKEN_URI if standard == ERC721 else URI) + token_id))
