"""The P-Chain's index family: staking and L1 validator fee series from each accepted block's facts.

A P-Chain block row holds `"facts": [time, stakers, fees, ...]` (vms/platform/facts.py:
what the block changed in the staker sets, and the continuous fees L1 validators paid while chain
time advanced to it). From it, in the block's batch:

* per subnet, the current validator and delegator counts and weights, and their values after
  the last block of each day (a day without a P-Chain block carries the day before's);
* the fees every L1 validator paid, split into the UTC days they accrued in (the per-second fee
  over each piece of the advance, by the P-Chain's own fee rules, until the validator's
  payment for the advance is used up), per validation, node, subnet and in total, with their
  running sums and the validations that paid each day.

Tables: layout.py (the P-Chain section).
"""

from __future__ import annotations

from typing import Any

from ...store import Batch, pack, unpack
from ...vms.platform import fees
from ..keys import u64
from . import buckets
from .layout import F_CUM, F_FEES, F_PAYING, StakeSpace, stake_space

__all__ = ["block_row", "head_number", "index_block"]


def head_number(chain: Any) -> int:
    return chain.height


def block_row(chain: Any, number: int) -> dict | None:
    return chain.block_row(number)


class _Fees:
    """One block's fee rows, with running sums read and written through the batch."""

    def __init__(self, batch: Batch, sp: StakeSpace) -> None:
        self.batch = batch
        self.ch = batch.changes
        self.sp = sp

    def _add(self, running: bytes, daily: bytes, amount: int) -> list:
        raw = self.batch.get(running)
        cum = (unpack(raw) if raw is not None else 0) + amount
        self.ch[running] = pack(cum)
        row = self.batch.get(daily)
        rec = unpack(row) if row is not None else [0, 0, 0]
        rec[F_FEES] += amount
        rec[F_CUM] = cum
        return rec

    def paid(self, day: int, vid: bytes, subnet: bytes, node: bytes, amount: int) -> None:
        sp, ch, d8 = self.sp, self.ch, u64(day)
        total = self._add(sp.fee_totals + b"t", sp.fees_all + d8, amount)
        per_subnet = self._add(sp.fee_totals + b"s" + subnet, sp.fees_subnet + subnet + d8, amount)
        if self.batch.get(sp.paying_all + d8 + vid) is None:
            ch[sp.paying_all + d8 + vid] = b""
            total[F_PAYING] += 1
        if self.batch.get(sp.paying_subnet + subnet + d8 + vid) is None:
            ch[sp.paying_subnet + subnet + d8 + vid] = b""
            per_subnet[F_PAYING] += 1
        ch[sp.fees_all + d8] = pack(total)
        ch[sp.fees_subnet + subnet + d8] = pack(per_subnet)
        ch[sp.fees_validation + vid + d8] = pack(self._add(sp.fee_totals + b"v" + vid, sp.fees_validation + vid + d8,
                                                           amount)[:2])
        ch[sp.fees_node + node + d8] = pack(self._add(sp.fee_totals + b"n" + node, sp.fees_node + node + d8,
                                                      amount)[:2])


def split_advance(config: fees.ValidatorFeeConfig, start: int, seconds: int, active: int, excess: int,
                  payers: list[list]) -> list[tuple[int, list[tuple[list, int]]]]:
    """The fees of one advance of chain time by UTC day: [(day, [(payer, amount), ...]), ...]. Each
    day's piece costs a validator what validator_cost_of gives for it (the excess moving on as
    the P-Chain moves it); a payer pays until its payment for the whole advance is used up."""
    left = {i: p[3] for i, p in enumerate(payers)}
    out = []
    t, end = start, start + seconds
    while t < end:
        day = buckets.bucket_start(buckets.DAY, t)
        piece = min(end, day + buckets.DAY_S) - t
        cost = fees.validator_cost_of(config, active, excess, piece)
        excess = fees.validator_advance(active, excess, config.target, piece)
        paid = []
        for i, payer in enumerate(payers):
            amount = min(cost, left[i])
            if amount:
                left[i] -= amount
                paid.append((payer, amount))
        if paid:
            out.append((day, paid))
        t += piece
    return out


def index_block(chain: Any, row: dict, batch: Batch) -> int:
    """Stage the staking and fee rows of P-Chain block `row` in `batch`; returns its height."""
    time, stakers, charged = row["facts"][:3]
    sp = stake_space(chain.chain_id)
    ch = batch.changes
    day8 = u64(buckets.bucket_start(buckets.DAY, time))
    for subnet, kind, count, weight in stakers:
        raw = batch.get(sp.current + subnet)
        rec = unpack(raw) if raw is not None else [0, 0, 0, 0]
        rec[2 * kind] += count
        rec[2 * kind + 1] += weight
        packed = pack(rec)
        ch[sp.current + subnet] = packed
        ch[sp.daily + subnet + day8] = packed
    if charged:
        writer = _Fees(batch, sp)
        for start, seconds, active, excess, payers in charged:
            for day, paid in split_advance(chain.validator_fee_config, start, seconds, active, excess, payers):
                for (vid, subnet, node, _), amount in paid:
                    writer.paid(day, vid, subnet, node, amount)
    return row["height"]
