"""The avm.* JSON-RPC methods (`/ext/bc/X`) and wallet.issueTx (`/ext/bc/X/wallet`).

Parses params, calls the VM, formats results exactly as AvalancheGo's vms/avm/service.go:
json.Uint64 values as quoted decimals, plain uint64/uint32 (JSON-encoded tx fields,
outputIndex) as numbers, IDs in cb58, addresses as `X-<hrp>1…`.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from simnode.rpc.jsonrpc import GorillaService, RPCError
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
from simnode.formats.address import format_address
from simnode.formats.hexenc import JSON, decode_bytes, encode_bytes
from simnode.formats.ids import ZERO_ID, id_from_str, id_to_str
from simnode.vms import txjson, utxo_api
from simnode.vms.chain_context import lookup_chain
from simnode.rpc.params import bool_arg, encoding_arg, go_quote, id_arg, str_arg, uint_arg

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
            {"fxIndex": s.fx_index,
             "fxID": id_to_str(FX_IDS[s.fx_index]) if s.fx_index < len(FX_IDS) else id_to_str(ZERO_ID),
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
        "txs": [tx_json(vm, tx) for tx in blk.txs] or None,  # Go's nil slice: the genesis block has none
        "id": id_to_str(blk.id),
    }


# ------------------------------------------------------------------------------------ service


class AVMService:
    def __init__(self, vm: XChainVM) -> None:
        self.vm = vm
        self.utxo_service = utxo_api.UTXOService(
            chain_id=vm.chain_id, alias="X", hrp=vm.hrp, lookup_chain=lambda ref: lookup_chain(vm.ctx, ref),
            utxos_from=self._utxos_from, source_required=False,
            encode_error="couldn't encode UTXO {utxo_id} as string: {error}",
        )

    # ---------------------------------------------------------------- helpers

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
        blk_id = id_arg(params, "blockID")
        encoding = encoding_arg(params)
        raw = self.vm.state().get_block_bytes(blk_id)
        if raw is None and self.vm.fork is not None:  # on a fork, the upstream's history
            return self.vm.fork.history("avm.getBlock", dict(params))
        if raw is None:
            raise RPCError(f"couldn't get block with id {id_to_str(blk_id)}: not found")
        return self._block_reply(parse_block(raw), encoding)

    def get_block_by_height(self, params: dict[str, Any]) -> dict[str, Any]:
        height = uint_arg(params, "height")
        encoding = encoding_arg(params)
        st = self.vm.state()
        blk_id = st.get_block_id_at(height)
        if blk_id is None and self.vm.fork is not None and height < self.vm.height():  # the upstream's history
            return self.vm.fork.history("avm.getBlockByHeight", dict(params))
        if blk_id is None:
            raise RPCError(f"couldn't get block at height {height}: not found")
        raw = st.get_block_bytes(blk_id)
        if raw is None:
            raise RPCError(f"couldn't get block with id {id_to_str(blk_id)}: not found")
        return self._block_reply(parse_block(raw), encoding)

    def _decode_tx_arg(self, params: dict[str, Any]) -> bytes:
        text = str_arg(params, "tx")
        encoding = encoding_arg(params)
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
        tx_id = id_arg(params, "txID")
        if tx_id == ZERO_ID:
            raise RPCError("nil transaction ID")
        found = self.vm.state().get_tx_bytes(tx_id) is not None
        if not found and self.vm.fork is not None:  # on a fork, the upstream's history
            return self.vm.fork.history("avm.getTxStatus", {"txID": id_to_str(tx_id)})
        return {"status": "Accepted" if found else "Unknown"}

    def get_tx(self, params: dict[str, Any]) -> dict[str, Any]:
        tx_id = id_arg(params, "txID")
        encoding = encoding_arg(params)
        if tx_id == ZERO_ID:
            raise RPCError("nil transaction ID")
        raw = self.vm.state().get_tx_bytes(tx_id)
        if raw is None and self.vm.fork is not None:  # on a fork, the upstream's history
            return self.vm.fork.history("avm.getTx", dict(params))
        if raw is None:
            raise RPCError("not found")
        if encoding == JSON:
            tx = parse_tx(raw)
            return {"tx": tx_json(self.vm, tx), "encoding": encoding}
        return {"tx": self._encode(raw, encoding), "encoding": encoding}

    def get_utxos(self, params: dict[str, Any]) -> dict[str, Any]:
        return utxo_api.get_utxos(self.utxo_service, params)

    def _utxos_from(self, source_chain: bytes) -> utxo_api.UTXOSet:
        vm = self.vm
        own = source_chain == vm.chain_id
        utxos = (utxo_api.UTXOSet(vm.state().utxo_ids_of, vm.state().get_utxo_bytes) if own
                 else utxo_api.shared_memory_utxos(vm.store, vm.chain_id, source_chain))

        def ids_of(address: bytes, after: bytes | None) -> Any:
            vm.touch_addresses((address,), None if own else source_chain)  # on a fork: from the upstream
            return utxos.ids_of(address, after)
        return dataclasses.replace(utxos, ids_of=ids_of)

    def _all_utxos(self, addr: bytes) -> list[UTXO]:
        self.vm.touch_addresses((addr,))
        st = self.vm.state()
        result = []
        for uid in st.utxo_ids_of(addr):
            raw = st.get_utxo_bytes(uid)
            if raw is not None:
                result.append(decode_utxo_cached(raw))
        return result

    def get_asset_description(self, params: dict[str, Any]) -> dict[str, Any]:
        asset_id = self._lookup_asset(str_arg(params, "assetID"))
        st = self.vm.state()
        asset = st.get_asset(asset_id)
        if asset is None and self.vm.fork is not None:  # on a fork: an upstream asset, brought in
            self.vm.fork.take_asset(asset_id)
            asset = st.get_asset(asset_id)
        if asset is None:
            if st.get_tx_bytes(asset_id) is not None:
                raise RPCError("transaction doesn't create an asset")
            raise RPCError("not found")
        name, symbol, denomination, _ = asset
        return {"assetID": id_to_str(asset_id), "name": name, "symbol": symbol, "denomination": str(denomination)}

    def get_balance(self, params: dict[str, Any]) -> dict[str, Any]:
        address_text = str_arg(params, "address")
        asset_text = str_arg(params, "assetID")
        include_partial = bool_arg(params, "includePartial")
        try:
            addr = self.utxo_service.parse_address(address_text)
        except FormatError as exc:
            raise RPCError(f"problem parsing address '{address_text}': couldn't parse address "
                           f"{go_quote(address_text)}: {exc}") from None
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
        address_text = str_arg(params, "address")
        include_partial = bool_arg(params, "includePartial")
        try:
            addr = self.utxo_service.parse_address(address_text)
        except FormatError as exc:
            raise RPCError(f"problem parsing address '{address_text}': couldn't parse address "
                           f"{go_quote(address_text)}: {exc}") from None
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
    avm.settling = wallet.settling = lambda: vm.build_requested  # an acknowledged tx is in a block first
    return {"": avm, "/wallet": wallet}
