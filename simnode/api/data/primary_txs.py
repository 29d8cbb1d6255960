"""Blocks, transactions, X assets and vertices of the primary network's chains.

* `…/blocks` (time bounds inclusive), `…/blocks/{blockId}` (height or ID), `…/nodes/{nodeId}/blocks`:
  P- and X-Chain blocks from the index, C-Chain blocks from the EVM index. One node builds every
  block here, so the blocks a node proposed are all of them for this node's ID and none for any
  other.
* `…/transactions` (newest first; `addresses`, `txTypes`, `startTimestamp`/`endTimestamp` inclusive,
  `l1ValidationId` on the P-Chain), `…/transactions/{txHash}`, `…/transactions:listStaking` (the
  staking txs of stakers still staking, by stake or reward owner): PChainTransaction, the X-Chain's
  linear shape (its chain is linearized: every tx sits in a block), the C-Chain's import and
  export shapes.
* `…/assets/{assetId}` and its transactions (X-Chain).
* `…/vertices*`: the X-Chain here has been linearized since genesis (post-Cortina), so it has no
  vertices: the lists are empty and a vertex is not found.
"""

from __future__ import annotations

from typing import Any

from eth_utils import to_checksum_address

from ...formats.ids import ZERO_ID, id_to_str, node_id_from_str
from ...formats.errors import FormatError
from ...index.evm.query import EvmIndex
from ...index.primary import query
from ...vms.platform import txs as pt
from ...vms.platform.tx_parts import ProofOfPossession
from .context import RequestContext
from .errors import bad_request, not_found
from .params import MAX_U64, decimal
from .primary import (NAMES, Assets, add, addresses_json, chain_id, chain_info, hex0x, ids, index_on, listing, node,
                      parse_addresses, parse_id, primary_chain, pchain_utxo, xc_utxo)
from .primary_chains import genesis_data
from .resolve import C_CHAIN, P_CHAIN, X_CHAIN

C_BLOCK_TYPE = "Block"  # coreth's block


def _desc(ctx: RequestContext) -> bool:
    return ctx.params.get("sortOrder", "desc") == "desc"


# ------------------------------------------------------------------------------ blocks


def _block_json(b: query.BlockRow) -> dict[str, Any]:
    return {"blockNumber": str(b.height), "blockHash": id_to_str(b.id), "parentHash": id_to_str(b.parent),
            "blockTimestamp": b.time, "blockType": b.type, "txCount": len(b.tx_ids), "transactions": ids(b.tx_ids),
            "blockSizeBytes": b.size}


def _c_block_json(ctx: RequestContext, ix: EvmIndex, number: int) -> dict[str, Any] | None:
    b = ix.block(number)
    if b is None:
        return None
    chain = primary_chain(ctx, C_CHAIN)
    row = chain.block_row(number)
    hashes = [hex0x(t.hash) for t in ix.block_transactions(number, max(1, b.tx_count)).items]
    return {"blockNumber": str(number), "blockHash": hex0x(b.hash), "parentHash": hex0x(b.parent_hash),
            "blockTimestamp": b.timestamp, "blockType": C_BLOCK_TYPE, "txCount": b.tx_count, "transactions": hashes,
            "blockSizeBytes": row["size"] if row else 0}


def list_blocks(ctx: RequestContext) -> dict[str, Any]:
    return blocks_of(ctx, ctx.params["blockchainId"])


def blocks_of(ctx: RequestContext, name: str) -> dict[str, Any]:
    p = ctx.params
    index_on(ctx)
    primary_chain(ctx, name)
    start, end = p.get("startTimestamp"), p.get("endTimestamp")
    if name == C_CHAIN:
        ix = EvmIndex(ctx.store, chain_id(ctx.node, C_CHAIN))
        page = listing(ctx, ix.blocks, p["pageSize"])
        items = [_c_block_json(ctx, ix, b.number) for b in page.items
                 if (start is None or b.timestamp >= start) and (end is None or b.timestamp <= end)]
        return ctx.paged({"blocks": [i for i in items if i], "chainInfo": chain_info(ctx, name)}, page.next)
    page = listing(ctx, query.blocks, ctx.store, chain_id(ctx.node, name), p["pageSize"], start=start, end=end)
    return ctx.paged({"blocks": [_block_json(b) for b in page.items], "chainInfo": chain_info(ctx, name)}, page.next)


