"""Precompile configs (subnet-evm's params/extras precompile_upgrade.go and precompiles.go).

A config comes from the genesis `config.<key>` or from an upgrade.json `precompileUpgrades`
entry (`[{"<key>": {...}}]`); each has `blockTimestamp` (none: never activates) and `disable`.
They are verified as subnet-evm's verifyPrecompileUpgrades does: upgrades in timestamp order,
enabling and disabling alternating per precompile, strictly later per precompile.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .registry import BY_KEY, MODULES
from .contract import ConfigError, Module, json_uint64

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
        raise ConfigError(f"json: cannot unmarshal {type(data).__name__} into Go value of type "
                          f"*{module.key.removesuffix('Config').lower()}.Config")
    ts = data.get("blockTimestamp")
    disable = data.get("disable", False)
    if not isinstance(disable, bool):
        raise ConfigError("json: cannot unmarshal disable into Go struct field Config.disable of type bool")
    return PrecompileConfig(module, None if ts is None else json_uint64(ts, "Config.blockTimestamp"), disable,
                            module.parse(data))


def genesis_configs(chain_config: dict) -> tuple[PrecompileConfig, ...]:
    """The precompile configs of a genesis `config` (keys of precompiles simnode does not run
    are left alone, as Go's decoder leaves unknown fields)."""
    return tuple(parse_config(m, chain_config[m.key]) for m in MODULES if chain_config.get(m.key) is not None)


def parse_upgrade_bytes(data: bytes) -> tuple[PrecompileConfig, ...]:
    """upgrade.json's `precompileUpgrades`, in order (ConfigError with subnet-evm's reason)."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"failed to parse upgrade bytes: {exc}") from None
    if not isinstance(doc, dict):
        raise ConfigError("failed to parse upgrade bytes: json: cannot unmarshal into Go value of type "
                          "extras.UpgradeConfig")
    for unsupported in ("stateUpgrades", "networkUpgradeOverrides"):
        if doc.get(unsupported):
            raise ConfigError(f"failed to parse upgrade bytes: {unsupported} are not supported by simnode")
    entries = doc.get("precompileUpgrades") or []
    if not isinstance(entries, list):
        raise ConfigError("failed to parse upgrade bytes: precompileUpgrades must be a list")
    out = []
    for entry in entries:
        if not isinstance(entry, dict) or not entry:
            raise ConfigError("failed to parse upgrade bytes: PrecompileUpgrade cannot be empty")
        if len(entry) > 1:
            raise ConfigError(f"failed to parse upgrade bytes: PrecompileUpgrade must have exactly one key, "
                              f"got {len(entry)}")
        ((key, value),) = entry.items()
        module = BY_KEY.get(key)
        if module is None:
            raise ConfigError(f"failed to parse upgrade bytes: unknown precompile config: {key}")
        try:
            out.append(parse_config(module, value))
        except ConfigError as exc:
            raise ConfigError(f"failed to parse upgrade bytes: {exc}") from None
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
