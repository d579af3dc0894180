"""What a simulated result was made by: a hash of the simulator's source and numerical packages.

A run is deterministic for its scenario, buffer size and seed, given the simulator's code, the
defaults its parameters take (declared in that code: ``parameters.py``, ``scenario.py``) and the
numerical libraries it is compiled and computed with. :func:`simulator_stamp` hashes all of
them, so anything that keeps a result (the validation harness's run cache, the service's job
store) keys it on the stamp, and a changed simulator never answers with an old result.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

#: The packages whose arithmetic a run's measures depend on.
NUMERICAL_PACKAGES = ("numpy", "numba")

#: The simulator package's directory (every ``.py`` file below it is hashed).
SIMULATOR_ROOT = Path(__file__).resolve().parent


def code_stamp(root: Path) -> str:
    """SHA-256 of every ``.py`` file below ``root`` (names and contents) and the versions of
    :data:`NUMERICAL_PACKAGES`."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    for name in NUMERICAL_PACKAGES:
        digest.update(f"{name}=={metadata.version(name)}".encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def simulator_stamp() -> str:
    """:func:`code_stamp` of the installed simulator, computed once per process."""
    return code_stamp(SIMULATOR_ROOT)
