"""The avm.* JSON-RPC methods (`/ext/bc/X`) and wallet.issueTx (`/ext/bc/X/wallet`).

Parses params, calls the VM, formats results exactly as AvalancheGo's vms/avm/service.go:
json.Uint64 values as quoted decimals, plain uint64/uint32 (JSON-encoded tx fields,
outputIndex) as numbers, IDs in cb58, addresses as `X-<hrp>1…`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simnode.api.jsonrpc import UNMARSHAL_ERROR, GorillaService, RPCError
from simnode.codec import (
    UTXO,
    MintOperation,
    MintOutput,
    OutputOwners,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from simnode.codec.nftfx import NftMintOperation, NftMintOutput, NftTransferOperation, NftTransferOutput
from simnode.codec.propertyfx import (
    PropertyBurnOperation,
    PropertyMintOperation,
    PropertyMintOutput,
    PropertyOwnedOutput,
)
from simnode.formats import FormatError
from simnode.formats.address import format_address, parse_address_arg_with_alias
from simnode.formats.hexenc import JSON, decode_bytes, encode_bytes, normalize_encoding
from simnode.formats.ids import ZERO_ID, ZERO_SHORT_ID, id_from_str, id_to_str
from simnode.formats.jsonnum import parse_uint
from simnode.vms import atomic, txjson

from .blocks import StandardBlock, parse_block
from .state import decode_utxo_cached
from .txs import (
    FX_IDS,
    FX_INDEX_OF_TYPE,
    CreateAssetTx,
    ExportTx,
    ImportTx,
    OperationTx,
    Tx,
    TxError,
    parse_tx,
)

if TYPE_CHECKING:
    from .vm import XChainVM

MAX_GET_UTXOS_ADDRS = 1024
MAX_PAGE_SIZE = 1024


# ------------------------------------------------------------------------------------ params


def _bad_arg() -> RPCError:
    return RPCError(UNMARSHAL_ERROR)


def _str(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _bad_arg()
    return value


def _bool(params: dict[str, Any], key: str) -> bool:
    value = params.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _bad_arg()
    return value


def _id(params: dict[str, Any], key: str) -> bytes:
    """An ids.ID field: cb58 string; null/absent = zero; anything else unparsable → unmarshal error."""
    value = params.get(key)
    if value is None:
        return ZERO_ID
    if not isinstance(value, str):
        raise _bad_arg()
    try:
        return id_from_str(value)
    except (FormatError, ValueError):
        raise _bad_arg() from None


def _uint(params: dict[str, Any], key: str, bits: int = 64) -> int:
    try:
        return parse_uint(params.get(key), bits)
    except (FormatError, ValueError):
        raise _bad_arg() from None


def _encoding(params: dict[str, Any]) -> str:
    value = params.get("encoding")
    try:
        return normalize_encoding(value)
    except FormatError:
        raise _bad_arg() from None


def _str_list(params: dict[str, Any], key: str) -> list[str]:
    value = params.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad_arg()
    return value


def _quote(text: str) -> str:
    """Go's %q for plain strings."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ------------------------------------------------------------------------------------ JSON forms


def _addr_fn(vm: XChainVM) -> txjson.AddrFn:
    return lambda a: format_address("X", vm.hrp, a)


def _owners_json(vm: XChainVM, owners: OutputOwners) -> dict[str, Any]:
    # Go marshals a map: keys in alphabetical order.
    return txjson.owners_json(owners, _addr_fn(vm))


def state_json(vm: XChainVM, out: Any) -> dict[str, Any]:
    if isinstance(out, TransferOutput):
        return txjson.transfer_output_json(out, _addr_fn(vm))
    if isinstance(out, (MintOutput, PropertyMintOutput, PropertyOwnedOutput)):
        return _owners_json(vm, out.owners)
    if isinstance(out, NftMintOutput):
        d = _owners_json(vm, out.owners)
        return {"addresses": d["addresses"], "groupID": out.group_id, "locktime": d["locktime"],
                "threshold": d["threshold"]}
    if isinstance(out, NftTransferOutput):
        d = _owners_json(vm, out.owners)
        return {"addresses": d["addresses"], "groupID": out.group_id, "locktime": d["locktime"],
                "payload": txjson.hex_bytes(out.payload), "threshold": d["threshold"]}
    return {}


