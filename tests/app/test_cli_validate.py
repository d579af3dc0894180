"""``bufsize validate quick``: the quick suite end to end, as part of the test command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from validation import datasets


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(main, ["validate", "quick", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "agrees" in result.output and "report.html" in result.output
    assert (out / "report.html").stat().st_size > 3_000_000  # Plotly's JavaScript inlined
    report: dict[str, Any] = json.loads((out / "report.json").read_text())
    return report


@pytest.mark.slow
def test_quick_suite_covers_every_dataset_with_a_reasoned_verdict(
    quick_report: dict[str, Any],
) -> None:
    rows = quick_report["rows"]
    assert {r["dataset"] for r in rows} == set(datasets.names())
    assert sum(quick_report["counts"].values()) == len(rows)
    for r in rows:
        assert r["verdict"] in ("agrees", "disagrees", "not reproducible here")
        assert r["reason"], r
        if r["verdict"] == "disagrees":
            # A disagreement says by how much and in which direction.
            assert " the paper's range " in r["reason"] and (
                "above" in r["reason"] or "below" in r["reason"]
            )
        if r["simulation"] is not None:
            # 3 replications, a 4th only while the 99% interval straddles an end of the range.
            assert r["replications"] in (3, 4), r
            if r["replications"] == 3 and r["simulation_ci99"] is not None:
                low = r["simulation"] - r["simulation_ci99"]
                high = r["simulation"] + r["simulation_ci99"]
                inside = r["low"] <= low and high <= r["high"]
                outside = high < r["low"] or low > r["high"]
                on_model = "Simulation shown for reference." in r["reason"]
                assert inside or outside or on_model, r


@pytest.mark.slow
def test_quick_suite_keeps_the_orderings_the_papers_report(quick_report: dict[str, Any]) -> None:
    sim = {(r["dataset"], r["row"]): r["simulation"] for r in quick_report["rows"]}
    # 004 §VII at 300 LBP flows: BSCL's buffer loses least, C·T more, Stanford most.
    assert sim["bscl_loss", "nb300_bscl"] < sim["bscl_loss", "nb300_ct"]
    assert sim["bscl_loss", "nb300_ct"] < sim["bscl_loss", "nb300_stanford"]
    # 000 Fig. 3.1: at B = 10 paced TCP gets more throughput than Reno.
    assert sim["thesis_ch3", "f31_paced_b10"] > sim["thesis_ch3", "f31_reno_b10"]
    # 000 Table 4.1: at fixed potential load, throughput rises from 150 to 600 flows.
    assert sim["thesis_table_4_1", "trend_rise"] > 0


def test_unknown_dataset_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["validate", "quick", "--dataset", "nope", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "'nope' is not a dataset" in result.output and "--dataset" in result.output
