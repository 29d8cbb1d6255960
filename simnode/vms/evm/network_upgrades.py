"""subnet-EVM's network upgrade times (graft/subnet-evm params/extras network_upgrades.go, config.go,
plugin/evm/vm.go parseGenesis, params config_extra.go SetEthUpgrades).

An L1's times come from its genesis `config` (`subnetEVMTimestamp`, `durangoTimestamp`,
`etnaTimestamp`, `fortunaTimestamp`, `graniteTimestamp`, `heliconTimestamp`): one that is missing
or 0 takes the network's default (SetDefaults: SubnetEVM at 0, Durango, Etna, Granite and Helicon
at the node's network upgrade times, Fortuna unset), then upgrade.json's
`networkUpgradeOverrides` replaces any it names (0 included). The result is verified against the
defaults (a time may not come before its default; 0 only where the default is initially active)
and the forks must be in order. Ethereum's forks follow: every block fork the genesis leaves
out at 0, Shanghai at Durango and Cancun at Etna (while scheduled).

On a restart, new times that would move an activation the chain has already passed stop the
chain, as libevm's CheckCompatible finds the conflict (Shanghai and Cancun first, then the
Avalanche upgrades, then the precompiles: precompiles/upgrades.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

from ...network import LOCAL_UPGRADE_TIME, UNSCHEDULED_TIME, params_for
from .precompiles.contract import ConfigError, JSONError, json_uint64
from .precompiles.upgrades import CompatError

INITIALLY_ACTIVE_TIME = LOCAL_UPGRADE_TIME  # upgrade.InitiallyActiveTime
NEVER = 2**64  # past every uint64 time: an upgrade that is not set

# (JSON key, attribute, name in Verify's errors, name in compatibility errors)
_UPGRADES = (
    ("subnetEVMTimestamp", "subnet_evm", "subnetEVM", "SubnetEVM"),
    ("durangoTimestamp", "durango", "durango", "Durango"),
    ("etnaTimestamp", "etna", "etna", "Etna"),
    ("fortunaTimestamp", "fortuna", "fortuna", "Fortuna"),
    ("graniteTimestamp", "granite", "granite", "Granite"),
    ("heliconTimestamp", "helicon", "helicon", "Helicon"),
)
KEYS = tuple(u[0] for u in _UPGRADES)
_OPTIONAL = {"fortunaTimestamp"}  # forkOrder: may be unset with later forks set

# Ethereum's block forks that SetEthUpgrades sets to 0 when the genesis leaves them out, and the
# optional ones it keeps as given, in CheckConfigForkOrder's order
ETH_BLOCK_FORKS = ("homesteadBlock", "daoForkBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock",
                   "constantinopleBlock", "petersburgBlock", "istanbulBlock", "muirGlacierBlock", "berlinBlock",
                   "londonBlock", "arrowGlacierBlock", "grayGlacierBlock", "mergeNetsplitBlock")
_SET_TO_ZERO = ("homesteadBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock", "constantinopleBlock",
                "petersburgBlock", "istanbulBlock", "muirGlacierBlock", "berlinBlock", "londonBlock")
_OPTIONAL_ETH = {"daoForkBlock", "muirGlacierBlock", "arrowGlacierBlock", "grayGlacierBlock", "mergeNetsplitBlock",
                 "cancunTime"}


@dataclass(frozen=True, slots=True)
class NetworkUpgrades:
    """Activation times in unix seconds; None: never."""

    subnet_evm: int | None
    durango: int | None
    etna: int | None
    fortuna: int | None
    granite: int | None
    helicon: int | None

    def get(self, key: str) -> int | None:
        return getattr(self, _ATTRIBUTE[key])

    def to_json(self) -> dict[str, int]:
        """As subnet-evm marshals them: the unset ones omitted."""
        return {key: self.get(key) for key in KEYS if self.get(key) is not None}  # type: ignore[misc]

    def active(self, key: str, ts: int) -> bool:
        t = self.get(key)
        return t is not None and t <= ts

    def avalanche_rules(self, ts: int) -> dict[str, bool]:
        """extras.AvalancheRules at `ts`, as eth_getActiveRulesAt writes it."""
        return {"Is" + compat: self.active(key, ts) for key, _, _, compat in _UPGRADES}

    @property
    def shanghai(self) -> int | None:
        """SetEthUpgrades: Shanghai with Durango while Durango is scheduled."""
        return self.durango if self.durango is not None and self.durango < UNSCHEDULED_TIME else None

    @property
    def cancun(self) -> int | None:
        return self.etna if self.etna is not None and self.etna < UNSCHEDULED_TIME else None


_ATTRIBUTE = {key: attr for key, attr, _, _ in _UPGRADES}
assert tuple(f.name for f in fields(NetworkUpgrades)) == tuple(_ATTRIBUTE.values())


def network_defaults(network_id: int) -> NetworkUpgrades:
    """GetNetworkUpgrades of the node's network."""
    u = params_for(network_id).upgrades
    return NetworkUpgrades(0, u.durango, u.etna, None, u.granite, u.helicon)


def parse_times(obj: dict[str, Any], struct: str) -> dict[str, int]:
    """The upgrade times `obj` gives (a JSON null is no time), JSONError for one that is no uint64."""
    out = {}
    for key in KEYS:
        value = obj.get(key)
        if value is not None:
            out[key] = json_uint64(value, f"{struct}.{key}")
    return out


