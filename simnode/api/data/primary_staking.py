"""Validators, delegators, L1 validators, staking rewards, network stats and the AVAX supply.

Statuses come from the index (active until the staker's end: completed with its RewardValidatorTx,
or removed by a RemoveSubnetValidatorTx) and the node's clock (active with a start still ahead:
pending). Every validator's node here is this simulated network's, which is always up: an active
validation has uptimePerformance 100 and a healthy validatorHealth; its geolocation is not known
(null). Sorts and filters: query.validators. Lists run newest first (sortOrder desc) unless asked.

Rewards: a validation's potential reward is the VM's (fixed when it started); a completed one
carries the amounts its RewardValidatorTx paid (validation reward; delegation fees as
delegationRewardAmount), a delegator the gross and the net of its validator's fee.

`/v1/avax/supply` counts in AVAX (decimal strings): genesisUnlock (the genesis supply) plus the
rewards paid, less what the chains burned (P: fees and L1 validator fees; X: fees; C: the EVM's
burned fees, i.e. the balance of its blackhole coinbase, and the atomic txs' fees), is
totalSupply and, as the hosted API reports it, circulatingSupply; totalStaked is the current
primary-network stake, totalLocked the UTXOs still time-locked.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ...formats.errors import FormatError
from ...formats.ids import ZERO_ID, id_to_str, node_id_from_str
from ...index.primary import query
from ...index.primary.layout import ACTIVE, COMPLETED, REMOVED, REWARD_DELEGATOR, REWARD_VALIDATOR, STATUS_NAMES
from ...index.primary.platform import capacity
from ...vms.platform import rewards as prewards
from ...vms.platform.vm import l1_balance
from ..info import NODE_VERSION
from .context import NO_INDEX_PRIMARY, NULL, RequestContext
from .errors import bad_request
from .params import decimal
from .primary import (Assets, addresses_json, chain_id, hex0x, index_on, listing, node, parse_addresses, parse_id,
                      parse_node_ids, primary_chain, split_list)
from .primary_txs import fee_percent
from .resolve import C_CHAIN, P_CHAIN, X_CHAIN

MAX_CAPACITY = 720_000_000_000_000_000
HEALTHY = {"reachabilityPercent": 100, "benchedPChainRequestsPercent": 0, "benchedXChainRequestsPercent": 0,
           "benchedCChainRequestsPercent": 0}
STATUSES = {name: i for i, name in enumerate(STATUS_NAMES)}


def _desc(ctx: RequestContext) -> bool:
    return ctx.params.get("sortOrder", "desc") == "desc"


def _owner_addresses(ctx: RequestContext, owner: list | None) -> list[str]:
    return addresses_json(ctx.node, owner[1], "P") if owner else []


class Stakes:
    """What validator and delegator shapes need besides their records (one per request)."""

    def __init__(self, ctx: RequestContext) -> None:
        self.ctx = ctx
        self.vm = primary_chain(ctx, P_CHAIN)
        self.now = ctx.node.clock.now()
        self.db = ctx.store
        self._totals: dict[bytes, int] = {}

    def capacity_of(self, rec: dict) -> int | None:
        if rec["subnet"] != ZERO_ID or rec.get("shares") is None or query.status_of(rec, self.now) != ACTIVE:
            return None
        return capacity(self.vm, rec)

    def total_stake(self, subnet: bytes) -> int:
        if subnet not in self._totals:
            self._totals[subnet] = sum(e[0] for e in self.vm.state.vset.get(subnet, {}).values())
        return self._totals[subnet]

    def validator(self, r: query.Record) -> dict[str, Any]:
        rec = r.rec
        status = query.status_of(rec, self.now)
        body: dict[str, Any] = {"txHash": id_to_str(rec["tx"]), "nodeId": node(rec["node"]),
                                "subnetId": id_to_str(rec["subnet"]), "amountStaked": str(rec["w"]),
                                "startTimestamp": rec["start"], "endTimestamp": rec["end"],
                                "validationStatus": STATUS_NAMES[status]}
        if rec["shares"] is not None:
            body["delegationFee"] = fee_percent(rec["shares"])
        if rec["pk"] is not None:
            body["blsCredentials"] = {"publicKey": hex0x(rec["pk"]), "proofOfPossession": hex0x(rec["pop"])}
        primary = rec["shares"] is not None
        addresses = _owner_addresses(self.ctx, rec["vro"])
        if status == ACTIVE:
            total = self.total_stake(rec["subnet"])
            body.update({"stakePercentage": 100 * rec["w"] / total if total else 0, "delegatorCount": rec["an"],
                         "uptimePerformance": query.uptime_of(rec), "avalancheGoVersion": NODE_VERSION,
                         "potentialRewards": {"validationRewardAmount": str(rec["pot"]),
                                              "delegationRewardAmount": str(rec["facc"]),
                                              "rewardAddresses": addresses},
                         "validatorHealth": dict(HEALTHY), "geolocation": NULL})
            if primary:
                body["amountDelegated"] = str(rec["aw"])
                body["delegationCapacity"] = str(self.capacity_of(rec) or 0)
        elif status == COMPLETED:
            rewards: dict[str, Any] = {"validationRewardAmount": str(rec.get("rew", 0)),
                                       "delegationRewardAmount": str(rec.get("frew", 0)),
                                       "rewardAddresses": addresses}
            if rec.get("rtx"):
                rewards["rewardTxHash"] = id_to_str(rec["rtx"])
            body.update({"delegatorCount": rec["dn"], "rewards": rewards})
            if primary:
                body["amountDelegated"] = str(rec["dw"])
        elif status == REMOVED:
            body.update({"removeTxHash": id_to_str(rec.get("rm") or rec["tx"]), "removeTimestamp": rec["et"]})
        return body

    def shares_of(self, rec: dict) -> int:
        """The delegation fee (ppm) of a delegator's validator."""
        v = query.validator_at(self.db, ZERO_ID, rec["vbi"]) if rec["vbi"] is not None else None
        return (v.get("shares") or 0) if v else 0

    def delegator(self, r: query.Record) -> dict[str, Any]:
        rec = r.rec
        status = query.status_of(rec, self.now)
        shares = self.shares_of(rec)
        body: dict[str, Any] = {"txHash": id_to_str(rec["tx"]), "nodeId": node(rec["node"]),
                                "rewardAddresses": _owner_addresses(self.ctx, rec["ro"]),
                                "amountDelegated": str(rec["w"]), "delegationFee": fee_percent(shares),
                                "startTimestamp": rec["start"], "endTimestamp": rec["end"],
                                "delegationStatus": STATUS_NAMES[status]}
        if status == COMPLETED:
            body.update({"grossReward": str(rec.get("gross", 0)), "netReward": str(rec.get("net", 0))})
        else:
            body.update({"estimatedGrossReward": str(rec["pot"]),
                         "estimatedNetReward": str(prewards.split(rec["pot"], shares)[1])})
        return body


