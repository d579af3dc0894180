"""The validation harness: verdict rule, checks for every row, run sharing and the report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from validation import datasets
from validation.datasets import Row
from validation.harness.plan import SUITES, Check, ratio, single
from validation.harness.report import write
from validation.harness.runner import Report, build_checks, compare
from validation.harness.verdict import judge, within
from validation.simulator import Scenario


def _row(low: float, high: float, paper: float = math.nan) -> Row:
    return Row("toy", "r", "utilization", paper, low, high, "000 §0", "a quote", {})


def test_verdict_agrees_when_the_interval_meets_the_range() -> None:
    assert judge(_row(0.8, 1.0), 0.85, 0.01, what="simulation")[0] == "agrees"
    # 0.78 ± 0.03 reaches 0.81 > 0.8: the interval meets the range.
    assert judge(_row(0.8, 1.0), 0.78, 0.03, what="simulation")[0] == "agrees"
    verdict, reason = judge(_row(0.8, 1.0), 0.70, 0.05, what="simulation", explanation="why")
    assert verdict == "disagrees"
    assert "below" in reason and "0.05" in reason and reason.endswith("why")
    verdict, reason = judge(_row(0.0, 0.01), 0.03, 0.001, what="simulation")
    assert verdict == "disagrees" and "above" in reason
    assert judge(_row(0, 1), math.nan, math.nan, what="simulation")[0] == "not reproducible here"
    assert within(0.5, math.nan, 0.5, 0.6) and not within(0.49, math.nan, 0.5, 0.6)


@pytest.mark.parametrize("suite", ["quick", "full"])
def test_every_row_gets_a_check_in_the_full_suite(suite: str) -> None:
    checks = build_checks(SUITES[suite])
    keys = {(c.row.dataset, c.row.row) for c in checks}
    everything = {(name, r.row) for name in datasets.names() for r in datasets.load(name)}
    if suite == "full":
        assert keys == everything
    else:
        assert keys < everything
        assert {name for name, _ in keys} == set(datasets.names())  # each dataset in quick
    for check in checks:
        simulated = bool(check.variants) and check.measure is not None
        assert check.not_reproducible or simulated or check.judge_on == "model", check.row.row
        for scenario, buffer_packets in check.variants.values():
            scenario.validate(buffer_packets)


def test_compare_uses_paired_replications_and_reports_the_measured_figures() -> None:
    row = datasets.row("auge_roberts", "paced_gain_b20")
    scenario = Scenario(flows=1, duration_s=2.0, warmup_s=1.0)
    check = Check(
        row,
        {"paced": (scenario, 20), "unpaced": (scenario, 20)},
        ratio("paced", "unpaced", "goodput_bps"),
    )
    base = {"utilization": 0.5, "loss_rate": 0.01, "timeouts": 0.0}
    base |= {"mean_queue_packets": 3.0, "queue_delay_mean_s": 0.001}
    runs = [
        {"paced": base | {"goodput_bps": 15.0}, "unpaced": base | {"goodput_bps": 10.0}},
        {"paced": base | {"goodput_bps": 16.0}, "unpaced": base | {"goodput_bps": 10.0}},
        {"paced": base | {"goodput_bps": 14.0}, "unpaced": base | {"goodput_bps": 10.0}},
    ]
    result = compare(check, runs)
    assert result.simulation == pytest.approx(1.5)
    assert result.replications == 3
    # t(0.995, 2) = 9.925 times the standard error 0.1/√3·... of (1.5, 1.6, 1.4)
    assert result.simulation_ci99 == pytest.approx(9.925 * 0.1 / math.sqrt(3), rel=1e-3)
    assert result.verdict == "agrees"
    assert result.diagnostics["paced loss_rate"] == pytest.approx(0.01)


def test_rows_that_cannot_be_simulated_say_why_and_keep_the_model() -> None:
    checks = [c for c in build_checks(SUITES["quick"], ["level3"])]
    assert len(checks) == 5
    result = compare(checks[-1], None)
    assert result.verdict == "not reproducible here"
    assert "not give" in result.reason
    # 000 §4.1.2 saw drops above 90% load with 1 ms (600 packets); M/D/1/B at load 0.95
    # predicts practically none, and the reason says the model misses them.
    assert result.model < 1e-9 and "below the paper's range" in result.reason


def test_formula_rows_are_judged_on_the_model() -> None:
    # 004 Table I, N_b = 300: C·T_avg 672 -> Stanford floor(672/√300) = floor(38.8) = 38.
    check = next(c for c in build_checks(SUITES["quick"], ["bscl_table_1"]) if c.row.row == "nb300")
    result = compare(check, None)
    assert result.model == 38 and result.verdict == "agrees"


def test_report_files(tmp_path: Path) -> None:
    checks = build_checks(SUITES["quick"], ["bscl_table_1", "level3"])
    comparisons = [compare(c, None) for c in checks]
    report = Report("quick", comparisons, wall_s=1.0, runs=0, meta={"replications": 4})
    json_path, html_path = write(report, tmp_path)
    data = json.loads(json_path.read_text())
    assert len(data["rows"]) == 24
    for item in data["rows"]:
        assert {"dataset", "row", "paper", "model", "simulation", "verdict", "reason"} <= set(item)
        assert item["reason"]
    page = html_path.read_text()
    # Plotly's JavaScript is inlined: no script or stylesheet is loaded from anywhere.
    assert "<script src" not in page and "<link" not in page
    assert "Plotly.newPlot" in page and len(page) > 3_000_000  # plotly.min.js is ~4.6 MB
    assert page.count('class="plotly-graph-div"') == 2


def test_single_measure() -> None:
    assert single("run", "utilization")({"run": {"utilization": 0.25}}) == 0.25


def test_gamma_from_phi_follows_processor_sharing() -> None:
    import numpy as np

    from validation.harness.phi import gamma_curve

    # 003 §3.3: with φ ≡ 1 the PS throughput is γ = 1 − ρ; over background ρ_b = 0.5 the
    # bottlenecked flows see C/2 at load (ρ − 0.5)/0.5, so γ/C = 0.5·(1 − (ρ − 0.5)/0.5) = 1 − ρ.
    loads = np.array([0.6, 0.7, 0.8, 0.9])
    assert gamma_curve([1, 4], [1.0, 1.0], 0.5, loads) == pytest.approx(1 - loads)
    # 003 §5.1: "its value at that load is determined by φ(1)": γ/C -> (1 − ρ_b)·φ(1).
    near = gamma_curve([1, 2, 4], [0.4, 0.7, 0.9], 0.5, np.array([0.5 + 1e-6]))
    assert near[0] == pytest.approx(0.5 * 0.4, rel=1e-4)
    # Undefined at or below the background load and beyond what the flows can carry.
    edge = gamma_curve([1, 2], [0.4, 0.6], 0.5, np.array([0.5, 0.81]))
    assert np.isnan(edge).all()


def test_bscl_loss_rows_carry_the_non_lbp_share() -> None:
    # 004 §VII: "The total amount of non-LBP traffic varies between 5% to 20%" and Fig. 6 is
    # C_e = 90%: the non-LBP traffic is 10% of the 50 Mb/s target link.
    checks = build_checks(SUITES["quick"], ["bscl_loss"])
    assert [c.row.row for c in checks] == ["nb300_bscl", "nb300_ct", "nb300_stanford"]
    for check in checks:
        scenario, buffer_packets = check.variants["run"]
        assert buffer_packets == int(check.row.number("buffer_packets"))
        groups = {g.name: g for g in scenario.groups}
        assert groups["LBP"].flows == 300 and groups["RBP"].flows == 20
        assert groups["window-limited"].flows == 10
        # 40% of 5 Mb/s over 20 RBP flows: 100 kb/s access links.
        assert groups["RBP"].access_bps == pytest.approx(100e3)
        # 20% of 5 Mb/s in flows of 14 packets of 1500 B: 1e6 / 168e3 arrivals per second.
        assert groups["short"].flow_arrival_rate_per_s == pytest.approx(1e6 / 168e3)
        # 004 §VII ran ns-2 ("We evaluated the BSCL scheme using NS-2 simulations"), whose
        # senders add 1/cwnd per ACK in congestion avoidance (provenance.toml).
        assert {g.ca_increase for g in scenario.groups} == {"per_ack"}
        # ns-2's receivers with "Delayed ACKs" (004 Appendix) ACK a lone segment after
        # 100 ms (ns-2 tcl/lib/ns-default.tcl: Agent/TCPSink/Sack1/DelAck interval_ 100ms),
        # whatever the simulator's own default timer is.
        assert {g.delayed_ack for g in scenario.groups} == {2}
        assert {g.delayed_ack_timeout_s for g in scenario.groups} == {0.1}
        # 004 does not print the other flows' access rate; it must exceed C = 50 Mb/s, since
        # §VII's LBP flows at N_b = 2 carry up to about C_e (provenance.toml, assumption 3).
        for name in ("LBP", "window-limited", "short"):
            assert groups[name].access_bps == 1e9


def test_bscl_mix_access_rate_leaves_the_rbp_links_alone() -> None:
    from validation.harness.bscl import mix_scenario

    # The sensitivity study (studies/bscl_access_sensitivity.py) changes the access rate of
    # the flows whose load 004 §VII does not control by it; the RBP flows' 100 kb/s links
    # ("controlled by the access link capacity") stay.
    groups = {g.name: g for g in mix_scenario(300, 0.9, full=False, access_bps=1e8).groups}
    assert {n: g.access_bps for n, g in groups.items()} == {
        "LBP": 1e8,
        "RBP": pytest.approx(100e3),
        "window-limited": 1e8,
        "short": 1e8,
    }
