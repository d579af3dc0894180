"""``bufsize trace FILE``: estimates, the BSCL size, --json, and errors naming what and where."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main
from tests.app.trace_links import write_congested_trace
from validation.traces import estimate_trace, open_trace
from validation.traces.sizing import link_from_estimates
from validation.verify import verify


def _csv(path: Path, rows: int = 3000) -> Path:
    lines = ["time_s,flow,size_bytes,dropped"]
    for i in range(rows):
        lines.append(f"{i * 0.001:.6f},{i % 3},1500,{int(i % 40 == 39)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_json_has_estimates_and_bscl(tmp_path: Path) -> None:
    path = _csv(tmp_path / "t.csv")
    result = CliRunner().invoke(
        main, ["trace", str(path), "--capacity", "12 Mbit/s", "--json", "--flows"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    est = doc["estimates"]
    assert est["packets"] == 3000 and est["flows"] == 3
    # 75 drops (rows 39, 79, ..., 2999) among 3000 rows, no warm-up.
    assert est["loss_rate"]["value"] == 75 / 3000
    assert len(est["flow_table"]) == 3
    assert "bscl" in doc


def test_table_output(tmp_path: Path) -> None:
    path = _csv(tmp_path / "t.csv")
    result = CliRunner().invoke(main, ["trace", str(path), "--capacity", "12 Mbit/s"])
    assert result.exit_code == 0, result.output
    assert "N_b (LBP flows)" in result.output and "Loss rate" in result.output


def test_errors_name_the_option_or_the_place(tmp_path: Path) -> None:
    runner = CliRunner()
    path = _csv(tmp_path / "t.csv")
    result = runner.invoke(main, ["trace", str(path), "--max-loss", "150%"])
    assert result.exit_code == 2 and "--max-loss" in result.output
    result = runner.invoke(main, ["trace", str(path), "--buffer", "100"])
    assert result.exit_code == 2 and "--buffer needs --capacity" in result.output
    bad = tmp_path / "bad.csv"
    bad.write_text("time_s,flow,size_bytes,dropped\n0.1,1,1500,0\n0.2,1,1500,7\n")
    result = runner.invoke(main, ["trace", str(bad)])
    assert result.exit_code == 1
    assert "line 3" in result.output and "dropped must be 0 or 1" in result.output
    result = runner.invoke(main, ["trace", str(tmp_path / "missing.pcap")])
    assert result.exit_code == 2 and "does not exist" in result.output


@pytest.fixture(scope="module")
def congested_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated 10 Mbit/s link with 8 persistent Reno flows and 10% background, as CSV."""
    path = tmp_path_factory.mktemp("trace") / "link.csv"
    write_congested_trace(path)
    return path


def test_verify_is_the_recommendation_check_of_the_bscl_size(congested_csv: Path) -> None:
    args = ["trace", str(congested_csv), "--capacity", "10 Mbit/s", "--warmup", "4s"]
    options = ["--verify", "--replications", "2", "--seed", "7"]
    result = CliRunner().invoke(main, [*args, *options, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    bscl_packets = math.ceil(doc["bscl"]["buffer_packets"])
    check = doc["verification"]
    # The BSCL size the command reports is the size checked, with its neighbours.
    assert check["rule"] == "bscl" and check["replications"] == 2 and check["seed"] == 7
    assert [s["label"] for s in check["sizes"]] == ["half", "recommended", "double"]
    sizes = [s["buffer_packets"] for s in check["sizes"]]
    assert sizes == [max(bscl_packets // 2, 1), bscl_packets, 2 * bscl_packets]
    for size in check["sizes"]:
        assert size["verdict"] in ("met", "missed", "undecided") and size["reason"]
        assert 0.0 < size["utilization"] <= 1.0 and 0.0 <= size["loss_rate"] < 1.0
    # The headline: the worst outcome at the BSCL size, at either end of the access rates
    # (the trace does not give them).
    assert check["slow_sizes"][1]["label"] == "recommended, slow access"
    outcomes = {check["sizes"][1]["verdict"], check["slow_sizes"][1]["verdict"]}
    assert check["verdict"] == next(v for v in ("missed", "undecided", "met") if v in outcomes)
    # It is validation/verify.py's answer for the link the estimates describe (same seeds).
    est = estimate_trace(open_trace(congested_csv), capacity_bps=10e6, warmup_s=4.0)
    link, targets = link_from_estimates(est, 0.01)
    assert link.bottlenecked_flows == round(doc["estimates"]["bottlenecked_flows"]["value"])
    assert link.rtts_s == (doc["estimates"]["effective_rtt_s"]["value"],)
    expected = verify(link, None, targets, replications=2, seed=7, size=("bscl", bscl_packets))
    assert check == json.loads(json.dumps(expected.to_dict()))
    # Without --json the same table as ``bufsize recommend --verify``.
    result = CliRunner().invoke(main, [*args, *options])
    assert result.exit_code == 0, result.output
    assert "Check by simulation" in result.output and "Verdict:" in result.output
    for label in ("half", "recommended", "double"):
        assert label in result.output
