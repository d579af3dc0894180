"""Tests of ``bufsize simulate`` through click's CliRunner, on small scenarios.

Each scenario simulates two seconds of three flows over 10 Mbit/s, a few thousand bottleneck
packets, so that a run takes milliseconds once the compiled core is loaded.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from app.cli import main, progress
from app.cli.progress import ProgressBar
from app.cli.simulate_options import build_request, option_message

# The module itself: the attribute ``app.cli.simulate`` is the click command registered on main.
cli = importlib.import_module("app.cli.simulate")

SMALL = [
    "simulate",
    "--capacity",
    "10 Mbit/s",
    "--flows",
    "3",
    "--rtt",
    "40ms",
    "--duration",
    "2s",
    "--warmup",
    "0.5s",
]

#: Keys every row of --json must carry (issue 4, item 5) and their JSON types for one run.
ROW_TYPES: dict[str, type | tuple[type, ...]] = {
    "buffer_packets": int,
    "utilization": float,
    "goodput_bps": float,
    "loss_rate": float,
    "queue_delay_mean_s": float,
    "queue_delay_p99_s": float,
    "bottleneck_packets": int,
    "timeouts": int,
    "wall_s": float,
    "seed": int,
}


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, [*SMALL, *args])


def _json(*args: str) -> dict[str, Any]:
    result = _invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def _without_wall_time(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_wall_time(v) for k, v in value.items() if k != "wall_s"}
    if isinstance(value, list):
        return [_without_wall_time(v) for v in value]
    return value


def test_json_keys_and_types() -> None:
    doc = _json("--buffer", "10", "--seed", "7")
    assert set(doc) >= {"scenario", "seed", "replications", "buffer_packets", "results"}
    assert doc["seed"] == 7 and doc["replications"] == 1 and doc["buffer_packets"] == [10]
    (row,) = doc["results"]
    for key, kind in ROW_TYPES.items():
        assert isinstance(row[key], kind), (key, row[key])
    assert row["buffer_packets"] == 10 and row["seed"] == 7
    assert 0.0 < row["utilization"] <= 1.0
    assert 0.0 <= row["loss_rate"] <= 1.0
    assert 0.0 < row["goodput_bps"] <= 10e6
    assert 0.0 <= row["queue_delay_mean_s"] <= row["queue_delay_p99_s"]
    assert row["bottleneck_packets"] > 0 and row["timeouts"] >= 0 and row["wall_s"] >= 0.0
    # 10 packets of 1448 B payload + 52 B headers = 15,000 B = 12 ms at 10 Mbit/s.
    assert row["buffer_bytes"] == 15_000
    assert row["buffer_s"] == pytest.approx(0.012, rel=1e-12)
    assert row["scenario"] == doc["scenario"]


def test_defaults_are_todays_tcp() -> None:
    """Defaults shown in --help and used: SACK, delayed ACK 2, IW 10, 200 ms, 1500 B, 3 MiB."""
    scenario = _json("--buffer", "10")["scenario"]
    assert scenario["recovery"] == "sack"
    assert scenario["delayed_ack"] == 2
    assert scenario["initial_window_packets"] == 10
    assert scenario["min_rto_s"] == pytest.approx(0.2)
    assert scenario["packet_bytes"] == 1448 and scenario["header_bytes"] == 52
    assert scenario["max_window_packets"] == 3 * 2**20 // 1448  # 2172 whole segments
    assert scenario["rtt_jitter_s"] == pytest.approx(0.2 * 0.040)  # 20% of --rtt
    assert scenario["access_bps"] == pytest.approx(1e9)
    assert scenario["pacing"] is False
    # Words only: where --help wraps its lines depends on the help's length.
    help_text = " ".join(CliRunner().invoke(main, ["simulate", "--help"]).output.split())
    for shown in ("[default: sack]", "[default: 2]", "[default: 10]", "[default: 200ms]"):
        assert shown in help_text


def test_comma_list_gives_one_row_per_buffer() -> None:
    doc = _json("--buffer", "20, 5,10,5")
    # Sorted and distinct, as the API's canonical form.
    assert doc["buffer_packets"] == [5, 10, 20]
    assert [row["buffer_packets"] for row in doc["results"]] == [5, 10, 20]
    for row in doc["results"]:
        assert row["seed"] == 1


def test_same_seed_same_output_other_seed_differs() -> None:
    first = _json("--buffer", "5,10", "--seed", "3")
    again = _json("--buffer", "5,10", "--seed", "3")
    other = _json("--buffer", "5,10", "--seed", "4")
    assert _without_wall_time(first) == _without_wall_time(again)
    assert _without_wall_time(first["results"]) != _without_wall_time(other["results"])


def test_replications_give_means_and_confidence_intervals() -> None:
    doc = _json("--buffer", "8", "--replications", "3", "--seed", "2")
    (row,) = doc["results"]
    assert row["replications"] == 3 and len(row["runs"]) == 3 and row["seed"] == 2
    assert doc["scenario"] == row["scenario"]
    for key in ROW_TYPES:
        assert key in row
    for key in ("utilization", "goodput_bps", "loss_rate", "queue_delay_p99_s", "timeouts"):
        assert isinstance(row[f"{key}_ci99"], float) and row[f"{key}_ci99"] >= 0.0
        values = [run[key] for run in row["runs"]]
        assert row[key] == pytest.approx(math.fsum(values) / 3, rel=1e-12)
    # Replications have their own seeds, spawned from --seed.
    assert len({run["seed"] for run in row["runs"]}) == 3


def _read_trace(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def _check_trace_rows(rows: list[dict[str, str]], result: dict[str, Any]) -> None:
    drops = sum(int(r["dropped"]) for r in rows)
    departures = len(rows) - drops
    # Without background traffic every bottleneck drop is a TCP data packet.
    assert drops == result["packets_dropped"]
    # Every bottleneck arrival departed, was dropped, or is still in the buffer at the end.
    left = result["bottleneck_packets"] - departures - drops
    assert 0 <= left <= result["buffer_packets"]
    times = [float(r["time_s"]) for r in rows]
    assert times == sorted(times) and 0.0 <= times[0] and times[-1] <= 2.0
    assert {int(r["flow"]) for r in rows} <= {0, 1, 2}
    assert {int(r["size_bytes"]) for r in rows} == {1500}  # bytes on the wire
    assert {r["dropped"] for r in rows} <= {"0", "1"}


def test_trace_csv_one_buffer(tmp_path: Path) -> None:
    path = tmp_path / "trace.csv"
    doc = _json("--buffer", "5", "--trace", str(path))
    header, rows = _read_trace(path)
    assert header == ["time_s", "flow", "size_bytes", "dropped"]
    (result,) = doc["results"]
    assert result["packets_dropped"] > 0  # a 5-packet buffer drops: the check below has teeth
    _check_trace_rows(rows, result)
    assert "packet_trace" not in result and "samples" not in result


def test_trace_csv_several_buffers(tmp_path: Path) -> None:
    path = tmp_path / "trace.csv"
    doc = _json("--buffer", "5,12", "--trace", str(path))
    header, rows = _read_trace(path)
    assert header == ["buffer_packets", "time_s", "flow", "size_bytes", "dropped"]
    for result in doc["results"]:
        mine = [r for r in rows if int(r["buffer_packets"]) == result["buffer_packets"]]
        _check_trace_rows(mine, result)
    assert {int(r["buffer_packets"]) for r in rows} == {5, 12}


def test_trace_csv_with_replications(tmp_path: Path) -> None:
    path = tmp_path / "trace.csv"
    doc = _json("--buffer", "5,12", "--replications", "2", "--trace", str(path))
    header, rows = _read_trace(path)
    assert header == ["buffer_packets", "seed", "time_s", "flow", "size_bytes", "dropped"]
    for result in doc["results"]:
        assert len(result["runs"]) == 2
        for run in result["runs"]:
            mine = [
                r
                for r in rows
                if int(r["buffer_packets"]) == result["buffer_packets"]
                and int(r["seed"]) == run["seed"]
            ]
            _check_trace_rows(mine, run)
    assert len({int(r["seed"]) for r in rows}) == 2


def test_trace_csv_with_background_packets(tmp_path: Path) -> None:
    path = tmp_path / "trace.csv"
    doc = _json("--buffer", "6", "--background-load", "0.3", "--trace", str(path))
    (result,) = doc["results"]
    _, rows = _read_trace(path)
    # Flows 0-2 are TCP; flow 3 (= --flows) marks the Poisson background packets.
    assert {int(r["flow"]) for r in rows} == {0, 1, 2, 3}
    tcp_drops = sum(int(r["dropped"]) for r in rows if int(r["flow"]) < 3)
    assert tcp_drops == result["packets_dropped"]
    left = result["bottleneck_packets"] - len(rows)
    assert 0 <= left <= 6


def test_table_output() -> None:
    result = _invoke("--buffer", "10,20")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Buffer pkts" in out and "Utilization" in out and "Delay p99 ms" in out
    assert "3 flows over 10 Mbit/s, RTT 40 ms ± 8 ms" in out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 2
    # 10 and 20 packets of 1500 B on the wire drain in 12 and 24 ms at 10 Mbit/s.
    assert rows[0].split("│")[1:3] == [" " * 10 + "10 ", " " * 8 + "12 "]
    assert rows[1].split("│")[2].strip() == "24"


def test_bbr_senders_are_named_and_paced() -> None:
    result = _invoke("--buffer", "10", "--cc", "bbr")
    assert result.exit_code == 0, result.output
    assert "BBR v1, SACK recovery, paced," in result.stdout
    rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == 1


def test_table_with_replications_shows_ci() -> None:
    result = _invoke("--buffer", "10", "--replications", "2")
    assert result.exit_code == 0, result.output
    assert "± is the 99% CI" in result.stdout
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("│")]
    assert "±" in row


def _params(*args: str) -> dict[str, Any]:
    ctx = cli.simulate.make_context("simulate", [*SMALL[1:], *args])
    return dict(ctx.params)


@pytest.mark.parametrize(
    ("capacity", "bps"),
    [("10 Mbit/s", 10e6), ("10Mbps", 10e6), ("10 Mb/s", 10e6), ("10000000", 10e6), ("1 Gbps", 1e9)],
)
def test_capacity_units(capacity: str, bps: float) -> None:
    req = build_request(_params("--buffer", "10", "--capacity", capacity))
    assert req.scenario.capacity_bps == pytest.approx(bps, rel=1e-12)


def test_time_size_and_buffer_units() -> None:
    req = build_request(
        _params(
            "--rtt",
            "0.1 s",
            "--rtt-jitter",
            "10ms",
            "--min-rto",
            "1s",
            "--packet",
            "1000B",
            "--header",
            "0",
            "--max-window",
            "64KiB",
            "--buffer",
            "15000B,12ms,7",
        )
    )
    sc = req.scenario
    assert sc.rtt_s == pytest.approx(0.1) and sc.rtt_jitter_s == pytest.approx(0.01)
    assert sc.min_rto_s == pytest.approx(1.0)
    assert sc.packet_bytes == 1000 and sc.header_bytes == 0
    assert sc.max_window_packets == 65  # 65,536 B / 1000 B, whole segments
    # 15,000 B / 1000 B = 15 packets; 12 ms x 10 Mbit/s / 8000 bit = 15 packets; 7 packets.
    assert req.buffers == [7, 15]
    assert (
        build_request(_params("--buffer", "10", "--max-window", "64")).scenario.max_window_packets
        == 64
    )


@settings(max_examples=50, deadline=None)
@given(packets=st.integers(min_value=1, max_value=10**6))
def test_buffer_as_size_or_time_is_the_same_packets(packets: int) -> None:
    """A buffer typed in bytes or in ms at line rate names the same whole packets."""
    wire = 1500  # default 1448 B payload + 52 B headers
    size = f"{packets * wire}B"
    drain = f"{packets * wire * 8 / 10e6 * 1e3!r}ms"  # at 10 Mbit/s
    req = build_request(_params("--buffer", f"{packets},{size},{drain}"))
    assert req.buffers == [packets]


def _no_simulation(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a simulation started before the scenario was checked")


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--capacity", "-10 Mbit/s"], "--capacity"),
        (["--capacity", "100ms"], "--capacity"),
        (["--access-rate", "-1 Gbit/s"], "--access-rate"),
        (["--rtt", "fast"], "--rtt"),
        (["--rtt", "0s"], "--rtt"),
        (["--rtt-jitter", "50ms"], "--rtt-jitter"),
        (["--flows", "0"], "--flows"),
        (["--buffer", "0"], "--buffer"),
        (["--buffer", "10,-3"], "--buffer"),
        (["--buffer", "2.5"], "--buffer"),
        (["--buffer", "100B"], "--buffer"),
        (["--warmup", "2s"], "--warmup"),
        (["--duration", "-1s"], "--duration"),
        (["--packet-budget", "1000"], "--packet-budget"),
        (["--max-window", "0"], "--max-window"),
        (["--packet", "0B"], "--packet"),
        (["--delayed-ack", "0"], "--delayed-ack"),
        (["--initial-window", "0"], "--initial-window"),
        (["--min-rto", "0ms"], "--min-rto"),
        (["--background-load", "1.5"], "--background-load"),
        (["--codel-target", "0ms"], "--codel-target"),
        (["--codel-target", "5kg"], "--codel-target"),
        (["--codel-interval", "200s"], "--codel-interval"),
        (["--replications", "0"], "--replications"),
        (["--seed", "-1"], "--seed"),
        (["--ecn-threshold", "0"], "--ecn-threshold"),
        (["--ecn-threshold", "-5 packets"], "--ecn-threshold"),
        (["--ecn-threshold", "10ms"], "--ecn-threshold"),
        (["--ecn-threshold", "1.0001kB"], "--ecn-threshold"),
        (["--ecn-threshold", "0.5 B"], "--ecn-threshold"),
    ],
)
def test_scenario_errors_exit_2_naming_the_option(
    args: list[str], option: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(cli, "run_buffer", _no_simulation)
    trace = tmp_path / "t.csv"
    args = [str(trace) if a == "TRACE" else a for a in args]
    extra = [] if "--buffer" in args else ["--buffer", "10"]
    result = _invoke(*args, *extra, "--json")
    assert not trace.exists()
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert option in lines[0]


def test_messages_use_option_names() -> None:
    message = "warmup_s must be < duration_s (60), got 70.0"
    assert option_message(message) == "--warmup must be < --duration (60), got 70.0"
    assert option_message("flows must be >= 1, got 0") == "--flows must be >= 1, got 0"


def test_progress_bar_writes_to_its_console_only() -> None:
    sink = io.StringIO()
    console = Console(file=sink, force_terminal=True, width=80)
    with ProgressBar(steps=2, console=console, started_s=-1e9) as bar:
        bar.report(0, 0.5, "B = 10")
        bar.report(1, 1.0, "B = 20")
    assert "B = 20" in sink.getvalue()
    # Not a terminal (a pipe, a file): no bar at all.
    quiet = io.StringIO()
    with ProgressBar(steps=1, console=Console(file=quiet), started_s=-1e9) as bar:
        bar.report(0, 0.5)
    assert quiet.getvalue() == ""


def test_json_stdout_stays_clean_with_the_bar_on(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pretend stderr is a terminal and show the bar at once.
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setattr(progress, "PROGRESS_AFTER_S", 0.0)
    result = _invoke("--buffer", "5,10", "--json")
    assert result.exit_code == 0, result.output
    assert "B = " in result.stderr
    assert [r["buffer_packets"] for r in json.loads(result.stdout)["results"]] == [5, 10]


MIX_TOML = """
capacity_bps = "10 Mbit/s"
duration_s = "2 s"
warmup_s = 0.5

