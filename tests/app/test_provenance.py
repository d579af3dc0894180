"""Every simulation result carries the versions of the software that computed it."""

from __future__ import annotations

import json
from importlib import metadata

from click.testing import CliRunner

from app.cli import main
from app.jobs.runner import run_replications
from app.schemas.simulations import BufferResult
from validation.simulator import Scenario, replicate, simulate

# Read here from the installed distributions, independently of models.provenance.
EXPECTED = {name: metadata.version(name) for name in ("bufsize", "numpy", "scipy", "numba")}
TINY = Scenario(capacity_bps=1e6, flows=2, rtt_s=0.05, duration_s=1.0, warmup_s=0.2)


def test_run_and_replications_carry_versions_beside_seed_and_scenario() -> None:
    run = simulate(TINY, 5, seed=3)
    assert run.software_versions == EXPECTED
    assert run.to_dict()["software_versions"] == EXPECTED
    assert run.to_dict()["seed"] == 3
    replicated = replicate(TINY, 5, replications=2, seed=3)
    out = replicated.to_dict()
    assert out["software_versions"] == EXPECTED
    assert all(r["software_versions"] == EXPECTED for r in out["runs"])


def test_the_api_stores_and_returns_the_versions() -> None:
    # What a worker stores for one buffer size, and what GET /v1/simulations/{id} returns of it.
    stored = run_replications(TINY.to_dict(), 5, 2, 3, lambda fraction: None)
    assert stored["software_versions"] == EXPECTED
    returned = BufferResult.model_validate(stored).model_dump()
    assert returned["software_versions"] == EXPECTED


def test_cli_json_carries_the_versions() -> None:
    args = ["simulate", "--capacity", "1 Mbit/s", "--flows", "2", "--rtt", "50ms"]
    args += ["--duration", "1s", "--warmup", "0.2s", "--buffer", "5", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["software_versions"] == EXPECTED
    assert document["results"][0]["software_versions"] == EXPECTED
