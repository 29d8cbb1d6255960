"""P-Chain dynamic fees (ACP-103, vms/platformvm/txs/fee and vms/components/gas).

fee = gas × price, gas = Σ complexity[d] × weight[d] over (bandwidth, dbRead, dbWrite, compute);
price = minPrice · e^(excess/K) (EIP-4844 fake exponential). The fee state (capacity, excess)
refills/decays with time and is consumed by each accepted tx. L1 validators pay a continuous fee
(validators/fee): a per-second price from its own excess.
"""

from __future__ import annotations

from dataclasses import dataclass

from simnode.codec import Input, OutputOwners, TransferableInput, TransferableOutput
from simnode.codec.stakeable import StakeableLockIn, StakeableLockOut
from simnode.errors import Refused
from simnode.warp.message import parse_signed_message

from . import txs as t
from .tx_parts import ProofOfPossession

MAX_U64 = (1 << 64) - 1

BANDWIDTH, DB_READ, DB_WRITE, COMPUTE = range(4)


@dataclass(frozen=True, slots=True)
class FeeConfig:
    weights: tuple[int, int, int, int] = (1, 1000, 1000, 4)
    max_capacity: int = 1_000_000
    max_per_second: int = 100_000
    target_per_second: int = 50_000
    min_price: int = 1
    excess_conversion_constant: int = 2_164_043

    def to_json(self) -> dict:
        return {"weights": list(self.weights), "maxCapacity": self.max_capacity, "maxPerSecond": self.max_per_second,
                "targetPerSecond": self.target_per_second, "minPrice": self.min_price,
                "excessConversionConstant": self.excess_conversion_constant}


@dataclass(frozen=True, slots=True)
class ValidatorFeeConfig:
    capacity: int = 20_000
    target: int = 10_000
    min_price: int = 1
    excess_conversion_constant: int = 865_617

    def to_json(self) -> dict:
        return {"capacity": self.capacity, "target": self.target, "minPrice": self.min_price,
                "excessConversionConstant": self.excess_conversion_constant}


LOCAL_FEE_CONFIG = FeeConfig()
LOCAL_VALIDATOR_FEE_CONFIG = ValidatorFeeConfig()
MAINNET_VALIDATOR_FEE_CONFIG = ValidatorFeeConfig(20_000, 10_000, 512, 1_246_488_515)
FUJI_VALIDATOR_FEE_CONFIG = ValidatorFeeConfig(20_000, 10_000, 512, 51_937_021)


def validator_fee_config_for(network_id: int) -> ValidatorFeeConfig:
    return {1: MAINNET_VALIDATOR_FEE_CONFIG, 5: FUJI_VALIDATOR_FEE_CONFIG}.get(network_id, LOCAL_VALIDATOR_FEE_CONFIG)


def calculate_price(min_price: int, excess: int, k: int) -> int:
    """gas.CalculatePrice: minPrice·e^(excess/k), capped at MaxUint64."""
    if k == 0:
        return MAX_U64 if min_price and excess else min_price
    i = 1
    output = 0
    acc = min_price * k
    max_output = k * MAX_U64
    while acc > 0:
        output += acc
        if output >= max_output:
            return MAX_U64
        acc = acc * excess // k // i
        i += 1
    return output // k


# ------------------------------------------------------------------------------ complexity

_ID, _INT, _LONG, _SHORT = 32, 4, 8, 2
_SIG_LEN = 65
_OUTPUT_BW = _ID + _INT
_LOCKED_OUT_BW = _LONG + _INT
_OWNERS_BW = _LONG + _INT + _INT
_SECP_OUT_BW = _LONG + _OWNERS_BW
_INPUT_BW = _ID + _INT + _ID + _INT + _INT
_LOCKED_IN_BW = _LONG + _INT
_SECP_IN_BW = _INT + _INT
_SECP_TIN_BW = _LONG + _SECP_IN_BW
_SIG_BW = _INT + _SIG_LEN
_SIG_COMPUTE = 200
_VALIDATOR_BW = 20 + 3 * _LONG
_BLS_AGG, _BLS_VERIFY, _BLS_PKV = 5, 1000, 50
_POP_COMPUTE = _BLS_PKV + _BLS_VERIFY
_POP_BW = 48 + 96
_WARP_READS = 3 + 20
_CONVERT_VDR_BW = _INT + _LONG + _LONG + 4 * _INT

BASE = (_SHORT + _INT + _INT + _ID + _INT + _INT + _INT + _INT, 0, 0, 0)


def _add(*dims: tuple[int, ...]) -> tuple[int, int, int, int]:
    return tuple(sum(d[i] for d in dims) for i in range(4))  # type: ignore[return-value]


