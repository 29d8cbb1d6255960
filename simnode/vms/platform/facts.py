"""What a P-Chain block did that the chain's state does not keep: how its staker sets changed and
what continuous fees L1 validators paid while chain time advanced to it.

The VM gathers them while a block is built (State.facts) and stores them at the block's height
(state.K_FACTS) in the block's own batch; the index derives the staking and L1 fee series from
them (simnode/index/metrics/platform.py) and the primary network's staker, L1 validator and
refund rows (simnode/index/primary/platform.py), again from storage alone on `simnode reindex`.

Record: [time, stakers, fees, ended, l1, refunds, accrued]
    stakers  [[subnet ID, kind, count change, weight change], ...] sorted; kind VALIDATORS or
             DELEGATORS (an L1's validators count as that subnet's validators)
    fees     [[from, seconds, active L1 validators, fee excess at `from`,
               [[validation ID, subnet ID, node ID, paid], ...]], ...]: each advance of chain time
             that charged fees, in order; `paid` is what the validator paid over those seconds
             (its whole balance when that ran out first)
    ended    [staker tx ID, ...]: the stakers whose staking ended, in order
    l1       [[validation ID, L1 validator record], ...] sorted: every L1 validator record the block
             wrote (time-driven deactivations included; weight 0: removed)
    refunds  [UTXO bytes, ...]: the L1 balances paid back, in order
    accrued  the L1 fee counter (meta.accrued_fees) when the block was accepted
"""

from __future__ import annotations

from dataclasses import dataclass, field

VALIDATORS, DELEGATORS = 0, 1


@dataclass(slots=True)
class BlockFacts:
    stakers: dict[tuple[bytes, int], list[int]] = field(default_factory=dict)
    fees: list[list] = field(default_factory=list)
    ended: list[bytes] = field(default_factory=list)
    l1: dict[bytes, list] = field(default_factory=dict)
    refunds: list[bytes] = field(default_factory=list)

    def staker(self, subnet_id: bytes, kind: int, count: int, weight: int) -> None:
        entry = self.stakers.setdefault((subnet_id, kind), [0, 0])
        entry[0] += count
        entry[1] += weight

    def charged(self, start: int, seconds: int, active: int, excess: int, paid: list[list]) -> None:
        self.fees.append([start, seconds, active, excess, sorted(paid)])

    def record(self, time: int, accrued: int) -> list:
        stakers = [[subnet, kind, c, w] for (subnet, kind), (c, w) in sorted(self.stakers.items()) if c or w]
        return [time, stakers, self.fees, self.ended, sorted(self.l1.items()), self.refunds, accrued]
