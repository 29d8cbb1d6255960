"""UTXOs, balances and address activity of the primary network's chains.

* `GET`/`POST …/blockchains/{blockchainId}/utxos`: the UTXOs spendable on the chain (made there, or
  exported to it and not imported yet) owned in part by any of `addresses`; newest first
  (sortOrder desc) by creation time or by amount; `includeSpent` adds the spent ones,
  `minUtxoAmount` and `assetId` (X-Chain only) filter. P-Chain UTXOs print as PChainUTXO (a stake
  output is `utxoType` STAKE and `staked` while its staking lasts; rewards carry `rewardType`),
  X- and C-Chain ones as Utxo.
* `GET …/balances`: the addresses' UTXOs on the chain at `blockTimestamp` (made at or before it and
  not spent by then; default now), in the chain's categories. P: staked outputs by their staking
  period, the rest by their locks; X: locked/unlocked; C: only what waits in its shared memory.
  Shared memory (`atomicMemory*`) holds what other chains exported to this one (sharedWithChainId:
  the exporter).
* `…/lastActivityTimestampByAddresses` (GET, POST): the latest UTXO made or spent on the chain for
  the addresses; `GET /v1/networks/{network}/addresses:listChainIds`: the chains each address has
  UTXO activity on.
"""

from __future__ import annotations

from typing import Any

from ...formats.ids import id_to_str
from ...index.primary import query
from .context import RequestContext
from .errors import bad_request, not_found
from .primary import (MAX_ADDRESSES, MAX_ADDRESSES_V2, NAMES, Assets, chain_id, chain_info, index_on,
                      listing, parse_addresses, parse_id, primary_chain, real_chain_id, split_list, utxo_json)
from .resolve import C_CHAIN, P_CHAIN, X_CHAIN

SHARED_STATUS = "pendingImport"  # PChainSharedAsset.status: exported to the P-Chain, not imported yet


def get_utxos(ctx: RequestContext) -> dict[str, Any]:
    return utxos(ctx, ctx.params.get("addresses"), MAX_ADDRESSES)


def post_utxos(ctx: RequestContext) -> dict[str, Any]:
    return utxos(ctx, (ctx.body or {}).get("addresses"), MAX_ADDRESSES_V2)


