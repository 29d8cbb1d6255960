"""Derived indexes fed by accepted blocks (placeholder docstring, rewritten below)."""

from .driver import Indexer, rebuild

__all__ = ["Indexer", "rebuild"]
