"""Per-network constants AvalancheGo hard-codes: upgrade times, static fees, staking limits.

Values from node-api.md §5 and §8 (avalanchego v1.14.2). Local and custom networks activate
every upgrade at 2020-12-05T05:00:00Z (Helicon is unscheduled).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass

LOCAL_UPGRADE_TIME = 1607144400  # 2020-12-05T05:00:00Z
UNSCHEDULED_TIME = 253399622400  # 9999-12-01T00:00:00Z
ZERO_VERTEX = "11111111111111111111111111111111LpoYY"

UPGRADE_KEYS = (
    "apricotPhase1Time", "apricotPhase2Time", "apricotPhase3Time", "apricotPhase4Time",
    "apricotPhase4MinPChainHeight", "apricotPhase5Time", "apricotPhasePre6Time", "apricotPhase6Time",
    "apricotPhasePost6Time", "banffTime", "cortinaTime", "cortinaXChainStopVertexID", "durangoTime",
    "etnaTime", "fortunaTime", "graniteTime", "graniteEpochDuration", "heliconTime",
)

ACTIVATED_ACPS = (23, 24, 25, 30, 31, 41, 62, 77, 103, 118, 125, 131, 151, 176, 181, 204, 226)


def _t(text: str) -> int:
    """'2021-03-31T14:00' (UTC) -> unix seconds."""
    date, _, clock = text.partition("T")
    y, mo, d = (int(x) for x in date.split("-"))
    h, mi = (int(x) for x in clock.split(":"))
    return calendar.timegm((y, mo, d, h, mi, 0))


@dataclass(frozen=True, slots=True)
class Upgrades:
    apricot_phase1: int
    apricot_phase2: int
    apricot_phase3: int
    apricot_phase4: int
    apricot_phase4_min_p_height: int
    apricot_phase5: int
    apricot_phase_pre6: int
    apricot_phase6: int
    apricot_phase_post6: int
    banff: int
    cortina: int
    cortina_stop_vertex: str
    durango: int
    etna: int
    fortuna: int
    granite: int
    granite_epoch_ns: int
    helicon: int = UNSCHEDULED_TIME
    # coreth's C-Chain Ethereum forks that are heights, not times (0 on local networks)
    berlin_block: int = 0
    london_block: int = 0


def _local_upgrades() -> Upgrades:
    t = LOCAL_UPGRADE_TIME
    return Upgrades(t, t, t, t, 0, t, t, t, t, t, t, ZERO_VERTEX, t, t, t, t, 30_000_000_000)


MAINNET_UPGRADES = Upgrades(
    _t("2021-03-31T14:00"), _t("2021-05-10T11:00"), _t("2021-08-24T14:00"), _t("2021-09-22T21:00"), 793005,
    _t("2021-12-02T18:00"), _t("2022-09-05T01:30"), _t("2022-09-06T20:00"), _t("2022-09-07T03:00"),
    _t("2022-10-18T16:00"), _t("2023-04-25T15:00"), "jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga",
    _t("2024-03-06T16:00"), _t("2024-12-16T17:00"), _t("2025-04-08T15:00"), _t("2025-11-19T16:00"), 300_000_000_000,
    berlin_block=1640340, london_block=3308552,
)
FUJI_UPGRADES = Upgrades(
    _t("2021-03-26T14:00"), _t("2021-05-05T14:00"), _t("2021-08-16T19:00"), _t("2021-09-16T21:00"), 47437,
    _t("2021-11-24T15:00"), _t("2022-09-06T20:00"), _t("2022-09-06T20:00"), _t("2022-09-07T06:00"),
    _t("2022-10-03T14:00"), _t("2023-04-06T15:00"), "2D1cmbiG36BqQMRyHt4kFhWarmatA1ighSpND3FeFgz3vFVtCZ",
    _t("2024-02-13T16:00"), _t("2024-11-25T16:00"), _t("2025-03-13T15:00"), _t("2025-10-29T15:00"), 300_000_000_000,
    berlin_block=184985, london_block=805078,
)


@dataclass(frozen=True, slots=True)
class StaticFees:
    """`info.getTxFee` (deprecated but served) and the X-Chain's static fees, in nAVAX."""

    tx_fee: int
    create_asset_tx_fee: int
    create_subnet_tx_fee: int
    transform_subnet_tx_fee: int
    create_blockchain_tx_fee: int
    add_primary_network_validator_fee: int
    add_primary_network_delegator_fee: int
    add_subnet_validator_fee: int
    add_subnet_delegator_fee: int


LOCAL_FEES = StaticFees(1_000_000, 1_000_000, 100_000_000, 100_000_000, 100_000_000, 0, 0, 1_000_000, 1_000_000)
MAINNET_FEES = StaticFees(1_000_000, 10_000_000, 1_000_000_000, 10_000_000_000, 1_000_000_000, 0, 0,
                          1_000_000, 1_000_000)
FUJI_FEES = StaticFees(1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 100_000_000, 0, 0, 1_000_000, 1_000_000)


@dataclass(frozen=True, slots=True)
class StakingParams:
    min_validator_stake: int
    max_validator_stake: int
    min_delegator_stake: int
    min_delegation_fee: int  # ppm
    min_stake_duration: int  # seconds
    max_stake_duration: int
    uptime_requirement: float
    # reward formula (AvalancheGo config.RewardConfig)
    max_consumption_rate: int = 120_000  # per 1,000,000
    min_consumption_rate: int = 100_000
    minting_period: int = 365 * 24 * 3600
    supply_cap: int = 720_000_000 * 10**9


LOCAL_STAKING = StakingParams(2_000 * 10**9, 3_000_000 * 10**9, 25 * 10**9, 20_000, 24 * 3600, 365 * 24 * 3600, 0.8)
MAINNET_STAKING = StakingParams(2_000 * 10**9, 3_000_000 * 10**9, 25 * 10**9, 20_000, 14 * 24 * 3600,
                                365 * 24 * 3600, 0.8)
FUJI_STAKING = StakingParams(1 * 10**9, 3_000_000 * 10**9, 1 * 10**9, 20_000, 24 * 3600, 365 * 24 * 3600, 0.8)


@dataclass(frozen=True, slots=True)
class NetworkParams:
    network_id: int
    upgrades: Upgrades
    fees: StaticFees
    staking: StakingParams


def params_for(network_id: int) -> NetworkParams:
    if network_id == 1:
        return NetworkParams(1, MAINNET_UPGRADES, MAINNET_FEES, MAINNET_STAKING)
    if network_id == 5:
        return NetworkParams(5, FUJI_UPGRADES, FUJI_FEES, FUJI_STAKING)
    return NetworkParams(network_id, _local_upgrades(), LOCAL_FEES, LOCAL_STAKING)
