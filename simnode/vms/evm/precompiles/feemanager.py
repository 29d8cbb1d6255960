"""The fee manager, 0x0200…0003 (`feeManagerConfig`): IFeeManager plus IAllowList.

The fee config lives in the precompile's storage: field i (1..8, in feeConfig's order) at the
key whose first byte is i, the block number of the last change at key "lca". Activation stores
`initialFeeConfig`, or the genesis feeConfig, with that block's number. While the precompile is
enabled at a block's parent, the block's gas limit and base fee follow the config stored in the
parent's state (subnet-evm's GetFeeConfigAt), so a change made in block N rules from block N+1.

Gas: setFeeConfig 180,000 plus 45,221 for FeeConfigChanged (whose price includes reading the
old config); getFeeConfig 40,000; getFeeConfigLastChangedAt 5,000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..subnet_fees import FEE_CONFIG_FIELDS, FeeConfigError, SubnetFeeConfig
from . import allowlist
from .contract import (LOG_DATA_GAS, LOG_GAS, LOG_TOPIC_GAS, MAX_U64, READ_GAS_PER_SLOT, WRITE_GAS_PER_SLOT,
                       BlockContext, ChainParams, ConfigError, Env, Module, PrecompileError, abi_words, address_word,
                       checksum, encode_words, event_topic, selector)

ADDRESS = bytes.fromhex("0200000000000000000000000000000000000003")
KEY = "feeManagerConfig"
N_FIELDS = len(FEE_CONFIG_FIELDS)
SET_GAS = WRITE_GAS_PER_SLOT * (N_FIELDS + 1)  # plus one slot for the last-changed block
GET_GAS = READ_GAS_PER_SLOT * N_FIELDS
LAST_CHANGED_GAS = READ_GAS_PER_SLOT
CHANGED_EVENT_GAS = GET_GAS + LOG_GAS + LOG_TOPIC_GAS * 2 + 2 * 32 * N_FIELDS * LOG_DATA_GAS
FEE_CONFIG_CHANGED = event_topic("FeeConfigChanged(address,(uint256,uint256,uint256,uint256,uint256,uint256,uint256,"
                                 "uint256),(uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256))")
LAST_CHANGED_KEY = int.from_bytes(b"lca".ljust(32, b"\x00"), "big")


def field_key(i: int) -> int:
    """common.Hash{byte(i)}: i in the first of 32 bytes."""
    return i << 248


@dataclass(frozen=True, slots=True)
class Settings:
    allow_list: allowlist.AllowListConfig
    initial_fee_config: SubnetFeeConfig | None


def config_words(cfg: SubnetFeeConfig) -> list[int]:
    return [getattr(cfg, attr) for _, attr in FEE_CONFIG_FIELDS]


def config_from_words(words: list[int]) -> SubnetFeeConfig:
    """A FeeConfig as subnet-evm builds it from ABI or storage words (targetBlockRate is a uint64)."""
    values = {attr: w for (_, attr), w in zip(FEE_CONFIG_FIELDS, words, strict=True)}
    values["target_block_rate"] &= MAX_U64
    return SubnetFeeConfig(**values)


def stored_config(state: Any) -> SubnetFeeConfig:
    return config_from_words([state.get_storage(ADDRESS, field_key(i)) for i in range(1, N_FIELDS + 1)])


def last_changed_at(state: Any) -> int:
    return state.get_storage(ADDRESS, LAST_CHANGED_KEY)


def store_config(state: Any, cfg: SubnetFeeConfig, block_number: int) -> None:
    """StoreFeeConfig: verified first (FeeConfigError otherwise), then every field and the block."""
    cfg.verify()
    for i, value in enumerate(config_words(cfg), start=1):
        state.set_storage(ADDRESS, field_key(i), value)
    state.set_storage(ADDRESS, LAST_CHANGED_KEY, block_number)


def _set_fee_config(env: Env, args: bytes) -> bytes:
    env.deduct(SET_GAS)
    env.require_writable()
    new = config_from_words(abi_words(args, N_FIELDS, "failed to unpack input: "))
    if not allowlist.is_enabled(allowlist.role_of(env.state, ADDRESS, env.caller)):
        raise PrecompileError(f"non-enabled cannot change fee config: {checksum(env.caller)}")
    env.deduct(CHANGED_EVENT_GAS)
    old = stored_config(env.state)
    env.log([FEE_CONFIG_CHANGED, address_word(env.caller)], encode_words(*config_words(old), *config_words(new)))
    try:
        store_config(env.state, new, env.state.block_number)
    except FeeConfigError as exc:
        raise PrecompileError(f"cannot verify fee config: {exc}") from None
    return b""


def _get_fee_config(env: Env, _args: bytes) -> bytes:
    env.deduct(GET_GAS)
    return encode_words(*config_words(stored_config(env.state)))


def _get_last_changed_at(env: Env, _args: bytes) -> bytes:
    env.deduct(LAST_CHANGED_GAS)
    return encode_words(last_changed_at(env.state))


FUNCTIONS = {
    **allowlist.FUNCTIONS,
    selector("setFeeConfig(uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256)"): _set_fee_config,
    selector("getFeeConfig()"): _get_fee_config,
    selector("getFeeConfigLastChangedAt()"): _get_last_changed_at,
}


def _parse(data: dict) -> Settings:
    allow = allowlist.parse_config(data)
    raw = data.get("initialFeeConfig")
    if raw is None:
        return Settings(allow, None)
    try:
        return Settings(allow, SubnetFeeConfig.from_json(raw))
    except FeeConfigError as exc:
        raise ConfigError(str(exc)) from None


def _configure(s: Settings, state: Any, block: BlockContext, chain: ChainParams) -> None:
    store_config(state, s.initial_fee_config or chain.fee_config, block.number)
    allowlist.configure(s.allow_list, state, ADDRESS)


def _to_json(s: Settings) -> dict:
    out = allowlist.config_json(s.allow_list)
    if s.initial_fee_config is not None:
        out["initialFeeConfig"] = s.initial_fee_config.to_json()
    return out


MODULE = Module(key=KEY, address=ADDRESS, functions=FUNCTIONS, parse=_parse, configure=_configure, to_json=_to_json)
