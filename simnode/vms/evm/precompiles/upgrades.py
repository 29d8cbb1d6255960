"""Precompile configs (subnet-evm's params/extras precompile_upgrade.go and precompiles.go).

A config comes from the genesis `config.<key>` or from an upgrade.json `precompileUpgrades`
entry (`[{"<key>": {...}}]`); each has `blockTimestamp` (none: never activates) and `disable`.
They are verified as subnet-evm's verifyPrecompileUpgrades does: upgrades in timestamp order,
enabling and disabling alternating per precompile, strictly later per precompile.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .contract import ConfigError, JSONError, Module, json_uint64
from .registry import BY_KEY, MODULES

ALLOW_LIST_KEYS = ("adminAddresses", "managerAddresses", "enabledAddresses")


@dataclass(frozen=True, slots=True)
class PrecompileConfig:
    module: Module
    timestamp: int | None
    disable: bool
    settings: Any

    @property
    def key(self) -> str:
        return self.module.key

    def to_json(self) -> dict:
        """As subnet-evm marshals the config: allow-list fields, blockTimestamp, disable, the rest."""
        fields = self.module.to_json(self.settings)
        out = {k: fields[k] for k in ALLOW_LIST_KEYS if k in fields}
        out["blockTimestamp"] = self.timestamp
        if self.disable:
            out["disable"] = True
        out.update({k: v for k, v in fields.items() if k not in ALLOW_LIST_KEYS})
        return out


def parse_config(module: Module, data: Any) -> PrecompileConfig:
    if not isinstance(data, dict):
        raise JSONError(f"json: cannot unmarshal {type(data).__name__} into Go value of type "
                          f"*{module.key.removesuffix('Config').lower()}.Config")
    ts = data.get("blockTimestamp")
    disable = data.get("disable", False)
    if not isinstance(disable, bool):
        raise JSONError("json: cannot unmarshal disable into Go struct field Config.disable of type bool")
    return PrecompileConfig(module, None if ts is None else json_uint64(ts, "Config.blockTimestamp"), disable,
                            module.parse(data))


def genesis_configs(chain_config: dict) -> tuple[PrecompileConfig, ...]:
    """The precompile configs of a genesis `config` (keys of precompiles simnode does not run
    are left alone, as Go's decoder leaves unknown fields)."""
    return tuple(parse_config(m, chain_config[m.key]) for m in MODULES if chain_config.get(m.key) is not None)


def parse_upgrade_bytes(data: bytes) -> tuple[PrecompileConfig, ...]:
    """upgrade.json's `precompileUpgrades`, in order: JSONError when it does not decode (with
    subnet-evm's reason), ConfigError when a config fails its own checks."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise JSONError(f"failed to parse upgrade bytes: {exc}") from None
    if not isinstance(doc, dict):
        raise JSONError("failed to parse upgrade bytes: json: cannot unmarshal into Go value of type "
                          "extras.UpgradeConfig")
    if doc.get("stateUpgrades"):
        raise JSONError("failed to parse upgrade bytes: stateUpgrades are not supported by simnode")
    entries = doc.get("precompileUpgrades") or []
    if not isinstance(entries, list):
        raise JSONError("failed to parse upgrade bytes: precompileUpgrades must be a list")
    out = []
    for entry in entries:
        if not isinstance(entry, dict) or not entry:
            raise JSONError("failed to parse upgrade bytes: PrecompileUpgrade cannot be empty")
        if len(entry) > 1:
            raise JSONError(f"failed to parse upgrade bytes: PrecompileUpgrade must have exactly one key, "
                              f"got {len(entry)}")
        ((key, value),) = entry.items()
        module = BY_KEY.get(key)
        if module is None:
            raise JSONError(f"failed to parse upgrade bytes: unknown precompile config: {key}")
        try:
            out.append(parse_config(module, value))
        except JSONError as exc:
            raise JSONError(f"failed to parse upgrade bytes: {exc}") from None
    return tuple(out)


def verify_upgrades(genesis: tuple[PrecompileConfig, ...], upgrades: tuple[PrecompileConfig, ...]) -> None:
    """verifyPrecompileUpgrades (each config's own checks ran when it was parsed)."""
    last: dict[str, tuple[int, bool]] = {c.key: (c.timestamp, False) for c in genesis if c.timestamp is not None}
    previous: int | None = None
    for i, u in enumerate(upgrades):
        last_ts, disabled = last.get(u.key, (None, True))
        if u.timestamp is None:
            raise ConfigError(f"precompile upgrade block timestamp cannot be nil: PrecompileUpgrade ({u.key}) at [{i}]")
        if previous is not None and u.timestamp < previous:
            raise ConfigError("precompile upgrade config block timestamp must be greater than or equal to previous "
                              f"timestamp: PrecompileUpgrade ({u.key}) at [{i}] has timestamp {u.timestamp}, "
                              f"previous timestamp {previous}")
        if disabled == u.disable:
            raise ConfigError(f"precompile upgrade disable value is invalid: PrecompileUpgrade ({u.key}) at [{i}], "
                              f"disable should be {str(not disabled).lower()}")
        if last_ts is not None and u.timestamp <= last_ts:
            raise ConfigError("precompile upgrade config block timestamp for same key must be strictly greater than "
                              f"previous timestamp: PrecompileUpgrade ({u.key}) at [{i}] has timestamp {u.timestamp}, "
                              f"previous timestamp of same key {last_ts}")
        last[u.key] = (u.timestamp, u.disable)
        previous = u.timestamp


@dataclass(frozen=True, slots=True)
class CompatError:
    """libevm's ConfigCompatError for a fork scheduled by time: what moved, from and to when."""

    what: str
    stored: int | None
    new: int | None

    @property
    def rewind_to(self) -> int:
        if self.stored is None:
            rew = self.new
        elif self.new is None or self.stored < self.new:
            rew = self.stored
        else:
            rew = self.new
        return rew - 1 if rew else 0

    def __str__(self) -> str:
        have = "nil" if self.stored is None else str(self.stored)
        want = "nil" if self.new is None else str(self.new)
        return (f"mismatching {self.what} in database (have timestamp {have}, want timestamp {want}, "
                f"rewindto timestamp {self.rewind_to})")


def _first_incompatibility(genesis: tuple[PrecompileConfig, ...], stored: tuple[PrecompileConfig, ...],
                           new: tuple[PrecompileConfig, ...], ts: int) -> CompatError | None:
    """checkPrecompilesCompatible at `ts`: per precompile, the configs active by then must match."""
    def active(module: Module, upgrades: tuple[PrecompileConfig, ...]) -> list[PrecompileConfig]:
        return [c for c in (*genesis, *upgrades)
                if c.module is module and c.timestamp is not None and c.timestamp <= ts]

    for module in MODULES:
        had, has = active(module, stored), active(module, new)
        for i, config in enumerate(had):
            if len(has) <= i:
                return CompatError(f"missing PrecompileUpgrade[{i}]", config.timestamp, None)
            if config != has[i]:
                return CompatError(f"PrecompileUpgrade[{i}]", config.timestamp, has[i].timestamp)
        if len(has) > len(had):
            return CompatError(f"cannot retroactively enable PrecompileUpgrade[{len(had)}]", None,
                                has[len(had)].timestamp)
    return None


def check_compatible(genesis: tuple[PrecompileConfig, ...], stored: tuple[PrecompileConfig, ...],
                     new: tuple[PrecompileConfig, ...], head_ts: int,
                     before: Callable[[int], CompatError | None] | None = None) -> str | None:
    """Why upgrades `new` may not replace `stored` on a chain whose last accepted block has
    timestamp `head_ts` (they would change an activation already passed), or None: the lowest
    conflict, as libevm's CheckCompatible finds it, and only if it needs a rewind (subnet-evm's
    SetupGenesisBlock; it never rewinds, the chain does not start). `before`: the chain config's
    checks that come ahead of the precompiles' (its network upgrades), at a head timestamp."""
    last: CompatError | None = None
    ts = head_ts
    while True:
        err = (before(ts) if before is not None else None) or _first_incompatibility(genesis, stored, new, ts)
        if err is None or (last is not None and err.rewind_to == last.rewind_to):
            break
        last = err
        if err.rewind_to > 0:
            ts = err.rewind_to
    if last is None or head_ts == 0 or last.rewind_to == 0:
        return None
    return str(last)