INTRINSIC = {
    t.BaseTx: BASE,
    t.AddSubnetValidatorTx: _add(BASE, (_VALIDATOR_BW + _ID + _INT + _INT, 3, 3, 0)),
    t.CreateChainTx: _add(BASE, (_ID + _SHORT + _ID + _INT + _INT + _INT + _INT, 3, 1, 0)),
    t.CreateSubnetTx: _add(BASE, (_INT, 0, 1, 0)),
    t.ImportTx: _add(BASE, (_ID + _INT, 0, 0, 0)),
    t.ExportTx: _add(BASE, (_ID + _INT, 0, 0, 0)),
    t.RemoveSubnetValidatorTx: _add(BASE, (20 + _ID + _INT + _INT, 1, 3, 0)),
    t.AddPermissionlessValidatorTx: _add(BASE, (_VALIDATOR_BW + _ID + 5 * _INT, 1, 3, 0)),
    t.AddPermissionlessDelegatorTx: _add(BASE, (_VALIDATOR_BW + _ID + _INT + _INT, 1, 2, 0)),
    t.TransferSubnetOwnershipTx: _add(BASE, (_ID + 3 * _INT, 1, 1, 0)),
    t.ConvertSubnetToL1Tx: _add(BASE, (_ID + _ID + 4 * _INT, 3, 2, 0)),
    t.RegisterL1ValidatorTx: _add(BASE, (_LONG + 96 + _INT, 5, 6, _POP_COMPUTE)),
    t.SetL1ValidatorWeightTx: _add(BASE, (_INT, 3, 5, 0)),
    t.IncreaseL1ValidatorBalanceTx: _add(BASE, (_ID + _LONG, 1, 5, 0)),
    t.DisableL1ValidatorTx: _add(BASE, (_ID + _INT + _INT, 1, 6, 0)),
}


class UnsupportedTx(ValueError):
    pass


def output_complexity(outs: tuple[TransferableOutput, ...]) -> tuple[int, int, int, int]:
    bw = wr = 0
    for out in outs:
        bw += _OUTPUT_BW + _SECP_OUT_BW
        wr += 1
        o = out.out
        if isinstance(o, StakeableLockOut):
            bw += _LOCKED_OUT_BW
            o = o.out
        bw += 20 * len(o.owners.addresses)  # type: ignore[attr-defined]
    return (bw, 0, wr, 0)


def input_complexity(ins: tuple[TransferableInput, ...]) -> tuple[int, int, int, int]:
    bw = rd = wr = cp = 0
    for in_ in ins:
        bw += _INPUT_BW + _SECP_TIN_BW
        rd += 1
        wr += 1
        i = in_.in_
        if isinstance(i, StakeableLockIn):
            bw += _LOCKED_IN_BW
            i = i.in_
        n = len(i.input.sig_indices)  # type: ignore[attr-defined]
        bw += n * _SIG_BW
        cp += n * _SIG_COMPUTE
    return (bw, rd, wr, cp)


def owner_complexity(owner: OutputOwners) -> tuple[int, int, int, int]:
    return (_OWNERS_BW + 20 * len(owner.addresses), 0, 0, 0)


def auth_complexity(auth: Input) -> tuple[int, int, int, int]:
    n = len(auth.sig_indices)
    return (n * _SIG_BW + _SECP_IN_BW, 0, 0, n * _SIG_COMPUTE)


def signer_complexity(signer: object) -> tuple[int, int, int, int]:
    if isinstance(signer, ProofOfPossession):
        return (_POP_BW, 0, 0, _POP_COMPUTE)
    return (0, 0, 0, 0)


def warp_complexity(message: bytes) -> tuple[int, int, int, int]:
    """Raises CodecError/WarpError for a message that does not parse or a padded signer bitset."""
    msg = parse_signed_message(message)
    return (len(message), _WARP_READS, 0, msg.signature.num_signers() * _BLS_AGG + _BLS_VERIFY)


def _base(b: t.BaseTxFields) -> tuple[int, int, int, int]:
    return _add(output_complexity(b.outs), input_complexity(b.ins), (len(b.memo), 0, 0, 0))


