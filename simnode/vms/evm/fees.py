"""ACP-176 dynamic fees (Fortuna) advanced per millisecond (Granite), integer math as coreth.

State per block (coreth header extra, 24 bytes): capacity | excess | targetExcess (u64 each).
    T (target gas/s)  = 1,000,000 · e^(targetExcess / 2^25)      (fake exponential)
    price (wei)       = 1 · e^(excess / (87 · T))
    max capacity C    = 10 · T  (= the block gas limit)
    refill            = 2 · T per second, capped at C
    excess            = max(0, excess − T·Δt) + gas used by each block
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

MIN_TARGET_PER_SECOND = 1_000_000
TARGET_CONVERSION = 1 << 25  # MaxTargetChangeRate(1024) * MaxTargetExcessDiff(2^15)
MAX_TARGET_EXCESS_DIFF = 1 << 15
MIN_GAS_PRICE = 1
TARGET_TO_MAX = 2
TIME_TO_FILL_CAPACITY = 5
TARGET_TO_PRICE_UPDATE_CONVERSION = 87
MAX_UINT64 = (1 << 64) - 1



def fake_exponential(factor: int, numerator: int, denominator: int) -> int:
    """factor · e^(numerator/denominator), the Taylor-series integer approximation (EIP-4844)."""
    i = 1
    output = 0
    acc = factor * denominator
    while acc > 0:
        output += acc
        acc = (acc * numerator) // (denominator * i)
        i += 1
    return output // denominator


def calculate_price(min_price: int, excess: int, conversion: int) -> int:
    return min(fake_exponential(min_price, excess, conversion), MAX_UINT64)


@dataclass(frozen=True, slots=True)
class FeeState:
    capacity: int = 0
    excess: int = 0
    target_excess: int = 0
    block_gas_cost: ClassVar[int] = 0  # ACP-176 blocks (Granite on) pay no block gas cost

    def target(self) -> int:
        return calculate_price(MIN_TARGET_PER_SECOND, self.target_excess, TARGET_CONVERSION)

    def max_capacity(self) -> int:
        return min(self.target() * TARGET_TO_MAX * TIME_TO_FILL_CAPACITY, MAX_UINT64)

    def gas_price(self) -> int:
        return calculate_price(MIN_GAS_PRICE, self.excess, self.target() * TARGET_TO_PRICE_UPDATE_CONVERSION)

    def advance_ms(self, ms: int) -> FeeState:
        if ms <= 0:
            return self
        t = self.target()
        max_per_second = t * TARGET_TO_MAX
        cap = min(self.capacity + max_per_second * ms // 1000, self.max_capacity())
        excess = max(0, self.excess - t * ms // 1000)
        return FeeState(cap, excess, self.target_excess)

    def consume(self, gas: int) -> FeeState:
        """A block used `gas`. Capacity is tracked (floored at 0) but a devnet never waits on it."""
        return FeeState(max(0, self.capacity - gas), min(self.excess + gas, MAX_UINT64), self.target_excess)

    def to_row(self) -> list[int]:
        """The block row's "fee" entry (see block_rows.py)."""
        return [self.capacity, self.excess, self.target_excess]

    def encode(self) -> bytes:
        return (self.capacity.to_bytes(8, "big") + self.excess.to_bytes(8, "big")
                + self.target_excess.to_bytes(8, "big"))

    @classmethod
    def decode(cls, data: bytes) -> FeeState:
        if len(data) < 24:
            return cls()
        return cls(int.from_bytes(data[0:8], "big"), int.from_bytes(data[8:16], "big"),
                   int.from_bytes(data[16:24], "big"))


def next_block_fees(parent: FeeState, parent_ms: int, now_ms: int) -> tuple[FeeState, int, int]:
    """(state before the child's gas is consumed, base fee, gas limit) of a child built at now_ms."""
    st = parent.advance_ms(max(0, now_ms - parent_ms))
    return st, st.gas_price(), st.max_capacity()


AP3_INITIAL_BASE_FEE = 225 * 10**9  # what coreth reports as the genesis block's base fee


class ACP176FeeRules:
    """The C-Chain's fee rules as the object `EVMChain` is parametrized with (see subnet_fees.py
    for subnet-EVM's)."""

    name = "acp176"

    def genesis_base_fee(self, genesis_json: dict) -> int:
        given = genesis_json.get("baseFeePerGas")
        if given is None:
            return AP3_INITIAL_BASE_FEE
        return int(given, 16) if isinstance(given, str) else int(given)

    def genesis_state(self, base_fee: int) -> FeeState:
        return FeeState()

    def next_block_fees(self, parent: FeeState, parent_ms: int, now_ms: int) -> tuple[FeeState, int, int]:
        return next_block_fees(parent, parent_ms, now_ms)


ACP176_RULES = ACP176FeeRules()


def fee_state_from_row(row: list) -> object:
    """Decode a block row's "fee" entry: 3 numbers for ACP-176, longer for subnet-EVM's window."""
    if len(row) == 3:
        return FeeState(*row)
    from .subnet_fees import WindowFeeState
    return WindowFeeState.from_row(row)
