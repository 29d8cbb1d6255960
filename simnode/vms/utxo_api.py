"""getUTXOs and service addresses, as AvalancheGo's vms/components/avax serves them to every chain.

avm.getUTXOs, platform.getUTXOs and the C-Chain's avax.getUTXOs share their arguments, paging and
reply (node-api.md §7–9). A chain gives only what differs: its alias and HRP, its chain lookup,
where UTXOs from a source chain live (its own set, or shared memory), whether `sourceChain` may be
left out, and its text for a UTXO that cannot be encoded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from simnode.rpc.jsonrpc import RPCError
from simnode.formats import FormatError
from simnode.formats.address import format_address, parse_address_arg_with_alias
from simnode.formats.hexenc import encode_bytes
from simnode.formats.ids import ZERO_ID, ZERO_SHORT_ID, id_from_str, id_to_str
from simnode.store import Batch, Store
from simnode.vms import atomic
from simnode.rpc.params import dict_arg, encoding_arg, go_quote, str_arg, str_list_arg, uint_arg

MAX_ADDRESSES = 1024
MAX_PAGE_SIZE = 1024

ChainLookup = Callable[[str], bytes | None]


@dataclass(frozen=True, slots=True)
class UTXOSet:
    """UTXOs to page over: the IDs an address owns (newest first; after an ID if given and still there, else
    from the newest: utxo_order.py), and bytes by ID."""

    ids_of: Callable[[bytes, bytes | None], Iterable[bytes]]
    get: Callable[[bytes], bytes | None]
    # shared memory's Indexed(): the end key is the last key of the last address looked at
    # (none, so the zero ID, when that address had none)
    end_key_per_address: bool = False


def shared_memory_utxos(reader: Store | Batch, chain_id: bytes, source_chain: bytes) -> UTXOSet:
    """The UTXOs `source_chain` exported to `chain_id`."""
    return UTXOSet(
        lambda address, after: atomic.utxo_ids_by_address(reader, chain_id, source_chain, address, after),
        lambda utxo_id: atomic.get_utxo(reader, chain_id, source_chain, utxo_id),
        end_key_per_address=True,
    )


@dataclass(frozen=True, slots=True)
class UTXOService:
    """What one chain's getUTXOs needs to know about the chain."""

    chain_id: bytes
    alias: str  # of formatted addresses: "X", "P", "C"
    hrp: str
    lookup_chain: ChainLookup
    utxos_from: Callable[[bytes], UTXOSet]  # source chain ID → its UTXOs this chain can read
    source_required: bool  # the C-Chain has no UTXOs of its own: `sourceChain` must be given
    encode_error: str  # str.format template with {utxo_id}, {encoding}, {error}
    evm_mismatch: bool = False  # coreth words an address of another chain its own way

    def parse_address(self, text: str) -> bytes:
        return parse_service_address(text, self.hrp, self.chain_id, self.lookup_chain, self.evm_mismatch)


def parse_service_address(text: str, hrp: str, chain_id: bytes, lookup_chain: ChainLookup,
                          evm_mismatch: bool = False) -> bytes:
    """avax.ParseServiceAddress: a bare cb58 ShortID or a `<alias>-<hrp>1…` address of this chain."""
    alias, payload = parse_address_arg_with_alias(text, expected_hrp=hrp)
    if alias is not None:
        found = lookup_chain(alias)
        if found is None:
            raise FormatError(f"there is no ID with alias: {alias}")
        if found != chain_id and evm_mismatch:
            raise FormatError(f"expected chainID to be {go_quote(id_to_str(chain_id))} but was "
                              f"{go_quote(id_to_str(found))}")
        if found != chain_id:
            raise FormatError(
                f"mismatched chainIDs: expected {go_quote(id_to_str(chain_id))} but got {go_quote(id_to_str(found))}"
            )
    return payload


def get_utxos(service: UTXOService, params: dict[str, Any]) -> dict[str, Any]:
    addresses = str_list_arg(params, "addresses")
    source = str_arg(params, "sourceChain")
    limit = uint_arg(params, "limit", 32)
    start = dict_arg(params, "startIndex")
    start_addr_text = str_arg(start, "address")
    start_utxo_text = str_arg(start, "utxo")
    encoding = encoding_arg(params)

    if not addresses:
        raise RPCError("no addresses provided")
    if len(addresses) > MAX_ADDRESSES:
        raise RPCError(f"number of addresses given, {len(addresses)}, exceeds maximum, {MAX_ADDRESSES}")
    if source == "":
        if service.source_required:
            raise RPCError("no source chain provided")
        source_chain = service.chain_id
    else:
        found = service.lookup_chain(source)
        if found is None:
            raise RPCError(f"problem parsing source chainID {go_quote(source)}: there is no ID with alias: {source}")
        source_chain = found
    addrs: set[bytes] = set()
    for text in addresses:
        try:
            addrs.add(service.parse_address(text))
        except FormatError as exc:
            raise RPCError(f"couldn't parse address {go_quote(text)}: {exc}") from None
    start_addr, start_utxo = ZERO_SHORT_ID, ZERO_ID
    if start_addr_text or start_utxo_text:
        try:
            start_addr = service.parse_address(start_addr_text)
        except FormatError as exc:
            raise RPCError(f"couldn't parse start index address {go_quote(start_addr_text)}: {exc}") from None
        try:
            start_utxo = id_from_str(start_utxo_text)
        except (FormatError, ValueError) as exc:
            raise RPCError(f"couldn't parse start index utxo: {exc}") from None
    if limit <= 0 or limit > MAX_PAGE_SIZE:
        limit = MAX_PAGE_SIZE

    utxos, end_addr, end_utxo = paginate(service.utxos_from(source_chain), addrs, start_addr, start_utxo, limit)
    encoded = []
    for utxo_id, raw in utxos:
        try:
            encoded.append(encode_bytes(raw, encoding))
        except FormatError as exc:
            raise RPCError(service.encode_error.format(utxo_id=id_to_str(utxo_id), encoding=encoding,
                                                       error=exc)) from None
    return {
        "numFetched": str(len(utxos)),
        "utxos": encoded,
        "endIndex": {"address": format_address(service.alias, service.hrp, end_addr), "utxo": id_to_str(end_utxo)},
        "encoding": encoding,
    }


def paginate(utxos: UTXOSet, addrs: set[bytes], start_addr: bytes, start_utxo: bytes,
             limit: int) -> tuple[list[tuple[bytes, bytes]], bytes, bytes]:
    """avax.GetPaginatedUTXOs / GetAtomicUTXOs: addresses in byte order, each one's UTXOs newest first,
    each UTXO once; ends with the last address and UTXO *examined* (the start index if none)."""
    page: list[tuple[bytes, bytes]] = []
    seen: set[bytes] = set()
    last_addr, last_utxo = start_addr, start_utxo
    first = True
    for addr in sorted(addrs):
        if addr < start_addr:
            continue
        after = start_utxo if addr == start_addr and start_utxo != ZERO_ID else None
        last_addr = addr
        if utxos.end_key_per_address and not first:
            last_utxo = ZERO_ID
        first = False
        for utxo_id in utxos.ids_of(addr, after):
            raw = utxos.get(utxo_id)
            if raw is None:  # spent (an index entry left behind): AvalancheGo's index no longer has it
                continue
            last_utxo = utxo_id
            if utxo_id in seen:
                continue
            page.append((utxo_id, raw))
            seen.add(utxo_id)
            if len(page) >= limit:
                return page, last_addr, last_utxo
    return page, last_addr, last_utxo
