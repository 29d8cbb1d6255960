"""Scenario accounts: a secp256k1 key each, with its C (0x…), X and P (bech32) addresses.

A key not given in the file is derived from the scenario seed and the account's name:
sha256("simnode-scenario-account/" ‖ seed as 8 bytes ‖ name), re-hashed in the (never seen)
case it is not a valid secp256k1 scalar. Same seed and name → same key, on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..crypto.hashing import sha256
from ..crypto.secp256k1 import CURVE_ORDER, eth_address, public_key, short_address
from ..formats.address import format_address, hrp_for_network
from ..formats.ids import private_key_from_str, private_key_to_str
from ..vms.evm.accounts import EWOQ_KEY

__all__ = ["EWOQ_KEY", "Account", "derive_key", "parse_key"]


def derive_key(seed: int, name: str, purpose: str = "account") -> bytes:
    data = f"simnode-scenario-{purpose}/".encode() + seed.to_bytes(8, "big") + name.encode()
    key = sha256(data)
    while not 0 < int.from_bytes(key, "big") < CURVE_ORDER:
        key = sha256(key)
    return key


def parse_key(text: str) -> bytes:
    if text.startswith("PrivateKey-"):
        return private_key_from_str(text)
    return bytes.fromhex(text[2:] if text.startswith("0x") else text)


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    private_key: bytes
    network_id: int = 12345

    @property
    def key_hex(self) -> str:
        return "0x" + self.private_key.hex()

    @property
    def key_cb58(self) -> str:
        return private_key_to_str(self.private_key)

    @property
    def eth_address_bytes(self) -> bytes:
        return eth_address(self.private_key)

    @property
    def c_address(self) -> str:
        """EIP-55 checksummed 0x address."""
        from eth_utils import to_checksum_address
        return to_checksum_address(self.eth_address_bytes)

    @property
    def short_address(self) -> bytes:
        return short_address(public_key(self.private_key))

    def bech32(self, chain: str) -> str:
        return format_address(chain, hrp_for_network(self.network_id), self.short_address)

    @property
    def x_address(self) -> str:
        return self.bech32("X")

    @property
    def p_address(self) -> str:
        return self.bech32("P")

    def address(self, chain: str) -> str:
        return self.c_address if chain == "C" else self.bech32(chain)

    def attr(self, name: str) -> str:
        table = {"C": self.c_address, "X": self.x_address, "P": self.p_address, "key": self.key_hex,
                 "private_key": self.key_cb58, "name": self.name, "c_address": self.c_address,
                 "x_address": self.x_address, "p_address": self.p_address}
        if name not in table:
            raise KeyError(f"an account has no attribute '{name}' (has: {', '.join(table)})")
        return table[name]

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "private_key": self.key_cb58, "key_hex": self.key_hex,
                "C": self.c_address, "X": self.x_address, "P": self.p_address}
