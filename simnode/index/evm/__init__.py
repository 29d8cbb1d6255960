"""The index family of EVM chains (the C-Chain and every subnet-EVM L1): rows.py writes the
tables layout.py describes, query.py reads them. What the driver needs from a family:"""

from __future__ import annotations

from typing import Any

from .rows import index_block

__all__ = ["block_row", "head_number", "index_block"]


def head_number(chain: Any) -> int:
    return chain.head.number


def block_row(chain: Any, number: int) -> dict | None:
    return chain.block_row(number)
