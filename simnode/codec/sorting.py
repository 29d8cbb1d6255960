"""Ordering checks the codec rules need (utils.IsSortedAndUnique and friends)."""

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def _identity(item: Any) -> Any:
    return item


def is_sorted_and_unique(items: Sequence[T], key: Callable[[T], Any] = _identity) -> bool:
    """Strictly ascending by key."""
    keys = [key(item) for item in items]
    return all(a < b for a, b in zip(keys, keys[1:]))


def is_sorted(items: Sequence[T], key: Callable[[T], Any] = _identity) -> bool:
    """Ascending by key, equal neighbours allowed."""
    keys = [key(item) for item in items]
    return all(a <= b for a, b in zip(keys, keys[1:]))
