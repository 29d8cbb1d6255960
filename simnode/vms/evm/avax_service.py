"""The C-Chain atomic API (`/ext/bc/C/avax`, gorilla): avax.getUTXOs, issueTx, getAtomicTxStatus,
getAtomicTx, as coreth's AvaxAPI answers them (node-api.md §9). The same service is also
registered as `native.*` and served at `/ext/bc/C/native` (the seed documents' name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.jsonrpc import GorillaService, RPCError
from ...codec import CodecError
from ...formats import FormatError
from ...formats.address import format_address, parse_address_arg_with_alias
from ...formats.hexenc import decode_bytes, encode_bytes
from ...formats.ids import ZERO_ID, ZERO_SHORT_ID, id_from_str, id_to_str
from .. import atomic as shared
from ..avm.service import _encoding, _id, _quote, _str, _str_list, _uint
from .atomic_txs import AtomicTxError

if TYPE_CHECKING:
    from .chain import EVMChain

MAX_GET_UTXOS_ADDRS = 1024
MAX_UTXOS_TO_FETCH = 1024


class AvaxService:
    def __init__(self, chain: EVMChain) -> None:
        self.chain = chain
        self.pool = chain.atomic
        genesis = chain.ctx.genesis
        self.genesis = genesis
        self.hrp: str = genesis.hrp

    # ------------------------------------------------------------------ helpers

    def lookup_chain(self, ref: str) -> bytes | None:
        """BCLookup.Lookup: an alias ("X", "P", "avm", …) or a cb58 chain ID."""
        g = self.genesis
        builtin = {"P": ZERO_ID, "platform": ZERO_ID, "X": g.x_chain_id, "avm": g.x_chain_id,
                   "C": g.c_chain_id, "evm": g.c_chain_id}
        if ref in builtin:
            return builtin[ref]
        for chain in getattr(self.chain.ctx, "chains", {}).values():
            if ref in getattr(chain, "default_aliases", ()) or ref == id_to_str(chain.chain_id):
                return chain.chain_id
        for cid in (ZERO_ID, g.x_chain_id, g.c_chain_id):
            if ref == id_to_str(cid):
                return cid
        return None

    def parse_address(self, text: str) -> bytes:
        """avax.ParseServiceAddress: a bare cb58 ShortID or a C-<hrp>1… address."""
        alias, payload = parse_address_arg_with_alias(text, expected_hrp=self.hrp)
        if alias is not None:
            chain_id = self.lookup_chain(alias)
            if chain_id is None:
                raise FormatError(f"there is no ID with alias: {alias}")
            if chain_id != self.chain.chain_id:
                raise FormatError(f"mismatched chainIDs: expected {_quote(id_to_str(self.chain.chain_id))} "
                                  f"but got {_quote(id_to_str(chain_id))}")
        return payload

    # ------------------------------------------------------------------ methods

    def get_utxos(self, params: dict[str, Any]) -> dict[str, Any]:
        addresses = _str_list(params, "addresses")
        source = _str(params, "sourceChain")
        limit = _uint(params, "limit", 32)
        start = params.get("startIndex")
        if start is not None and not isinstance(start, dict):
            raise RPCError("couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
                           "See documentation for example calls")
        start = start or {}
        start_addr_text = _str(start, "address")
        start_utxo_text = _str(start, "utxo")
        encoding = _encoding(params)
        if not addresses:
            raise RPCError("no addresses provided")
        if len(addresses) > MAX_GET_UTXOS_ADDRS:
            raise RPCError(f"number of addresses given, {len(addresses)}, exceeds maximum, {MAX_GET_UTXOS_ADDRS}")
        if source == "":
            raise RPCError("no source chain provided")
        source_chain = self.lookup_chain(source)
        if source_chain is None:
            raise RPCError(f"problem parsing source chainID {_quote(source)}: there is no ID with alias: {source}")
        addr_set: set[bytes] = set()
        for text in addresses:
            try:
                addr_set.add(self.parse_address(text))
            except FormatError as exc:
                raise RPCError(f"couldn't parse address {_quote(text)}: {exc}") from None
        start_addr, start_utxo = ZERO_SHORT_ID, ZERO_ID
        if start_addr_text or start_utxo_text:
            try:
                start_addr = self.parse_address(start_addr_text)
            except FormatError as exc:
                raise RPCError(f"couldn't parse start index address {_quote(start_addr_text)}: {exc}") from None
            try:
                start_utxo = id_from_str(start_utxo_text)
            except (FormatError, ValueError) as exc:
                raise RPCError(f"couldn't parse start index utxo: {exc}") from None
        if limit <= 0 or limit > MAX_UTXOS_TO_FETCH:
            limit = MAX_UTXOS_TO_FETCH
        utxos, end_addr, end_utxo = self.paginate(source_chain, addr_set, start_addr, start_utxo, limit)
        encoded = []
        for _, raw in utxos:
            try:
                encoded.append(encode_bytes(raw, encoding))
            except FormatError as exc:
                raise RPCError(f"problem encoding utxo: {exc}") from None
        return {
            "numFetched": str(len(utxos)),
            "utxos": encoded,
            "endIndex": {"address": format_address("C", self.hrp, end_addr), "utxo": id_to_str(end_utxo)},
            "encoding": encoding,
        }

    def paginate(self, source: bytes, addrs: set[bytes], last_addr: bytes, last_utxo: bytes,
                 limit: int) -> tuple[list[tuple[bytes, bytes]], bytes, bytes]:
        """avax.GetAtomicUTXOs: addresses in byte order, UTXO IDs ascending within each."""
        store, me = self.chain.store, self.chain.chain_id
        out: list[tuple[bytes, bytes]] = []
        seen: set[bytes] = set()
        for addr in sorted(addrs):
            if addr < last_addr:
                continue
            after = last_utxo if addr == last_addr and last_utxo != ZERO_ID else None
            last_addr = addr
            for uid in shared.utxo_ids_by_address(store, me, source, addr, after):
                last_utxo = uid
                if uid in seen:
                    continue
                raw = shared.get_utxo(store, me, source, uid)
                if raw is None:
                    continue
                out.append((uid, raw))
                seen.add(uid)
                if len(out) >= limit:
                    return out, last_addr, last_utxo
        return out, last_addr, last_utxo

    def issue_tx(self, params: dict[str, Any]) -> dict[str, Any]:
        text = _str(params, "tx")
        encoding = _encoding(params)
        try:
            raw = decode_bytes(text, encoding)
        except FormatError as exc:
            raise RPCError(f"problem decoding transaction: {exc}") from None
        try:
            tx_id = self.pool.issue(raw)
        except CodecError as exc:
            raise RPCError(f"problem parsing transaction: {exc}") from None
        except AtomicTxError as exc:
            raise RPCError(str(exc)) from None
        return {"txID": id_to_str(tx_id)}

    def get_atomic_tx_status(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_id = _id(params, "txID")
        if tx_id == ZERO_ID:
            raise RPCError("nil transaction ID")
        status, height = self.pool.status(tx_id)
        out: dict[str, Any] = {"status": status}
        if height is not None:
            out["blockHeight"] = str(height)
        return out

    def get_atomic_tx(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_id = _id(params, "txID")
        encoding = _encoding(params)
        if tx_id == ZERO_ID:
            raise RPCError("nil transaction ID")
        found = self.pool.get(tx_id)
        if found is None:
            raise RPCError(f"could not find tx {id_to_str(tx_id)}")
        raw, _status, height = found
        try:
            text = encode_bytes(raw, encoding)
        except FormatError as exc:
            raise RPCError(str(exc)) from None
        out: dict[str, Any] = {"tx": text, "encoding": encoding}
        if height is not None:
            out["blockHeight"] = str(height)
        return out


def build_avax_service(chain: EVMChain) -> GorillaService:
    s = AvaxService(chain)
    methods = {
        "getUTXOs": s.get_utxos,
        "issueTx": s.issue_tx,
        "getAtomicTxStatus": s.get_atomic_tx_status,
        "getAtomicTx": s.get_atomic_tx,
    }
    return GorillaService({"avax": methods, "native": methods})
