"""A call's TransactionArgs as the Ethereum JSON-RPC parses them (service.py) and execution.py
runs them; kept apart from execution.py so parsing them imports nothing of py-evm."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eth_typing import Address

RPC_GAS_CAP = 50_000_000  # coreth's RPCGasCap


@dataclass(slots=True)
class CallArgs:
    """A call's TransactionArgs. `nonce` is kept for the methods that sign or build a tx; a
    call, an estimate, an access list or a traced call never reads it (coreth's ToMessage copies
    no nonce and skips the account checks)."""

    sender: Address
    to: Address | None
    gas: int | None
    gas_price: int | None
    max_fee: int | None
    tip: int | None
    value: int
    data: bytes
    nonce: int | None
    access_list: list[tuple[Address, list[int]]] | None

    @property
    def paying(self) -> bool:
        """Whether the message's gas price is above zero (ToMessage): with a zero price the EVM
        runs with base fee 0 (NoBaseFee), so the fee checks and BASEFEE see 0."""
        return bool(self.gas_price or self.max_fee)

    def fees(self, base_fee: int) -> tuple[int, int, int]:
        """(gas price, fee cap, tip cap) as coreth's ToMessage derives them from the args."""
        if self.gas_price is not None:
            return self.gas_price, self.gas_price, self.gas_price
        fee_cap = self.max_fee or 0
        tip_cap = self.tip or 0
        price = min(tip_cap + base_fee, fee_cap) if fee_cap or tip_cap else 0
        return price, fee_cap, tip_cap
