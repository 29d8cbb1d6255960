"""subnet-EVM's fee rules (simnode/vms/evm/subnet_fees.py), worked out by hand from subnet-evm's
customheader/dynamic_fee_windower.go, upgrade/subnetevm and blockgascost."""

from __future__ import annotations

import json

import pytest

from simnode.vms.evm.fees import ACP176_RULES, FeeState, fee_state_from_row, next_block_fees
from simnode.vms.evm.subnet import GenesisError, parse_genesis
from simnode.vms.evm.subnet_fees import (
    MAX_U64,
    FeeConfigError,
    SubnetEVMFeeRules,
    SubnetFeeConfig,
    WindowFeeState,
    base_fee_from_window,
    block_gas_cost,
    parse_window,
    window_add,
    window_bytes,
    window_shift,
    window_sum,
)

GWEI = 10**9
CFG = SubnetFeeConfig()  # extras.DefaultFeeConfig: target 15M, denominator 36, min 25 gwei
CLI = {"gasLimit": 12_000_000, "targetBlockRate": 2, "minBaseFee": 25 * GWEI, "targetGas": 60_000_000,
       "baseFeeChangeDenominator": 36, "minBlockGasCost": 0, "maxBlockGasCost": 1_000_000, "blockGasCostStep": 200_000}


def w(*tail: int) -> tuple[int, ...]:
    return (0,) * (10 - len(tail)) + tail


def test_default_fee_config():
    assert CFG.to_json() == {"gasLimit": 8_000_000, "targetBlockRate": 2, "minBaseFee": 25 * GWEI,
                             "targetGas": 15_000_000, "baseFeeChangeDenominator": 36, "minBlockGasCost": 0,
                             "maxBlockGasCost": 1_000_000, "blockGasCostStep": 200_000}


def test_fee_config_from_json_and_verify():
    assert SubnetFeeConfig.from_json(CLI).to_json() == CLI
    assert SubnetFeeConfig.from_json({**CLI, "gasLimit": "0xb71b00"}).gas_limit == 12_000_000
    cases = [
        ({k: v for k, v in CLI.items() if k != "gasLimit"}, "gasLimit cannot be nil"),
        ({k: v for k, v in CLI.items() if k != "targetBlockRate"},
         "targetBlockRate cannot be less than or equal to 0: targetBlockRate = 0"),
        ({**CLI, "gasLimit": 0}, "gasLimit cannot be less than or equal to 0: gasLimit = 0"),
        ({**CLI, "minBaseFee": -1}, "minBaseFee cannot be less than 0: minBaseFee = -1"),
        ({**CLI, "targetGas": 0}, "targetGas cannot be less than or equal to 0: targetGas = 0"),
        ({**CLI, "baseFeeChangeDenominator": 0},
         "baseFeeChangeDenominator cannot be less than or equal to 0: baseFeeChangeDenominator = 0"),
        ({**CLI, "minBlockGasCost": 2, "maxBlockGasCost": 1},
         "minBlockGasCost cannot be greater than maxBlockGasCost: minBlockGasCost = 2, maxBlockGasCost = 1"),
        ({**CLI, "blockGasCostStep": -5}, "blockGasCostStep cannot be less than 0: blockGasCostStep = -5"),
        ({**CLI, "gasLimit": "lots"}, "gasLimit: not a number"),
    ]
    for data, message in cases:
        with pytest.raises(FeeConfigError, match=message):
            SubnetFeeConfig.from_json(data)


def test_window_ops():
    assert window_add(w(5), 7) == w(12)
    assert window_add(w(MAX_U64 - 1), 7) == w(MAX_U64)  # saturates
    assert window_shift(w(1, 2, 3), 1) == w(1, 2, 3, 0)
    assert window_shift(w(1, 2, 3), 10) == w()
    assert window_shift(tuple(range(10)), 0) == tuple(range(10))
    assert window_sum((MAX_U64, 1) + (0,) * 8) == MAX_U64
    raw = window_bytes(tuple(range(1, 11)))
    assert len(raw) == 80 and raw[:8] == (1).to_bytes(8, "big") and parse_window(raw) == tuple(range(1, 11))
    with pytest.raises(ValueError, match="insufficient length for window"):
        parse_window(bytes(79))


