"""A directory for multiprocessing's Unix sockets short enough under any ``TMPDIR``.

A ``forkserver`` pool talks to its fork server over a Unix socket that multiprocessing puts in
a ``pymp-*`` directory of the temporary directory. A socket's path holds at most 107 bytes
(``sun_path``, unix(7)), so a ``TMPDIR`` longer than about 75 characters makes every pool fail
to start (``OSError: AF_UNIX path too long``). :func:`forkserver_context` then gives
multiprocessing a directory of its own under ``/tmp`` (or ``/var/tmp``, ``/dev/shm``), deleted
when the process ends, as Python 3.13 does by itself; with none of them usable, it raises an
error that names ``TMPDIR`` and the fix.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
from multiprocessing.context import ForkServerContext
from multiprocessing.util import Finalize

#: Bytes of a Unix socket's path, without the final NUL (``sockaddr_un.sun_path`` is 108).
SUN_PATH_MAX = 107
#: What multiprocessing adds to the temporary directory: ``/pymp-`` + 8 random characters,
#: then the socket's ``/listener-`` + 8.
_PYMP = len("/pymp-") + 8
_LISTENER = len("/listener-") + 8
#: Short directories tried, in order, when the temporary directory is too long.
SHORT_BASES = ("/tmp", "/var/tmp", "/dev/shm")


def _fits(directory: str, added: int) -> bool:
    return len(os.fsencode(directory)) + added <= SUN_PATH_MAX


def ensure_short_socket_dir() -> str | None:
    """Make multiprocessing's socket directory short enough; returns the directory chosen, or
    None when the temporary directory already fits."""
    config = multiprocessing.current_process()._config  # type: ignore[attr-defined]
    current = config.get("tempdir")
    if current is not None:
        if _fits(current, _LISTENER):
            return None
    elif _fits(tempfile.gettempdir(), _PYMP + _LISTENER):
        return None
    for base in SHORT_BASES:
        if not (
            _fits(base, _PYMP + _LISTENER)
            and os.path.isdir(base)
            and os.access(base, os.W_OK | os.X_OK)
        ):
            continue
        try:
            directory = tempfile.mkdtemp(prefix="pymp-", dir=base)
        except OSError:
            continue
        Finalize(None, shutil.rmtree, args=(directory, True), exitpriority=-100)
        config["tempdir"] = directory
        return directory
    raise OSError(
        f"TMPDIR ({tempfile.gettempdir()}) is too long for the worker pool's socket, whose path "
        f"may hold {SUN_PATH_MAX} bytes, and none of {', '.join(SHORT_BASES)} is writable: set "
        "TMPDIR to a directory of at most 75 characters (e.g. TMPDIR=/tmp)"
    )


def forkserver_context() -> ForkServerContext:
    """multiprocessing's ``forkserver`` context, its socket directory short enough."""
    ensure_short_socket_dir()
    context = multiprocessing.get_context("forkserver")
    assert isinstance(context, ForkServerContext)
    return context
