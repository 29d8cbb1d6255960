"""The reward manager, 0x0200…0004 (`rewardManagerConfig`): IRewardManager plus IAllowList.

One storage word (key "rask") says where a block's fees go: a reward address; the blackhole
(rewards disabled); or the marker "afrav", which lets the block builder name its own fee
recipient (the chain's `feeRecipient`, else the blackhole). While the precompile is enabled at
a block's parent, that word in the parent's state chooses the block's coinbase (subnet-evm's
GetCoinbaseAt); otherwise the genesis `allowFeeRecipients` does.

Gas: setRewardAddress, allowFeeRecipients and disableRewards 25,000 (a write and a role read)
plus their event (6,875 for RewardAddressChanged, which reads the old address; 1,125 for the
others); currentRewardAddress and areFeeRecipientsAllowed 5,000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..headers import BLACKHOLE
from . import allowlist
from .contract import (LOG_GAS, LOG_TOPIC_GAS, READ_GAS_PER_SLOT, WRITE_GAS_PER_SLOT, BlockContext, ChainParams,
                       ConfigError, Env, JSONError, Module, PrecompileError, abi_words, address_word, checksum,
                       encode_words, event_topic, hex_address, json_address, selector, word_address)

ADDRESS = bytes.fromhex("0200000000000000000000000000000000000004")
KEY = "rewardManagerConfig"
WRITE_GAS = WRITE_GAS_PER_SLOT + allowlist.READ_GAS
READ_GAS = allowlist.READ_GAS
SENDER_EVENT_GAS = LOG_GAS + LOG_TOPIC_GAS * 2
ADDRESS_CHANGED_EVENT_GAS = LOG_GAS + LOG_TOPIC_GAS * 4 + READ_GAS_PER_SLOT
REWARD_ADDRESS_CHANGED = event_topic("RewardAddressChanged(address,address,address)")
FEE_RECIPIENTS_ALLOWED = event_topic("FeeRecipientsAllowed(address)")
REWARDS_DISABLED = event_topic("RewardsDisabled(address)")
REWARD_KEY = int.from_bytes(b"rask".ljust(32, b"\x00"), "big")
ALLOW_FEE_RECIPIENTS = int.from_bytes(b"afrav".ljust(32, b"\x00"), "big")


@dataclass(frozen=True, slots=True)
class Settings:
    allow_list: allowlist.AllowListConfig
    initial: tuple[bool, bytes] | None  # initialRewardConfig: (allowFeeRecipients, rewardAddress)


def stored_reward(state: Any) -> tuple[bytes, bool]:
    """(reward address, fee recipients allowed) from the precompile's storage."""
    word = state.get_storage(ADDRESS, REWARD_KEY)
    return word_address(word), word == ALLOW_FEE_RECIPIENTS


def _require_enabled(env: Env, function: str) -> None:
    if not allowlist.is_enabled(allowlist.role_of(env.state, ADDRESS, env.caller)):
        raise PrecompileError(f"non-enabled cannot call {function}: {checksum(env.caller)}")


def _allow_fee_recipients(env: Env, _args: bytes) -> bytes:
    env.deduct(WRITE_GAS)
    env.require_writable()
    _require_enabled(env, "allowFeeRecipients")
    env.deduct(SENDER_EVENT_GAS)
    env.log([FEE_RECIPIENTS_ALLOWED, address_word(env.caller)])
    env.set(REWARD_KEY, ALLOW_FEE_RECIPIENTS)
    return b""


def _disable_rewards(env: Env, _args: bytes) -> bytes:
    env.deduct(WRITE_GAS)
    env.require_writable()
    _require_enabled(env, "disableRewards")
    env.deduct(SENDER_EVENT_GAS)
    env.log([REWARDS_DISABLED, address_word(env.caller)])
    env.set(REWARD_KEY, address_word(BLACKHOLE))
    return b""


def _set_reward_address(env: Env, args: bytes) -> bytes:
    env.deduct(WRITE_GAS)
    env.require_writable()
    (word,) = abi_words(args, 1)
    new = word_address(word)
    _require_enabled(env, "setRewardAddress")
    if new == bytes(20):
        raise PrecompileError("reward address cannot be empty")
    env.deduct(ADDRESS_CHANGED_EVENT_GAS)
    old, _ = stored_reward(env.state)
    env.log([REWARD_ADDRESS_CHANGED, address_word(env.caller), address_word(old), address_word(new)])
    env.set(REWARD_KEY, address_word(new))
    return b""


def _current_reward_address(env: Env, _args: bytes) -> bytes:
    env.deduct(READ_GAS)
    return encode_words(address_word(stored_reward(env.state)[0]))


def _are_fee_recipients_allowed(env: Env, _args: bytes) -> bytes:
    env.deduct(READ_GAS)
    return encode_words(int(stored_reward(env.state)[1]))


FUNCTIONS = {
    **allowlist.FUNCTIONS,
    selector("allowFeeRecipients()"): _allow_fee_recipients,
    selector("areFeeRecipientsAllowed()"): _are_fee_recipients_allowed,
    selector("currentRewardAddress()"): _current_reward_address,
    selector("disableRewards()"): _disable_rewards,
    selector("setRewardAddress(address)"): _set_reward_address,
}


def _parse(data: dict) -> Settings:
    raw = data.get("initialRewardConfig")
    initial = None
    if raw is not None:
        if not isinstance(raw, dict):
            raise JSONError("json: cannot unmarshal initialRewardConfig into Go struct field "
                              "Config.initialRewardConfig of type rewardmanager.InitialRewardConfig")
        allow = raw.get("allowFeeRecipients", False)
        if not isinstance(allow, bool):
            raise JSONError("json: cannot unmarshal allowFeeRecipients into Go struct field "
                              "InitialRewardConfig.initialRewardConfig.allowFeeRecipients of type bool")
        address = raw.get("rewardAddress")
        reward = bytes(20) if address is None else json_address(address, "InitialRewardConfig.rewardAddress")
        if allow and reward != bytes(20):
            raise ConfigError("cannot enable both fee recipients and reward address at the same time")
        initial = (allow, reward)
    return Settings(allowlist.parse_config(data), initial)


def _configure(s: Settings, state: Any, _block: BlockContext, chain: ChainParams) -> None:
    if s.initial is not None:
        allow, reward = s.initial
        if allow:
            value = ALLOW_FEE_RECIPIENTS
        else:
            value = address_word(reward if reward != bytes(20) else BLACKHOLE)
    else:
        value = ALLOW_FEE_RECIPIENTS if chain.allow_fee_recipients else address_word(BLACKHOLE)
    state.set_storage(ADDRESS, REWARD_KEY, value)
    allowlist.configure(s.allow_list, state, ADDRESS)


def _to_json(s: Settings) -> dict:
    out = allowlist.config_json(s.allow_list)
    if s.initial is not None:
        out["initialRewardConfig"] = {"allowFeeRecipients": s.initial[0], "rewardAddress": hex_address(s.initial[1])}
    return out


MODULE = Module(key=KEY, address=ADDRESS, functions=FUNCTIONS, parse=_parse, configure=_configure, to_json=_to_json)
