"""Worker pools start under any TMPDIR: a fork server's socket path holds 107 bytes at most.

Each case runs in a fresh interpreter, because multiprocessing keeps its socket directory for
the life of a process.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from validation import socket_dir

ROOT = Path(__file__).resolve().parents[2]

#: A pool of one worker from the fork server of the given context, its worker's pid printed.
POOL = """
import os
from concurrent.futures import ProcessPoolExecutor
{context}
with ProcessPoolExecutor(1, mp_context=context) as pool:
    print(pool.submit(os.getpid).result() != os.getpid())
"""
PLAIN = "import multiprocessing\ncontext = multiprocessing.get_context('forkserver')"
OURS = "from validation.socket_dir import forkserver_context\ncontext = forkserver_context()"
#: The sweep pool of a trace check (``bufsize trace --verify``) and of ``bufsize verify``.
SWEEP = """
import os
from validation.sweeps import executor
with executor("", 1) as pool:
    print(pool.submit(os.getpid).result() != os.getpid())
"""


def _long_tmpdir(tmp_path: Path) -> Path:
    directory = tmp_path / ("a-temporary-directory-with-a-long-name-" * 3)
    directory.mkdir()
    assert len(str(directory)) > 110
    return directory


def _run(code: str, tmpdir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmpdir), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )


def test_a_long_tmpdir_stops_a_plain_fork_server(tmp_path: Path) -> None:
    # What this module mends, as Python 3.11 does it.
    done = _run(POOL.format(context=PLAIN), _long_tmpdir(tmp_path))
    assert done.returncode != 0
    assert "AF_UNIX path too long" in done.stderr


@pytest.mark.parametrize("code", [POOL.format(context=OURS), SWEEP], ids=["pool", "sweep"])
def test_pools_start_under_a_long_tmpdir(tmp_path: Path, code: str) -> None:
    tmpdir = _long_tmpdir(tmp_path)
    done = _run(code, tmpdir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
    assert list(tmpdir.iterdir()) == []  # multiprocessing's directory went elsewhere


def test_without_a_short_directory_the_error_names_tmpdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = multiprocessing.current_process()._config  # type: ignore[attr-defined]
    monkeypatch.delitem(config, "tempdir", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(_long_tmpdir(tmp_path)))
    monkeypatch.setattr(socket_dir, "SHORT_BASES", ())
    with pytest.raises(OSError, match=r"^TMPDIR \(/.*\) is too long .* set TMPDIR to a directory"):
        socket_dir.ensure_short_socket_dir()
    assert "tempdir" not in config