def node_blocks(ctx: RequestContext) -> dict[str, Any]:
    try:
        node_id = node_id_from_str(ctx.params["nodeId"])
    except FormatError:
        raise bad_request(f"nodeId must be a node ID (NodeID-<cb58>): {ctx.params['nodeId']}") from None
    name = ctx.params["blockchainId"]
    if node_id != ctx.node.node_id:
        index_on(ctx)
        return {"blocks": [], "chainInfo": chain_info(ctx, name)}
    return blocks_of(ctx, name)


def get_block(ctx: RequestContext) -> dict[str, Any]:
    name, ref = ctx.params["blockchainId"], ctx.params["blockId"]
    index_on(ctx)
    primary_chain(ctx, name)
    found: dict[str, Any] | None = None
    digits = ref.isascii() and ref.isdigit()
    height = decimal(ref, MAX_U64)
    if digits and height is None:  # past the last u64: no chain gets there
        raise not_found(f"block {ref} not found on the {NAMES[name]}")
    if name == C_CHAIN:
        ix = EvmIndex(ctx.store, chain_id(ctx.node, C_CHAIN))
        if height is not None:
            found = _c_block_json(ctx, ix, height)
        elif ref[:2].lower() == "0x" and len(ref) == 66:
            try:
                b = ix.block_by_hash(bytes.fromhex(ref[2:]))
            except ValueError:
                b = None
            found = None if b is None else _c_block_json(ctx, ix, b.number)
    else:
        cid = chain_id(ctx.node, name)
        if height is not None:
            row = query.block(ctx.store, cid, height)
        else:
            row = query.block_by_id(ctx.store, cid, parse_id(ref, "blockId"))
        found = None if row is None else _block_json(row)
    if found is None:
        raise not_found(f"block {ref} not found on the {NAMES[name]}")
    return found


# ------------------------------------------------------------------------------ transactions


