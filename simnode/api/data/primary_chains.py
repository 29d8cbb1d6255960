"""Subnets and blockchains of the network, from the P-Chain's index.

`GET /v1/networks/{network}/subnets[/{subnetId}]` and `…/blockchains[/{blockchainId}]`, in the
order they were created (sortOrder asc; pageSize 1–10000, default 100). The primary network is a
subnet too (ID 1111…LpoYY, created at genesis, no owner) with the P-, X- and C-Chain. A subnet
converted to an L1 has `isL1`, its ConvertSubnetToL1Tx and its validator manager; `ownerAddresses`,
`threshold` and `locktime` repeat `subnetOwnershipInfo` (the current owner) as the deprecated
fields. A chain whose genesis is EVM genesis JSON has `genesisData` in the EvmGenesisDto shape (the
fields the document lists, with their types) and `evmChainId` from its config.
"""

from __future__ import annotations

import json
from typing import Any

from ...formats.errors import FormatError
from ...formats.ids import ZERO_ID, id_from_str, id_to_str
from ...index.primary import query
from .context import RequestContext
from .errors import bad_request, not_found
from .primary import addresses_json, hex0x, index_on, listing, parse_id
from .resolve import primary_chain_name
from .primary import chain_id

_HEX_FIELDS = ("airdropHash", "coinbase", "difficulty", "extraData", "gasLimit", "gasUsed", "mixHash", "nonce",
               "number", "parentHash", "timestamp")
_NULLABLE_HEX = ("blobGasUsed", "excessBlobGas")
_NULLABLE_NUMBERS = ("airdropAmount", "baseFeePerGas")
_FORKS = ("berlinBlock", "byzantiumBlock", "chainId", "constantinopleBlock", "eip150Block", "eip155Block",
          "eip158Block", "homesteadBlock", "istanbulBlock", "londonBlock", "muirGlacierBlock", "petersburgBlock",
          "subnetEVMTimestamp")
_FEE_FIELDS = ("baseFeeChangeDenominator", "blockGasCostStep", "gasLimit", "maxBlockGasCost", "minBaseFee",
               "minBlockGasCost", "targetBlockRate", "targetGas")
_ALLOW_LISTS = ("txAllowListConfig", "contractDeployerAllowListConfig", "contractNativeMinterConfig",
                "feeManagerConfig", "rewardManagerConfig")


def _number(v: Any) -> int | float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            return int(v, 16) if v[:2].lower() == "0x" else int(v)
        except ValueError:
            return None
    return None


def _text(v: Any) -> str | None:
    if isinstance(v, str):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return hex(v)
    return None


def _pick(src: dict, names: tuple[str, ...], conv: Any) -> dict[str, Any]:
    out = {}
    for name in names:
        if name in src and (value := conv(src[name])) is not None:
            out[name] = value
    return out


def genesis_data(raw: bytes) -> dict[str, Any] | None:
    """An EVM genesis (JSON) in the EvmGenesisDto shape; None for any other genesis."""
    try:
        g = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(g, dict):
        return None
    out: dict[str, Any] = _pick(g, _HEX_FIELDS, _text) | _pick(g, _NULLABLE_HEX, _text)
    out |= _pick(g, _NULLABLE_NUMBERS, _number)
    alloc = g.get("alloc")
    if isinstance(alloc, dict):
        accounts = {}
        for addr, acct in alloc.items():
            if not isinstance(acct, dict):
                continue
            entry = _pick(acct, ("balance", "code"), _text)
            storage = acct.get("storage")
            if isinstance(storage, dict):
                entry["storage"] = {str(k): v for k, v in storage.items() if isinstance(v, str)}
            accounts[str(addr)] = entry
        out["alloc"] = accounts
    config = g.get("config")
    if isinstance(config, dict):
        cfg: dict[str, Any] = _pick(config, _FORKS, _number)
        if isinstance(config.get("eip150Hash"), str):
            cfg["eip150Hash"] = config["eip150Hash"]
        if isinstance(config.get("allowFeeRecipients"), bool):
            cfg["allowFeeRecipients"] = config["allowFeeRecipients"]
        if isinstance(config.get("feeConfig"), dict):
            cfg["feeConfig"] = _pick(config["feeConfig"], _FEE_FIELDS, _number)
        warp = config.get("warpConfig")
        if isinstance(warp, dict):
            cfg["warpConfig"] = _pick(warp, ("blockTimestamp", "quorumNumerator"), _number)
            if isinstance(warp.get("requirePrimaryNetworkSigners"), bool):
                cfg["warpConfig"]["requirePrimaryNetworkSigners"] = warp["requirePrimaryNetworkSigners"]
        for name in _ALLOW_LISTS:
            allow = config.get(name)
            if isinstance(allow, dict):
                entry = _pick(allow, ("blockTimestamp",), _number)
                for role in ("adminAddresses", "managerAddresses", "enabledAddresses"):
                    if isinstance(allow.get(role), list):
                        entry[role] = [a for a in allow[role] if isinstance(a, str)]
                cfg[name] = entry
        out["config"] = cfg
    return out