def parse_overrides(upgrade_bytes: bytes | None) -> dict[str, int] | None:
    """upgrade.json's `networkUpgradeOverrides` (None: not given), JSONError when malformed."""
    if upgrade_bytes is None:
        return None
    try:
        doc = json.loads(upgrade_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise JSONError(f"failed to parse upgrade bytes: {exc}") from None
    overrides = doc.get("networkUpgradeOverrides") if isinstance(doc, dict) else None
    if overrides is None:
        return None
    if not isinstance(overrides, dict):
        raise JSONError("failed to parse upgrade bytes: json: cannot unmarshal into Go struct field "
                        "UpgradeConfig.networkUpgradeOverrides of type extras.NetworkUpgrades")
    try:
        return parse_times(overrides, "NetworkUpgrades.networkUpgradeOverrides")
    except JSONError as exc:
        raise JSONError(f"failed to parse upgrade bytes: {exc}") from None


def schedule(genesis_times: dict[str, int], overrides: dict[str, int] | None, defaults: NetworkUpgrades
             ) -> NetworkUpgrades:
    """SetDefaults (missing or 0: the default), then Override (every time given, 0 included)."""
    times = {}
    for key in KEYS:
        given = genesis_times.get(key)
        times[_ATTRIBUTE[key]] = defaults.get(key) if not given else given
    for key, value in (overrides or {}).items():
        times[_ATTRIBUTE[key]] = value
    return replace(defaults, **times)


def verify(upgrades: NetworkUpgrades, defaults: NetworkUpgrades) -> None:
    """verifyNetworkUpgrades: ConfigError "invalid network upgrades: …" (verifyWithDefault)."""
    for key, _, name, _ in _UPGRADES:
        have, default = upgrades.get(key), defaults.get(key)
        if default is None:
            continue
        reason = None
        if have is None:
            if default < UNSCHEDULED_TIME:
                reason = "timestamp cannot be nil"
        elif not (have == 0 and default <= INITIALLY_ACTIVE_TIME) and have < default:
            reason = (f"provided timestamp must be greater than or equal to the default timestamp: "
                      f"provided timestamp {have}, default timestamp {default}")
        if reason is not None:
            raise ConfigError(f"invalid network upgrades: {name} fork block timestamp is invalid: {reason}")


def eth_forks(genesis_config: dict[str, Any], upgrades: NetworkUpgrades) -> dict[str, int]:
    """SetEthUpgrades: Ethereum's forks (block numbers, then Shanghai and Cancun times); unset
    ones left out."""
    out = {}
    for key in ETH_BLOCK_FORKS:
        value = genesis_config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value
        elif key in _SET_TO_ZERO:
            out[key] = 0
    for key, value in (("shanghaiTime", upgrades.shanghai), ("cancunTime", upgrades.cancun)):
        if value is not None:
            out[key] = value
    return out


def _check_forks(forks: Iterable[tuple[str, int | None, bool, bool]]) -> None:
    """checkForks / CheckConfigForkOrder over (name, value, is a timestamp, optional)."""
    last: tuple[str, int | None, bool, bool] | None = None
    for cur in forks:
        name, value, timed, optional = cur
        if last is not None:
            last_name, last_value, last_timed, _ = last
            at = "timestamp" if timed else "block"
            if last_value is None and value is not None:
                raise ConfigError(f"unsupported fork ordering: {last_name} not enabled, but {name} enabled at {at} "
                                  f"{value}")
            if last_value is not None and value is not None and last_timed == timed and last_value > value:
                raise ConfigError(f"unsupported fork ordering: {last_name} enabled at {at} {last_value}, but {name} "
                                  f"enabled at {at} {value}")
        if not optional or value is not None:
            last = cur


def check_fork_order(eth: dict[str, int], upgrades: NetworkUpgrades) -> None:
    """CheckConfigForkOrder: Ethereum's forks, then the Avalanche upgrades (ConfigError)."""
    _check_forks([(k, eth.get(k), False, k in _OPTIONAL_ETH) for k in ETH_BLOCK_FORKS]
                 + [(k, eth.get(k), True, k in _OPTIONAL_ETH) for k in ("shanghaiTime", "cancunTime")])
    _check_forks([(k, upgrades.get(k), True, k in _OPTIONAL) for k in KEYS])


def _forked(t: int | None, head: int) -> bool:
    return t is not None and t <= head


def incompatibility(stored: NetworkUpgrades, new: NetworkUpgrades, head_ts: int) -> CompatError | None:
    """The first time libevm's checkCompatible finds moved under a head at `head_ts`: Shanghai and
    Cancun, then checkNetworkUpgradesCompatible's (the block forks come from the genesis, which
    does not change)."""
    pairs = [("Shanghai fork timestamp", stored.shanghai, new.shanghai),
             ("Cancun fork timestamp", stored.cancun, new.cancun)]
    pairs += [(f"{compat} fork block timestamp", stored.get(key), new.get(key)) for key, _, _, compat in _UPGRADES]
    for what, old, now in pairs:
        if (_forked(old, head_ts) or _forked(now, head_ts)) and old != now:
            return CompatError(what, old, now)
    return None