# ------------------------------------------------------------------------------ validators


def _amount_param(ctx: RequestContext, name: str) -> int | None:
    text = ctx.params.get(name)
    if text is None:
        return None
    amount = decimal(text, MAX_CAPACITY)
    if amount is None:
        raise bad_request(f"{name} must be an amount in nAVAX between 0 and {MAX_CAPACITY}")
    return amount


def _subnet_param(ctx: RequestContext) -> bytes | None:
    text = ctx.params.get("subnetId")
    return None if text is None else parse_id(str(text), "subnetId")


def list_validators(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    index_on(ctx)
    stakes = Stakes(ctx)
    texts = tuple(split_list(p.get("nodeIds")))
    try:
        exact = [node_id_from_str(t) for t in texts]
    except FormatError:
        exact = []
    fee_lo, fee_hi = p.get("minFeePercentage"), p.get("maxFeePercentage")
    time_lo, time_hi = p.get("minTimeRemaining"), p.get("maxTimeRemaining")
    f = query.ValidatorFilter(
        now=stakes.now, node_texts=texts, node_name=node,
        status=STATUSES[p["validationStatus"]] if p.get("validationStatus") else None,
        subnet=_subnet_param(ctx),
        capacity=(_amount_param(ctx, "minDelegationCapacity"), _amount_param(ctx, "maxDelegationCapacity")),
        remaining=(None if time_lo is None else -int(-time_lo // 1), None if time_hi is None else int(time_hi)),
        fee_shares=(None if fee_lo is None else -int(-fee_lo * 10_000 // 1),
                    None if fee_hi is None else int(fee_hi * 10_000)),
        uptime=(p.get("minUptimePerformance"), p.get("maxUptimePerformance")))
    page = listing(ctx, query.validators, stakes.db, ZERO_ID, p["pageSize"], reverse=_desc(ctx),
                   sort=p.get("sortBy", "blockIndex"), f=f, exact_nodes=exact or None, capacity_of=stakes.capacity_of)
    return ctx.paged({"validators": [stakes.validator(r) for r in page.items]}, page.next)


def get_validator(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    index_on(ctx)
    node_id = parse_node_ids(p["nodeId"], "nodeId")
    stakes = Stakes(ctx)
    status = STATUSES[p["validationStatus"]] if p.get("validationStatus") else None
    page = listing(ctx, query.node_validations, stakes.db, ZERO_ID, node_id[0], p["pageSize"], reverse=_desc(ctx),
                   status=status, now=stakes.now)
    return ctx.paged({"validators": [stakes.validator(r) for r in page.items]}, page.next)


def list_delegators(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    index_on(ctx)
    stakes = Stakes(ctx)
    nodes = parse_node_ids(p.get("nodeIds"))
    owners = parse_addresses(ctx.node, p["rewardAddresses"], P_CHAIN, "rewardAddresses") \
        if p.get("rewardAddresses") is not None else []
    status = STATUSES[p["delegationStatus"]] if p.get("delegationStatus") else None
    page = listing(ctx, query.delegators, stakes.db, ZERO_ID, p["pageSize"], reverse=_desc(ctx), now=stakes.now,
                   nodes=nodes, reward_addresses=owners, status=status)
    return ctx.paged({"delegators": [stakes.delegator(r) for r in page.items]}, page.next)


# ------------------------------------------------------------------------------ L1 validators


def list_l1_validators(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    index_on(ctx)
    vm = primary_chain(ctx, P_CHAIN)
    db = ctx.store
    include = bool(p.get("includeInactiveL1Validators"))
    subnet = _subnet_param(ctx)
    node_id = parse_node_ids(p["nodeId"], "nodeId")[0] if p.get("nodeId") else None
    if p.get("l1ValidationId") is not None:
        found = query.l1_validator(db, ZERO_ID, parse_id(p["l1ValidationId"], "l1ValidationId"))
        keep = found is not None and (subnet is None or found.rec["subnet"] == subnet) and \
            (node_id is None or found.rec["node"] == node_id) and \
            (include or (found.rec["w"] > 0 and found.rec["end"] != 0))
        items: tuple = (found,) if keep else ()
        nxt = None
    else:
        page = listing(ctx, query.l1_validators, db, ZERO_ID, p["pageSize"], reverse=False, include_inactive=include,
                       node=node_id, subnet=subnet)
        items, nxt = page.items, page.next
    return ctx.paged({"validators": [l1_json(ctx, vm, r) for r in items], "blockHeight": str(vm.height)}, nxt)


def l1_json(ctx: RequestContext, vm: Any, r: query.Record) -> dict[str, Any]:
    rec = r.rec
    current = vm.state.l1.get(r.key)
    rbo, do = rec["rbo"], rec["do"]
    return {"validationId": id_to_str(r.key), "validationIdHex": hex0x(r.key), "nodeId": node(rec["node"]),
            "subnetId": id_to_str(rec["subnet"]), "weight": rec["w"],
            "remainingBalance": l1_balance(vm, current) if current is not None else 0,
            "creationTimestamp": rec["t"],
            "blsCredentials": {"publicKey": hex0x(rec["pk"]), "proofOfPossession": hex0x(rec["pop"])},
            "remainingBalanceOwner": {"addresses": addresses_json(ctx.node, rbo[1], "P"), "threshold": rbo[0]},
            "deactivationOwner": {"addresses": addresses_json(ctx.node, do[1], "P"), "threshold": do[0]}}


# ------------------------------------------------------------------------------ rewards


def _reward_filters(ctx: RequestContext) -> tuple[list[bytes], list[bytes]]:
    p = ctx.params
    if p.get("addresses") is None and p.get("nodeIds") is None:
        raise bad_request("one of addresses or nodeIds is required")
    addresses = parse_addresses(ctx.node, p["addresses"], P_CHAIN) if p.get("addresses") is not None else []
    return addresses, parse_node_ids(p.get("nodeIds"))


def historical_rewards(ctx: RequestContext) -> dict[str, Any]:
    index_on(ctx)
    addresses, nodes = _reward_filters(ctx)
    assets = Assets(ctx.node)
    page = listing(ctx, query.rewards, ctx.store, ZERO_ID, ctx.params["pageSize"], reverse=_desc(ctx),
                   addresses=addresses, nodes=nodes)
    out = []
    for u, staker in page.items:
        rec, o = staker.rec, u.out
        out.append({"addresses": addresses_json(ctx.node, o.addresses), "txHash": id_to_str(rec["tx"]),
                    "amountStaked": str(rec["w"]), "nodeId": node(rec["node"]), "startTimestamp": rec["start"],
                    "endTimestamp": rec["end"], "rewardType": o.reward, "utxoId": id_to_str(o.uid),
                    "outputIndex": o.index, "reward": assets.amount(o.asset, o.amount),
                    "rewardTxHash": id_to_str(o.tx_hash)})
    return ctx.paged({"historicalRewards": out}, page.next)


def pending_rewards(ctx: RequestContext) -> dict[str, Any]:
    index_on(ctx)
    addresses, nodes = _reward_filters(ctx)
    stakes = Stakes(ctx)
    assets = Assets(ctx.node)
    avax = ctx.node.genesis.avax_asset_id
    page = listing(ctx, query.stakers_of, stakes.db, ZERO_ID, ctx.params["pageSize"], reverse=_desc(ctx),
                   now=stakes.now, addresses=addresses, nodes=nodes)
    out = []
    for r in page.items:
        rec = r.rec
        span = max(1, rec["end"] - rec["start"])
        progress = min(100.0, max(0.0, 100 * (stakes.now - rec["start"]) / span))
        if r.kind == "v":
            owner, kind, estimate = rec["vro"], REWARD_VALIDATOR, rec["pot"]
        else:
            owner, kind, estimate = rec["ro"], REWARD_DELEGATOR, prewards.split(rec["pot"], stakes.shares_of(rec))[1]
        out.append({"addresses": addresses_json(ctx.node, owner[1]), "txHash": id_to_str(rec["tx"]),
                    "amountStaked": str(rec["w"]), "nodeId": node(rec["node"]), "startTimestamp": rec["start"],
                    "endTimestamp": rec["end"], "rewardType": kind, "progress": progress,
                    "estimatedReward": assets.amount(avax, estimate)})
    return ctx.paged({"pendingRewards": out}, page.next)


# ------------------------------------------------------------------------------ network, supply


def network_details(ctx: RequestContext) -> dict[str, Any]:
    vm = primary_chain(ctx, P_CHAIN)
    validators = [s for s in vm.state.stakers.values() if s.subnet_id == ZERO_ID and s.is_validator]
    delegators = [s for s in vm.state.stakers.values() if s.subnet_id == ZERO_ID and not s.is_validator]
    validated = sum(s.weight for s in validators)
    delegated = sum(s.weight for s in delegators)
    supply = vm.current_supply()
    potential = sum(s.potential_reward for s in validators + delegators)
    return {"validatorDetails": {"validatorCount": len(validators), "totalAmountStaked": str(validated),
                                 "estimatedAnnualStakingReward": str(potential),
                                 "stakingDistributionByVersion": [{"version": NODE_VERSION,
                                                                   "amountStaked": str(validated),
                                                                   "validatorCount": len(validators)}],
                                 "stakingRatio": _ratio(validated + delegated, supply)},
            "delegatorDetails": {"delegatorCount": len(delegators), "totalAmountStaked": str(delegated)}}


def _ratio(part: int, whole: int, digits: int = 18) -> str:
    if not whole:
        return "0"
    scaled = part * 10**digits // whole
    return _decimal(scaled, digits)


def _decimal(units: int, decimals: int) -> str:
    """`units` of 10^-decimals as an exact decimal string."""
    sign = "-" if units < 0 else ""
    units = abs(units)
    whole, frac = divmod(units, 10**decimals)
    text = f"{whole}.{frac:0{decimals}d}".rstrip("0").rstrip(".")
    return sign + text


def avax(n_avax: int) -> str:
    return _decimal(n_avax, 9)


def supply(ctx: RequestContext) -> dict[str, Any]:
    db = ctx.indexed_store(NO_INDEX_PRIMARY)
    node_ = ctx.node
    vm = primary_chain(ctx, P_CHAIN)
    cchain = primary_chain(ctx, C_CHAIN)
    from ...vms.evm.headers import BLACKHOLE  # the C-Chain's coinbase: its balance is every fee the EVM burned
    evm_burned_wei = cchain.view(None).get_balance(BLACKHOLE)
    now = node_.clock.now()
    remaining = sum(l1_balance(vm, v) for v in vm.state.l1.values())
    l1_fees = query.total(db, "l1dep") - query.total(db, "l1ref") - remaining
    p_burned = query.total(db, "burn:" + ZERO_ID.hex()) + l1_fees
    x_burned = query.total(db, "burn:" + chain_id(node_, X_CHAIN).hex())
    c_burned_wei = query.total(db, "burn:" + chain_id(node_, C_CHAIN).hex()) * 10**9 + evm_burned_wei
    rewards_paid = query.total(db, "rewards")
    genesis = node_.genesis.initial_supply
    total_wei = (genesis + rewards_paid - p_burned - x_burned) * 10**9 - c_burned_wei
    staked = sum(e[0] for e in vm.state.vset.get(ZERO_ID, {}).values())
    locked = sum(u.out.amount for u in query.locked_utxos(db, now))
    return {"circulatingSupply": _decimal(total_wei, 18), "totalSupply": _decimal(total_wei, 18),
            "totalPBurned": avax(p_burned), "totalCBurned": _decimal(c_burned_wei, 18),
            "totalXBurned": avax(x_burned), "totalStaked": avax(staked), "totalLocked": avax(locked),
            "totalRewards": avax(rewards_paid),
            "lastUpdated": datetime.fromtimestamp(node_.clock.now_ms() / 1000, UTC).isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "genesisUnlock": avax(genesis), "l1ValidatorFees": avax(l1_fees)}

