"""IAllowList (subnet-evm's precompile/allowlist), shared by every allow-listed precompile.

Roles: 0 None, 1 Enabled, 2 Admin, 3 Manager; "enabled" means any of 1, 2, 3. An account's role
is the 32-byte word at slot `leftpad32(account)` of the precompile's own storage. An admin may
set any role; a manager may move accounts between None and Enabled only.

Functions: readAllowList(address) (5,000 gas) and setAdmin / setEnabled / setManager / setNone
(20,000 gas plus 2,131 for the RoleSet event). Config: adminAddresses, managerAddresses,
enabledAddresses, written into storage when the precompile activates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .contract import (LOG_DATA_GAS, LOG_GAS, LOG_TOPIC_GAS, READ_GAS_PER_SLOT, WRITE_GAS_PER_SLOT, ConfigError,
                       Env, Function, PrecompileError, abi_words, address_word, checksum, encode_words,
                       event_topic, hex_address, json_addresses, selector, word_address)

NONE, ENABLED, ADMIN, MANAGER = 0, 1, 2, 3
ROLE_NAMES = {NONE: "NoRole", ENABLED: "EnabledRole", ADMIN: "AdminRole", MANAGER: "ManagerRole"}

MODIFY_GAS = WRITE_GAS_PER_SLOT
READ_GAS = READ_GAS_PER_SLOT
ROLE_SET_EVENT_GAS = LOG_GAS + LOG_TOPIC_GAS * 4 + LOG_DATA_GAS * 32
ROLE_SET = event_topic("RoleSet(uint256,address,address,uint256)")

SETTERS = {"setAdmin": ADMIN, "setEnabled": ENABLED, "setManager": MANAGER, "setNone": NONE}


def role_of(state: Any, precompile: bytes, account: bytes) -> int:
    return state.get_storage(precompile, address_word(account))


def set_role(state: Any, precompile: bytes, account: bytes, role: int) -> None:
    state.set_storage(precompile, address_word(account), role)


def is_enabled(role: int) -> bool:
    return role in (ENABLED, ADMIN, MANAGER)


def can_modify(caller_role: int, from_role: int, to_role: int) -> bool:
    if caller_role == ADMIN:
        return True
    if caller_role == MANAGER:
        return from_role in (ENABLED, NONE) and to_role in (ENABLED, NONE)
    return False


def role_name(role: int) -> str:
    return ROLE_NAMES.get(role, "UnknownRole")


def _setter(role: int) -> Function:
    def fn(env: Env, args: bytes) -> bytes:
        env.deduct(MODIFY_GAS)
        (word,) = abi_words(args, 1)
        account = word_address(word)
        env.require_writable()
        caller_role = role_of(env.state, env.address, env.caller)
        old = role_of(env.state, env.address, account)
        if not can_modify(caller_role, old, role):
            # subnet-evm names the caller where it says "modify address"
            raise PrecompileError(f"cannot modify allow list: modify address: {checksum(env.caller)}, "
                                  f"from role: {role_name(old)}, to role: {role_name(role)}")
        env.deduct(ROLE_SET_EVENT_GAS)
        env.log([ROLE_SET, role, address_word(account), address_word(env.caller)], encode_words(old))
        set_role(env.state, env.address, account, role)
        return b""
    return fn


def _read(env: Env, args: bytes) -> bytes:
    env.deduct(READ_GAS)
    (word,) = abi_words(args, 1)
    return encode_words(role_of(env.state, env.address, word_address(word)))


FUNCTIONS: dict[bytes, Function] = {
    selector("readAllowList(address)"): _read,
    **{selector(f"{name}(address)"): _setter(role) for name, role in SETTERS.items()},
}


# ----------------------------------------------------------------------------- config


@dataclass(frozen=True, slots=True)
class AllowListConfig:
    admins: tuple[bytes, ...] = ()
    managers: tuple[bytes, ...] = ()
    enabled: tuple[bytes, ...] = ()


def parse_config(data: dict, struct: str = "Config") -> AllowListConfig:
    """The allow-list fields of a precompile config, verified as AllowListConfig.Verify."""
    cfg = AllowListConfig(admins=json_addresses(data.get("adminAddresses"), f"{struct}.adminAddresses"),
                          managers=json_addresses(data.get("managerAddresses"), f"{struct}.managerAddresses"),
                          enabled=json_addresses(data.get("enabledAddresses"), f"{struct}.enabledAddresses"))
    seen: dict[bytes, int] = {}
    for a in cfg.enabled:
        if a in seen:
            raise ConfigError(f"duplicate address in enabled list: {checksum(a)}")
        seen[a] = ENABLED
    for a in cfg.admins:
        if a in seen:
            what = ("duplicate address in admin list" if seen[a] == ADMIN
                    else "cannot set address as both admin and enabled")
            raise ConfigError(f"{what}: {checksum(a)}")
        seen[a] = ADMIN
    # subnet-evm refuses managers activating before the chain's Durango; simnode takes them (subnet.py)
    for a in cfg.managers:
        if a in seen:
            what = {MANAGER: "duplicate address in manager list", ADMIN: "cannot set address as both admin and manager",
                    ENABLED: "cannot set address as both enabled and manager"}[seen[a]]
            raise ConfigError(f"{what}: {checksum(a)}")
        seen[a] = MANAGER
    return cfg


def configure(cfg: AllowListConfig, state: Any, precompile: bytes) -> None:
    for a in cfg.enabled:
        set_role(state, precompile, a, ENABLED)
    for a in cfg.admins:
        set_role(state, precompile, a, ADMIN)
    for a in cfg.managers:
        set_role(state, precompile, a, MANAGER)


def config_json(cfg: AllowListConfig) -> dict:
    """The allow-list fields as subnet-evm marshals them (empty lists omitted)."""
    out: dict[str, Any] = {}
    for key, addresses in (("adminAddresses", cfg.admins), ("managerAddresses", cfg.managers),
                           ("enabledAddresses", cfg.enabled)):
        if addresses:
            out[key] = [hex_address(a) for a in addresses]
    return out