def tx_complexity(tx: object) -> tuple[int, int, int, int]:
    intrinsic = INTRINSIC.get(type(tx))
    if intrinsic is None:
        raise UnsupportedTx("unsupported transaction type")  # fee.ErrUnsupportedTx
    parts = [intrinsic, _base(tx.base)]  # type: ignore[attr-defined]
    if isinstance(tx, (t.AddSubnetValidatorTx, t.RemoveSubnetValidatorTx)):
        parts.append(auth_complexity(tx.subnet_auth))
    elif isinstance(tx, t.CreateChainTx):
        parts.append((32 * len(tx.fx_ids) + len(tx.chain_name.encode("utf-8", "surrogateescape"))
                      + len(tx.genesis_data), 0, 0, 0))
        parts.append(auth_complexity(tx.subnet_auth))
    elif isinstance(tx, t.CreateSubnetTx):
        parts.append(owner_complexity(tx.owner))
    elif isinstance(tx, t.ImportTx):
        parts.append(input_complexity(tx.imported_inputs))
    elif isinstance(tx, t.ExportTx):
        parts.append(output_complexity(tx.exported_outputs))
    elif isinstance(tx, t.AddPermissionlessValidatorTx):
        parts += [signer_complexity(tx.signer), output_complexity(tx.stake_outs),
                  owner_complexity(tx.validation_rewards_owner), owner_complexity(tx.delegation_rewards_owner)]
    elif isinstance(tx, t.AddPermissionlessDelegatorTx):
        parts += [owner_complexity(tx.rewards_owner), output_complexity(tx.stake_outs)]
    elif isinstance(tx, t.TransferSubnetOwnershipTx):
        parts += [auth_complexity(tx.subnet_auth), owner_complexity(tx.owner)]
    elif isinstance(tx, t.ConvertSubnetToL1Tx):
        for v in tx.validators:
            parts.append((_CONVERT_VDR_BW + len(v.node_id) + _POP_BW
                          + 20 * (len(v.remaining_balance_owner.addresses) + len(v.deactivation_owner.addresses)),
                          0, 4, _POP_COMPUTE))
        parts += [auth_complexity(tx.subnet_auth), (len(tx.address), 0, 0, 0)]
    elif isinstance(tx, (t.RegisterL1ValidatorTx, t.SetL1ValidatorWeightTx)):
        parts.append(warp_complexity(tx.message))
    elif isinstance(tx, t.DisableL1ValidatorTx):
        parts.append(auth_complexity(tx.disable_auth))
    return _add(*parts)


def to_gas(complexity: tuple[int, ...], weights: tuple[int, ...]) -> int:
    gas = sum(c * w for c, w in zip(complexity, weights))
    if gas > MAX_U64:
        raise Refused("error calculating gas: overflow")
    return gas


def tx_gas(tx: object, config: FeeConfig = LOCAL_FEE_CONFIG) -> int:
    return to_gas(tx_complexity(tx), config.weights)


def tx_fee(tx: object, price: int, config: FeeConfig = LOCAL_FEE_CONFIG) -> int:
    return tx_gas(tx, config) * price


# ------------------------------------------------------------------------------ fee state


@dataclass(frozen=True, slots=True)
class FeeState:
    capacity: int
    excess: int

    def advance(self, config: FeeConfig, seconds: int) -> FeeState:
        cap = min(self.capacity + config.max_per_second * seconds, config.max_capacity)
        return FeeState(min(cap, MAX_U64), max(0, self.excess - config.target_per_second * seconds))

    def consume(self, gas: int) -> FeeState:
        if gas > self.capacity:
            raise Refused(f"insufficient capacity: capacity ({self.capacity}) < gas ({gas})")
        return FeeState(self.capacity - gas, min(self.excess + gas, MAX_U64))

    def price(self, config: FeeConfig) -> int:
        return calculate_price(config.min_price, self.excess, config.excess_conversion_constant)


def _sub_over(excess: int, rate: int, seconds: int) -> int:
    return max(0, excess - rate * seconds)


def validator_advance(current: int, excess: int, target: int, seconds: int) -> int:
    if current < target:
        return _sub_over(excess, target - current, seconds)
    if current > target:
        return min(excess + (current - target) * seconds, MAX_U64)
    return excess


def validator_cost_of(config: ValidatorFeeConfig, current: int, excess: int, seconds: int) -> int:
    """validators/fee.State.CostOf: what one active L1 validator pays over `seconds`."""
    if current == config.target:
        return min(seconds * calculate_price(config.min_price, excess, config.excess_conversion_constant), MAX_U64)
    cost = 0
    for i in range(seconds):
        excess = validator_advance(current, excess, config.target, 1)
        if excess == 0:
            return min(cost + config.min_price * (seconds - i), MAX_U64)
        cost += calculate_price(config.min_price, excess, config.excess_conversion_constant)
    return min(cost, MAX_U64)


def validator_seconds_remaining(config: ValidatorFeeConfig, current: int, excess: int, max_seconds: int,
                                funds: int) -> int:
    if config.min_price == 0:
        return max_seconds
    if current == config.target:
        price = calculate_price(config.min_price, excess, config.excess_conversion_constant)
        return min(funds // price, max_seconds)
    for seconds in range(max_seconds):
        excess = validator_advance(current, excess, config.target, 1)
        if excess == 0:
            return min(seconds + funds // config.min_price, max_seconds)
        price = calculate_price(config.min_price, excess, config.excess_conversion_constant)
        if price > funds:
            return seconds
        funds -= price
    return max_seconds
