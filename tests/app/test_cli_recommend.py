"""Tests of ``bufsize recommend`` through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from app.cli import main

# The command of issue 2, the thesis example of 000 §3.2 ("1000 flows share a link of capacity
# 10 Gb/s ... an RTT of 100ms, a maximum window size of 64 KB, and a packet size of 1 KB").
EXAMPLE = [
    "recommend",
    "--capacity",
    "10 Gbit/s",
    "--rtt",
    "100ms",
    "--packet",
    "1000B",
    "--flows",
    "1000",
    "--max-window",
    "64",
]


def _row(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("│ " + name))


def test_example_table() -> None:
    result = CliRunner().invoke(main, EXAMPLE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    # 000 §3.2: the rule of thumb "around 125,000 packets" (125 MB, 100 ms at 10 Gb/s).
    rot = _row(out, "Rule of thumb (bandwidth-delay product)")
    assert "125,000" in rot and "125 MB" in rot and "fails" in rot
    # 000 §3.2: sqrt(N) "around 3950 packets": 125000/√1000 = 3952.8 -> 3,953.
    assert "3,953" in _row(out, "sqrt(N) rule")
    # 000 §3.2-3.3: tiny buffers, "twelve packets plus some small additive constant"; 15 at θ=0.9.
    tiny = _row(out, "Tiny buffers")
    assert " 15 " in tiny and "unknown" in tiny
    # Each rule's assumptions are listed with a mark and a reason.
    assert "Assumptions" in out
    assert "✓ flows are window-limited: ρ = N·W/(C·RTT) < 1: ρ = 0.512" in out
    assert "✗ flows are limited by congestion at this port" in out
    assert "? senders are paced or their access links are much slower" in out
    # One recommendation, the rule governing it and the reason.
    assert out.count("Recommended:") == 1
    # Pacing and the access rate are not given, so the tiny size is not recommended: 000 §3.4,
    # "When we run simulations without using Paced TCP, we can not obtain reasonable link
    # utilizations with log-sized buffers, even in the over-provisioned case". sqrt(N) sizes
    # it; the 15 packets are shown as what they would be with pacing confirmed.
    assert "Recommended: 3,953 packets = 3.95 MB = 3.16 ms at line rate\nWhy: sqrt(N) rule" in out
    assert "window-limited" in out.split("Recommended:")[1]
    assert "What if (paced): If the senders pace" in out
    assert "needs only 15 packets" in out


def test_example_json() -> None:
    result = CliRunner().invoke(main, [*EXAMPLE, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rules = {r["rule"]: r for r in data["rules"]}
    assert rules["rule_of_thumb"]["buffer_packets"] == 125_000
    assert rules["sqrt_n"]["buffer_packets"] == 3953
    assert 12 <= rules["tiny_buffers"]["buffer_packets"] <= 15
    assert all(r["assumptions"] for r in data["rules"])
    # Pacing unknown: sqrt(N) governs, the tiny size is the what-if of confirmed pacing (000 §3.4).
    assert data["recommended"]["rule"] == "sqrt_n"
    assert data["recommended"]["buffer_packets"] == 3953
    assert [(w["input"], w["buffer_packets"]) for w in data["what_if"]] == [("paced", 15)]
    assert data["recommended"]["reason"]
    assert data["regime"]["regime"]
    assert len(data["curves"]["buffer_packets"]) > 10


def test_rtt_list_uses_harmonic_mean() -> None:
    # T_e = 2/(1/0.05 + 1/0.2) = 0.08 s (004 eq. 12); 10 Gb/s × 0.08 s / 8000 b = 100,000 packets.
    args = ["recommend", "--capacity", "10Gbps", "--rtt", "50ms, 200ms", "--packet", "1000B"]
    result = CliRunner().invoke(main, [*args, "--flows", "2", "--cc", "reno", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["inputs"]["effective_rtt_s"] == pytest.approx(0.08)
    assert data["recommended"]["rule"] == "rule_of_thumb"
    assert data["recommended"]["buffer_packets"] == 100_000


def test_window_as_a_size() -> None:
    # "a maximum window size of 64 KB, and a packet size of 1 KB" (000 §3.2): 64 packets.
    args = [*EXAMPLE[:-1], "64kB", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["inputs"]["window_limited_load"] == pytest.approx(0.512)


def test_trade_off_is_printed() -> None:
    args = ["recommend", "--capacity", "100 Mbit/s", "--rtt", "100ms", "--flows", "500"]
    # The user gives N_b, the loss target and a delay bound BSCL cannot meet (004 eq. 25).
    args += ["--bottlenecked-flows", "500", "--cc", "reno", "--max-delay", "10ms"]
    args += ["--max-loss", "0.01"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Trade-off: utilization and loss vs delay" in result.stdout
    assert "Infeasible" in result.stdout


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--capacity", "-10 Gbit/s"], "capacity_bps"),
        (["--capacity", "0 Gbit/s"], "capacity_bps"),
        (["--capacity", "10 furlongs"], "--capacity"),
        (["--capacity", "100ms"], "--capacity"),
        (["--rtt", "nan s"], "--rtt"),  # the quantity grammar has no nan
        (["--max-window", "0.5"], "max_window_packets"),
        (["--max-loss", "2"], "max_loss"),
        (["--min-utilization", "1"], "min_utilization"),
        (["--bottlenecked-flows", "0"], "bottlenecked_flows"),
        (["--max-delay", "-1ms"], "max_queueing_delay_s"),
    ],
)
def test_invalid_input_is_one_line_and_status_2(args: list[str], field: str) -> None:
    options = {"--capacity": "10 Gbit/s", "--rtt": "100ms", "--flows": "1000"}
    options.update(zip(args[::2], args[1::2], strict=True))
    argv = ["recommend"] + [x for pair in options.items() for x in pair]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ") and field in lines[0]
    assert result.stdout == ""


def test_option_names_shared_with_simulate() -> None:
    """`--access-rate` and `--pacing` (the names `bufsize simulate` uses) mean the same here."""
    outputs = []
    for access, pacing in (("--access-rate", "--pacing"), ("--access", "--paced")):
        args = [*EXAMPLE, access, "10 Mbit/s", pacing, "--json"]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        outputs.append(json.loads(result.output))
    assert outputs[0] == outputs[1]
    unpaced = json.loads(CliRunner().invoke(main, [*EXAMPLE, "--json"]).output)
    # With pacing and 10 Mbit/s access links the paced-traffic rule (000 Thm 2) is listed.
    assert "paced" in {r["rule"] for r in outputs[0]["rules"]}
    assert "paced" not in {r["rule"] for r in unpaced["rules"]}


def test_targets_take_percentages() -> None:
    # Operators write loss and utilization targets as percentages: "1%" is 0.01, "95%" is 0.95,
    # the same targets as the fractions; unreadable text names the option.
    link = ["recommend", "--capacity", "1 Gbit/s", "--rtt", "50ms", "--flows", "250"]
    link += ["--bottlenecked-flows", "200", "--json"]
    as_percent = CliRunner().invoke(main, [*link, "--max-loss", "1%", "--min-utilization", "95%"])
    as_fraction = CliRunner().invoke(
        main, [*link, "--max-loss", "0.01", "--min-utilization", "0.95"]
    )
    assert as_percent.exit_code == 0, as_percent.output
    percent, fraction = json.loads(as_percent.stdout), json.loads(as_fraction.stdout)
    assert percent["targets"] == fraction["targets"]
    assert percent["recommended"] == fraction["recommended"]
    wrong = CliRunner().invoke(main, [*link, "--max-loss", "one percent"])
    assert wrong.exit_code == 2 and "--max-loss" in wrong.output and "'1%'" in wrong.output


def test_the_answer_comes_first_and_brief_prints_only_it() -> None:
    from click.testing import CliRunner

    from app.cli import main

    # 000 §1.3: the thesis link, 125,000/√1000 = 3,952.8 -> 3,953 packets (sqrt(N), pacing
    # not given), 3.95 MB, 3.16 ms at 10 Gbit/s.
    args = ["recommend", "--capacity", "10 Gbit/s", "--rtt", "100ms", "--packet", "1000B"]
    args += ["--flows", "1000", "--max-window", "64"]
    full = CliRunner().invoke(main, args)
    assert full.exit_code == 0, full.output
    lines = full.stdout.splitlines()
    assert lines[0] == "Recommended: 3,953 packets = 3.95 MB = 3.16 ms at line rate"
    assert lines[1].startswith("Why: sqrt(N) rule")
    assert full.stdout.index("Buffer-sizing rules") > full.stdout.index("Recommended:")
    brief = CliRunner().invoke(main, [*args, "--brief"])
    assert brief.exit_code == 0
    assert brief.stdout.splitlines() == lines[:2]


def test_congestion_control_not_given_states_both_sizes() -> None:
    # 50 Mb/s, 600 ms, 8 flows: Reno C·T = 2,500 packets, CUBIC 1,072 (RFC 9438 §4.6).
    base = ["recommend", "--capacity", "50 Mbit/s", "--rtt", "600 ms", "--flows", "8"]
    result = CliRunner().invoke(main, [*base, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["recommended"]["buffer_packets"] == 2500
    assert out["inputs"]["congestion_control_given"] is False
    text = CliRunner().invoke(main, base).stdout
    assert "Congestion control not given" in text and "CUBIC 1,072 packets" in text
    cubic = CliRunner().invoke(main, [*base, "--cc", "cubic", "--json"])
    assert json.loads(cubic.stdout)["recommended"]["buffer_packets"] == 1072
