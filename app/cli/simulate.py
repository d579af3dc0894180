"""``bufsize simulate``: run the packet simulator on a dumbbell for one or more buffer sizes.

Quantities are typed with units as in ``bufsize recommend`` (``--capacity "100 Mbit/s"
--rtt 100ms --packet 1448B``) and parsed by :mod:`app.units`; the engine is
:mod:`validation.simulator`. The options are a contract that scripts rely on: rename none.

The defaults are the simulator's own (:class:`validation.simulator.Scenario`, the API's too),
chosen for today's TCP stacks (Linux): RTTs spread by ±20 %, SACK loss recovery, delayed ACKs
every 2 segments held at most 40 ms (Linux's TCP_DELACK_MIN), initial window 10 (RFC 6928),
minimum RTO 200 ms, 1448-byte segments with 52 bytes of TCP/IP headers (1500-byte packets), a
3 MiB largest window.

``--scenario FILE`` takes the whole scenario from a TOML or JSON file instead: the fields of
:class:`validation.simulator.Scenario` (the simulator's defaults apply to those left out) and
a list ``groups`` of flow groups (:class:`validation.simulator.FlowGroup`), for example::

    capacity_bps = "100 Mbit/s"
    duration_s = 30

    [[groups]]
    name = "LBP"
    flows = 300
    rtt_s = "100 ms"
    rtt_jitter_s = "50 ms"
    max_window_packets = 1000

    [[groups]]
    name = "short"
    flows = 500
    traffic = "poisson_flows"
    flow_arrival_rate_per_s = 200
    flow_size_distribution = "pareto"
    flow_size_packets = 14

Rates (``*_bps``), times (``*_s``) and sizes (``*_bytes``) may be strings with units.
"""

from __future__ import annotations

import csv
import json
import math
import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from app.formatting import human_bytes
from app.services.names import in_option_words
from app.services.simulate import run_buffer
from app.units import parse_packets, parse_quantity
from models.choices import (
    CONGESTION_CONTROL_NAMES,
    CONGESTION_CONTROLS,
    RECOVERIES,
    SIMULATED_AQMS,
)
from models.provenance import software_versions
from validation.simulator import ReplicatedResult, RunResult, Scenario
from validation.simulator.results import GROUP_MEASURES
from validation.simulator.scenario import (
    CA_INCREASE_KINDS,
    DEFAULT_MAX_WINDOW_PACKETS,
    DEFAULT_RTT_JITTER_FRACTION,
    SCENARIO_DEFAULTS,
)

DEFAULTS = SCENARIO_DEFAULTS

#: Scenario fields named in the simulator's messages by their options (app.services.names):
#: those with an underscore (a bare "flows" is handled below; "aqm" and the like read as words).
_NAMED = (
    "capacity_bps",
    "rtt_s",
    "rtt_jitter_s",
    "access_bps",
    "max_window_packets",
    "packet_bytes",
    "header_bytes",
    "congestion_control",
    "ecn_threshold_packets",
    "ecn_threshold_bytes",
    "codel_target_s",
    "codel_interval_s",
    "ca_increase",
    "delayed_ack",
    "initial_window_packets",
    "min_rto_s",
    "background_load",
    "duration_s",
    "warmup_s",
    "packet_budget",
    "buffer_packets",
)

#: Wall time after which the progress bar appears, s (shorter runs print no bar).
PROGRESS_AFTER_S = 0.5
#: Header of the trace CSV; ``buffer_packets`` leads when several buffers are run, then
#: ``seed`` (the run's own seed) when each buffer is run several times.
TRACE_COLUMNS = ("time_s", "flow", "size_bytes", "dropped")


def option_message(message: str) -> str:
    """Say ``--warmup`` where the simulator's message says ``warmup_s``, and so on."""
    message = in_option_words(message, _NAMED)
    if message.startswith("flows "):
        message = "--flows" + message[len("flows") :]
    return message


#: Options that shape the scenario; with --scenario the file gives the scenario instead.
SCENARIO_OPTIONS = (
    "capacity",
    "flows",
    "rtt",
    "rtt_jitter",
    "access_rate",
    "max_window",
    "packet",
    "header",
    "pacing",
    "recovery",
    "cc",
    "ecn",
    "ecn_threshold",
    "aqm",
    "codel_target",
    "codel_interval",
    "ca_increase",
    "delayed_ack",
    "initial_window",
    "min_rto",
    "background_load",
    "duration",
    "warmup",
)
_UNIT_KINDS = (("_bps", "rate"), ("_s", "time"), ("_bytes", "size"))


