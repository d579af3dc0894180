"""``bufsize recommend``: every buffer-sizing rule for a link, checked, and one recommended size.

Quantities are typed with units (``--capacity "10 Gbit/s" --rtt 100ms --packet 1000B``) and
parsed by :mod:`app.units`; the engine is :func:`models.recommend.recommend`.
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from app.formatting import human_bytes
from app.rule_words import RULE_WORDS
from app.services.names import in_option_words
from app.services.recommend import recommend as recommend_link
from app.units import UnitError, parse_fraction, parse_packets, parse_quantity
from models.choices import AQMS, CONGESTION_CONTROLS, PRIORITIES
from models.recommend import LinkScenario, Prediction, Recommendation, Targets

_MARK = {"holds": "[green]✓[/green]", "fails": "[red]✗[/red]", "unknown": "[yellow]?[/yellow]"}


def parse_rtts(text: str) -> tuple[float, ...]:
    parts = [p for p in (s.strip() for s in text.split(",")) if p]
    if not parts:
        raise ValueError("--rtt: give one round-trip time or a comma-separated list")
    return tuple(parse_quantity("--rtt", p, "time") for p in parts)


def _window_packets(text: str | None, packet_bytes: float) -> float | None:
    return None if text is None else parse_packets("--max-window", text, packet_bytes)


#: The AQM and its times, named by their options in the engine's messages (app.services.names).
AQM_INPUTS = ("aqm", "aqm_target_s", "aqm_interval_s")


def optional_quantity(field: str, text: str | None, kind: str) -> float | None:
    """An optional option's quantity in SI units (None when not given)."""
    return None if text is None else parse_quantity(field, text, kind)


def _fraction(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """A target typed as a fraction or a percentage (``--max-loss 1%``)."""
    if value is None:
        return None
    try:
        return parse_fraction(f"--{param.name.replace('_', '-')}" if param.name else "", value)
    except UnitError as exc:
        raise click.BadParameter(str(exc)) from exc


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g}"


def _predicted(p: Prediction | None) -> tuple[str, str]:
    if p is None:
        return "", ""
    loss = "?" if p.loss_probability is None else f"{p.loss_probability:.2g}"
    nu = p.normalized_utilization
    return ("not predicted" if nu is None else f"{nu:.1%}"), loss


def answer_line(rec: Recommendation) -> str:
    """The recommendation in one line: the size in packets, bytes and time at line rate."""
    best = rec.recommended
    return (
        f"Recommended: {best.buffer_packets:,} packets = {human_bytes(best.buffer_bytes)} = "
        f"{_ms(best.buffer_s)} ms at line rate"
    )


def reason_line(rec: Recommendation) -> str:
    """Its reason in one line: the governing rule and what it says, in plain words."""
    best = rec.recommended
    name = next((r.name for r in rec.rules if r.rule == best.rule), best.rule)
    return f"Why: {name}: {RULE_WORDS.get(best.rule, best.reason)}."


def render_brief(rec: Recommendation, console: Console) -> None:
    """``--brief``: the answer and its one-line reason."""
    console.print(answer_line(rec), markup=False, soft_wrap=True)
    console.print(reason_line(rec), markup=False, soft_wrap=True)


def render(rec: Recommendation, console: Console) -> None:
    """The recommendation and its reason first, then the rules table, their assumptions and
    the regime."""
    best = rec.recommended
    console.print(f"[bold]{answer_line(rec)}[/bold]", soft_wrap=True)
    console.print(reason_line(rec), markup=False, soft_wrap=True)
    console.print(best.reason, markup=False, soft_wrap=True)
    targets = ", ".join(f"{t.name} = {t.value:.3g} ({t.source})" for t in rec.targets)
    console.print(f"Targets: {targets}", markup=False, soft_wrap=True)
    for what_if in rec.what_if:
        console.print(f"[bold]What if[/bold] ({what_if.input}): ", end="")
        console.print(what_if.explanation, markup=False, soft_wrap=True)
    if rec.cioq is not None:
        console.print(f"[bold]CIOQ[/bold]: {rec.cioq.note}", soft_wrap=True)
    if rec.trade_off is not None:
        console.print(f"\n[bold red]Trade-off[/bold red]: {rec.trade_off.conflict}")
        console.print(rec.trade_off.explanation, markup=False, soft_wrap=True)
    for w in rec.warnings:
        console.print(f"[yellow]Warning:[/yellow] {w}", soft_wrap=True)
    inputs = rec.inputs
    console.print(
        f"\nBDP {inputs.bdp_packets:,.0f} packets at T_e = {inputs.effective_rtt_s * 1e3:.4g} ms; "
        f"one packet = {inputs.packet_time_s * 1e6:.3g} µs at line rate"
    )
    table = Table(title="Buffer-sizing rules", title_justify="left")
    table.add_column("Rule")
    table.add_column("Packets", justify="right", no_wrap=True)
    table.add_column("Bytes", justify="right", no_wrap=True)
    table.add_column("Delay ms", justify="right", no_wrap=True)
    table.add_column("Assumptions", no_wrap=True)
    table.add_column("Util.*", justify="right", no_wrap=True)
    table.add_column("Loss", justify="right", no_wrap=True)
    for r in rec.rules:
        util, loss = _predicted(r.predicted)
        marker = " ◀" if r.rule == rec.recommended.rule else ""
        table.add_row(
            r.name + marker,
            "—" if r.buffer_packets is None else f"{r.buffer_packets:,}",
            "—" if r.buffer_bytes is None else human_bytes(r.buffer_bytes),
            "—" if r.buffer_s is None else _ms(r.buffer_s),
            _MARK[r.status] + " " + r.status,
            util,
            loss,
        )
    console.print(table)
    console.print(
        "* predicted fraction of what the traffic can carry "
        f"({rec.regime.traffic_model.replace('_', ' ')} model)"
    )
    console.print("\n[bold]Assumptions[/bold]")
    for r in rec.rules:
        head = f"{r.name} ({r.equation}; {r.reference})"
        if r.note:
            head += f" — {r.note}"
        console.print(head, markup=False, soft_wrap=True)
        for a in r.assumptions:
            console.print(f"  {_MARK[a.status]} ", end="")
            console.print(f"{a.text}: {a.reason}", markup=False, soft_wrap=True)
    reg = rec.regime
    console.print(f"\n[bold]Regime[/bold]: {reg.regime} ({reg.source})")
    console.print(f"  {reg.reason}; sizing: {reg.sizing_rule}", markup=False, soft_wrap=True)


