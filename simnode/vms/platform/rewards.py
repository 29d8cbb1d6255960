"""AvalancheGo's staking reward calculator (vms/platformvm/reward/calculator.go).

Reward = RemainingSupply × (Stake / Supply) × MintingRate × (Duration / MintingPeriod), with
MintingRate = MinRate + (MaxRate − MinRate) × Duration / MintingPeriod; integer arithmetic with
AvalancheGo's exact order of floor divisions (durations in seconds: the units cancel).
"""

from __future__ import annotations

from simnode.network import StakingParams

PERCENT_DENOMINATOR = 1_000_000
MAX_U64 = (1 << 64) - 1


def calculate(params: StakingParams, duration_s: int, stake: int, supply: int) -> int:
    period = params.minting_period
    num = ((params.max_consumption_rate - params.min_consumption_rate) * duration_s
           + params.min_consumption_rate * period)
    den = period * PERCENT_DENOMINATOR
    remaining = params.supply_cap - supply
    reward = remaining * num * stake * duration_s
    reward //= den
    reward //= supply
    reward //= period
    if reward > MAX_U64:
        return remaining
    return min(remaining, reward)


def split(total: int, shares: int) -> tuple[int, int]:
    """reward.Split: (amount from shares [delegatee], remainder [delegator])."""
    remainder_shares = PERCENT_DENOMINATOR - shares
    if remainder_shares * total <= MAX_U64:
        remainder = remainder_shares * total // PERCENT_DENOMINATOR
    else:
        remainder = remainder_shares * (total // PERCENT_DENOMINATOR)
    return total - remainder, remainder
