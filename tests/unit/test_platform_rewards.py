"""AvalancheGo's reward formula, checked against an independent exact-fraction computation."""

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from simnode.network import LOCAL_STAKING
from simnode.vms.platform import rewards


def oracle(duration: int, stake: int, supply: int) -> int:
    p = LOCAL_STAKING
    rate = Fraction(p.min_consumption_rate, 1_000_000) + Fraction(
        p.max_consumption_rate - p.min_consumption_rate, 1_000_000) * Fraction(duration, p.minting_period)
    exact = (p.supply_cap - supply) * Fraction(stake, supply) * rate * Fraction(duration, p.minting_period)
    return min(p.supply_cap - supply, int(exact))  # floor


@given(st.integers(24 * 3600, 365 * 24 * 3600), st.integers(25 * 10**9, 3 * 10**15),
       st.integers(300 * 10**15, 700 * 10**15))
def test_matches_exact_fraction(duration, stake, supply):
    assert rewards.calculate(LOCAL_STAKING, duration, stake, supply) == oracle(duration, stake, supply)


def test_known_value():
    # 2000 AVAX for a year at 360M supply: 12% of (720M-360M)/360M of the stake = 240 AVAX.
    assert rewards.calculate(LOCAL_STAKING, 365 * 24 * 3600, 2000 * 10**9, 360 * 10**15) == 240 * 10**9


def test_split():
    assert rewards.split(1_000_000, 20_000) == (20_000, 980_000)
    assert rewards.split(999, 1_000_000) == (999, 0)
    assert rewards.split(7, 0) == (0, 7)
