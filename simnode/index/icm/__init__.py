"""The ICM index family of EVM chains: the TeleporterMessenger's messages, sent and received,
across the node's chains (rows.py writes the tables layout.py describes, query.py reads them).
The driver runs it after the EVM tables on the same block row."""

from __future__ import annotations

from .rows import index_block

__all__ = ["index_block"]
