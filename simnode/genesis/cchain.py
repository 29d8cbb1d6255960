"""The C-Chain's genesis: the coreth genesis JSON the network genesis carries as a string."""

import json
from dataclasses import dataclass
from typing import Any

from .fields import GenesisError, hex_bytes, require


@dataclass(frozen=True, slots=True)
class CChainAccount:
    address: bytes  # 20 bytes
    balance: int  # wei
    nonce: int
    code: bytes
    storage: tuple[tuple[bytes, bytes], ...]  # (32-byte slot, 32-byte value), sorted by slot


@dataclass(frozen=True, slots=True)
class CChainGenesis:
    raw: str  # the cChainGenesis string byte for byte (the C-Chain ID hashes it)
    parsed: dict[str, Any]  # the whole JSON document
    chain_id: int
    config: dict[str, Any]
    nonce: int
    timestamp: int
    extra_data: bytes
    gas_limit: int
    difficulty: int
    mix_hash: bytes
    coinbase: bytes
    number: int
    gas_used: int
    parent_hash: bytes
    base_fee: int | None
    alloc: tuple[CChainAccount, ...]  # sorted by address

    def balance_of(self, address: bytes) -> int:
        return next((account.balance for account in self.alloc if account.address == address), 0)


def hex_or_decimal(value: Any, where: str) -> int:
    # go-ethereum's math.HexOrDecimal64/256: "0x…" hex, a decimal string, or a JSON number.
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str):
        try:
            if value[:2] in ("0x", "0X"):
                return int(value[2:], 16)
            if value.isascii() and value.isdigit():
                return int(value)
        except ValueError:
            pass
    raise GenesisError(f"{where}: expected a hex or decimal number, got {value!r}")


def evm_address(text: Any, where: str) -> bytes:
    if not isinstance(text, str):
        raise GenesisError(f"{where}: expected an address string")
    digits = text[2:] if text[:2] in ("0x", "0X") else text
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        raise GenesisError(f"{where}: invalid address {text!r}") from None
    if len(raw) != 20:
        raise GenesisError(f"{where}: expected 20 bytes but got {len(raw)}")
    return raw


def parse_c_chain_genesis(raw: str) -> CChainGenesis:
    """The coreth genesis JSON carried as a string in the network genesis."""
    try:
        document = json.loads(raw)
    except json.JSONDecodeError as e:
        raise GenesisError(f"cChainGenesis: invalid JSON: {e}") from None
    if not isinstance(document, dict):
        raise GenesisError("cChainGenesis: expected a JSON object")
    config = document.get("config")
    if not isinstance(config, dict):
        raise GenesisError("cChainGenesis: missing config object")
    alloc_obj = document.get("alloc") or {}
    if not isinstance(alloc_obj, dict):
        raise GenesisError("cChainGenesis.alloc: expected a JSON object")
    accounts = []
    for key, account in alloc_obj.items():
        where = f"cChainGenesis.alloc[{key}]"
        if not isinstance(account, dict):
            raise GenesisError(f"{where}: expected a JSON object")
        storage_obj = account.get("storage") or {}
        if not isinstance(storage_obj, dict):
            raise GenesisError(f"{where}.storage: expected a JSON object")
        storage = sorted(
            (hex_bytes(slot, f"{where}.storage", 32), hex_bytes(value, f"{where}.storage", 32))
            for slot, value in storage_obj.items()
        )
        accounts.append(
            CChainAccount(
                address=evm_address(key, where),
                balance=hex_or_decimal(require(account, "balance", where), f"{where}.balance"),
                nonce=hex_or_decimal(account.get("nonce", 0), f"{where}.nonce"),
                code=hex_bytes(account["code"], f"{where}.code") if account.get("code") else b"",
                storage=tuple(storage),
            )
        )
    base_fee = document.get("baseFeePerGas")
    return CChainGenesis(
        raw=raw,
        parsed=document,
        chain_id=hex_or_decimal(config.get("chainId"), "cChainGenesis.config.chainId"),
        config=config,
        nonce=hex_or_decimal(document.get("nonce", 0), "cChainGenesis.nonce"),
        timestamp=hex_or_decimal(document.get("timestamp", 0), "cChainGenesis.timestamp"),
        extra_data=hex_bytes(document.get("extraData", "0x"), "cChainGenesis.extraData"),
        gas_limit=hex_or_decimal(document.get("gasLimit", 0), "cChainGenesis.gasLimit"),
        difficulty=hex_or_decimal(document.get("difficulty", 0), "cChainGenesis.difficulty"),
        mix_hash=hex_bytes(document.get("mixHash", "0x" + "00" * 32), "cChainGenesis.mixHash", 32),
        coinbase=evm_address(document.get("coinbase", "0x" + "00" * 20), "cChainGenesis.coinbase"),
        number=hex_or_decimal(document.get("number", 0), "cChainGenesis.number"),
        gas_used=hex_or_decimal(document.get("gasUsed", 0), "cChainGenesis.gasUsed"),
        parent_hash=hex_bytes(document.get("parentHash", "0x" + "00" * 32), "cChainGenesis.parentHash", 32),
        base_fee=None if base_fee is None else hex_or_decimal(base_fee, "cChainGenesis.baseFeePerGas"),
        alloc=tuple(sorted(accounts, key=lambda account: account.address)),
    )