def test_base_fee_from_window():
    parent = 100 * GWEI
    # at target: unchanged, even outside the bounds
    assert base_fee_from_window(CFG, 7, w(15_000_000), 1) == 7
    # above target: + (sum - T) * parent / T / denominator
    assert base_fee_from_window(CFG, parent, w(30_000_000), 1) == parent + 100 * GWEI // 36
    # below target: - (T - sum) * parent / T / denominator
    assert base_fee_from_window(CFG, parent, w(), 1) == parent - 100 * GWEI // 36
    # more than one whole window elapsed: the decrease applies once per window
    assert base_fee_from_window(CFG, parent, w(), 25) == parent - 2 * (100 * GWEI // 36)
    assert base_fee_from_window(CFG, parent, w(), 19) == parent - 100 * GWEI // 36
    # floored at minBaseFee
    assert base_fee_from_window(CFG, 25 * GWEI + 10**8, w(), 1) == 25 * GWEI  # 25.1 − 25.1/36 < 25
    # a change is at least 1 wei
    zero_min = SubnetFeeConfig(min_base_fee=0)
    assert base_fee_from_window(zero_min, 10, w(15_000_001), 1) == 11
    assert base_fee_from_window(zero_min, 10, w(14_999_999), 1) == 9


def test_block_gas_cost():
    cfg = SubnetFeeConfig(min_block_gas_cost=0, max_block_gas_cost=1_000_000, target_block_rate=2,
                          block_gas_cost_step=50_000)
    assert block_gas_cost(cfg, None, 0) == 0  # child of genesis: minBlockGasCost
    assert block_gas_cost(cfg, 500, 0) == 500 + 2 * 50_000  # faster than the target rate
    assert block_gas_cost(cfg, 300_000, 2) == 300_000  # at the target rate
    assert block_gas_cost(cfg, 300_000, 5) == 300_000 - 3 * 50_000  # slower
    assert block_gas_cost(cfg, 100_000, 10) == 0  # floored
    assert block_gas_cost(cfg, 990_000, 1) == 1_000_000  # capped
    big_step = SubnetFeeConfig(block_gas_cost_step=MAX_U64)
    assert block_gas_cost(big_step, 500, 0) == big_step.max_block_gas_cost  # overflow → max
    assert block_gas_cost(big_step, 500, 10) == big_step.min_block_gas_cost  # underflow → min
    doubled = SubnetFeeConfig(min_block_gas_cost=2, max_block_gas_cost=2_000_000, target_block_rate=4,
                              block_gas_cost_step=100_000)
    assert block_gas_cost(doubled, None, 3) == 2
    assert block_gas_cost(doubled, 1_000, 1) == 1_000 + 3 * 100_000
    assert block_gas_cost(doubled, 1_000, 30) == 2


def test_rules_block_by_block():
    rules = SubnetEVMFeeRules(SubnetFeeConfig.from_json(CLI))
    genesis = rules.genesis_state(rules.genesis_base_fee({}))
    assert genesis.base_fee == 25 * GWEI and genesis.block_gas_cost is None and genesis.genesis
    # block 1 (child of genesis): empty window, minBaseFee, gasLimit from feeConfig, Granite: cost 0
    s1, fee1, limit1 = rules.next_block_fees(genesis, 0, 5_000)
    assert (s1.window, fee1, limit1, s1.block_gas_cost) == (w(), 25 * GWEI, 12_000_000, 0)
    assert s1.encode() == bytes(80)
    after1 = s1.consume(70_000_000)  # above the 60M target in one block
    # block 2, 3 s later: block 1's gas lands in the newest slot, shifted by 3
    s2, fee2, _ = rules.next_block_fees(after1, 5_000, 8_999)
    assert s2.window == w(70_000_000, 0, 0, 0)
    assert fee2 == 25 * GWEI + 10_000_000 * 25 * GWEI // 60_000_000 // 36
    # block 3 at the same second: no shift; the window now also holds block 2's gas
    s3, fee3, _ = rules.next_block_fees(s2.consume(21_000), 8_000, 8_500)
    assert s3.window == w(70_000_000, 0, 0, 21_000)
    assert fee3 > fee2
    # 30 s later: the window is empty and the fee falls 3 windows' worth, floored at the minimum
    s4, fee4, _ = rules.next_block_fees(s3, 8_500, 38_500)
    assert s4.window == w() and fee4 == 25 * GWEI
    # a genesis baseFeePerGas is used as given
    assert rules.genesis_base_fee({"baseFeePerGas": "0x64"}) == 100


def test_rules_before_granite_charge_block_gas_cost():
    rules = SubnetEVMFeeRules(SubnetFeeConfig.from_json(CLI), granite_time=100)
    s1, _, _ = rules.next_block_fees(rules.genesis_state(25 * GWEI), 0, 0)
    assert s1.block_gas_cost == 0  # minBlockGasCost after genesis
    s2, _, _ = rules.next_block_fees(s1, 0, 1_000)
    assert s2.block_gas_cost == 200_000  # 1 s < 2 s target: + step
    s3, _, _ = rules.next_block_fees(s2, 1_000, 11_000)
    assert s3.block_gas_cost == 0
    s4, _, _ = rules.next_block_fees(s3, 11_000, 12_000)
    assert s4.block_gas_cost == 200_000
    # from the Granite time on (the child's time): 0
    s5, _, _ = rules.next_block_fees(s4, 99_000, 100_000)
    assert s5.block_gas_cost == 0
    assert rules.next_block_fees(s4, 98_000, 99_999)[0].block_gas_cost == 400_000


def test_rows_round_trip_and_c_chain_unchanged():
    st = WindowFeeState(tuple(range(10)), 123, None, 456, True)
    assert fee_state_from_row(st.to_row()) == st
    st2 = WindowFeeState(w(9), 7, 300, 0, False)
    assert fee_state_from_row(st2.to_row()) == st2
    c = FeeState(1, 2, 3)
    assert c.to_row() == [1, 2, 3] and fee_state_from_row([1, 2, 3]) == c
    assert ACP176_RULES.next_block_fees(c, 0, 1234) == next_block_fees(c, 0, 1234)
    assert ACP176_RULES.genesis_base_fee({}) == 225 * GWEI and ACP176_RULES.genesis_state(0) == FeeState()


def test_parse_genesis():
    genesis = {"config": {"chainId": 99999, "feeConfig": CLI}, "alloc": {}, "gasLimit": "0xb71b00"}
    g, cfg = parse_genesis(json.dumps(genesis).encode())
    assert g["config"]["chainId"] == 99999 and cfg.gas_limit == 12_000_000
    _, default = parse_genesis(json.dumps({"config": {"chainId": 5}}).encode())
    assert default == SubnetFeeConfig()
    bad = [
        (b"not json", "failed to unmarshal genesis bytes"),
        (b"\xff\xfe", "failed to unmarshal genesis bytes"),
        (b"[1, 2]", "not a JSON object"),
        (b"{}", "genesis has no chain config"),
        (json.dumps({"config": {"chainId": "x"}}).encode(), "invalid chainId"),
        (json.dumps({"config": {"chainId": 1, "feeConfig": {**CLI, "targetGas": 0}}}).encode(),
         "invalid fee config: targetGas cannot be less than or equal to 0: targetGas = 0"),
        (json.dumps({"config": {"chainId": 1}, "alloc": {"aa": 5}}).encode(), "invalid genesis alloc"),
    ]
    for data, message in bad:
        with pytest.raises(GenesisError, match=message):
            parse_genesis(data)
