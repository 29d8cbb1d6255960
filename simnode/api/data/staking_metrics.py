"""Metrics API routes of the P-Chain, read from the index's P-Chain metric rows:

    GET /v2/networks/{network}/metrics/{metric}              validator/delegator count and weight
                                                             of a subnet (?subnetId, default the
                                                             Primary Network), one point a day
    GET /v2/validators/metrics/{metric}                      fees of every L1 validator
    GET /v2/validation/{l1ValidationId}/metrics/{metric}     fees of one L1 validation
    GET /v2/validator/{nodeId}/metrics/{metric}              fees of a node's L1 validations
    GET /v2/subnet/{subnetId}/metrics/{metric}               fees of one L1's validators

The staking series run from the subnet's first day with stakers to today (the node's clock),
paged like the chain metrics; an L1's validators are its L1 validators and it has no
delegators. The fee routes (nAVAX, no paging in the document) list every day on which fees were
paid in [startTimestamp, endTimestamp); "paying validators" counts the validations that paid a
fee that day. See simnode/index/metrics/stake_query.py for the rules.
"""

from __future__ import annotations

from typing import Any

from ...formats.errors import FormatError
from ...formats.ids import ZERO_ID, id_from_str, node_id_from_str
from ...index.metrics.stake_query import fee_series, has_fees, has_stakers, stake_series
from .context import RequestContext
from .errors import bad_request, not_found
from .metric_common import index_store, points_json, time_bounds

P_CHAIN_ID = ZERO_ID


def _platform(ctx: RequestContext) -> Any:
    return ctx.node.chains[P_CHAIN_ID]


def _id(name: str, value: str, what: str) -> bytes:
    try:
        return id_from_str(value)
    except FormatError:
        raise bad_request(f"{name} must be a valid {what} (a cb58 ID)") from None


def network_metric(ctx: RequestContext) -> dict[str, Any]:
    # `network` (mainnet, fuji or testnet) names the running network whatever its value
    p = ctx.params
    store = index_store(ctx)
    subnet = _id("subnetId", str(p["subnetId"]), "subnet ID")
    if subnet != ZERO_ID and subnet not in _platform(ctx).state.subnets and not has_stakers(store, P_CHAIN_ID,
                                                                                            subnet):
        raise not_found(f"subnet {p['subnetId']} is not a subnet of this network")
    start, end = time_bounds(ctx)
    found = stake_series(store, P_CHAIN_ID, subnet, p["metric"], start, end, p["pageSize"], ctx.cursor,
                         ctx.node.clock.now())
    return ctx.paged({"results": points_json(found.points)}, found.next)


def _fees(ctx: RequestContext, key: bytes, known: bool, what: str) -> dict[str, Any]:
    store = index_store(ctx)
    metric = ctx.params["metric"]
    if not known and not has_fees(store, P_CHAIN_ID, metric, key):
        raise not_found(what)
    start, end = time_bounds(ctx)
    return {"results": points_json(fee_series(store, P_CHAIN_ID, metric, key, start, end))}


def validators_metric(ctx: RequestContext) -> dict[str, Any]:
    return _fees(ctx, b"", True, "")


def validation_metric(ctx: RequestContext) -> dict[str, Any]:
    ref = ctx.params["l1ValidationId"]
    vid = _id("l1ValidationId", ref, "validation ID")
    return _fees(ctx, vid, vid in _platform(ctx).state.l1, f"no L1 validation {ref} on this network")


def node_metric(ctx: RequestContext) -> dict[str, Any]:
    ref = ctx.params["nodeId"]
    try:
        node = node_id_from_str(ref)
    except FormatError:
        raise bad_request("nodeId must be a valid node ID (NodeID-...)") from None
    known = any(v.node_id == node for v in _platform(ctx).state.l1.values())
    return _fees(ctx, node, known, f"node {ref} has no L1 validation on this network")


def subnet_metric(ctx: RequestContext) -> dict[str, Any]:
    ref = ctx.params["subnetId"]
    subnet = _id("subnetId", ref, "subnet ID")
    known = subnet == ZERO_ID or subnet in _platform(ctx).state.subnets  # the Primary Network is one
    return _fees(ctx, subnet, known, f"subnet {ref} is not a subnet of this network")
