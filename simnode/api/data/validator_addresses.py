"""`GET /v2/subnets/{subnetId}/validators:getAddresses` of the Metrics API (Looking Glass): the
addresses set to receive the rewards of the subnet's validation periods that overlap
[startTimestamp, endTimestamp], one item per validation, in the order their txs were accepted.

An item is `{addresses, sortKey}`: the validation's reward addresses (bech32 without a chain
letter, as the document's example) and, as `sortKey`, the validation's start time (its
AddValidatorTx's timestamp: a validation starts when its tx is accepted since Durango), as a
string. A validation whose tx names no reward owner (a permissioned subnet's) has no addresses.
A period ends at its end time, or when it was removed. `network` names the running network
whatever its value (mainnet, fuji or testnet). Pages are cursors over the index's validator rows
of the subnet; a page can hold fewer items than `pageSize` when rows outside the time frame were
passed over, and its `nextPageToken` is absent only on the last.
"""

from __future__ import annotations

from typing import Any

from ...formats.errors import FormatError
from ...formats.ids import ZERO_ID, id_from_str
from ...index.primary import query
from ...index.primary.layout import REMOVED
from .context import RequestContext
from .errors import bad_request, not_found
from .metric_common import index_store, time_bounds
from .primary import addresses_json, listing

P_CHAIN_ID = ZERO_ID


def _period_end(rec: dict) -> int:
    return int(rec["et"]) if rec["st"] == REMOVED and rec.get("et") is not None else int(rec["end"])


def validator_addresses(ctx: RequestContext) -> dict[str, Any]:
    p = ctx.params
    store = index_store(ctx)
    ref = p["subnetId"]
    try:
        subnet = id_from_str(ref)
    except FormatError:
        raise bad_request("subnetId must be a valid subnet ID (a cb58 ID)") from None
    if subnet != ZERO_ID and subnet not in ctx.node.chains[P_CHAIN_ID].state.subnets:
        raise not_found(f"subnet {ref} is not a subnet of this network")
    start, end = time_bounds(ctx)
    now = ctx.node.clock.now()

    def overlaps(rec: dict) -> bool:
        return (end is None or rec["start"] <= end) and (start is None or _period_end(rec) >= start)

    f = query.ValidatorFilter(now=now, subnet=subnet)
    page = listing(ctx, query.validators, store, P_CHAIN_ID, p["pageSize"], reverse=False, sort="blockIndex", f=f,
                   exact_nodes=None, capacity_of=lambda _rec: None)
    items = [{"addresses": addresses_json(ctx.node, r.rec["vro"][1]) if r.rec.get("vro") else [],
              "sortKey": str(r.rec["start"])}
             for r in page.items if overlaps(r.rec)]
    return ctx.paged({"addresses": items}, page.next)
