"""Reading the P-Chain's metric tables: staking series and L1 validator fee series.

    stake_series(db, p_chain_id, subnet, metric, start, end, limit, cursor, today) -> Series
    fee_series(db, p_chain_id, metric, key, start, end) -> [Point, ...]
    has_stakers(db, p_chain_id, subnet) / has_fees(db, p_chain_id, metric, key)

Both list day starts with start <= t < end, newest first. A staking series has a point for every
day from the subnet's first day with stakers to `today` (a day without a P-Chain block holds the
day before's values); a fee series has one for every day on which fees were paid (what the
P-Chain has charged up to its last block: fees accruing since then appear with its next one).
"""

from __future__ import annotations

from ...store import unpack
from ..keys import num, u64
from ..page import Readable, first, page
from . import buckets
from .layout import F_CUM, F_FEES, F_PAYING, stake_space
from .query import Point, Series

NETWORK_METRICS = {"validatorCount": 0, "validatorWeight": 1, "delegatorCount": 2, "delegatorWeight": 3}
# metric -> (scope, FEES field); a scope's rows are keyed by validation ID, node ID, subnet ID or nothing
FEE_METRICS = {
    "totalCumulativeFeesDaily": ("all", F_CUM), "totalValidatorFeesDaily": ("all", F_FEES),
    "totalPayingValidatorsDaily": ("all", F_PAYING),
    "validationCumulativeFeesDaily": ("validation", F_CUM), "validationFeesDaily": ("validation", F_FEES),
    "perNodeCumulativeFeesPaid": ("node", F_CUM), "perNodeDailyFeesPaid": ("node", F_FEES),
    "perSubnetDailyFeesPaid": ("subnet", F_FEES), "perSubnetCumulativeFeesPaid": ("subnet", F_CUM),
    "perSubnetPayingValidators": ("subnet", F_PAYING),
}
DAY = buckets.DAY_S


def _day_at_or_after(t: int) -> int:
    return -(-t // DAY) * DAY


def has_stakers(db: Readable, p_chain_id: bytes, subnet: bytes) -> bool:
    """Whether the subnet ever had a staker (validator, delegator or L1 validator)."""
    return next(iter(db.iterate(stake_space(p_chain_id).daily + subnet)), None) is not None


def stake_series(db: Readable, p_chain_id: bytes, subnet: bytes, metric: str, start: int | None, end: int | None,
                 limit: int, cursor: int | None, today: int) -> Series:
    prefix = stake_space(p_chain_id).daily + subnet
    head = next(iter(db.iterate(prefix)), None)
    if head is None:
        return Series((), None)
    lo = num(head[0][len(prefix):])
    if start is not None:
        lo = max(lo, _day_at_or_after(start))
    hi = buckets.bucket_start(buckets.DAY, today)
    if end is not None:
        if end == 0:
            return Series((), None)
        hi = min(hi, buckets.bucket_start(buckets.DAY, end - 1))
    if cursor is not None:
        hi = min(hi, cursor - DAY)
    if hi < lo:
        return Series((), None)
    page_lo = max(lo, hi - (limit - 1) * DAY)
    field = NETWORK_METRICS[metric]
    rows, _ = page(db, prefix, (hi - page_lo) // DAY + 1, None, False, u64(page_lo), u64(hi + 1))
    changes = [(num(s), unpack(v)[field]) for s, v in rows]
    before = first(db, prefix, u64(page_lo - 1)) if page_lo > 0 else None
    value = unpack(before[1])[field] if before is not None else 0
    points = []
    i = 0
    for day in range(page_lo, hi + 1, DAY):
        while i < len(changes) and changes[i][0] <= day:
            value = changes[i][1]
            i += 1
        points.append(Point(day, value))
    points.reverse()
    return Series(tuple(points), page_lo if page_lo > lo else None)


def _fee_prefix(p_chain_id: bytes, scope: str, key: bytes) -> bytes:
    sp = stake_space(p_chain_id)
    return {"all": sp.fees_all, "validation": sp.fees_validation, "node": sp.fees_node,
            "subnet": sp.fees_subnet}[scope] + key


def has_fees(db: Readable, p_chain_id: bytes, metric: str, key: bytes) -> bool:
    return next(iter(db.iterate(_fee_prefix(p_chain_id, FEE_METRICS[metric][0], key))), None) is not None


def fee_series(db: Readable, p_chain_id: bytes, metric: str, key: bytes, start: int | None,
               end: int | None) -> list[Point]:
    scope, field = FEE_METRICS[metric]
    prefix = _fee_prefix(p_chain_id, scope, key)
    lo = None if start is None else u64(start)
    hi = None if end is None else u64(end)
    out = []
    for suffix, raw in page(db, prefix, 1 << 30, None, True, lo, hi)[0]:
        rec = unpack(raw)
        out.append(Point(num(suffix), rec[field] if field < len(rec) else 0))
    return out