@click.command()
@click.option("--capacity", required=True, help='Line rate, e.g. "10 Gbit/s".')
@click.option("--rtt", required=True, help="Round-trip time, or a comma list: 100ms or 20ms,80ms.")
@click.option("--packet", default="1500B", show_default=True, help="Packet size.")
@click.option("--flows", required=True, type=click.IntRange(min=1), help="Total flows N.")
@click.option("--bottlenecked-flows", type=int, help="N_b, long-lived flows congested here.")
@click.option("--bottlenecked-share", type=float, help="Share of capacity the N_b flows carry.")
@click.option(
    "--access-rate", "--access", "access", help='Senders\' access-link rate, e.g. "100 Mbit/s".'
)
@click.option("--peak-rate", help="Largest rate of a single flow.")
@click.option("--max-window", help="Largest window: packets (64) or a size (64KiB).")
@click.option(
    "--pacing/--no-pacing",
    "--paced/--not-paced",
    "paced",
    default=False,
    show_default=True,
    help="Senders pace (space packets RTT/cwnd apart).",
)
@click.option(
    "--cc",
    type=click.Choice(CONGESTION_CONTROLS),
    default=None,
    help="Congestion control of the senders; when not given it is unknown: sized for Reno "
    "and for CUBIC, the larger recommended.",
)
@click.option("--load", type=float, help="Offered load (fraction of capacity).")
@click.option("--optical", is_flag=True, help="All-optical buffer (a few dozen packets at most).")
@click.option(
    "--aqm",
    type=click.Choice(AQMS),
    default="none",
    show_default=True,
    help="Active queue management on the port (the buffer is its hard limit).",
)
@click.option(
    "--aqm-target",
    help="The AQM's target delay, e.g. 5ms (CoDel TARGET, PIE QDELAY_REF); default the RFC's: "
    "5ms CoDel, 15ms PIE and DualQ.",
)
@click.option(
    "--aqm-interval",
    help="The AQM's interval, e.g. 100ms (CoDel INTERVAL, PIE T_UPDATE, DualQ Tupdate); "
    "default the RFC's: 100ms CoDel, 15ms PIE, 16ms DualQ.",
)
@click.option("--incast-senders", type=int, help="Senders answering one request at once.")
@click.option(
    "--initial-window", type=float, default=10.0, show_default=True, help="Initial window."
)
@click.option("--input-queued", is_flag=True, help="CIOQ switch with virtual output queues.")
@click.option("--speedup", type=float, help="Switch fabric speedup (CIOQ).")
@click.option("--ports", type=int, help="Ports of the switch (CIOQ).")
@click.option(
    "--min-utilization",
    callback=_fraction,
    help="A fraction or a percentage (0.9, 90%). Default 0.9 (marked source: default).",
)
@click.option(
    "--max-loss",
    callback=_fraction,
    help="A fraction or a percentage (0.01, 1%). Default 0.01 (marked source: default).",
)
@click.option("--max-delay", help="Largest queueing delay, e.g. 5ms; default one RTT.")
@click.option(
    "--priority",
    type=click.Choice(PRIORITIES),
    default="throughput",
    show_default=True,
    help="Which side wins when the delay bound conflicts with utilization and loss.",
)
@click.option(
    "--verify",
    is_flag=True,
    help="Also simulate the recommended size, half and double it (validation/verify.py).",
)
@click.option(
    "--search",
    is_flag=True,
    help="Also search by simulation for the smallest size meeting every target, in the "
    "rules' bracket (validation/size_search.py).",
)
@click.option(
    "--replications",
    type=click.IntRange(min=2, max=20),
    default=5,
    show_default=True,
    help="Simulator runs per size with --verify or --search.",
)
@click.option(
    "--max-replications",
    type=click.IntRange(min=2, max=60),
    help="With --verify or --search, most runs per size when more are needed to decide a target "
    "(default 3 x --replications).",
)
@click.option(
    "--kernel",
    is_flag=True,
    help="With --verify: also run the scaled link through Linux's own TCP in network "
    "namespaces (needs root; validation/testbed/).",
)
@click.option(
    "--kernel-runs",
    type=click.IntRange(min=1, max=10),
    default=2,
    show_default=True,
    help="Kernel testbed runs per size with --kernel.",
)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@click.option("--brief", is_flag=True, help="Print only the answer and its one-line reason.")
def recommend(**opts: Any) -> None:
    """Every buffer-sizing rule for a link, its assumptions checked, and one recommended size."""
    if opts["kernel"]:
        from validation.testbed import unavailable_reason

        reason = unavailable_reason()
        if reason is not None:
            click.echo(f"Error: --kernel needs root and network namespaces: {reason}", err=True)
            raise SystemExit(2)
        opts["verify"] = True
    try:
        scenario, targets = link_inputs(opts)
        rec = recommend_link(scenario, targets)
    except ValueError as exc:  # UnitError is a ValueError too
        click.echo(f"Error: {in_option_words(str(exc), AQM_INPUTS)}", err=True)
        raise SystemExit(2) from exc
    verification = kernel = found = None
    budget = opts["max_replications"]
    if budget is not None and budget < opts["replications"]:
        click.echo(
            f"Error: --max-replications must be >= --replications ({opts['replications']}), "
            f"got {budget}",
            err=True,
        )
        raise SystemExit(2)
    if opts["verify"]:
        from app.cli.verify import run_here, run_kernel_verification

        with run_here("verifying", opts["replications"], opts["seed"], budget) as run:
            verification = run.check(scenario, rec, targets)
        if opts["kernel"]:
            kernel = run_kernel_verification(scenario, rec, targets, opts)
    if opts["search"]:
        from app.cli.verify import run_here

        with run_here("searching", opts["replications"], opts["seed"], budget) as run:
            found = run.search(scenario, rec, targets)
    if opts["as_json"]:
        out = rec.to_dict()
        if verification is not None:
            out["verification"] = verification.to_dict()
        if kernel is not None:
            out["kernel_verification"] = kernel if isinstance(kernel, str) else kernel.to_dict()
        if found is not None:
            out["search"] = found.to_dict()
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    console = Console(width=max(120, Console().width), highlight=False)
    if opts["brief"]:
        render_brief(rec, console)
    else:
        render(rec, console)
    if verification is not None:
        from app.cli.verify import render_verification

        render_verification(verification, console)
        if kernel is not None:
            render_verification(
                kernel, console, title="Check by Linux's TCP (testbed)", measured="measured"
            )
    if found is not None:
        from app.cli.verify import render_search

        render_search(found, console)