class TxFormatter:
    """Prints index tx rows in the chain's shape (one per request: it caches asset metadata)."""

    def __init__(self, ctx: RequestContext, name: str) -> None:
        self.ctx = ctx
        self.name = name
        self.db = ctx.store
        self.cid = chain_id(ctx.node, name)
        self.assets = Assets(ctx.node)
        self.now = ctx.node.clock.now()
        self.chain = primary_chain(ctx, name)

    def utxos(self, uids: list[bytes]) -> list[query.Utxo]:
        return [u for uid in uids if (u := query.utxo(self.db, uid)) is not None]

    def __call__(self, row: query.TxRow) -> dict[str, Any]:
        if self.name == P_CHAIN:
            return self.p_tx(row)
        if self.name == X_CHAIN:
            return self.x_tx(row)
        return self.c_tx(row)

    # ------------------------------------------------------------------ P

    def p_tx(self, row: query.TxRow) -> dict[str, Any]:
        rec, ctx, assets = row.rec, self.ctx, self.assets
        u = pt.parse_tx(self.chain.state.get_tx(row.id)[0]).unsigned
        consumed, emitted = self.utxos(rec["in"]), self.utxos(rec["out"])
        spent: dict[bytes, int] = {}
        made: dict[bytes, int] = {}
        value: dict[bytes, int] = {}
        staked: dict[bytes, int] = {}
        for c in consumed:
            add(spent, c.out.asset, c.out.amount)
        for e in emitted:
            add(made, e.out.asset, e.out.amount)
            add(staked if e.out.stake is not None else value, e.out.asset, e.out.amount)
        avax = ctx.node.genesis.avax_asset_id
        deposits = sum(max(0, d[5]) for d in rec.get("l1", ()))
        add(made, avax, deposits - rec.get("refund", 0))
        burned = {a: spent.get(a, 0) - made.get(a, 0) for a in spent} if consumed else {}
        body: dict[str, Any] = {
            "txHash": id_to_str(row.id), "txType": row.type, "blockTimestamp": row.time,
            "blockNumber": str(row.height), "blockHash": id_to_str(rec["blk"]),
            "consumedUtxos": [pchain_utxo(ctx, c, assets, self.now) for c in consumed],
            "emittedUtxos": [pchain_utxo(ctx, e, assets, self.now) for e in emitted],
            "value": assets.totals(value), "amountBurned": assets.totals({a: v for a, v in burned.items() if v > 0}),
            "amountStaked": assets.totals(staked), "amountL1ValidatorBalanceBurned": assets.totals({avax: deposits}),
        }
        if rec.get("memo"):
            body["memo"] = hex0x(rec["memo"])
        if "src" in rec:
            body["sourceChain"] = id_to_str(rec["src"])
        if "dst" in rec:
            body["destinationChain"] = id_to_str(rec["dst"])
        self.p_fields(row, u, body)
        return body

    def p_fields(self, row: query.TxRow, u: Any, body: dict[str, Any]) -> None:
        rec, node_ = row.rec, self.ctx.node
        if "start" in rec:
            body["startTimestamp"], body["endTimestamp"] = rec["start"], rec["end"]
            body["nodeId"], body["subnetId"] = node(u.validator.node_id), id_to_str(u.subnet_id)
            staker = query.staker(self.db, self.cid, row.id)
            if staker is not None and staker.rec.get("rtx"):
                body["rewardTxHash"] = id_to_str(staker.rec["rtx"])
            if isinstance(u, pt.AddSubnetValidatorTx):
                return
            body["estimatedReward"] = str(rec["pot"])
            if isinstance(u, pt.VALIDATOR_TX_TYPES):
                body["delegationFeePercent"] = fee_percent(u.delegation_shares)
                body["rewardAddresses"] = addresses_json(node_, u.validation_rewards_owner.addresses, "P")
                if isinstance(u.signer, ProofOfPossession):
                    body["blsCredentials"] = {"publicKey": hex0x(u.signer.public_key),
                                              "proofOfPossession": hex0x(u.signer.proof)}
            else:
                body["rewardAddresses"] = addresses_json(node_, u.rewards_owner.addresses, "P")
        elif isinstance(u, pt.RewardValidatorTx):
            body["stakingTxHash"] = id_to_str(u.tx_id)
            staker = query.staker(self.db, self.cid, u.tx_id)
            if staker is not None:
                body["nodeId"], body["subnetId"] = node(staker.rec["node"]), id_to_str(staker.rec["subnet"])
        elif isinstance(u, pt.RemoveSubnetValidatorTx):
            body["nodeId"], body["subnetId"] = node(u.node_id), id_to_str(u.subnet_id)
        elif isinstance(u, (pt.CreateSubnetTx, pt.TransferSubnetOwnershipTx)):
            body["subnetId"] = id_to_str(row.id if isinstance(u, pt.CreateSubnetTx) else u.subnet_id)
            body["subnetOwnershipInfo"] = {"locktime": u.owner.locktime, "threshold": u.owner.threshold,
                                           "addresses": addresses_json(node_, u.owner.addresses, "P")}
        elif isinstance(u, pt.CreateChainTx):
            body["subnetId"] = id_to_str(u.subnet_id)
            info: dict[str, Any] = {"chainName": u.chain_name, "vmId": id_to_str(u.vm_id)}
            data = genesis_data(u.genesis_data)
            if data is not None:
                info["genesisData"] = data
            body["blockchainInfo"] = info
        elif isinstance(u, pt.ConvertSubnetToL1Tx):
            body["subnetId"] = id_to_str(u.subnet_id)
            body["l1ValidatorManagerDetails"] = {"blockchainId": id_to_str(u.chain_id),
                                                 "contractAddress": hex0x(u.address)}
        if "l1" in rec:
            details = []
            for vid, node_id, subnet, weight, remaining, change in rec["l1"]:
                d: dict[str, Any] = {"validationId": id_to_str(vid), "validationIdHex": hex0x(vid),
                                     "nodeId": node(node_id), "subnetId": id_to_str(subnet), "weight": weight,
                                     "remainingBalance": remaining, "balanceChange": change}
                found = query.l1_validator(self.db, self.cid, vid)
                if found is not None and found.rec["tx"] == row.id:
                    d["blsCredentials"] = {"publicKey": hex0x(found.rec["pk"]),
                                           "proofOfPossession": hex0x(found.rec["pop"])}
                details.append(d)
            body["l1ValidatorDetails"] = details
            if details and "subnetId" not in body:
                body["subnetId"] = details[0]["subnetId"]

    # ------------------------------------------------------------------ X

    def x_tx(self, row: query.TxRow) -> dict[str, Any]:
        rec, ctx, assets = row.rec, self.ctx, self.assets
        consumed, emitted = self.utxos(rec["in"]), self.utxos(rec["out"])
        unlocked: dict[bytes, int] = {}
        created: dict[bytes, int] = {}
        for c in consumed:
            add(unlocked, c.out.asset, c.out.amount)
        for e in emitted:
            add(created, e.out.asset, e.out.amount)
        body: dict[str, Any] = {
            "txHash": id_to_str(row.id), "chainFormat": "linear", "timestamp": row.time, "txType": row.type,
            "memo": hex0x(rec["memo"]) if rec.get("memo") else "",
            "consumedUtxos": [xc_utxo(ctx, c, assets) for c in consumed],
            "emittedUtxos": [xc_utxo(ctx, e, assets) for e in emitted],
            "amountUnlocked": assets.totals(unlocked), "amountCreated": assets.totals(created),
            "blockHeight": row.height, "blockHash": id_to_str(rec["blk"]),
        }
        if "src" in rec:
            body["sourceChain"] = id_to_str(rec["src"])
        if "dst" in rec:
            body["destinationChain"] = id_to_str(rec["dst"])
        if row.type == "CreateAssetTx":
            found = query.asset(self.db, self.cid, row.id)
            if found is not None:
                body["assetCreated"] = asset_json(row.id, found)
        return body

    # ------------------------------------------------------------------ C

    def c_tx(self, row: query.TxRow) -> dict[str, Any]:
        rec, ctx, assets = row.rec, self.ctx, self.assets
        evm = rec["evm"]
        body: dict[str, Any] = {"txHash": id_to_str(row.id), "blockHeight": row.height, "blockHash": hex0x(rec["blk"]),
                                "timestamp": row.time, "memo": "", "txType": row.type}
        evm_totals: dict[bytes, int] = {}
        for _, asset, amount in evm:
            add(evm_totals, asset, amount)
        utxo_totals: dict[bytes, int] = {}
        if row.type == "ImportTx":
            consumed = self.utxos(rec["in"])
            for c in consumed:
                add(utxo_totals, c.out.asset, c.out.amount)
            body.update({"amountUnlocked": assets.totals(utxo_totals), "amountCreated": assets.totals(evm_totals),
                         "sourceChain": id_to_str(rec["src"]), "destinationChain": id_to_str(self.cid),
                         "evmOutputs": [{"toAddress": to_checksum_address(a), "asset": assets.amount(asset, amount)}
                                        for a, asset, amount in evm],
                         "consumedUtxos": [xc_utxo(ctx, c, assets) for c in consumed]})
        else:
            emitted = self.utxos(rec["out"])
            for e in emitted:
                add(utxo_totals, e.out.asset, e.out.amount)
            creds = rec.get("creds", [])
            body.update({"amountUnlocked": assets.totals(evm_totals), "amountCreated": assets.totals(utxo_totals),
                         "sourceChain": id_to_str(self.cid), "destinationChain": id_to_str(rec["dst"]),
                         "evmInputs": [{"fromAddress": to_checksum_address(a), "asset": assets.amount(asset, amount),
                                        "credentials": [{"signature": hex0x(s)} for s in
                                                        (creds[i] if i < len(creds) else [])]}
                                       for i, (a, asset, amount) in enumerate(evm)],
                         "emittedUtxos": [xc_utxo(ctx, e, assets) for e in emitted]})
        return body