def blockchain_json(r: query.Record) -> dict[str, Any]:
    rec = r.rec
    body: dict[str, Any] = {"createBlockTimestamp": rec["t"], "createBlockNumber": str(rec["h"]),
                            "blockchainId": id_to_str(rec["id"]), "vmId": id_to_str(rec["vm"]),
                            "subnetId": id_to_str(rec["subnet"]), "blockchainName": rec["name"]}
    data = genesis_data(rec["g"]) if rec["g"] else None
    if data is not None:
        body["genesisData"] = data
        chain = data.get("config", {}).get("chainId")
        if isinstance(chain, int):
            body["evmChainId"] = chain
    return body


def subnet_json(ctx: RequestContext, r: query.Record) -> dict[str, Any]:
    rec = r.rec
    threshold, addrs, locktime = rec["owner"]
    owners = addresses_json(ctx.node, addrs, "P")
    body: dict[str, Any] = {
        "createBlockTimestamp": rec["t"], "createBlockIndex": str(rec["h"]), "subnetId": id_to_str(rec["id"]),
        "ownerAddresses": owners, "threshold": threshold, "locktime": locktime,
        "subnetOwnershipInfo": {"locktime": locktime, "threshold": threshold, "addresses": owners},
        "isL1": rec["l1"] is not None,
        "blockchains": [blockchain_json(c) for c in query.subnet_chains(ctx.store, ZERO_ID, rec["id"])],
    }
    if rec["l1"] is not None:
        manager_chain, manager_address = rec["mgr"]
        body["l1ConversionTransactionHash"] = id_to_str(rec["l1"])
        body["l1ValidatorManagerDetails"] = {"blockchainId": id_to_str(manager_chain),
                                             "contractAddress": hex0x(manager_address)}
    return body


def list_subnets(ctx: RequestContext) -> dict[str, Any]:
    index_on(ctx)
    page = listing(ctx, query.subnets, ctx.store, ZERO_ID, ctx.params["pageSize"],
                   reverse=ctx.params.get("sortOrder") == "desc")
    return ctx.paged({"subnets": [subnet_json(ctx, r) for r in page.items]}, page.next)


def get_subnet(ctx: RequestContext) -> dict[str, Any]:
    index_on(ctx)
    ref = ctx.params["subnetId"]
    found = query.subnet(ctx.store, ZERO_ID, parse_id(ref, "subnetId"))
    if found is None:
        raise not_found(f"subnet {ref} not found")
    return subnet_json(ctx, found)


def list_blockchains(ctx: RequestContext) -> dict[str, Any]:
    index_on(ctx)
    page = listing(ctx, query.blockchains, ctx.store, ZERO_ID, ctx.params["pageSize"],
                   reverse=ctx.params.get("sortOrder") == "desc")
    return ctx.paged({"blockchains": [blockchain_json(r) for r in page.items]}, page.next)


def get_blockchain(ctx: RequestContext) -> dict[str, Any]:
    index_on(ctx)
    ref = ctx.params["blockchainId"]
    name = primary_chain_name(ctx.node, ref)
    if name is not None:
        cid = chain_id(ctx.node, name)
    else:
        try:
            cid = id_from_str(ref)
        except FormatError:
            raise bad_request(
                f"blockchainId must be a cb58 blockchain ID or p-chain, x-chain, c-chain: {ref}") from None
    found = query.blockchain(ctx.store, ZERO_ID, cid)
    if found is None:
        raise not_found(f"blockchain {ref} not found")
    return blockchain_json(found)
