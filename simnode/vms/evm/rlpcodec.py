"""RLP for nested lists of byte strings: trie nodes, accounts, signing payloads.

pyrlp handles any sedes and checks every type on the way, which makes it the largest cost of a
trie update; everything here is plain bytes and lists, so `type(x) is bytes` is all it checks.
"""

from __future__ import annotations

def _long_header(length: int, offset: int) -> bytes:
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes((offset + 55 + len(size),)) + size


# RLP headers by payload length, precomputed for the lengths trie nodes and accounts have
_HEADERS = 1024
_STRING_HEADER = [bytes((0x80 + n,)) if n < 56 else _long_header(n, 0x80) for n in range(_HEADERS)]
_LIST_HEADER = [bytes((0xC0 + n,)) if n < 56 else _long_header(n, 0xC0) for n in range(_HEADERS)]


def encode(item: bytes | list) -> bytes:
    """RLP of a byte string or a nested list of byte strings (all a trie node or account holds)."""
    if type(item) is bytes:
        n = len(item)
        if n == 1 and item[0] < 0x80:
            return item
        return (_STRING_HEADER[n] if n < _HEADERS else _long_header(n, 0x80)) + item
    if type(item) is not list:
        raise TypeError(f"cannot RLP-encode {type(item).__name__}: only bytes and lists")
    parts = []
    for x in item:
        if type(x) is bytes:
            n = len(x)
            if n == 1 and x[0] < 0x80:
                parts.append(x)
            else:
                parts.append((_STRING_HEADER[n] if n < _HEADERS else _long_header(n, 0x80)) + x)
        else:
            parts.append(encode(x))
    payload = b"".join(parts)
    n = len(payload)
    return (_LIST_HEADER[n] if n < _HEADERS else _long_header(n, 0xC0)) + payload


def _decode_at(data: bytes, pos: int) -> tuple[bytes | list, int]:
    # payload_bounds' arithmetic inlined: this runs for every trie node and account read, and the
    # call would cost a fifth of an account's decode (measured)
    b = data[pos]
    if b < 0x80:
        return data[pos : pos + 1], pos + 1
    if b < 0xB8:
        end = pos + 1 + b - 0x80
        return data[pos + 1 : end], end
    if b < 0xC0:
        start = pos + 1 + b - 0xB7
        end = start + int.from_bytes(data[pos + 1 : start], "big")
        return data[start:end], end
    if b < 0xF8:
        start = pos + 1
        end = start + b - 0xC0
    else:
        start = pos + 1 + b - 0xF7
        end = start + int.from_bytes(data[pos + 1 : start], "big")
    out: list = []
    p = start
    while p < end:
        b = data[p]
        if 0x80 <= b < 0xB8:  # the common case inline: a hash or a short value
            q = p + 1 + b - 0x80
            out.append(data[p + 1 : q])
            p = q
        else:
            item, p = _decode_at(data, p)
            out.append(item)
    if p != end:
        raise ValueError("RLP list length does not match its items")
    return out, end


def decode(data: bytes) -> bytes | list:
    """Inverse of `encode`, for data this node wrote itself (trie nodes, accounts): lengths are
    not checked for canonical form."""
    item, end = _decode_at(data, 0)
    if end != len(data):
        raise ValueError("trailing bytes after RLP item")
    return item


def list_header(payload_len: int) -> bytes:
    """The header of an RLP list whose payload is `payload_len` bytes long."""
    return _LIST_HEADER[payload_len] if payload_len < _HEADERS else _long_header(payload_len, 0xC0)


def item_length(payload_len: int) -> int:
    """Length of an RLP item (string or list) whose payload is `payload_len` bytes long."""
    return payload_len + 1 + (0 if payload_len < 56 else (payload_len.bit_length() + 7) // 8)


def payload_bounds(data: bytes, pos: int) -> tuple[int, int]:
    """(start, end) of the payload of the RLP item (string or list) at `pos`, nothing decoded."""
    b = data[pos]
    if b < 0x80:
        return pos, pos + 1
    if b < 0xB8:
        return pos + 1, pos + 1 + b - 0x80
    if b < 0xC0:
        n = b - 0xB7
        length = int.from_bytes(data[pos + 1:pos + 1 + n], "big")
        return pos + 1 + n, pos + 1 + n + length
    if b < 0xF8:
        return pos + 1, pos + 1 + b - 0xC0
    n = b - 0xF7
    length = int.from_bytes(data[pos + 1:pos + 1 + n], "big")
    return pos + 1 + n, pos + 1 + n + length