def link_inputs(opts: dict[str, Any]) -> tuple[LinkScenario, Targets]:
    """The link and targets of ``bufsize recommend``'s options (``config`` takes the same)."""
    packet = parse_quantity("--packet", opts["packet"], "size")
    scenario = LinkScenario(
        capacity_bps=parse_quantity("--capacity", opts["capacity"], "rate"),
        rtts_s=parse_rtts(opts["rtt"]),
        flows=opts["flows"],
        packet_bytes=packet,
        bottlenecked_flows=opts["bottlenecked_flows"],
        bottlenecked_share=opts["bottlenecked_share"],
        access_bps=optional_quantity("--access-rate", opts["access"], "rate"),
        peak_rate_bps=optional_quantity("--peak-rate", opts["peak_rate"], "rate"),
        max_window_packets=_window_packets(opts["max_window"], packet),
        paced=opts["paced"],
        congestion_control=opts["cc"],
        load=opts["load"],
        medium="optical" if opts["optical"] else "electronic",
        aqm=opts["aqm"],
        aqm_target_s=optional_quantity("--aqm-target", opts["aqm_target"], "time"),
        aqm_interval_s=optional_quantity("--aqm-interval", opts["aqm_interval"], "time"),
        incast_senders=opts["incast_senders"],
        initial_window_packets=opts["initial_window"],
        input_queued=opts["input_queued"],
        speedup=opts["speedup"],
        ports=opts["ports"],
    )
    targets = Targets(
        min_utilization=opts["min_utilization"],
        max_loss=opts["max_loss"],
        max_queueing_delay_s=optional_quantity("--max-delay", opts["max_delay"], "time"),
        priority=opts["priority"],
    )
    return scenario, targets