def _input_json(in_: Any) -> dict[str, Any]:
    if isinstance(in_, TransferInput):
        return txjson.transfer_input_json(in_)
    return {}


def _fx_id(obj: Any) -> str:
    return id_to_str(FX_IDS[FX_INDEX_OF_TYPE.get(type(obj), 0)])


def _out_json(vm: XChainVM, out: TransferableOutput) -> dict[str, Any]:
    return txjson.transferable_output_json(out, _fx_id(out.out), state_json(vm, out.out))


def _in_json(in_: TransferableInput) -> dict[str, Any]:
    return txjson.transferable_input_json(in_, _fx_id(in_.in_), _input_json(in_.in_))


def _op_json(vm: XChainVM, op: Any) -> dict[str, Any]:
    sig_input = txjson.sig_input_json

    if isinstance(op, MintOperation):
        return {"mintInput": sig_input(op.mint_input), "mintOutput": state_json(vm, op.mint_output),
                "transferOutput": state_json(vm, op.transfer_output)}
    if isinstance(op, NftMintOperation):
        return {"mintInput": sig_input(op.mint_input), "groupID": op.group_id,
                "payload": txjson.hex_bytes(op.payload), "outputs": [_owners_json(vm, o) for o in op.outputs]}
    if isinstance(op, NftTransferOperation):
        return {"input": sig_input(op.input), "output": state_json(vm, op.output)}
    if isinstance(op, PropertyMintOperation):
        return {"mintInput": sig_input(op.mint_input), "mintOutput": state_json(vm, op.mint_output),
                "ownedOutput": state_json(vm, op.owned_output)}
    if isinstance(op, PropertyBurnOperation):
        return {"input": sig_input(op.input)}
    return {}


def tx_json(vm: XChainVM, tx: Tx) -> dict[str, Any]:
    u = tx.unsigned
    b = u.base
    unsigned = txjson.base_tx_json(b, lambda o: _out_json(vm, o), _in_json)
    if isinstance(u, CreateAssetTx):
        unsigned["name"] = u.name
        unsigned["symbol"] = u.symbol
        unsigned["denomination"] = u.denomination
        unsigned["initialStates"] = [
            {"fxIndex": s.fx_index, "fxID": id_to_str(FX_IDS[s.fx_index]) if s.fx_index < len(FX_IDS) else id_to_str(ZERO_ID),
             "outputs": [state_json(vm, o) for o in s.outs]}
            for s in u.states
        ]
    elif isinstance(u, OperationTx):
        unsigned["operations"] = [
            {"assetID": id_to_str(op.asset_id),
             "inputIDs": [{"txID": id_to_str(t), "outputIndex": i} for t, i in op.utxo_ids],
             "fxID": _fx_id(op.op), "operation": _op_json(vm, op.op)}
            for op in u.ops
        ]
    elif isinstance(u, ImportTx):
        unsigned["sourceChain"] = id_to_str(u.source_chain)
        unsigned["importedInputs"] = [_in_json(i) for i in u.imported_ins]
    elif isinstance(u, ExportTx):
        unsigned["destinationChain"] = id_to_str(u.destination_chain)
        unsigned["exportedOutputs"] = [_out_json(vm, o) for o in u.exported_outs]
    creds = [
        {"fxID": _fx_id(c), "credential": txjson.credential_json(c)}
        for c in tx.creds
    ]
    return {"unsignedTx": unsigned, "credentials": creds, "id": id_to_str(tx.id)}


def block_json(vm: XChainVM, blk: StandardBlock) -> dict[str, Any]:
    return {
        "parentID": id_to_str(blk.parent_id),
        "height": blk.height,
        "time": blk.time,
        "merkleRoot": id_to_str(blk.merkle_root),
        "txs": [tx_json(vm, tx) for tx in blk.txs],
        "id": id_to_str(blk.id),
    }