[[groups]]
name = "LBP"
flows = 3
rtt_s = "40 ms"
max_window_packets = 64

[[groups]]
name = "RBP"
flows = 2
rtt_s = "60 ms"
access_bps = "1 Mbit/s"

[[groups]]
name = "short"
flows = 20
traffic = "poisson_flows"
flow_arrival_rate_per_s = 10
flow_size_distribution = "pareto"
flow_size_packets = 14
"""


def _run_file(tmp_path: Path, text: str, name: str, *args: str) -> Result:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return CliRunner().invoke(main, ["simulate", "--scenario", str(path), *args])


def test_scenario_file_with_flow_groups_reports_each_group(tmp_path: Path) -> None:
    result = _run_file(tmp_path, MIX_TOML, "mix.toml", "--buffer", "20", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    groups = doc["scenario"]["groups"]
    assert [g["name"] for g in groups] == ["LBP", "RBP", "short"]
    assert groups[1]["access_bps"] == pytest.approx(1e6)  # "1 Mbit/s" parsed
    assert doc["scenario"]["capacity_bps"] == pytest.approx(10e6)
    (row,) = doc["results"]
    assert [g["name"] for g in row["groups"]] == ["LBP", "RBP", "short"]
    # RBP flows cannot beat their 1 Mbit/s access links (2 flows).
    assert row["groups"][1]["throughput_bps"] <= 2e6
    table = _run_file(tmp_path, MIX_TOML, "mix.toml", "--buffer", "20")
    assert table.exit_code == 0, table.output
    assert "Per flow group" in table.stdout and "RBP" in table.stdout


def test_scenario_file_as_json_gives_the_same_run(tmp_path: Path) -> None:
    import tomllib

    values = tomllib.loads(MIX_TOML)
    a = _run_file(tmp_path, MIX_TOML, "mix.toml", "--buffer", "20", "--json")
    b = _run_file(tmp_path, json.dumps(values), "mix.json", "--buffer", "20", "--json")
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    rows = [_without_wall_time(json.loads(r.stdout)["results"]) for r in (a, b)]
    assert rows[0] == rows[1]


def test_scenario_file_errors_name_the_field(tmp_path: Path) -> None:
    bad = MIX_TOML.replace("flows = 2\n", "flows = 0\n")
    result = _run_file(tmp_path, bad, "bad.toml", "--buffer", "20")
    assert result.exit_code == 2
    assert "groups[1].flows must be >= 1" in result.stderr
    clash = _run_file(tmp_path, MIX_TOML, "mix.toml", "--buffer", "20", "--flows", "4")
    assert clash.exit_code == 2
    assert "--flows cannot be combined with --scenario" in clash.stderr
    wrong = _run_file(tmp_path, "flows = [", "broken.toml", "--buffer", "20")
    assert wrong.exit_code == 2 and "is not valid" in wrong.stderr
    missing = CliRunner().invoke(main, ["simulate", "--flows", "3", "--buffer", "5"])
    assert missing.exit_code == 2 and "Missing option '--capacity'" in missing.stderr


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("12", "ecn_threshold_packets", 12),
        ("65 packets", "ecn_threshold_packets", 65),
        ("1 pkt", "ecn_threshold_packets", 1),
        ("90KB", "ecn_threshold_bytes", 90_000),
        ("64 KiB", "ecn_threshold_bytes", 65_536),
    ],
)
def test_ecn_threshold_in_packets_or_bytes(text: str, field: str, value: int) -> None:
    document = _json("--cc", "dctcp", "--ecn-threshold", text, "--buffer", "20")
    assert document["scenario"][field] == value
    other = {"ecn_threshold_packets", "ecn_threshold_bytes"} - {field}
    assert document["scenario"][other.pop()] is None


def test_dctcp_with_a_marking_port_reports_marks() -> None:
    # 3 DCTCP flows, 10 Mbit/s, 40 ms (33 packets of BDP), K = 5 < B = 30: the port marks.
    document = _json("--cc", "dctcp", "--ecn-threshold", "5", "--buffer", "30")
    row = document["results"][0]
    assert document["scenario"]["congestion_control"] == "dctcp"
    assert row["marks"] > 0 and 0.0 < row["mark_rate"] < 1.0
    assert row["groups"][0]["marks"] == row["marks"]
    table = _invoke("--cc", "dctcp", "--ecn-threshold", "5", "--buffer", "30")
    assert table.exit_code == 0, table.output
    assert "DCTCP" in table.output and "ECN marking from 5 packets" in table.output
    assert "Marked" in table.output


def test_classic_ecn_flag_and_dctcp_without_marking_warns() -> None:
    document = _json("--ecn", "--ecn-threshold", "5", "--buffer", "30")
    assert document["scenario"]["ecn"] is True and document["results"][0]["marks"] > 0
    plain = _invoke("--cc", "dctcp", "--buffer", "30")
    assert plain.exit_code == 0 and "never marks" in plain.stderr


def test_ca_increase_option_and_scenario_file(tmp_path: Path) -> None:
    # --ca-increase reaches the scenario (default: byte counting, as Linux) and changes the run;
    # a scenario file sets it per group; a bad value is refused naming the option or field.
    default = _json("--buffer", "10")
    per_ack = _json("--buffer", "10", "--ca-increase", "per_ack")
    assert default["scenario"]["ca_increase"] == "bytes_acked"
    assert per_ack["scenario"]["ca_increase"] == "per_ack"
    assert (
        default["results"][0]["bottleneck_packets"] != per_ack["results"][0]["bottleneck_packets"]
    )
    help_text = CliRunner().invoke(main, ["simulate", "--help"]).output
    assert "--ca-increase" in help_text and "[default: bytes_acked]" in help_text
    bad = _invoke("--buffer", "10", "--ca-increase", "per_byte")
    assert bad.exit_code == 2 and "--ca-increase" in bad.stderr
    mixed = MIX_TOML.replace('name = "RBP"\n', 'name = "RBP"\nca_increase = "per_ack"\n')
    result = _run_file(tmp_path, mixed, "mix.toml", "--buffer", "20", "--json")
    assert result.exit_code == 0, result.output
    groups = json.loads(result.stdout)["scenario"]["groups"]
    assert [g["ca_increase"] for g in groups] == ["bytes_acked", "per_ack", "bytes_acked"]
    table = _run_file(tmp_path, mixed, "mix.toml", "--buffer", "20")
    assert "RBP: 2 persistent flows, Reno (congestion avoidance 1/cwnd per ACK)" in table.stdout
    wrong = MIX_TOML.replace('name = "RBP"\n', 'name = "RBP"\nca_increase = "sometimes"\n')
    refused = _run_file(tmp_path, wrong, "bad.toml", "--buffer", "20")
    assert refused.exit_code == 2 and "groups[1].ca_increase must be one of" in refused.stderr


def test_trace_csv_names_each_poisson_transfer_apart(tmp_path: Path) -> None:
    """A Poisson group's slots carry one transfer after another; each later transfer is written
    as SLOT.K (a new connection in a real trace), so ``bufsize trace`` does not read a reused
    slot as one long flow. Persistent flows keep their plain numbers."""
    scenario = tmp_path / "mix.toml"
    scenario.write_text(
        'capacity_bps = "10 Mbit/s"\nduration_s = 4\nwarmup_s = 1\n\n'
        '[[groups]]\nname = "long"\nflows = 2\nrtt_s = "40 ms"\n\n'
        '[[groups]]\nname = "short"\nflows = 20\ntraffic = "poisson_flows"\n'
        'flow_arrival_rate_per_s = 30\nflow_size_packets = 14\nrtt_s = "40 ms"\n',
        encoding="utf-8",
    )
    path = tmp_path / "trace.csv"
    result = CliRunner().invoke(
        main, ["simulate", "--scenario", str(scenario), "--buffer", "20", "--trace", str(path)]
    )
    assert result.exit_code == 0, result.output
    _, rows = _read_trace(path)
    keys = {r["flow"] for r in rows}
    assert {"0", "1"} <= keys
    later = [k for k in keys if "." in k]
    assert later  # 30 arrivals a second over 4 s on the short group's first free slots
    assert all(int(k.split(".")[0]) >= 2 and int(k.split(".")[1]) >= 1 for k in later)
