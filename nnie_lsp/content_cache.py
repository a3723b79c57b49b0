"""A small thread-safe LRU of parse results keyed by (path, content): the server re-reads a project
on every keystroke, so unchanged files are parsed once. Used for cfgs, prototxts, mapper logs and
``cnn_net_tree.dot``."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable


class ContentCache:
    def __init__(self, parse: Callable, size: int = 64) -> None:
        self._parse = parse
        self._size = size
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str, path: str | None):
        import hashlib

        key = (path, len(text), hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest())
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
