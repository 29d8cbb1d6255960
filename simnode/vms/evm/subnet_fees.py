"""subnet-EVM's dynamic fees: the genesis `config.feeConfig` and the 10-second gas window.

As subnet-evm (plugin/evm/customheader, upgrade/subnetevm, blockgascost, commontype/fee_config.go):
* gas limit of every block = feeConfig.gasLimit (the genesis block keeps the genesis `gasLimit`);
* header extra = the gas window, 10 × u64 big-endian (80 bytes): per second of the last 10, the
  gas used. A child's window is its parent's extra, plus the parent's gasUsed in the newest slot,
  shifted left by the seconds elapsed;
* base fee: the child of genesis pays minBaseFee; otherwise, with S = sum(window) and
  T = targetGas, d = max(1, |S − T| · parentBaseFee / T / baseFeeChangeDenominator):
  S = T keeps the parent's base fee, S > T adds d, S < T subtracts d · max(1, elapsed // 10)
  (only when more than one window elapsed), floored at minBaseFee;
* blockGasCost = clamp(parentCost ± step · |targetBlockRate − elapsed|, min, max)
  (+ when faster than the target rate); minBlockGasCost after genesis; 0 from Granite on (the
  chain's Granite time; a local network's is before any block but a genesis at time 0).
Times are header timestamps in seconds (block time in ms // 1000).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from simnode.errors import InvalidInput
from simnode.formats import FormatError
from simnode.formats.jsonnum import hex_or_decimal

WINDOW_LEN = 10
MAX_U64 = (1 << 64) - 1
MAX_U256 = (1 << 256) - 1

# field name in JSON -> attribute, in subnet-evm's order (also the IFeeManager order)
FEE_CONFIG_FIELDS = (
    ("gasLimit", "gas_limit"),
    ("targetBlockRate", "target_block_rate"),
    ("minBaseFee", "min_base_fee"),
    ("targetGas", "target_gas"),
    ("baseFeeChangeDenominator", "base_fee_change_denominator"),
    ("minBlockGasCost", "min_block_gas_cost"),
    ("maxBlockGasCost", "max_block_gas_cost"),
    ("blockGasCostStep", "block_gas_cost_step"),
)


class FeeConfigError(InvalidInput):
    pass


@dataclass(frozen=True, slots=True)
class SubnetFeeConfig:
    """commontype.FeeConfig; the defaults are extras.DefaultFeeConfig."""

    gas_limit: int = 8_000_000
    target_block_rate: int = 2
    min_base_fee: int = 25_000_000_000
    target_gas: int = 15_000_000
    base_fee_change_denominator: int = 36
    min_block_gas_cost: int = 0
    max_block_gas_cost: int = 1_000_000
    block_gas_cost_step: int = 200_000

    @classmethod
    def from_json(cls, data: Any) -> SubnetFeeConfig:
        """Parse and verify a `feeConfig` object (FeeConfig.Verify's checks and wording)."""
        if not isinstance(data, dict):
            raise FeeConfigError("feeConfig must be an object")
        values: dict[str, int] = {}
        for key, attr in FEE_CONFIG_FIELDS:
            raw = data.get(key)
            if raw is None:
                if key == "targetBlockRate":
                    values[attr] = 0
                    continue
                raise FeeConfigError(f"{key} cannot be nil")
            values[attr] = _number(raw, key)
        cfg = cls(**values)
        cfg.verify()
        return cfg

    def verify(self) -> None:
        """FeeConfig.Verify: its checks, order and wording ("<rule>: <field> = <value>")."""
        if self.gas_limit <= 0:
            raise FeeConfigError(f"gasLimit cannot be less than or equal to 0: gasLimit = {self.gas_limit}")
        if self.target_block_rate <= 0:
            raise FeeConfigError("targetBlockRate cannot be less than or equal to 0: "
                                 f"targetBlockRate = {self.target_block_rate}")
        if self.min_base_fee < 0:
            raise FeeConfigError(f"minBaseFee cannot be less than 0: minBaseFee = {self.min_base_fee}")
        if self.target_gas <= 0:
            raise FeeConfigError(f"targetGas cannot be less than or equal to 0: targetGas = {self.target_gas}")
        if self.base_fee_change_denominator <= 0:
            raise FeeConfigError("baseFeeChangeDenominator cannot be less than or equal to 0: "
                                 f"baseFeeChangeDenominator = {self.base_fee_change_denominator}")
        if self.min_block_gas_cost < 0:
            raise FeeConfigError(f"minBlockGasCost cannot be less than 0: minBlockGasCost = {self.min_block_gas_cost}")
        if self.min_block_gas_cost > self.max_block_gas_cost:
            raise FeeConfigError("minBlockGasCost cannot be greater than maxBlockGasCost: "
                                 f"minBlockGasCost = {self.min_block_gas_cost}, "
                                 f"maxBlockGasCost = {self.max_block_gas_cost}")
        if self.block_gas_cost_step < 0:
            raise FeeConfigError("blockGasCostStep cannot be less than 0: "
                                 f"blockGasCostStep = {self.block_gas_cost_step}")
        if self.max_block_gas_cost > MAX_U64:
            raise FeeConfigError("maxBlockGasCost is not a valid uint64: "
                                 f"maxBlockGasCost = {self.max_block_gas_cost}")
        for key, attr in FEE_CONFIG_FIELDS:
            if getattr(self, attr) > MAX_U256:
                raise FeeConfigError(f"{key} exceeds hash length: 32 bytes")

    def to_json(self) -> dict[str, int]:
        return {key: getattr(self, attr) for key, attr in FEE_CONFIG_FIELDS}


def _number(raw: Any, key: str) -> int:
    if isinstance(raw, bool):
        raise FeeConfigError(f"{key}: not a number")
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    try:
        return hex_or_decimal(raw, signed=True)
    except FormatError:
        raise FeeConfigError(f"{key}: not a number: {raw!r}") from None


# ----------------------------------------------------------------------------- pure rules


def window_add(window: tuple[int, ...], amount: int) -> tuple[int, ...]:
    """Add to the newest slot, saturating at MaxUint64."""
    return window[:-1] + (min(window[-1] + amount, MAX_U64),)


def window_shift(window: tuple[int, ...], n: int) -> tuple[int, ...]:
    """Drop the oldest n slots, add n empty ones."""
    if n >= WINDOW_LEN:
        return (0,) * WINDOW_LEN
    return window[n:] + (0,) * n


def window_sum(window: tuple[int, ...]) -> int:
    return min(sum(window), MAX_U64)


def window_bytes(window: tuple[int, ...]) -> bytes:
    return b"".join(v.to_bytes(8, "big") for v in window)


def parse_window(extra: bytes) -> tuple[int, ...]:
    if len(extra) < 8 * WINDOW_LEN:
        raise ValueError(f"insufficient length for window: expected at least {8 * WINDOW_LEN} bytes "
                         f"but got {len(extra)} bytes")
    return tuple(int.from_bytes(extra[i * 8:i * 8 + 8], "big") for i in range(WINDOW_LEN))


def base_fee_from_window(cfg: SubnetFeeConfig, parent_base_fee: int, window: tuple[int, ...],
                         elapsed: int) -> int:
    """The child's base fee from the parent's and the child's (already rolled) window."""
    total = window_sum(window)
    target = cfg.target_gas
    if total == target:
        return parent_base_fee
    if total > target:
        delta = max((total - target) * parent_base_fee // target // cfg.base_fee_change_denominator, 1)
        base_fee = parent_base_fee + delta
    else:
        delta = max((target - total) * parent_base_fee // target // cfg.base_fee_change_denominator, 1)
        windows_elapsed = elapsed // WINDOW_LEN
        if windows_elapsed > 1:
            delta *= windows_elapsed
        base_fee = parent_base_fee - delta
    return min(max(base_fee, cfg.min_base_fee), MAX_U256)


def block_gas_cost(cfg: SubnetFeeConfig, parent_cost: int | None, elapsed: int) -> int:
    """blockgascost.BlockGasCost with feeConfig's step (parent_cost None = the genesis block)."""
    if parent_cost is None:
        return cfg.min_block_gas_cost
    change = min(cfg.block_gas_cost_step * abs(cfg.target_block_rate - elapsed), MAX_U64)
    if elapsed > cfg.target_block_rate:
        cost = parent_cost - change
        if cost < 0:
            cost = cfg.min_block_gas_cost
    else:
        cost = parent_cost + change
        if cost > MAX_U64:
            cost = cfg.max_block_gas_cost
    return min(max(cost, cfg.min_block_gas_cost), cfg.max_block_gas_cost)


# ----------------------------------------------------------------------------- per-block state


@dataclass(frozen=True, slots=True)
class WindowFeeState:
    """What a block's fees are derived from and what its child needs: the block's header extra
    (the window before its own gas), its base fee, block gas cost and gas used."""

    window: tuple[int, ...] = (0,) * WINDOW_LEN
    base_fee: int = 0
    block_gas_cost: int | None = None  # None: the genesis block (subnet-evm leaves it nil)
    gas_used: int = 0
    genesis: bool = False

    def consume(self, gas: int) -> WindowFeeState:
        return replace(self, gas_used=self.gas_used + gas)

    def encode(self) -> bytes:
        """The header extra: the window."""
        return window_bytes(self.window)

    def to_row(self) -> list[int]:
        return [*self.window, self.base_fee, -1 if self.block_gas_cost is None else self.block_gas_cost,
                self.gas_used, int(self.genesis)]

    @classmethod
    def from_row(cls, row: list[int]) -> WindowFeeState:
        w = tuple(row[:WINDOW_LEN])
        base_fee, bgc, used, gen = row[WINDOW_LEN:WINDOW_LEN + 4]
        return cls(w, base_fee, None if bgc < 0 else bgc, used, bool(gen))


class SubnetEVMFeeRules:
    """subnet-EVM's fee rules for `EVMChain` (same interface as fees.ACP176FeeRules)."""

    name = "subnet-evm"

    def __init__(self, config: SubnetFeeConfig | None = None, *, granite_time: int = 0) -> None:
        self.config = config or SubnetFeeConfig()
        self.granite_time = granite_time

    def genesis_base_fee(self, genesis_json: dict) -> int:
        given = genesis_json.get("baseFeePerGas")
        if given is not None:
            return _number(given, "baseFeePerGas")
        return self.config.min_base_fee

    def genesis_state(self, base_fee: int) -> WindowFeeState:
        return WindowFeeState(base_fee=base_fee, genesis=True)

    def next_block_fees(self, parent: WindowFeeState, parent_ms: int, now_ms: int) -> tuple[WindowFeeState, int, int]:
        """(state before the child's gas is consumed, base fee, gas limit) of a child built at now_ms."""
        cfg = self.config
        parent_time, time = parent_ms // 1000, max(now_ms, parent_ms) // 1000
        elapsed = time - parent_time
        if parent.genesis:
            window: tuple[int, ...] = (0,) * WINDOW_LEN
            base_fee = cfg.min_base_fee
        else:
            window = window_shift(window_add(parent.window, parent.gas_used), elapsed)
            base_fee = base_fee_from_window(cfg, parent.base_fee, window, elapsed)
        if time >= self.granite_time:
            cost = 0
        else:
            cost = block_gas_cost(cfg, None if parent.genesis else parent.block_gas_cost, elapsed)
        return WindowFeeState(window, base_fee, cost, 0, False), base_fee, cfg.gas_limit
