"""One set of simulation defaults: the command line and the API build the same scenario.

The defaults live on :class:`validation.simulator.Scenario` (today's hosts: RTTs spread by ±20 %,
delayed ACKs every 2 segments, initial window 10, 52-byte headers, minimum RTO 200 ms); a zero
RTT jitter is allowed and warned about by both interfaces.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from app.cli import main
from app.cli.simulate_options import build_request
from app.jobs.lifespan import simulation_runner
from app.main import create_app
from app.settings import Settings, get_settings
from tests.app import test_api_simulations_runners as runners
from validation.simulator import Scenario

cli = importlib.import_module("app.cli.simulate")

# The command line requires these three (and a buffer); they are the API's defaults too.
REQUIRED = ["--capacity", "100 Mbit/s", "--flows", "40", "--rtt", "100ms", "--buffer", "10"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        max_packets_per_job=10**9,
        dask_scheduler=None,
    )
    service = create_app()
    service.dependency_overrides[get_settings] = lambda: settings
    service.dependency_overrides[simulation_runner] = lambda: runners.quick_runner
    with TestClient(service) as test_client:
        yield test_client


def cli_scenario(*args: str) -> Scenario:
    ctx = cli.simulate.make_context("simulate", [*REQUIRED, *args])
    scenario: Scenario = build_request(dict(ctx.params)).scenario
    return scenario


def api_scenario(client: TestClient, **fields: Any) -> tuple[Scenario, list[str]]:
    answer = client.post("/v1/simulations", json={"scenario": fields, "buffer_packets": [10]})
    assert answer.status_code == 202, answer.text
    job = client.get(f"/v1/simulations/{answer.json()['id']}").json()
    assert job["warnings"] == answer.json()["warnings"]
    return Scenario.from_dict(job["request"]["scenario"]), answer.json()["warnings"]


def test_cli_and_api_with_no_options_give_the_same_scenario(client: TestClient) -> None:
    from_api, warnings = api_scenario(client)
    from_cli = cli_scenario()
    assert from_cli == from_api
    assert warnings == []
    # The values chosen for today's hosts (the command line's before, now everyone's).
    assert from_api.rtt_jitter_s == pytest.approx(0.2 * 0.1, rel=1e-12)
    assert from_api.header_bytes == 52 and from_api.packet_bytes == 1448
    assert from_api.delayed_ack == 2 and from_api.initial_window_packets == 10
    assert from_api.min_rto_s == 0.2


def test_ca_increase_reaches_the_scenario_from_both_interfaces(client: TestClient) -> None:
    from_api, _ = api_scenario(client, ca_increase="per_ack")
    assert from_api == cli_scenario("--ca-increase", "per_ack")
    assert from_api.ca_increase == "per_ack" and Scenario().ca_increase == "bytes_acked"
    grouped, _ = api_scenario(client, groups=[{"flows": 2, "ca_increase": "per_ack"}, {"flows": 3}])
    assert [g.ca_increase for g in grouped.groups] == ["per_ack", "bytes_acked"]


def test_the_default_jitter_follows_the_rtt(client: TestClient) -> None:
    from_api, _ = api_scenario(client, rtt_s="40 ms")
    assert from_api.rtt_jitter_s == pytest.approx(0.2 * 0.04, rel=1e-12)
    assert cli_scenario("--rtt", "40ms") == from_api


def test_zero_jitter_is_allowed_and_warned_about(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from_api, warnings = api_scenario(client, rtt_jitter_s=0)
    assert from_api.rtt_jitter_s == 0.0
    (warning,) = warnings
    assert warning.startswith("rtt_jitter_s is 0") and "phase-lock" in warning

    monkeypatch.setattr(cli, "run_request", lambda *args, **kwargs: [])
    result = CliRunner().invoke(main, ["simulate", *REQUIRED, "--rtt-jitter", "0ms", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("Warning: --rtt-jitter is 0")
    assert '"warnings": [' in result.stdout


def test_one_flow_or_open_loop_traffic_gets_no_jitter_warning() -> None:
    assert Scenario(flows=1, rtt_jitter_s=0.0).warnings() == []
    assert Scenario(traffic="open_loop", rtt_jitter_s=0.0).warnings() == []


def test_cli_and_api_give_the_same_aqm_scenario_with_units(client: TestClient) -> None:
    from_api, _ = api_scenario(client, aqm="codel", codel_target_s="2 ms", codel_interval_s="50 ms")
    from_cli = cli_scenario("--aqm", "codel", "--codel-target", "2ms", "--codel-interval", "50ms")
    assert from_cli == from_api
    assert from_api.aqm == "codel"
    assert from_api.codel_target_s == pytest.approx(0.002, rel=1e-12)
    assert from_api.codel_interval_s == pytest.approx(0.05, rel=1e-12)
    # RFC 8289's defaults (TARGET 5 ms, INTERVAL 100 ms), no AQM unless asked for
    assert cli_scenario() == api_scenario(client)[0]
    assert (Scenario().aqm, Scenario().codel_target_s, Scenario().codel_interval_s) == (
        "none",
        0.005,
        0.1,
    )


@pytest.mark.parametrize(
    ("fields", "field", "bound"),
    [
        ({"codel_target_s": 0}, "codel_target_s", "greater than 0"),
        ({"codel_interval_s": "200 s"}, "codel_interval_s", "less than or equal to 100"),
        ({"aqm": "red"}, "aqm", "'none', 'codel', 'pie' or 'dualq'"),
        ({"aqm": "pie", "discipline": "fq"}, "aqm", "with discipline fq it must be none"),
    ],
)
def test_api_aqm_errors_are_422_naming_the_field_and_bound(
    client: TestClient, fields: dict[str, Any], field: str, bound: str
) -> None:
    answer = client.post("/v1/simulations", json={"scenario": fields, "buffer_packets": [10]})
    assert answer.status_code == 422, answer.text
    (detail,) = answer.json()["detail"]
    assert detail["loc"][-1] == field
    assert bound in detail["msg"]
