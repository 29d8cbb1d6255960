"""`platform.*` JSON-RPC methods (node-api.md §8): parse params, ask the VM, format like AvalancheGo.

This module holds the chain's basics (height, time, fees, supply) and its txs and blocks; the other
method families are in service_balances.py (UTXOs, balances, stake), service_validators.py
(validator sets, L1 validators) and service_subnets.py (subnets and chains); the JSON forms of txs
and blocks (encoding=json) in json_forms.py.
"""

from __future__ import annotations

from typing import Any

from simnode.formats import FormatError, decode_bytes, encode_bytes, format_address, format_rfc3339, id_to_str
from simnode.rpc.jsonrpc import GorillaService, RPCError

from . import txs as t
from .fees import calculate_price
from .json_forms import block_json, tx_json
from .service_balances import balance_methods
from .service_params import encoding_arg, id_arg, num, str_arg, uint_arg
from .service_subnets import subnet_methods
from .service_validators import validator_methods
from .state import PRIMARY
from .vm import IssueError, PlatformVM


def build_endpoints(vm: PlatformVM) -> dict[str, Any]:
    return {"": GorillaService({"platform": build_service(vm)})}


def build_service(vm: PlatformVM) -> dict[str, Any]:
    hrp = vm.hrp

    def addr(a: bytes) -> str:
        return format_address("P", hrp, a)

    # ------------------------------------------------------------------ basics

    def get_height(p: dict) -> dict:
        return {"height": num(vm.height)}

    def get_timestamp(p: dict) -> dict:
        return {"timestamp": format_rfc3339(vm.timestamp)}

    def get_fee_config(p: dict) -> dict:
        return vm.fee_config.to_json()

    def get_fee_state(p: dict) -> dict:
        m = vm.state.meta
        return {"capacity": m.fee_capacity, "excess": m.fee_excess,
                "price": calculate_price(vm.fee_config.min_price, m.fee_excess,
                                         vm.fee_config.excess_conversion_constant),
                "timestamp": format_rfc3339(m.timestamp)}

    def get_validator_fee_config(p: dict) -> dict:
        return vm.validator_fee_config.to_json()

    def get_validator_fee_state(p: dict) -> dict:
        m = vm.state.meta
        c = vm.validator_fee_config
        return {"excess": m.l1_excess, "price": calculate_price(c.min_price, m.l1_excess, c.excess_conversion_constant),
                "timestamp": format_rfc3339(m.timestamp)}

    def get_staking_asset_id(p: dict) -> dict:
        subnet = id_arg(p, "subnetID")
        if subnet == PRIMARY:
            return {"assetID": id_to_str(vm.avax_asset_id)}
        raise RPCError(f"failed fetching subnet transformation for {id_to_str(subnet)}: not found")

    def get_current_supply(p: dict) -> dict:
        subnet = id_arg(p, "subnetID")
        if subnet != PRIMARY and subnet not in vm.state.meta.supply:
            raise RPCError("fetching current supply failed: not found")
        return {"supply": num(vm.current_supply(subnet)), "height": num(vm.height)}

    # ------------------------------------------------------------------ txs and blocks

    def issue_tx(p: dict) -> dict:
        enc = encoding_arg(p)
        try:
            raw = decode_bytes(str_arg(p, "tx"), enc)
        except FormatError as e:
            raise RPCError(f"problem decoding transaction: {e}") from None
        try:
            tx_id = vm.issue_tx(raw)
        except IssueError as e:
            raise RPCError(str(e)) from None
        return {"txID": id_to_str(tx_id)}

    def get_tx(p: dict) -> dict:
        tx_id = id_arg(p, "txID")
        enc = encoding_arg(p)
        rec = vm.state.get_tx(tx_id)
        if rec is None and vm.fork is not None:  # on a fork, the upstream's history
            return vm.fork.history("platform.getTx", dict(p))
        if rec is None:
            raise RPCError("couldn't get tx: not found")
        if enc == "json":
            return {"tx": tx_json(t.parse_tx(rec[0]), addr), "encoding": "json"}
        return {"tx": encode_bytes(rec[0], enc), "encoding": enc}

    def get_tx_status(p: dict) -> dict:
        tx_id = id_arg(p, "txID")
        status, reason = vm.tx_status(tx_id)
        if status == "Unknown" and vm.fork is not None:  # on a fork, the upstream's history
            return vm.fork.history("platform.getTxStatus", {"txID": id_to_str(tx_id)})
        out = {"status": status}
        if reason:
            out["reason"] = reason
        return out

    def _block_reply(raw: bytes, enc: str) -> dict:
        if enc == "json":
            return {"block": block_json(raw, addr), "encoding": "json"}
        return {"block": encode_bytes(raw, enc), "encoding": enc}

    def get_block(p: dict) -> dict:
        bid = id_arg(p, "blockID")
        enc = encoding_arg(p)
        raw = vm.state.block_by_id(bid)
        if raw is None and vm.fork is not None:  # on a fork, the upstream's history
            return vm.fork.history("platform.getBlock", dict(p))
        if raw is None:
            raise RPCError(f"couldn't get block with id {id_to_str(bid)}: not found")
        return _block_reply(raw, enc)

    def get_block_by_height(p: dict) -> dict:
        h = uint_arg(p, "height")
        enc = encoding_arg(p)
        bid = vm.state.block_id_at(h)
        if bid is None and vm.fork is not None and h < vm.height:  # on a fork, the upstream's history
            return vm.fork.history("platform.getBlockByHeight", dict(p))
        if bid is None:
            raise RPCError(f"couldn't get block at height {h}: not found")
        return _block_reply(vm.state.block_by_id(bid), enc)


    return {
        "getHeight": get_height, "getProposedHeight": get_height, "getTimestamp": get_timestamp,
        "getFeeConfig": get_fee_config, "getFeeState": get_fee_state,
        "getValidatorFeeConfig": get_validator_fee_config, "getValidatorFeeState": get_validator_fee_state,
        "getStakingAssetID": get_staking_asset_id, "getCurrentSupply": get_current_supply,
        "issueTx": issue_tx, "getTx": get_tx, "getTxStatus": get_tx_status, "getBlock": get_block,
        "getBlockByHeight": get_block_by_height,
        **balance_methods(vm), **validator_methods(vm), **subnet_methods(vm, addr),
    }
