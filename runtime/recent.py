"""A bounded, thread-safe record of values by key, the latest first.

The runtime remembers where the expressions and UDFs it hands Spark come from, so that
an error Spark raises later (while a job runs, in the user's ``collect()``) is shown at
the user's text; a session runs many queries, so only the most recently put are kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """Up to ``capacity`` values by key; putting a key again makes it the latest."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._items: OrderedDict[K, V] = OrderedDict()

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def get(self, key: K, default: V | None = None) -> V | None:
        """The value put under ``key`` (which reading makes the latest), or ``default``
        when it is not (or no longer) kept."""
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def latest_first(self) -> list[tuple[K, V]]:
        """The items, the most recently put first (a copy: safe to read while others put)."""
        with self._lock:
            return list(reversed(self._items.items()))
