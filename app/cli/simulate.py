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
from pathlib import Path
from typing import IO, Any

import click
from rich.console import Console

from app.cli.progress import ProgressBar
from app.cli.simulate_options import (
    DEFAULTS,
    Request,
    ScenarioFileError,
    build_request,
    option_help,
    option_message,
    seconds_text,
)
from app.cli.simulate_report import Result, rate_text, render, to_json
from app.services.simulate import run_buffer
from models.choices import (
    CONGESTION_CONTROLS,
    RECOVERIES,
    SIMULATED_AQMS,
)
from validation.simulator import ReplicatedResult, RunResult
from validation.simulator.scenario import (
    CA_INCREASE_KINDS,
    DEFAULT_MAX_WINDOW_PACKETS,
    DEFAULT_RTT_JITTER_FRACTION,
)

#: Header of the trace CSV; ``buffer_packets`` leads when several buffers are run, then
#: ``seed`` (the run's own seed) when each buffer is run several times.
TRACE_COLUMNS = ("time_s", "flow", "size_bytes", "dropped")


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


@click.command()
@click.option(
    "--scenario",
    "scenario",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Take the scenario (and its flow groups) from a TOML or JSON file instead of the "
    "options --capacity ... --warmup; see the module help for the format.",
)
@click.option(
    "--capacity",
    help=option_help("capacity_bps", 'For example "100 Mbit/s"; required without --scenario.'),
)
@click.option("--flows", type=int, help=option_help("flows", "Required without --scenario."))
@click.option("--rtt", help=option_help("rtt_s", "For example 100ms; required without --scenario."))
@click.option(
    "--rtt-jitter",
    default=None,
    show_default=f"{DEFAULT_RTT_JITTER_FRACTION:.0%} of --rtt",
    help=option_help(
        "rtt_jitter_s",
        "Below --rtt: a time (10ms) or a share of --rtt (20%). 0 is allowed but warned "
        "about: flows with one RTT phase-lock.",
    ),
)
@click.option(
    "--access-rate",
    default=rate_text(DEFAULTS["access_bps"]),
    show_default=True,
    help=option_help("access_bps"),
)
@click.option(
    "--max-window",
    default=str(DEFAULT_MAX_WINDOW_PACKETS),
    show_default=True,
    help=option_help(
        "max_window_packets",
        "Packets (64) or a size (3MiB), in whole segments; the default is 3 MiB (Linux's "
        "default largest receive window) of 1448-byte segments.",
    ),
)
@click.option(
    "--packet",
    default=f"{DEFAULTS['packet_bytes']}B",
    show_default=True,
    help=option_help("packet_bytes"),
)
@click.option(
    "--header",
    default=f"{DEFAULTS['header_bytes']}B",
    show_default=True,
    help=option_help("header_bytes", "With --packet: 1500 B packets."),
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
    help=option_help("pacing"),
)
@click.option(
    "--recovery",
    type=click.Choice(RECOVERIES),
    default=DEFAULTS["recovery"],
    show_default=True,
    help=option_help("recovery"),
)
@click.option(
    "--cc",
    type=click.Choice(CONGESTION_CONTROLS),
    default=DEFAULTS["congestion_control"],
    show_default=True,
    help=option_help("congestion_control", "Give DCTCP's marking threshold in --ecn-threshold."),
)
@click.option(
    "--ecn/--no-ecn",
    default=DEFAULTS["ecn"],
    show_default=True,
    help=option_help("ecn"),
)
@click.option(
    "--ecn-threshold",
    default=None,
    metavar="K",
    help=option_help(
        "ecn_threshold_packets",
        "A number or '65 packets', or a size in bytes on the wire ('90KB'). Default: no marking.",
    ),
)
@click.option(
    "--aqm",
    type=click.Choice(SIMULATED_AQMS),
    default=DEFAULTS["aqm"],
    show_default=True,
    help=option_help("aqm"),
)
@click.option(
    "--codel-target",
    default=seconds_text(DEFAULTS["codel_target_s"]),
    show_default=True,
    help=option_help("codel_target_s", "With --aqm codel."),
)
@click.option(
    "--codel-interval",
    default=seconds_text(DEFAULTS["codel_interval_s"]),
    show_default=True,
    help=option_help("codel_interval_s", "With --aqm codel."),
)
@click.option(
    "--ca-increase",
    type=click.Choice(CA_INCREASE_KINDS),
    default=DEFAULTS["ca_increase"],
    show_default=True,
    metavar="KIND",
    help=option_help("ca_increase"),
)
@click.option(
    "--delayed-ack",
    type=int,
    default=DEFAULTS["delayed_ack"],
    show_default=True,
    metavar="N",
    help=option_help("delayed_ack"),
)
@click.option(
    "--initial-window",
    type=int,
    default=DEFAULTS["initial_window_packets"],
    show_default=True,
    metavar="N",
    help=option_help("initial_window_packets"),
)
@click.option(
    "--min-rto",
    default=seconds_text(DEFAULTS["min_rto_s"]),
    show_default=True,
    help=option_help("min_rto_s", "Linux: 200ms; RFC 6298: 1s."),
)
@click.option(
    "--background-load",
    type=float,
    default=DEFAULTS["background_load"],
    show_default=True,
    help=option_help("background_load"),
)
@click.option(
    "--duration",
    default=seconds_text(DEFAULTS["duration_s"]),
    show_default=True,
    help=option_help("duration_s"),
)
@click.option(
    "--warmup",
    default=seconds_text(DEFAULTS["warmup_s"]),
    show_default=True,
    help=option_help("warmup_s", "Below --duration."),
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
    help=option_help("packet_budget"),
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