# ------------------------------------------------------------------------------------ service


class AVMService:
    def __init__(self, vm: XChainVM) -> None:
        self.vm = vm

    # ---------------------------------------------------------------- helpers

    def _parse_address(self, text: str) -> bytes:
        """avax.ParseServiceAddress: a bare cb58 ShortID or an X-<hrp>1… address of this chain."""
        vm = self.vm
        alias, payload = parse_address_arg_with_alias(text, expected_hrp=vm.hrp)
        if alias is not None:
            chain_id = vm.lookup_chain(alias)
            if chain_id is None:
                raise FormatError(f"there is no ID with alias: {alias}")
            if chain_id != vm.chain_id:
                raise FormatError(
                    f"mismatched chainIDs: expected {_quote(id_to_str(vm.chain_id))} but got {_quote(id_to_str(chain_id))}"
                )
        return payload

    def _lookup_asset(self, text: str) -> bytes:
        vm = self.vm
        if text in vm.asset_aliases:
            return vm.asset_aliases[text]
        try:
            return id_from_str(text)
        except (FormatError, ValueError):
            raise RPCError(f"asset '{text}' not found") from None

    def _asset_alias(self, asset_id: bytes) -> str:
        for alias, aid in self.vm.asset_aliases.items():
            if aid == asset_id:
                return alias
        return id_to_str(asset_id)

    def _encode(self, data: bytes, encoding: str) -> str:
        return encode_bytes(data, encoding)

    def _block_reply(self, blk: StandardBlock, encoding: str) -> dict[str, Any]:
        if encoding == JSON:
            return {"block": block_json(self.vm, blk), "encoding": encoding}
        return {"block": self._encode(blk.bytes, encoding), "encoding": encoding}

    # ---------------------------------------------------------------- methods

    def get_height(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"height": str(self.vm.height())}

    def get_block(self, params: dict[str, Any]) -> dict[str, Any]:
        blk_id = _id(params, "blockID")
        encoding = _encoding(params)
        raw = self.vm.state().get_block_bytes(blk_id)
        if raw is None:
            raise RPCError(f"couldn't get block with id {id_to_str(blk_id)}: not found")
        return self._block_reply(parse_block(raw), encoding)

    def get_block_by_height(self, params: dict[str, Any]) -> dict[str, Any]:
        height = _uint(params, "height")
        encoding = _encoding(params)
        st = self.vm.state()
        blk_id = st.get_block_id_at(height)
        if blk_id is None:
            raise RPCError(f"couldn't get block at height {height}: not found")
        raw = st.get_block_bytes(blk_id)
        if raw is None:
            raise RPCError(f"couldn't get block with id {id_to_str(blk_id)}: not found")
        return self._block_reply(parse_block(raw), encoding)

    def _decode_tx_arg(self, params: dict[str, Any]) -> bytes:
        text = _str(params, "tx")
        encoding = _encoding(params)
        try:
            return decode_bytes(text, encoding)
        except FormatError as exc:
            raise RPCError(f"problem decoding transaction: {exc}") from None

    def issue_tx(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_bytes = self._decode_tx_arg(params)
        try:
            tx_id = self.vm.issue_tx(tx_bytes)
        except TxError as exc:
            raise RPCError(str(exc)) from None
        return {"txID": id_to_str(tx_id)}

    def wallet_issue_tx(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_bytes = self._decode_tx_arg(params)
        try:
            tx_id = self.vm.issue_tx_unverified(tx_bytes)
        except TxError as exc:
            raise RPCError(str(exc)) from None
        return {"txID": id_to_str(tx_id)}

    def get_tx_status(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_id = _id(params, "txID")
        if tx_id == ZERO_ID:
            raise RPCError("nil transaction ID")
        found = self.vm.state().get_tx_bytes(tx_id) is not None
        return {"status": "Accepted" if found else "Unknown"}

    def get_tx(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_id = _id(params, "txID")
        encoding = _encoding(params)
        if tx_id == ZERO_ID:
            raise RPCError("nil transaction ID")
        raw = self.vm.state().get_tx_bytes(tx_id)
        if raw is None:
            raise RPCError("not found")
        if encoding == JSON:
            tx = parse_tx(raw)
            return {"tx": tx_json(self.vm, tx), "encoding": encoding}
        return {"tx": self._encode(raw, encoding), "encoding": encoding}

    def get_utxos(self, params: dict[str, Any]) -> dict[str, Any]:
        vm = self.vm
        addresses = _str_list(params, "addresses")
        source = _str(params, "sourceChain")
        limit = _uint(params, "limit", 32)
        start = params.get("startIndex")
        if start is not None and not isinstance(start, dict):
            raise _bad_arg()
        start = start or {}
        start_addr_text = _str(start, "address")
        start_utxo_text = _str(start, "utxo")
        encoding = _encoding(params)

        if not addresses:
            raise RPCError("no addresses provided")
        if len(addresses) > MAX_GET_UTXOS_ADDRS:
            raise RPCError(f"number of addresses given, {len(addresses)}, exceeds maximum, {MAX_GET_UTXOS_ADDRS}")
        if source == "":
            source_chain = vm.chain_id
        else:
            found = vm.lookup_chain(source)
            if found is None:
                try:
                    found = id_from_str(source)
                except (FormatError, ValueError):
                    raise RPCError(
                        f"problem parsing source chainID {_quote(source)}: there is no ID with alias: {source}"
                    ) from None
            source_chain = found
        addr_set: set[bytes] = set()
        for text in addresses:
            try:
                addr_set.add(self._parse_address(text))
            except FormatError as exc:
                raise RPCError(f"couldn't parse address {_quote(text)}: {exc}") from None
        start_addr, start_utxo = ZERO_SHORT_ID, ZERO_ID
        if start_addr_text or start_utxo_text:
            try:
                start_addr = self._parse_address(start_addr_text)
            except FormatError as exc:
                raise RPCError(f"couldn't parse start index address {_quote(start_addr_text)}: {exc}") from None
            try:
                start_utxo = id_from_str(start_utxo_text)
            except (FormatError, ValueError) as exc:
                raise RPCError(f"couldn't parse start index utxo: {exc}") from None
        if limit <= 0 or limit > MAX_PAGE_SIZE:
            limit = MAX_PAGE_SIZE

        utxos, end_addr, end_utxo = self.paginate(source_chain, addr_set, start_addr, start_utxo, limit)
        encoded = []
        for uid, raw in utxos:
            if encoding == JSON:
                raise RPCError(f"couldn't encode UTXO {id_to_str(uid)} as string: unsupported encoding in method")
            encoded.append(self._encode(raw, encoding))
        return {
            "numFetched": str(len(utxos)),
            "utxos": encoded,
            "endIndex": {"address": format_address("X", vm.hrp, end_addr), "utxo": id_to_str(end_utxo)},
            "encoding": encoding,
        }

    def paginate(self, source_chain: bytes, addrs: set[bytes], last_addr: bytes, last_utxo: bytes,
                 limit: int) -> tuple[list[tuple[bytes, bytes]], bytes, bytes]:
        """avax.GetPaginatedUTXOs / GetAtomicUTXOs: addresses in byte order, UTXO IDs ascending."""
        vm = self.vm
        st = vm.state()
        local = source_chain == vm.chain_id
        out: list[tuple[bytes, bytes]] = []
        seen: set[bytes] = set()
        for addr in sorted(addrs):
            if addr < last_addr:
                continue
            after = last_utxo if addr == last_addr and last_utxo != ZERO_ID else None
            if addr == last_addr and last_utxo == ZERO_ID:
                after = None
            last_addr = addr
            if local:
                ids = st.utxo_ids_of(addr, after)
            else:
                ids = atomic.utxo_ids_by_address(vm.store, vm.chain_id, source_chain, addr, after)
            for uid in ids:
                last_utxo = uid
                if uid in seen:
                    continue
                raw = st.get_utxo_bytes(uid) if local else atomic.get_utxo(vm.store, vm.chain_id, source_chain, uid)
                if raw is None:
                    continue
                out.append((uid, raw))
                seen.add(uid)
                if len(out) >= limit:
                    return out, last_addr, last_utxo
        return out, last_addr, last_utxo

    def _all_utxos(self, addr: bytes) -> list[UTXO]:
        st = self.vm.state()
        result = []
        for uid in st.utxo_ids_of(addr):
            raw = st.get_utxo_bytes(uid)
            if raw is not None:
                result.append(decode_utxo_cached(raw))
        return result

    def get_asset_description(self, params: dict[str, Any]) -> dict[str, Any]:
        asset_id = self._lookup_asset(_str(params, "assetID"))
        st = self.vm.state()
        asset = st.get_asset(asset_id)
        if asset is None:
            if st.get_tx_bytes(asset_id) is not None:
                raise RPCError("transaction doesn't create an asset")
            raise RPCError("not found")
        name, symbol, denomination, _ = asset
        return {"assetID": id_to_str(asset_id), "name": name, "symbol": symbol, "denomination": str(denomination)}

    def get_balance(self, params: dict[str, Any]) -> dict[str, Any]:
        address_text = _str(params, "address")
        asset_text = _str(params, "assetID")
        include_partial = _bool(params, "includePartial")
        try:
            addr = self._parse_address(address_text)
        except FormatError as exc:
            raise RPCError(f"problem parsing address '{address_text}': {exc}") from None
        asset_id = self._lookup_asset(asset_text)
        now = self.vm.clock.now()
        balance = 0
        utxo_ids = []
        for utxo in self._all_utxos(addr):
            if utxo.asset_id != asset_id or not isinstance(utxo.out, TransferOutput):
                continue
            owners = utxo.out.owners
            if not include_partial and (len(owners.addresses) != 1 or owners.locktime > now):
                continue
            balance += utxo.out.amount
            utxo_ids.append({"txID": id_to_str(utxo.tx_id), "outputIndex": utxo.output_index})
        return {"balance": str(min(balance, (1 << 64) - 1)), "utxoIDs": utxo_ids}

    def get_all_balances(self, params: dict[str, Any]) -> dict[str, Any]:
        address_text = _str(params, "address")
        include_partial = _bool(params, "includePartial")
        try:
            addr = self._parse_address(address_text)
        except FormatError as exc:
            raise RPCError(f"problem parsing address '{address_text}': {exc}") from None
        now = self.vm.clock.now()
        balances: dict[bytes, int] = {}
        for utxo in self._all_utxos(addr):
            if not isinstance(utxo.out, TransferOutput):
                continue
            owners = utxo.out.owners
            if not include_partial and (len(owners.addresses) != 1 or owners.locktime > now):
                continue
            balances[utxo.asset_id] = min(balances.get(utxo.asset_id, 0) + utxo.out.amount, (1 << 64) - 1)
        return {"balances": [{"asset": self._asset_alias(a), "balance": str(v)} for a, v in sorted(balances.items())]}

    def get_tx_fee(self, _: dict[str, Any]) -> dict[str, Any]:
        fees = self.vm.params.fees
        return {"txFee": str(fees.tx_fee), "createAssetTxFee": str(fees.create_asset_tx_fee)}


def build_endpoints(vm: XChainVM) -> dict[str, Any]:
    s = AVMService(vm)
    avm = GorillaService({"avm": {
        "getBlock": s.get_block,
        "getBlockByHeight": s.get_block_by_height,
        "getHeight": s.get_height,
        "issueTx": s.issue_tx,
        "getTxStatus": s.get_tx_status,
        "getTx": s.get_tx,
        "getUTXOs": s.get_utxos,
        "getAssetDescription": s.get_asset_description,
        "getBalance": s.get_balance,
        "getAllBalances": s.get_all_balances,
        "getTxFee": s.get_tx_fee,
    }})
    wallet = GorillaService({"wallet": {"issueTx": s.wallet_issue_tx}})
    return {"": avm, "/wallet": wallet}
