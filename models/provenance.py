"""What produced a result: the bufsize version and the numerical libraries' versions.

Read from the installed packages' metadata (``importlib.metadata``), so asking costs no import of
the libraries themselves and the version is written in one place only (``pyproject.toml``).
"""

from __future__ import annotations

from functools import cache
from importlib import metadata

#: The distributions whose versions travel with every result.
NUMERICAL_PACKAGES = ("numpy", "scipy", "numba")


@cache
def bufsize_version() -> str:
    """The installed bufsize version (``pyproject.toml``'s ``version``)."""
    return metadata.version("bufsize")


@cache
def software_versions() -> dict[str, str]:
    """``{"bufsize": ..., "numpy": ..., "scipy": ..., "numba": ...}`` as installed."""
    versions = {"bufsize": bufsize_version()}
    versions.update({name: metadata.version(name) for name in NUMERICAL_PACKAGES})
    return versions