def utxos(ctx: RequestContext, text: str | None, limit: int) -> dict[str, Any]:
    p = ctx.params
    name = p["blockchainId"]
    index_on(ctx)
    primary_chain(ctx, name)
    addrs = parse_addresses(ctx.node, text, name, limit=limit)
    asset = None
    if p.get("assetId") is not None:
        if name != X_CHAIN:
            raise bad_request("assetId is only applicable to the X-Chain")
        asset = parse_id(p["assetId"], "assetId")
    min_amount = -int(-p.get("minUtxoAmount", 0) // 1)  # nAVAX, inclusive: 1.5 admits 2 and up
    page = listing(ctx, query.utxos, ctx.store, chain_id(ctx.node, name), addrs, p["pageSize"],
                   reverse=p.get("sortOrder", "desc") == "desc", by_amount=p.get("sortBy") == "amount",
                   include_spent=bool(p.get("includeSpent")), asset=asset, min_amount=min_amount)
    assets = Assets(ctx.node)
    now = ctx.node.clock.now()
    body = {"utxos": [utxo_json(ctx, name, u, assets, now) for u in page.items], "chainInfo": chain_info(ctx, name)}
    return ctx.paged(body, page.next)


# ------------------------------------------------------------------------------ balances


def balances(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    name = p["blockchainId"]
    index_on(ctx)
    primary_chain(ctx, name)
    addrs = parse_addresses(ctx.node, p.get("addresses"), name)
    at = p.get("blockTimestamp")
    now = ctx.node.clock.now() if at is None else at
    cid = chain_id(ctx.node, name)
    # before the epoch nothing was held (the index's times are unsigned)
    held = [] if at is not None and at < 0 else query.utxos_at(ctx.store, cid, addrs, at)
    assets = Assets(ctx.node)
    if name == P_CHAIN:
        result = p_balances(held, cid, now, assets)
    else:
        result = shared_balances(held, cid, now, assets, with_status=False)
        if name == X_CHAIN:
            result = {**x_balances(held, cid, now, assets), **result}
    return {"balances": result, "chainInfo": chain_info(ctx, name)}


def _locked(out: Any, now: int) -> bool:
    return out.locktime > now


def p_balances(held: list[query.Utxo], cid: bytes, now: int, assets: Assets) -> dict[str, Any]:
    cats: dict[str, dict[bytes, list[int]]] = {k: {} for k in (
        "unlockedUnstaked", "unlockedStaked", "lockedPlatform", "lockedStakeable", "lockedStaked", "pendingStaked")}
    for u in held:
        out = u.out
        if out.created_on != cid or not out.amount:
            continue
        if out.stake is not None and now < out.stake[1]:
            if now < out.stake[0]:
                cat = "pendingStaked"
            else:
                cat = "lockedStaked" if max(out.locktime, out.stakeable) > now else "unlockedStaked"
        elif out.locktime > now:
            cat = "lockedPlatform"
        elif out.stakeable > now:
            cat = "lockedStakeable"
        else:
            cat = "unlockedUnstaked"
        entry = cats[cat].setdefault(out.asset, [0, 0])
        entry[0] += out.amount
        entry[1] += 1
    body = {k: [assets.amount(a, v[0], utxoCount=v[1]) for a, v in sorted(d.items())] for k, d in cats.items()}
    return {**body, **shared_balances(held, cid, now, assets, with_status=True)}


def x_balances(held: list[query.Utxo], cid: bytes, now: int, assets: Assets) -> dict[str, Any]:
    cats: dict[str, dict[bytes, list[int]]] = {"locked": {}, "unlocked": {}}
    for u in held:
        out = u.out
        if out.created_on != cid or not out.amount:
            continue
        entry = cats["locked" if _locked(out, now) else "unlocked"].setdefault(out.asset, [0, 0])
        entry[0] += out.amount
        entry[1] += 1
    return {k: [assets.amount(a, v[0], utxoCount=v[1]) for a, v in sorted(d.items())] for k, d in cats.items()}


def shared_balances(held: list[query.Utxo], cid: bytes, now: int, assets: Assets,
                    with_status: bool) -> dict[str, Any]:
    """atomicMemoryUnlocked/Locked: what other chains exported to this one, by asset and exporter."""
    cats: dict[str, dict[tuple[bytes, bytes], list[int]]] = {"atomicMemoryUnlocked": {}, "atomicMemoryLocked": {}}
    for u in held:
        out = u.out
        if out.created_on == cid or not out.amount:
            continue
        cat = "atomicMemoryLocked" if _locked(out, now) else "atomicMemoryUnlocked"
        entry = cats[cat].setdefault((out.asset, out.created_on), [0, 0])
        entry[0] += out.amount
        entry[1] += 1
    status = {"status": SHARED_STATUS} if with_status else {}
    return {k: [assets.amount(a, v[0], utxoCount=v[1], sharedWithChainId=id_to_str(src), **status)
                for (a, src), v in sorted(d.items())] for k, d in cats.items()}


# ------------------------------------------------------------------------------ activity


def last_activity(ctx: RequestContext) -> dict[str, Any]:
    return activity(ctx, ctx.params.get("addresses"), MAX_ADDRESSES)


def post_last_activity(ctx: RequestContext) -> dict[str, Any]:
    return activity(ctx, (ctx.body or {}).get("addresses"), MAX_ADDRESSES_V2)


def activity(ctx: RequestContext, text: str | None, limit: int) -> dict[str, Any]:
    name = ctx.params["blockchainId"]
    index_on(ctx)
    addrs = parse_addresses(ctx.node, text, name, limit=limit)
    found = query.last_activity(ctx.store, chain_id(ctx.node, name), addrs)
    if found is None:
        raise not_found(f"no UTXO of these addresses was made or spent on the {NAMES[name]}")
    time, uid, consumed, tx_id, height = found
    network = ctx.params["network"]
    return {"timestamp": time, "blockNumber": str(height), "txHash": id_to_str(tx_id), "utxoId": id_to_str(uid),
            "isConsumed": consumed, "chainName": name, "network": "mainnet" if network == "mainnet" else "fuji"}


def list_chain_ids(ctx: RequestContext) -> dict[str, Any]:
    index_on(ctx)
    texts = split_list(ctx.params.get("addresses"))
    addrs = parse_addresses(ctx.node, ctx.params.get("addresses"), None)
    network = ctx.params["network"]
    out = []
    for text, a in zip(texts, addrs):
        touched = [real_chain_id(network, name) for name in (P_CHAIN, X_CHAIN, C_CHAIN)
                   if query.has_activity(ctx.store, chain_id(ctx.node, name), a)]
        out.append({"address": text, "blockchainIds": touched})
    return {"addresses": out}
