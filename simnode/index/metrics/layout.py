"""The metric tables: key layout and records, shared by the writers (evm.py, platform.py) and the
reader (query.py).

Per EVM chain, under keys.chain_space(chain ID); `iv` u8 interval (buckets.py), `start` u64 a
bucket's start (s), `day` u64 a day's start (s), `ms` u64 block time (ms), `num` u64 block:

    mt                      -> TOTALS: the chain's running figures after its last block
    mb/<iv><start>          -> BUCKET: the figures of one bucket
    mk/<ms><num>            -> MARK: one block's figures and the running totals after it (rolling
                               windows: sums are two seeks, maxima scan at most an hour of marks)
    ma/<iv><start><addr>    -> flags u8 (ACTIVE, SENDER) of an address in a bucket; hour buckets
                               add u64 ms last active, u64 ms last sent (0: never) for rolling windows
    md/<day><addr>          -> u64 ms a deployer last created a contract that day
    mf/<addr>               -> u64 day the address was first active (cumulativeAddresses)
    mg/<addr>               -> u64 day the address first deployed (cumulativeDeployers)

Across EVM chains, under keys.GLOBAL: the distinct counts over the union of the node's EVM
chains (`total`, `mainnet`, `testnet`); every other figure of those is summed at query time.

    mt                      -> [latest day bucket start | None]
    mb/<iv><start>          -> UNION: the bucket's distinct counts and sums over the chains

and, written before issue 27 and no longer read (each follows from the chains' own rows: an
address's flags in a union bucket are its chain markers' together, a union deployer of a day
deployed on one of the chains that day, its first day over the union is the earliest of its
first days on the chains, whatever order their blocks were indexed in):

    ma/<iv><start><addr>    -> flags u8
    md/<day><addr>          -> b""
    mf/<addr>, mg/<addr>    -> u64 first day

The P-Chain, under keys.chain_space(P-Chain ID) (`subnet` 32 bytes, `vid` 32-byte validation
ID, `node` 20-byte node ID); amounts in nAVAX:

    sc/<subnet>             -> STAKE: the subnet's stakers now
    sd/<subnet><day>        -> STAKE after the day's last P-Chain block
    fc/<scope>              -> u64 cumulative fees of a scope (b"t" every L1 validator, b"v"+vid,
                               b"n"+node, b"s"+subnet)
    ft/<day>                -> FEES of every L1 validator that day
    fv/<vid><day>, fn/<node><day>, fs/<subnet><day>   -> FEES of one validation, node, subnet
    fp/<day><vid>, fq/<subnet><day><vid>              the validations that paid that day

Records are msgpack lists; wei amounts are keys.big bytes:

    TOTALS  [last block ms | None, txs, gas, fees, contracts, gas price sum, addresses, deployers]
    BUCKET  [txs, gas, active, senders, contracts, fees, gas price sum, max gas price,
             max tps as (txs x 1000, ms) numerator, denominator, max gps likewise,
             ms of the last block before the bucket | None, ms of its last block,
             deployers (day buckets), then the chain's TOTALS figures after the bucket's last
             block: txs, contracts, addresses, deployers]
    UNION   [active, senders, deployers, cumulative addresses, cumulative deployers (the
             cumulative two in day buckets), txs, gas, contracts, fees, gas price sum, max gas price]
    MARK    [txs, gas, max gas price, ms of the block before | None,
             then TOTALS after it: txs, gas, fees, contracts, gas price sum]
    STAKE   [validators, validator weight, delegators, delegator weight]
    FEES    [fees that day, cumulative fees up to the end of that day, validations that paid
             (ft and fs only)]
"""

from __future__ import annotations

from dataclasses import dataclass

from ..keys import GLOBAL, chain_space, table

ACTIVE, SENDER = 1, 2

# BUCKET fields
B_TXS, B_GAS, B_ACTIVE, B_SENDERS, B_CONTRACTS, B_FEES, B_PRICE_SUM, B_MAX_PRICE = range(8)
B_TPS_NUM, B_TPS_DEN, B_GPS_NUM, B_GPS_DEN, B_PREV_MS, B_LAST_MS, B_DEPLOYERS = range(8, 15)
B_CUM_TXS, B_CUM_CONTRACTS, B_CUM_ADDRESSES, B_CUM_DEPLOYERS = range(15, 19)

# TOTALS fields
T_LAST_MS, T_TXS, T_GAS, T_FEES, T_CONTRACTS, T_PRICE_SUM, T_ADDRESSES, T_DEPLOYERS = range(8)

# MARK fields
K_TXS, K_GAS, K_MAX_PRICE, K_PREV_MS, K_CUM_TXS, K_CUM_GAS, K_CUM_FEES, K_CUM_CONTRACTS, K_CUM_PRICE_SUM = range(9)

# UNION fields
U_ACTIVE, U_SENDERS, U_DEPLOYERS, U_CUM_ADDRESSES, U_CUM_DEPLOYERS = range(5)
U_TXS, U_GAS, U_CONTRACTS, U_FEES, U_PRICE_SUM, U_MAX_PRICE = range(5, 11)

# FEES fields
F_FEES, F_CUM, F_PAYING = range(3)

HOUR_MARKER_LEN = 17  # flags u8, last active ms u64, last sent ms u64


@dataclass(frozen=True, slots=True)
class MetricSpace:
    """The metric tables of one EVM chain, or of the union (GLOBAL)."""

    totals: bytes
    buckets: bytes
    marks: bytes
    markers: bytes
    deployers: bytes
    first_active: bytes
    first_deployed: bytes


@dataclass(frozen=True, slots=True)
class StakeSpace:
    """The P-Chain's metric tables."""

    current: bytes
    daily: bytes
    fee_totals: bytes
    fees_all: bytes
    fees_validation: bytes
    fees_node: bytes
    fees_subnet: bytes
    paying_all: bytes
    paying_subnet: bytes


def _metric_space(base: bytes) -> MetricSpace:
    return MetricSpace(base + b"mt", table(base, b"mb"), table(base, b"mk"), table(base, b"ma"), table(base, b"md"),
                       table(base, b"mf"), table(base, b"mg"))


_SPACES: dict[bytes, MetricSpace] = {}
UNION = _metric_space(GLOBAL)


def chain_metrics(chain_id: bytes) -> MetricSpace:
    sp = _SPACES.get(chain_id)
    if sp is None:
        sp = _SPACES[chain_id] = _metric_space(chain_space(chain_id))
    return sp


def stake_space(chain_id: bytes) -> StakeSpace:
    base = chain_space(chain_id)
    return StakeSpace(*(table(base, tag) for tag in (b"sc", b"sd", b"fc", b"ft", b"fv", b"fn", b"fs", b"fp", b"fq")))
