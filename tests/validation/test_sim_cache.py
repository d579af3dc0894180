"""The compiled core is cached on disk, and a change to any of its modules invalidates it.

Numba keys a cached function on the file that defines it only; the core is split over several
modules, so ``core/cache.py`` stamps every function with the hash of all of them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from validation.simulator import core
from validation.simulator.core import cache, loop

CORE_DIR = Path(cache.__file__).parent


def test_every_core_module_and_the_layout_are_in_the_stamp() -> None:
    names = {p.name for p in cache.SOURCES}
    assert {p.name for p in CORE_DIR.glob("*.py")} <= names
    assert {"layout.py", "parameters.py"} <= names


def test_make_install_recompiles_when_any_stamped_source_changes() -> None:
    # `make install` compiles the core again when a file of the stamp is newer than its own
    # stamp (a pull that changes the core): the Makefile's CORE_SOURCES must list them all.
    root = CORE_DIR.parents[2]
    database = subprocess.run(
        ["make", "-pn", "install"], cwd=root, capture_output=True, text=True, check=False
    ).stdout
    line = next(row for row in database.splitlines() if row.startswith("CORE_SOURCES := "))
    listed = {root / name for name in line.removeprefix("CORE_SOURCES := ").split()}
    assert {p.resolve() for p in cache.SOURCES} <= {p.resolve() for p in listed}


@pytest.mark.parametrize("function", [loop.run_chunk, loop.init_events, loop.finish])
def test_entry_points_use_the_core_locator(function: object) -> None:
    locator = function._cache._impl.locator  # type: ignore[attr-defined]
    assert isinstance(locator, cache.CoreInTreeLocator | cache.CoreUserProvidedLocator)
    assert locator.get_source_stamp() == cache.source_stamp()


def test_stamp_changes_with_any_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [tmp_path / "a.py", tmp_path / "b.py"]
    for path in files:
        path.write_text("x = 1\n")
    monkeypatch.setattr(cache, "SOURCES", tuple(files))
    before = cache.source_stamp()
    files[1].write_text("x = 22\n")  # another size: another stat key, another hash
    assert cache.source_stamp() != before


def test_a_second_process_loads_the_core_from_the_cache() -> None:
    code = (
        "from validation.simulator import Scenario, simulate\n"
        "from validation.simulator.core import loop\n"
        "simulate(Scenario(flows=2, duration_s=0.5, warmup_s=0.1), 5, 1)\n"
        "print(sum(loop.run_chunk.stats.cache_misses.values()),"
        " sum(loop.run_chunk.stats.cache_hits.values()))\n"
    )
    root = Path(core.__file__).parents[3]
    for _ in range(2):  # the first run fills the cache if it is empty or stale
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
        )
    misses, hits = map(int, out.stdout.split())
    assert (misses, hits) == (0, 1)
