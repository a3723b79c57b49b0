"""A small thread-safe LRU of parse results keyed by (path, content): the server re-reads a project
on every keystroke, so unchanged files are parsed once. Used for cfgs, prototxts, mapper logs and
``cnn_net_tree.dot``.

The content itself is the key (Python caches a string's hash, and equal texts compare by memory):
no digest to compute, nothing to import (nnie-lint's start-up).  The parse results hold their text
anyway, so keeping it in the key costs no memory beyond the few entries whose result does not."""

from __future__ import annotations

import _thread
from collections import OrderedDict
from typing import Callable


class ContentCache:
    def __init__(self, parse: Callable, size: int = 64) -> None:
        self._parse = parse
        self._size = size
        self._data: OrderedDict = OrderedDict()
        # threading.Lock itself, from the low-level module Python has already loaded (the
        # threading module costs nnie-lint's start-up about 0.6 ms)
        self._lock = _thread.allocate_lock()

    def get(self, text: str, path: str | None):
        key = (path, text)
        with self._lock:
            hit = self._data.get(key)
            if hit is not None:
                self._data.move_to_end(key)
                return hit
        value = self._parse(text, path)
        with self._lock:
            self._data[key] = value
            while len(self._data) > self._size:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