def fee_percent(shares: int) -> str:
    """Delegation shares (ppm) as a percentage with four decimals, as platform.getCurrentValidators."""
    return f"{shares // 10_000}.{shares % 10_000:04d}"


def asset_json(asset_id: bytes, a: dict) -> dict[str, Any]:
    return {"assetId": id_to_str(asset_id), "name": a["name"], "symbol": a["symbol"], "denomination": a["den"],
            "type": "nft" if a["nft"] else "secp256k1", "createdAtTimestamp": a["t"], "cap": a["cap"]}


def list_txs(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    name = p["blockchainId"]
    index_on(ctx)
    fmt = TxFormatter(ctx, name)
    addresses = None
    if p.get("addresses") is not None:
        addresses = parse_addresses(ctx.node, p["addresses"], name, evm=name == C_CHAIN)
    vid = None
    if p.get("l1ValidationId") is not None:
        if name != P_CHAIN:
            raise bad_request("l1ValidationId is only applicable to the P-Chain")
        vid = parse_id(p["l1ValidationId"], "l1ValidationId")
    page = listing(ctx, query.txs, ctx.store, fmt.cid, p["pageSize"], reverse=_desc(ctx), addresses=addresses,
                   types=set(p.get("txTypes") or ()), start=p.get("startTimestamp"), end=p.get("endTimestamp"),
                   validation_id=vid)
    return ctx.paged({"transactions": [fmt(r) for r in page.items], "chainInfo": chain_info(ctx, name)}, page.next)


def get_tx(ctx: RequestContext) -> dict[str, Any]:
    name, ref = ctx.params["blockchainId"], ctx.params["txHash"]
    index_on(ctx)
    fmt = TxFormatter(ctx, name)
    row = query.tx(ctx.store, fmt.cid, parse_id(ref, "txHash"))
    if row is None:
        raise not_found(f"transaction {ref} not found on the {NAMES[name]}")
    return fmt(row)


def list_staking(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    index_on(ctx)
    fmt = TxFormatter(ctx, P_CHAIN)
    addresses = parse_addresses(ctx.node, p.get("addresses"), P_CHAIN)
    page = listing(ctx, query.staking_txs, ctx.store, ZERO_ID, addresses, p["pageSize"], reverse=_desc(ctx),
                   now=fmt.now, types=set(p.get("txTypes") or ()), start=p.get("startTimestamp"),
                   end=p.get("endTimestamp"))
    return ctx.paged({"transactions": [fmt(r) for r in page.items], "chainInfo": chain_info(ctx, P_CHAIN)}, page.next)


# ------------------------------------------------------------------------------ assets, vertices


def get_asset(ctx: RequestContext) -> dict[str, Any]:
    index_on(ctx)
    ref = ctx.params["assetId"]
    found = query.asset(ctx.store, chain_id(ctx.node, X_CHAIN), parse_id(ref, "assetId"))
    if found is None:
        raise not_found(f"asset {ref} not found on the X-Chain")
    return asset_json(parse_id(ref, "assetId"), found)


def asset_txs(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    index_on(ctx)
    asset_id = parse_id(p["assetId"], "assetId")
    fmt = TxFormatter(ctx, X_CHAIN)
    if query.asset(ctx.store, fmt.cid, asset_id) is None:
        raise not_found(f"asset {p['assetId']} not found on the X-Chain")
    page = listing(ctx, query.txs, ctx.store, fmt.cid, p["pageSize"], reverse=True, asset=asset_id,
                   types=set(p.get("txTypes") or ()), start=p.get("startTimestamp"), end=p.get("endTimestamp"))
    return ctx.paged({"transactions": [fmt(r) for r in page.items], "chainInfo": chain_info(ctx, X_CHAIN)}, page.next)


def list_vertices(ctx: RequestContext) -> dict[str, Any]:
    return {"vertices": [], "chainInfo": chain_info(ctx, X_CHAIN)}


def get_vertex(ctx: RequestContext) -> dict[str, Any]:
    raise not_found(f"vertex {ctx.params['vertexHash']} not found: the X-Chain of this network is linearized "
                    "(post-Cortina), it has blocks and no vertices")

