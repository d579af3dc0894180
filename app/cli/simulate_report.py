"""``bufsize simulate``'s output: the scenario in words, the table of each buffer size's
measures, and the ``--json`` document."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.table import Table

from app.cli.simulate_options import Request
from app.formatting import human_bytes
from models.choices import (
    CONGESTION_CONTROL_NAMES,
)
from models.provenance import software_versions
from validation.simulator import ReplicatedResult, RunResult, Scenario
from validation.simulator.results import GROUP_MEASURES

Result = RunResult | ReplicatedResult


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


def rate_text(bps: float) -> str:
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
        f"{sc.flows:,} flows over {rate_text(sc.capacity_bps)}, RTT {rtt}, access links "
        f"{rate_text(sc.access_bps)}, packets of {sc.packet_bytes:,} B + {sc.header_bytes} B "
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
            f"access {rate_text(g.access_bps)}, largest window "
            f"{g.max_window_packets:,} packets"
        )
    background = f", background load {sc.background_load:.3g}" if sc.background_load > 0 else ""
    background += _aqm_text(sc)
    return (
        f"{len(parts)} flow groups over {rate_text(sc.capacity_bps)}, packets of "
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