class ScenarioFileError(ValueError):
    """A --scenario file that cannot be read or is not a valid scenario (names the field)."""


def _with_units(where: str, values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    for key, value in values.items():
        if isinstance(value, str):
            for suffix, kind in _UNIT_KINDS:
                if key.endswith(suffix):
                    out[key] = parse_quantity(where + key, value, kind)
    return out


def load_scenario_file(path: Path) -> Scenario:
    """The scenario of a TOML (``.toml``) or JSON (``.json``) file, with its flow groups.

    Raises
    ------
    ScenarioFileError
        If the file cannot be read or parsed, or a field is unknown or out of its bounds.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioFileError(f"--scenario: cannot read {str(path)!r}: {exc.strerror}") from exc
    try:
        if path.suffix.lower() == ".toml":
            values: Any = tomllib.loads(text)
        elif path.suffix.lower() == ".json":
            values = json.loads(text)
        else:
            raise ScenarioFileError(f"--scenario: {str(path)!r} must end in .toml or .json")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ScenarioFileError(f"--scenario: {str(path)!r} is not valid: {exc}") from exc
    if not isinstance(values, dict):
        raise ScenarioFileError(f"--scenario: {str(path)!r} must hold a table of fields")
    try:
        values = _with_units("", values)
        groups = values.get("groups")
        if isinstance(groups, list):
            values["groups"] = [
                _with_units(f"groups[{i}].", g) if isinstance(g, dict) else g
                for i, g in enumerate(groups)
            ]
        return Scenario.from_dict(values)
    except (ValueError, TypeError) as exc:
        raise ScenarioFileError(f"--scenario {str(path)!r}: {exc}") from exc


@dataclass
class Request:
    """What the command line asks for: a scenario, buffer sizes, replications and a seed."""

    scenario: Scenario
    buffers: list[int]
    replications: int
    seed: int
    trace: Path | None = None
    as_json: bool = False


def _buffers(text: str, wire_bytes: int, capacity_bps: float) -> list[int]:
    """Packets (``64``), or a size (``96KiB``) or a time at line rate (``5ms``), rounded down."""
    parts = [p for p in (s.strip() for s in text.split(",")) if p]
    if not parts:
        raise ValueError("--buffer: give one buffer size or a comma-separated list")
    out: set[int] = set()
    for part in parts:
        try:
            number = float(part)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            if number != int(number):
                raise ValueError(f"--buffer: {part!r} is not a whole number of packets")
            packets = int(number)
        else:
            try:
                packets = _whole_packets(parse_quantity("--buffer", part, "size") / wire_bytes)
            except ValueError:
                seconds = parse_quantity("--buffer", part, "time")
                packets = _whole_packets(seconds * capacity_bps / (8 * wire_bytes))
        if packets < 1:
            held = "" if math.isfinite(number) else f" ({wire_bytes:,} B each on the wire)"
            raise ValueError(f"--buffer must be >= 1 packet{held}, got {part!r}")
        out.add(packets)
    return sorted(out)


def _whole_packets(packets: float) -> int:
    """Round down, forgiving the last bits of unit conversion (12 ms x 10 Mbit/s = 10 packets)."""
    if not math.isfinite(packets):
        raise ValueError(f"--buffer must be finite, got {packets!r} packets")
    return math.floor(packets * (1.0 + 1e-9))


def _window_packets(text: str, packet_bytes: int) -> int:
    """A bare number is packets; a size (``3MiB``) holds that many whole segments."""
    return int(parse_packets("--max-window", text, packet_bytes))


def _jitter_s(text: str, rtt_s: float) -> float:
    """A time (``10ms``) or a share of the mean RTT (``20%``)."""
    stripped = text.strip()
    if stripped.endswith("%"):
        try:
            share = float(stripped[:-1])
        except ValueError as exc:
            raise ValueError(f"--rtt-jitter: cannot read {text!r}; try '20%' or '10ms'") from exc
        return share / 100.0 * rtt_s
    return parse_quantity("--rtt-jitter", stripped, "time")


_PACKETS = re.compile(r"^\s*(\d+)\s*(packets?|pkts?)?\s*$", re.IGNORECASE)


def ecn_threshold(text: str | None) -> tuple[int | None, int | None]:
    """``--ecn-threshold``: (packets, bytes). A whole number, or ``65 packets``, is packets;
    a size (``90KB``, ``64 KiB``) is bytes on the wire; None: no marking."""
    if text is None:
        return None, None
    match = _PACKETS.match(text)
    if match:
        return int(match.group(1)), None
    size = parse_quantity("--ecn-threshold", text, "size")
    if not math.isfinite(size) or not size.is_integer():
        raise ValueError(
            f"--ecn-threshold: {text!r} is not a whole number of packets or of bytes; "
            "try '65', '65 packets' or '90KB'"
        )
    return None, int(size)


def _whole(name: str, value: float) -> int:
    if not value.is_integer():
        raise ValueError(f"{name} must be a whole number of bytes, got {value!r}")
    return int(value)


def _seconds_text(seconds: float) -> str:
    """A default time as the option would be typed: ``200ms``, ``60s``."""
    return f"{seconds:g}s" if seconds >= 1.0 else f"{seconds * 1e3:g}ms"


def build_request(opts: dict[str, Any], explicit: frozenset[str] = frozenset()) -> Request:
    """Parse the options into a validated :class:`Request` (``ValueError`` names the option).

    ``explicit`` names the options given on the command line (not defaulted); with
    ``--scenario`` none of :data:`SCENARIO_OPTIONS` may be among them.
    """
    if opts.get("scenario") is not None:
        clash = [name for name in SCENARIO_OPTIONS if name in explicit]
        if clash:
            option = "--" + clash[0].replace("_", "-")
            raise ScenarioFileError(
                f"{option} cannot be combined with --scenario: set it in the scenario file"
            )
        scenario = load_scenario_file(opts["scenario"])
        if "packet_budget" in explicit:
            scenario = scenario.replace(packet_budget=opts["packet_budget"])
    else:
        scenario = _scenario_from_options(opts)
    buffers = _buffers(opts["buffer"], scenario.wire_bytes, scenario.capacity_bps)
    for buffer_packets in buffers:
        scenario.validate(buffer_packets)
    if opts["replications"] < 1:
        raise ValueError(f"--replications must be >= 1, got {opts['replications']}")
    if opts["seed"] < 0:
        raise ValueError(f"--seed must be >= 0, got {opts['seed']}")
    return Request(
        scenario=scenario,
        buffers=buffers,
        replications=opts["replications"],
        seed=opts["seed"],
        trace=opts["trace"],
        as_json=opts["as_json"],
    )


def _scenario_from_options(opts: dict[str, Any]) -> Scenario:
    for name in ("capacity", "flows", "rtt"):
        if opts.get(name) is None:
            raise ValueError(f"Missing option '--{name}' (or give the scenario with --scenario)")
    capacity_bps = parse_quantity("--capacity", opts["capacity"], "rate")
    rtt_s = parse_quantity("--rtt", opts["rtt"], "time")
    packet_bytes = _whole("--packet", parse_quantity("--packet", opts["packet"], "size"))
    header_bytes = _whole("--header", parse_quantity("--header", opts["header"], "size"))
    if packet_bytes < 1:
        raise ValueError(f"--packet must be >= 1 byte, got {opts['packet']!r}")
    if header_bytes < 0:
        raise ValueError(f"--header must be >= 0 bytes, got {opts['header']!r}")
    threshold_packets, threshold_bytes = ecn_threshold(opts["ecn_threshold"])
    scenario = Scenario(
        capacity_bps=capacity_bps,
        flows=opts["flows"],
        rtt_s=rtt_s,
        rtt_jitter_s=None if opts["rtt_jitter"] is None else _jitter_s(opts["rtt_jitter"], rtt_s),
        access_bps=parse_quantity("--access-rate", opts["access_rate"], "rate"),
        max_window_packets=_window_packets(opts["max_window"], packet_bytes),
        packet_bytes=packet_bytes,
        header_bytes=header_bytes,
        pacing=opts["pacing"],
        recovery=opts["recovery"],
        congestion_control=opts["cc"],
        ecn=opts["ecn"],
        ecn_threshold_packets=threshold_packets,
        ecn_threshold_bytes=threshold_bytes,
        ca_increase=opts["ca_increase"],
        delayed_ack=opts["delayed_ack"],
        initial_window_packets=opts["initial_window"],
        min_rto_s=parse_quantity("--min-rto", opts["min_rto"], "time"),
        background_load=opts["background_load"],
        aqm=opts["aqm"],
        codel_target_s=parse_quantity("--codel-target", opts["codel_target"], "time"),
        codel_interval_s=parse_quantity("--codel-interval", opts["codel_interval"], "time"),
        duration_s=parse_quantity("--duration", opts["duration"], "time"),
        warmup_s=parse_quantity("--warmup", opts["warmup"], "time"),
        packet_budget=opts["packet_budget"],
    )
    scenario.validate()
    return scenario


@dataclass
class ProgressBar:
    """A rich progress bar on stderr over all buffer sizes, shown once a command runs long.

    ``report(step, fraction)`` relays the simulator's progress callback for buffer size
    ``step`` of ``steps`` (one run, or its replications); the bar appears only when stderr is
    a terminal and the command has been running for ``PROGRESS_AFTER_S`` seconds.
    """

    steps: int
    console: Console = field(default_factory=lambda: Console(stderr=True))
    started_s: float = field(default_factory=time.perf_counter)
    _bar: Progress | None = None
    _task: Any = None

    def report(self, step: int, fraction: float, description: str = "") -> None:
        """Show ``step + fraction`` steps done out of ``steps``."""
        if not self.console.is_terminal:
            return
        if self._bar is None:
            if time.perf_counter() - self.started_s < PROGRESS_AFTER_S:
                return
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("simulating", total=float(self.steps))
        done = min(step + min(max(fraction, 0.0), 1.0), float(self.steps))
        self._bar.update(self._task, completed=done, description=description or "simulating")

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()


Result = RunResult | ReplicatedResult


def run_request(req: Request, bar: ProgressBar, trace_file: IO[str] | None = None) -> list[Result]:
    """Simulate each buffer size (once, or ``replications`` times) in increasing order."""
    writer = None
    several = len(req.buffers) > 1
    replicated = req.replications > 1
    if trace_file is not None:
        writer = csv.writer(trace_file)
        lead = (("buffer_packets",) if several else ()) + (("seed",) if replicated else ())
        writer.writerow(lead + TRACE_COLUMNS)
    results: list[Result] = []
    for index, buffer_packets in enumerate(req.buffers):
        label = f"B = {buffer_packets:,}"

        def report(fraction: float, index: int = index, label: str = label) -> None:
            bar.report(index, fraction, label)

        tracing = writer is not None
        result: Result
        result = run_buffer(
            req.scenario, buffer_packets, req.replications, req.seed, report, trace=tracing
        )
        runs = result.runs if isinstance(result, ReplicatedResult) else [result]
        if writer is not None:
            for run in runs:
                lead_values = ((buffer_packets,) if several else ()) + (
                    (run.seed,) if replicated else ()
                )
                _write_trace(writer, run, lead_values)
                run.packet_trace = None
                run.samples = None
        results.append(result)
    return results


def _write_trace(writer: Any, run: RunResult, lead: tuple[int, ...]) -> None:
    trace = run.packet_trace
    if trace is None:  # the simulator always returns one when asked
        raise RuntimeError("the simulator returned no packet trace")
    columns = [
        trace.time_s.tolist(),
        trace.flow_keys(),
        trace.size_bytes.tolist(),
        trace.dropped.astype(int).tolist(),
    ]
    rows = zip(*columns, strict=True)
    writer.writerows((*lead, *row) for row in rows)


def to_json(req: Request, results: list[Result]) -> dict[str, Any]:
    """The document ``--json`` prints: scenario, seed, software versions, a row per buffer size."""
    rows = []
    for result in results:
        row = result.to_dict(traces=False)
        if isinstance(result, RunResult):
            row["replications"] = 1
        row.update(_buffer_sizes(req.scenario, result.buffer_packets))
        rows.append(row)
    return {
        "scenario": req.scenario.to_dict(),
        "warnings": req.scenario.warnings(),
        "seed": req.seed,
        "software_versions": software_versions(),
        "replications": req.replications,
        "buffer_packets": req.buffers,
        "results": rows,
    }


def _buffer_sizes(scenario: Scenario, buffer_packets: int) -> dict[str, float]:
    wire_bytes = buffer_packets * scenario.wire_bytes
    return {"buffer_bytes": wire_bytes, "buffer_s": 8.0 * wire_bytes / scenario.capacity_bps}


def _rate(bps: float) -> str:
    for factor, unit in ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if abs(bps) >= factor:
            return f"{bps / factor:.4g} {unit}"
    return f"{bps:.4g} bit/s"


def _time(seconds: float) -> str:
    if seconds >= 1.0:
        return f"{seconds:.4g} s"
    return f"{seconds * 1e3:.4g} ms"


def _growth(ca_increase: str) -> str:
    """Nothing for the default byte counting; say so when each ACK counts as one segment."""
    return " (congestion avoidance 1/cwnd per ACK)" if ca_increase == "per_ack" else ""


def describe(scenario: Scenario) -> str:
    """One paragraph: the scenario in the units people use."""
    if scenario.groups:
        return _describe_groups(scenario)
    sc = scenario
    rtt = _time(sc.rtt_s)
    if sc.rtt_jitter_s:
        rtt += f" ± {_time(sc.rtt_jitter_s)}"
    tcp = (
        f"{cc_name(sc.congestion_control, sc.ecn)}{_growth(sc.ca_increase)}, "
        f"{sc.recovery.upper() if sc.recovery == 'sack' else 'NewReno'} recovery, "
        f"{'paced' if sc.pacing or sc.congestion_control == 'bbr' else 'unpaced'}, "
        f"delayed ACK {sc.delayed_ack}, "
        f"initial window {sc.initial_window_packets}, min RTO {_time(sc.min_rto_s)}, "
        f"largest window {sc.max_window_packets:,} packets"
    )
    background = f", background load {sc.background_load:.3g}" if sc.background_load > 0 else ""
    background += _aqm_text(sc)
    return (
        f"{sc.flows:,} flows over {_rate(sc.capacity_bps)}, RTT {rtt}, access links "
        f"{_rate(sc.access_bps)}, packets of {sc.packet_bytes:,} B + {sc.header_bytes} B "
        f"header{background}{_marking(sc)}; {tcp}. {_time(sc.duration_s)} simulated, the first "
        f"{_time(sc.warmup_s)} discarded."
    )


def cc_name(cc: str, ecn: bool) -> str:
    """A congestion control as people write it: Reno, CUBIC, DCTCP; "with ECN" for RFC 3168."""
    name = CONGESTION_CONTROL_NAMES.get(cc, cc)
    return f"{name} with ECN" if ecn and cc != "dctcp" else name


def _marking(sc: Scenario) -> str:
    if sc.ecn_threshold_packets is not None:
        return f", ECN marking from {sc.ecn_threshold_packets:,} packets at the port"
    if sc.ecn_threshold_bytes is not None:
        return f", ECN marking from {human_bytes(sc.ecn_threshold_bytes)} at the port"
    return ""


def _marks(sc: Scenario) -> bool:
    if sc.ecn_threshold_packets is not None or sc.ecn_threshold_bytes is not None:
        return True
    # CoDel and PIE mark the packets of ECN-capable groups instead of dropping them
    return sc.aqm != "none" and any(
        g.congestion_control == "dctcp" or g.ecn for g in sc.flow_groups
    )


def _aqm_text(sc: Scenario) -> str:
    """The port's AQM in words ('' for none)."""
    if sc.aqm == "codel":
        return (
            f", CoDel at the port (target {_time(sc.codel_target_s)}, "
            f"interval {_time(sc.codel_interval_s)})"
        )
    if sc.aqm == "pie":
        return ", PIE at the port (reference delay 15 ms)"
    return ""


def _describe_groups(sc: Scenario) -> str:
    parts = []
    for g in sc.flow_groups:
        jitter_s = g.rtt_jitter_s or 0.0
        rtt = _time(g.rtt_s) + (f" ± {_time(jitter_s)}" if jitter_s > 0 else "")
        what = {
            "persistent": f"{g.flows:,} persistent flows",
            "closed_loop": f"{g.flows:,} closed-loop users",
            "poisson_flows": f"Poisson flows at {g.flow_arrival_rate_per_s:g}/s "
            f"(at most {g.flows:,} at once)",
        }[g.traffic]
        parts.append(
            f"{g.name}: {what}, {cc_name(g.congestion_control, g.ecn)}{_growth(g.ca_increase)}, "
            f"RTT {rtt}, "
            f"access {_rate(g.access_bps)}, largest window "
            f"{g.max_window_packets:,} packets"
        )
    background = f", background load {sc.background_load:.3g}" if sc.background_load > 0 else ""
    background += _aqm_text(sc)
    return (
        f"{len(parts)} flow groups over {_rate(sc.capacity_bps)}, packets of "
        f"{sc.packet_bytes:,} B + {sc.header_bytes} B header{background}{_marking(sc)}. "
        + "; ".join(parts)
        + f". {_time(sc.duration_s)} simulated, the first {_time(sc.warmup_s)} discarded."
    )


def _group_table(req: Request, results: list[Result]) -> Table:
    table = Table(title="Per flow group", title_justify="left")
    for name in ("Buffer pkts", "Group", "Flows", "Share", "Goodput Mbit/s", "Loss"):
        table.add_column(name, justify="right", no_wrap=True)
    marks = _marks(req.scenario)
    for name in ("Timeouts", "Completed", "Jain") + (("Marked",) if marks else ()):
        table.add_column(name, justify="right", no_wrap=True)
    for result in results:
        if isinstance(result, RunResult):
            rows = [
                (g.name, g.flows, {m: (getattr(g, m), math.nan) for m in GROUP_MEASURES})
                for g in result.groups
            ]
        else:
            rows = [
                (g.name, g.flows, {m: (e.mean, e.ci99_half_width) for m, e in est.items()})
                for g, est in zip(result.runs[0].groups, result.group_estimates, strict=True)
            ]
        for name, flows, values in rows:

            def cell(measure: str, fmt: str, scale: float = 1.0, v: Any = values) -> str:
                mean, half = v[measure]
                text = format(mean * scale, fmt)
                if math.isfinite(half):
                    text += " ± " + format(half * scale, ".1%" if fmt.endswith("%") else ".2g")
                return text

            table.add_row(
                f"{result.buffer_packets:,}",
                name,
                f"{flows:,}",
                cell("utilization_share", ".1%"),
                cell("goodput_bps", ".4g", 1e-6),
                cell("loss_rate", ".3g"),
                cell("timeouts", ".4g"),
                cell("flows_completed", ".4g"),
                cell("jain_index", ".3f"),
                *((cell("mark_rate", ".3g"),) if marks else ()),
            )
    return table


def _cell(result: Result, measure: str, fmt: str, scale: float = 1.0) -> str:
    if isinstance(result, RunResult):
        return format(float(getattr(result, measure)) * scale, fmt)
    estimate = result[measure]
    text = format(estimate.mean * scale, fmt)
    if math.isfinite(estimate.ci99_half_width):
        # Two significant digits are all a confidence interval's width carries.
        width_fmt = ".1%" if fmt.endswith("%") else ".2g"
        text += " ± " + format(estimate.ci99_half_width * scale, width_fmt)
    return text


def render(req: Request, results: list[Result], console: Console) -> None:
    """Print the scenario and a table of the measures, one row per buffer size."""
    console.print(describe(req.scenario), markup=False, soft_wrap=True)
    reps = req.replications
    if reps > 1:
        console.print(f"Seed {req.seed}, {reps} replications per buffer; ± is the 99% CI.")
    else:
        console.print(f"Seed {req.seed}.")
    table = Table(title="Packet simulation", title_justify="left")
    for name in ("Buffer pkts", "Buffer ms", "Utilization", "Goodput Mbit/s", "Loss"):
        table.add_column(name, justify="right", no_wrap=True)
    aqm = req.scenario.aqm != "none"
    for name in ("AQM drops", "Overflow drops") if aqm else ():
        table.add_column(name, justify="right", no_wrap=True)
    marks = _marks(req.scenario)
    for name in ("Delay mean ms", "Delay p99 ms", "Timeouts") + (("Marked",) if marks else ()):
        table.add_column(name, justify="right", no_wrap=True)
    packets = 0.0
    wall_s = 0.0
    for result in results:
        sizes = _buffer_sizes(req.scenario, result.buffer_packets)
        drops = (
            [_cell(result, "aqm_drops", ".4g"), _cell(result, "overflow_drops", ".4g")]
            if aqm
            else []
        )
        table.add_row(
            f"{result.buffer_packets:,}",
            f"{sizes['buffer_s'] * 1e3:.4g}",
            _cell(result, "utilization", ".1%"),
            _cell(result, "goodput_bps", ".4g", 1e-6),
            _cell(result, "loss_rate", ".3g"),
            *drops,
            _cell(result, "queue_delay_mean_s", ".3g", 1e3),
            _cell(result, "queue_delay_p99_s", ".3g", 1e3),
            _cell(result, "timeouts", ".4g"),
            *((_cell(result, "mark_rate", ".3g"),) if marks else ()),
        )
        runs = [result] if isinstance(result, RunResult) else result.runs
        packets += sum(run.bottleneck_packets for run in runs)
        wall_s += sum(run.wall_s for run in runs)
    console.print(table)
    if req.scenario.groups:
        console.print(_group_table(req, results))
    speed = f" ({packets / wall_s / 1e6:.3g} million per second)" if wall_s > 0 else ""
    console.print(
        f"{packets:,.0f} bottleneck packets simulated in {wall_s:.3g} s{speed}; "
        f"buffer ms is the buffer drained at line rate ({human_bytes(req.scenario.wire_bytes)} "
        "per packet on the wire)."
    )


@click.command()
@click.option(
    "--scenario",
    "scenario",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Take the scenario (and its flow groups) from a TOML or JSON file instead of the "
    "options --capacity ... --warmup; see the module help for the format.",
)
@click.option(
    "--capacity", help='Bottleneck rate, e.g. "100 Mbit/s" (required without --scenario).'
)
@click.option("--flows", type=int, help="Persistent TCP flows N (required without --scenario).")
@click.option(
    "--rtt", help="Mean two-way propagation delay, e.g. 100ms (required without --scenario)."
)
@click.option(
    "--rtt-jitter",
    default=None,
    show_default=f"{DEFAULT_RTT_JITTER_FRACTION:.0%} of --rtt",
    help="RTTs are uniform in rtt ± jitter: a time (10ms) or a share of --rtt (20%). 0 is "
    "allowed but warned about: flows with one RTT phase-lock.",
)
@click.option(
    "--access-rate",
    default=_rate(DEFAULTS["access_bps"]),
    show_default=True,
    help="Rate of each sender's access link.",
)
@click.option(
    "--max-window",
    default=str(DEFAULT_MAX_WINDOW_PACKETS),
    show_default=True,
    help="Largest window: packets (64) or a size (3MiB), in whole segments; the default is "
    "3 MiB (Linux's default largest receive window) of 1448-byte segments.",
)
@click.option(
    "--packet",
    default=f"{DEFAULTS['packet_bytes']}B",
    show_default=True,
    help="Payload per packet (TCP MSS).",
)
@click.option(
    "--header",
    default=f"{DEFAULTS['header_bytes']}B",
    show_default=True,
    help="TCP/IP headers per packet on the wire (with --packet: 1500 B packets).",
)
@click.option(
    "--buffer",
    required=True,
    help="Bottleneck buffer in packets (the one in transmission included), or a comma list: "
    "20,50,100; a size (64KiB) or a time at line rate (5ms) is rounded down to packets.",
)
@click.option(
    "--pacing/--no-pacing",
    default=DEFAULTS["pacing"],
    show_default=True,
    help="Senders space packets srtt/cwnd apart.",
)
@click.option(
    "--recovery",
    type=click.Choice(RECOVERIES),
    default=DEFAULTS["recovery"],
    show_default=True,
    help="Loss recovery: SACK (RFC 6675) or NewReno without SACK (RFC 6582).",
)
@click.option(
    "--cc",
    type=click.Choice(CONGESTION_CONTROLS),
    default=DEFAULTS["congestion_control"],
    show_default=True,
    help="Congestion control: Reno (RFC 5681), CUBIC (RFC 9438), DCTCP (RFC 8257; give "
    "the port's --ecn-threshold) or BBR v1 (paced).",
)
@click.option(
    "--ecn/--no-ecn",
    default=DEFAULTS["ecn"],
    show_default=True,
    help="Classic ECN (RFC 3168) for Reno and CUBIC: marks are treated as a loss, without "
    "retransmission. DCTCP always uses ECN.",
)
@click.option(
    "--ecn-threshold",
    default=None,
    metavar="K",
    help="The port marks ECN-capable packets CE instead of dropping them when an arrival "
    "finds K packets there (the one in transmission included): a number or '65 packets', or "
    "a size in bytes on the wire ('90KB'). DCTCP's guideline is K > C·RTT/7. The buffer stays "
    "the hard limit. Default: no marking.",
)
@click.option(
    "--aqm",
    type=click.Choice(SIMULATED_AQMS),
    default=DEFAULTS["aqm"],
    show_default=True,
    help="Active queue management below the buffer's hard limit: CoDel (RFC 8289, drops at "
    "dequeue) or PIE (RFC 8033, random drops at enqueue, 15 ms reference delay).",
)
@click.option(
    "--codel-target",
    default=_seconds_text(DEFAULTS["codel_target_s"]),
    show_default=True,
    help="CoDel's TARGET: the sojourn time it lets persist (with --aqm codel).",
)
@click.option(
    "--codel-interval",
    default=_seconds_text(DEFAULTS["codel_interval_s"]),
    show_default=True,
    help="CoDel's INTERVAL: how long the sojourn time may stay above target (with --aqm codel).",
)
@click.option(
    "--ca-increase",
    type=click.Choice(CA_INCREASE_KINDS),
    default=DEFAULTS["ca_increase"],
    show_default=True,
    metavar="KIND",
    help="Congestion-avoidance growth per ACK: bytes_acked counts the segments it newly "
    "acknowledges (RFC 3465, as Linux: 1 segment per RTT); per_ack counts 1 segment whatever "
    "it acknowledges (RFC 5681 eq. 3, ns-2: 1/2 segment per RTT with delayed ACKs).",
)
@click.option(
    "--delayed-ack",
    type=int,
    default=DEFAULTS["delayed_ack"],
    show_default=True,
    metavar="N",
    help="In-order segments per ACK (1: no delayed ACKs).",
)
@click.option(
    "--initial-window",
    type=int,
    default=DEFAULTS["initial_window_packets"],
    show_default=True,
    metavar="N",
    help="Initial congestion window, packets (RFC 6928).",
)
@click.option(
    "--min-rto",
    default=_seconds_text(DEFAULTS["min_rto_s"]),
    show_default=True,
    help="Lower bound of the retransmission timeout (Linux: 200ms; RFC 6298: 1s).",
)
@click.option(
    "--background-load",
    type=float,
    default=DEFAULTS["background_load"],
    show_default=True,
    help="Poisson background packets, as a fraction of --capacity.",
)
@click.option(
    "--duration",
    default=_seconds_text(DEFAULTS["duration_s"]),
    show_default=True,
    help="Simulated time.",
)
@click.option(
    "--warmup",
    default=_seconds_text(DEFAULTS["warmup_s"]),
    show_default=True,
    help="Measures start after this time.",
)
@click.option(
    "--replications",
    type=int,
    default=1,
    show_default=True,
    help="Independent runs per buffer; 2 or more give 99% confidence intervals.",
)
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="Seed of the run, or of the replications (SeedSequence(seed).spawn(n)).",
)
@click.option(
    "--packet-budget",
    type=int,
    default=DEFAULTS["packet_budget"],
    show_default=True,
    help="Most bottleneck packets one run may simulate.",
)
@click.option(
    "--trace",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the bottleneck's departures and drops (time_s, flow, size_bytes, dropped) "
    "to this CSV file; a buffer_packets column leads when several buffers are run, and a "
    "seed column (each run's own seed) with --replications 2 or more. Flows are "
    "numbered from 0; flow = --flows marks background packets; a slot's later transfers "
    "(closed-loop users, Poisson flows) are SLOT.K, the K-th after its first.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON on stdout.")
