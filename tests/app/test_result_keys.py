"""Stored simulation results are keyed on the simulator that made them.

The key of a job and of each buffer size's runs includes the hash of the simulator's source
files (code and parameter defaults): a copy of the simulator with one core file changed has a
new stamp, and a store holding the old code's result answers the new code with nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.jobs import spec as spec_module
from app.jobs.spec import SimulationSpec
from app.jobs.store import JobStore
from validation.simulator.stamp import SIMULATOR_ROOT, code_stamp, simulator_stamp

SCENARIO = {"capacity_bps": 1e7, "rtt_s": 0.05, "flows": 4, "duration_s": 5.0}


def _copy_of_the_simulator(tmp_path: Path) -> Path:
    copy = tmp_path / "simulator"
    shutil.copytree(SIMULATOR_ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_stamp_is_the_installed_simulator_source(tmp_path: Path) -> None:
    # The copy hashes as the installed package: the stamp depends on the files, not their place.
    assert code_stamp(_copy_of_the_simulator(tmp_path)) == simulator_stamp()


@pytest.mark.parametrize("changed", ["core/loop.py", "parameters.py"])
def test_a_changed_simulator_file_gives_new_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str
) -> None:
    copy = _copy_of_the_simulator(tmp_path)
    spec = SimulationSpec.create(SCENARIO, [10, 20], replications=2, seed=1)
    old_hash, old_key = spec.request_hash, spec.run_key(10)

    store = JobStore(f"sqlite:///{tmp_path / 'jobs.sqlite3'}")
    store.save_result(old_key, 10, {"runs": [], "old": True})
    assert 10 in store.results(spec)

    # One character of one file of the simulator changes (a parameter default, a core rule).
    path = copy / changed
    text = path.read_text()
    path.write_text(text.replace("= ", "=  ", 1))
    monkeypatch.setattr(spec_module, "simulator_stamp", lambda: code_stamp(copy))

    assert spec.request_hash != old_hash
    assert spec.run_key(10) != old_key
    # The new code finds no result: it simulates anew rather than answer with the old numbers.
    assert store.results(spec) == {}
    store.close()
