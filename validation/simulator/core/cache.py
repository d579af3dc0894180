"""Numba's on-disk cache for the core, invalidated by a change to any module it compiles.

Numba keys a cached function on the source of the file that defines it: a function compiled
into ``loop.run_chunk`` from ``sender.py`` would not invalidate ``run_chunk``'s cache when only
``sender.py`` changes. The locators here give every function of the core one source stamp, the
hash of all the files whose code or constants it compiles (this package, ``layout.py`` and
``parameters.py``), so that a change to any of them recompiles the core on the next run.
Registered before the first ``@jit`` of the core is decorated (``jit.py`` imports this module).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from numba.core import caching

_CORE = Path(__file__).resolve().parent
#: The files the compiled core reads code or constants from.
SOURCES = (
    *sorted(_CORE.glob("*.py")),
    _CORE.parent / "layout.py",
    _CORE.parent / "parameters.py",
)


def source_stamp() -> str:
    """Hash of the contents of every file of :data:`SOURCES`."""
    return _hash(tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in SOURCES))


@functools.lru_cache(maxsize=8)
def _hash(stats: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _, _ in stats:
        path = Path(name)
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


class _CoreStamp:
    """Mixin: the whole core's stamp, for functions defined in this package only."""

    def get_source_stamp(self) -> str:
        return source_stamp()

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        if Path(py_file).resolve().parent != _CORE:
            return None
        return super().from_function(py_func, py_file)  # type: ignore[misc]


class CoreUserProvidedLocator(_CoreStamp, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR`` when it is set."""


class CoreInTreeLocator(_CoreStamp, caching.InTreeCacheLocator):
    """``__pycache__`` beside the sources."""


class CoreUserWideLocator(_CoreStamp, caching.UserWideCacheLocator):
    """The user's cache directory when ``__pycache__`` is not writable."""


_LOCATORS = [CoreUserProvidedLocator, CoreInTreeLocator, CoreUserWideLocator]
if caching.CacheImpl._locator_classes[:3] != _LOCATORS:
    caching.CacheImpl._locator_classes[:0] = _LOCATORS
