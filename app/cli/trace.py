"""``bufsize trace FILE``: estimate N_b, T_e, C_e and α from a packet trace (004 §VI) and size.

The file is a pcap or pcapng capture taken at the link, or the CSV ``bufsize simulate
--trace`` writes; the reader is chosen by the file's content. A progress bar shows on stderr
for long files; ``--json`` prints one document on stdout.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table

from app.services.names import option_word
from app.services.trace import TRACE_REPLICATIONS, run_trace, trace_options

if TYPE_CHECKING:  # the readers and estimators are imported when a trace is read
    from validation.traces import TraceEstimates
    from validation.traces.estimate import Interval


def _interval(value: Interval, scale: float = 1.0, fmt: str = ".3g") -> str:
    def show(x: float) -> str:
        return format(x * scale, fmt) if math.isfinite(x) else "-"

    return f"{show(value.value)}  [{show(value.low)}, {show(value.high)}]"


def render(doc: dict[str, Any], est: TraceEstimates, console: Console) -> None:
    """Print the estimates with their 95 % intervals and the BSCL buffer."""
    console.print(
        f"{doc['file']}: {est.kind}, {est.packets:,} packets, {est.flows:,} flows, "
        f"{est.end_s - est.start_s:.4g} s ({est.warmup_s:g} s warm-up left out).",
        markup=False,
    )
    counts = ", ".join(f"{name.replace('_', '-')} {n}" for name, n in est.class_counts.items())
    console.print(f"Flows: {counts}.", markup=False)
    table = Table(title="Estimates (004 §VI), value [95% interval]", title_justify="left")
    table.add_column("Parameter")
    table.add_column("Estimate", justify="right")
    table.add_row("N_b (LBP flows)", _interval(est.bottlenecked_flows, fmt=".0f"))
    table.add_row("T_e (ms)", _interval(est.effective_rtt_s, 1e3))
    table.add_row("C_e / C", _interval(est.bottlenecked_share, 100.0, ".3g") + " %")
    table.add_row("Loss rate (%)", _interval(est.loss_rate, 100.0))
    table.add_row("Mean loss burst L̄ (packets)", _interval(est.loss_burst_mean_packets))
    table.add_row("Median loss burst (packets)", _interval(est.loss_burst_median_packets))
    table.add_row("α = L̄/N_b", _interval(est.sync_factor))
    table.add_row("C (Mbit/s)", f"{est.capacity_bps / 1e6:.4g} ({est.capacity_source})")
    console.print(table)
    for note in est.notes:
        console.print(f"Note: {note}.", markup=False)
    bscl = doc.get("bscl")
    if bscl is None:
        console.print(f"No BSCL size: {doc.get('bscl_error')}", markup=False)
        return
    low, high = bscl["buffer_packets_range"]
    console.print(
        f"BSCL buffer: {bscl['buffer_packets']:,.0f} packets ({bscl['buffer_bytes']:,.0f} B), "
        f"set by the {bscl['governing_constraint']} constraint; {low:,.0f}-{high:,.0f} "
        "packets over the 95 % intervals of N_b, T_e, C_e/C and L̄ together.",
        markup=False,
    )


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--capacity", default=None, help='Link rate, e.g. "50 Mbit/s" (else estimated).')
@click.option(
    "--buffer",
    "buffer_",
    default=None,
    help="The link's buffer while the trace was taken: packets of the trace's largest size "
    "(750) or a size (1MB); corrects the RTT samples for the queue at this link.",
)
@click.option("--warmup", default="0s", show_default=True, help="Left out at the start.")
@click.option("--max-loss", default="1%", show_default=True, help="BSCL's loss target p̂.")
@click.option(
    "--verify",
    is_flag=True,
    help="Also simulate the BSCL size, half and double it on the estimated link "
    "(validation/verify.py, as bufsize recommend --verify).",
)
@click.option(
    "--replications",
    default="5",
    show_default=True,
    help="Simulator runs per size with --verify, {} to {}.".format(*TRACE_REPLICATIONS),
)
@click.option("--seed", default="1", show_default=True, help="Seed of --verify.")
@click.option("--flows", "with_flows", is_flag=True, help="With --json: the per-flow table.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON on stdout.")
def trace(**opts: Any) -> None:
    """Estimate BSCL's parameters from a packet trace (pcap, pcapng or CSV) and size the buffer."""
    path: Path = opts["file"]
    try:
        options = trace_options(
            {
                "capacity_bps": opts["capacity"],
                "buffer_packets": opts["buffer_"],
                "warmup_s": opts["warmup"],
                "max_loss": opts["max_loss"],
                "replications": opts["replications"],
                "seed": opts["seed"],
            },
            option_word,
            verify=opts["verify"],
            with_flows=opts["with_flows"],
        )
    except ValueError as exc:
        click.echo(f"Error: {exc}", err=True)
        raise SystemExit(2) from exc
    from app.cli.progress import ProgressBar
    from validation.traces import TraceFormatError

    if not path.is_file():
        click.echo(f"Error: FILE: {str(path)!r} does not exist or is not a file", err=True)
        raise SystemExit(2)
    with ProgressBar(steps=1) as bar:  # one bar: reading, then the check's runs
        try:
            result = run_trace(
                path,
                options,
                progress=lambda f: bar.report(0, f, "reading"),
                stage=lambda label, f: bar.report(0, f, label),
                verify_progress=lambda done, total: bar.report(
                    0, done / total, f"verifying: {done}/{total} runs"
                ),
            )
        except TraceFormatError as exc:
            click.echo(f"Error: {exc}", err=True)
            raise SystemExit(1) from exc
        except ValueError as exc:
            click.echo(f"Error: {exc}", err=True)
            raise SystemExit(1) from exc
    doc, est, verification = result.doc, result.estimates, result.verification
    if opts["as_json"]:
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    console = Console(width=max(120, Console().width), highlight=False)
    render(doc, est, console)
    if verification is not None:
        from app.cli.verify import render_verification

        render_verification(verification, console)
