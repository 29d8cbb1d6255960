"""The native minter, 0x0200…0001 (`contractNativeMinterConfig`): INativeMinter plus IAllowList.

mintNativeCoin(address, uint256): 30,000 gas plus 1,756 for the NativeCoinMinted event; the
caller must be Enabled, Manager or Admin. The config's `initialMint` credits balances when the
precompile activates (at genesis: on top of the alloc)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import allowlist
from .contract import (LOG_DATA_GAS, LOG_GAS, LOG_TOPIC_GAS, MAX_U256, BlockContext, ChainParams, ConfigError, Env,
                       JSONError, Module, PrecompileError, abi_words, address_word, checksum, encode_words,
                       event_topic, hex_address, json_address, json_big, selector, word_address)

ADDRESS = bytes.fromhex("0200000000000000000000000000000000000001")
KEY = "contractNativeMinterConfig"
MINT_GAS = 30_000
MINTED_EVENT_GAS = LOG_GAS + LOG_TOPIC_GAS * 3 + LOG_DATA_GAS * 32
NATIVE_COIN_MINTED = event_topic("NativeCoinMinted(address,address,uint256)")


@dataclass(frozen=True, slots=True)
class Settings:
    allow_list: allowlist.AllowListConfig
    initial_mint: tuple[tuple[bytes, int], ...]  # sorted by address


def _mint(env: Env, args: bytes) -> bytes:
    env.deduct(MINT_GAS)
    env.require_writable()
    to_word, amount = abi_words(args, 2, "failed to unpack input: ")
    to = word_address(to_word)
    if not allowlist.is_enabled(allowlist.role_of(env.state, ADDRESS, env.caller)):
        raise PrecompileError(f"non-enabled cannot mint: {checksum(env.caller)}")
    env.deduct(MINTED_EVENT_GAS)
    env.log([NATIVE_COIN_MINTED, address_word(env.caller), address_word(to)], encode_words(amount))
    _credit(env.state, to, amount)
    return b""


def _credit(state: Any, to: bytes, amount: int) -> None:
    # a zero credit to an absent account leaves nothing behind (geth deletes the empty account)
    if amount:
        state.set_balance(to, (state.get_balance(to) + amount) & MAX_U256)  # uint256 wraps, as geth's


FUNCTIONS = {**allowlist.FUNCTIONS, selector("mintNativeCoin(address,uint256)"): _mint}


def _parse(data: dict) -> Settings:
    raw = data.get("initialMint") or {}
    if not isinstance(raw, dict):
        raise JSONError("json: cannot unmarshal initialMint into Go struct field Config.initialMint of type "
                          "map[common.Address]*math.HexOrDecimal256")
    mint: dict[bytes, int] = {}
    for key, value in raw.items():
        address = json_address(key, "Config.initialMint")
        if value is None:
            raise ConfigError(f"initial mint cannot contain nil amount for address {checksum(address)}")
        amount = json_big(value, "Config.initialMint")
        if amount < 1:
            raise ConfigError(f"initial mint cannot contain invalid amount: amount {amount} for address "
                              f"{checksum(address)}")
        mint[address] = amount
    return Settings(allowlist.parse_config(data), tuple(sorted(mint.items())))


def _configure(s: Settings, state: Any, _block: BlockContext, _chain: ChainParams) -> None:
    for to, amount in s.initial_mint:
        _credit(state, to, amount)
    allowlist.configure(s.allow_list, state, ADDRESS)


def _to_json(s: Settings) -> dict:
    out = allowlist.config_json(s.allow_list)
    if s.initial_mint:
        out["initialMint"] = {hex_address(a): hex(v) for a, v in s.initial_mint}
    return out


MODULE = Module(key=KEY, address=ADDRESS, functions=FUNCTIONS, parse=_parse, configure=_configure, to_json=_to_json)