def simulate(**opts: Any) -> None:
    """Simulate TCP flows through one bottleneck for each buffer size.

    A progress bar shows on stderr for long runs; --json output on stdout stays clean.
    """
    ctx = click.get_current_context()
    explicit = frozenset(
        name
        for name in opts
        if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
    )
    try:
        req = build_request(opts, explicit)
    except ScenarioFileError as exc:
        click.echo(f"Error: {exc}", err=True)
        raise SystemExit(2) from exc
    except ValueError as exc:  # UnitError is a ValueError too
        click.echo(f"Error: {option_message(str(exc))}", err=True)
        raise SystemExit(2) from exc
    for warning in req.scenario.warnings():
        click.echo(f"Warning: {option_message(warning)}", err=True)
    try:
        trace_file = (
            None if req.trace is None else req.trace.open("w", newline="", encoding="utf-8")
        )
    except OSError as exc:
        click.echo(f"Error: --trace: cannot write {str(req.trace)!r}: {exc.strerror}", err=True)
        raise SystemExit(2) from exc
    try:
        with ProgressBar(steps=len(req.buffers)) as bar:
            results = run_request(req, bar, trace_file)
    finally:
        if trace_file is not None:
            trace_file.close()
    if req.as_json:
        click.echo(json.dumps(to_json(req, results), indent=2, ensure_ascii=False))
        return
    render(req, results, Console(width=max(150, Console().width), highlight=False))
