"""``bufsize recommend --verify``: the recommendation checked by simulation (thin wrapper).

``bufsize verify`` is the same command with ``--verify`` on; ``--kernel`` adds the same
scaled link run through Linux's own TCP (:func:`validation.testbed.verify.verify_kernel`),
beside the simulator's figures. ``bufsize trace --verify`` prints its check (of the trace's
BSCL size) with the same :func:`render_verification`.

The logic (scaling rule, sizes, verdicts) is :func:`validation.verify.verify`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from app.cli.progress import ProgressBar
from app.services.verify import RunHere
from models.recommend import LinkScenario, Recommendation, Targets
from validation.size_search import SearchOutcome
from validation.verify import Progress, Verification


@contextmanager
def _progress_bar(label: str) -> Iterator[Progress]:
    """A progress callback drawing a bar on stderr from its first report; the bar is closed
    when the block ends, however it ends."""
    bar: list[ProgressBar] = []

    def progress(done: int, total: int) -> None:
        if not bar:
            bar.append(ProgressBar(steps=1, started_s=0.0))
        # A fraction of one step: an extra batch (or a further size) adds runs to the total.
        bar[0].report(0, done / total, f"{label}: {done}/{total} runs")

    try:
        yield progress
    finally:
        if bar:
            bar[0].__exit__(None, None, None)


@contextmanager
def run_here(label: str, replications: int, seed: int, budget: int | None) -> Iterator[RunHere]:
    """The check or search to run now, its progress drawn as a bar labelled ``label``."""
    with _progress_bar(label) as progress:
        yield RunHere(replications, seed, budget, progress)


def run_kernel_verification(
    link: LinkScenario, rec: Recommendation, targets: Targets, opts: dict[str, Any]
) -> Verification | str:
    """The verification's scaled link through the kernel testbed, or why it was refused."""
    from validation.testbed.verify import KernelRefusal, verify_kernel
    from validation.verify import plan

    p = plan(
        link, rec, targets, replications=opts["kernel_runs"], seed=opts["seed"]
    ).fast_access_only()
    with _progress_bar("kernel testbed") as progress:
        try:
            return verify_kernel(p, opts["kernel_runs"], progress=progress)
        except KernelRefusal as refused:
            return f"not run through the kernel: {refused}"


def _pct(value: float, ci: float) -> str:
    text = f"{value:.1%}"
    return text if not math.isfinite(ci) else f"{text} ± {ci:.1%}"


def _loss(probability: float | None) -> str:
    """A predicted loss, or "unknown" where the inputs do not decide it (N_b not given)."""
    return "unknown" if probability is None else f"{probability:.2g}"


def _predicted_utilization(fraction: float | None) -> str:
    """A predicted utilization, or "not predicted" where the engine has none for the senders."""
    return "not predicted" if fraction is None else f"{fraction:.1%}"


_COLOURS = {"met": "green", "missed": "red", "undecided": "yellow"}


def render_verification(
    v: Verification | str,
    console: Console,
    title: str = "Check by simulation",
    measured: str = "simulated",
) -> None:
    """The verdict first, then predicted and simulated figures side by side, one row per size,
    each size's targets (met / missed / undecided) and how the prediction fared (or, given a
    sentence, why the check was not run)."""
    console.print()
    if isinstance(v, str):
        console.print(f"[bold]{title}[/bold]: {v}", soft_wrap=True)
        return
    if not v.sizes:
        console.print(f"[bold]{title}[/bold]: not reproducible here: {v.reason}")
        return
    s = v.scaling
    colour = _COLOURS.get(v.verdict, "red")
    console.print(
        f"[bold]{title}[/bold]: targets at the recommended size: [{colour}]{v.verdict}[/{colour}]"
    )
    console.print(
        f"({v.replications} runs per size, up to {v.max_replications} to decide a target; seed "
        f"{v.seed}): {measured} at {s.capacity_bps / 1e6:.4g} Mb/s with {s.flows} flows "
        f"(C and N × {s.factor:.3g}; buffers × {s.factor:.3g}^{s.buffer_exponent:g})"
    )
    table = Table(title_justify="left")
    columns = ("Size", "Packets (sim.)", "Runs", "Utilization", "Loss", "Delay ms", "Targets")
    for column in (*columns, "Prediction"):
        table.add_column(column, justify="left" if column in ("Size", "Targets") else "right")
    both = f"predicted / {measured}"
    table.add_row("", "", "", both, both, "max / mean, p99", "", "")
    rows = [*v.sizes, *v.slow_sizes]
    for c in rows:
        colour = _COLOURS[c.verdict]
        table.add_row(
            c.label,
            f"{c.buffer_packets:,} ({c.simulated_buffer_packets:,})",
            str(c.replications),
            f"{_predicted_utilization(c.predicted.utilization)} / "
            f"{_pct(c.utilization, c.utilization_ci99)}",
            f"{_loss(c.predicted.loss_probability)} / {c.loss_rate:.2g}"
            + (f" ± {c.loss_rate_ci99:.2g}" if math.isfinite(c.loss_rate_ci99) else ""),
            f"{c.predicted.queueing_delay_s * 1e3:.3g} / "
            f"{c.queue_delay_mean_s * 1e3:.3g}, {c.queue_delay_p99_s * 1e3:.3g}",
            f"[{colour}]{c.verdict}[/{colour}]",
            c.prediction,
        )
    console.print(table)
    for c in rows:
        console.print(f"  {c.label}: {c.reason}", markup=False, soft_wrap=True)
    # The senders' access is said once, in the verdict's reason below.
    render_limitations(v.not_represented, console)
    console.print(f"Verdict: {v.verdict}: {v.reason}", markup=False, soft_wrap=True)


def render_limitations(limitations: list[str], console: Console) -> None:
    """What the check could not represent of the link, one line each (nothing when none)."""
    if limitations:
        console.print("Not represented by this check:")
    for text in limitations:
        console.print(f"  - {text}", markup=False, soft_wrap=True)


def render_search(found: SearchOutcome, console: Console) -> None:
    """The size found beside the rule's, then every size tried with its simulated figures."""
    console.print()
    if found.found_packets is None:
        console.print(f"[bold]Search by simulation[/bold]: no size found: {found.reason}")
    else:
        console.print(
            f"[bold]Search by simulation[/bold]: [green]{found.found_packets:,} packets[/green] "
            f"meet every target (the {found.rule} rule gives {found.rule_buffer_packets:,}; "
            f"ratio {found.found_packets / found.rule_buffer_packets:.2g})"
        )
    table = Table(title_justify="left")
    columns = ("Packets (sim.)", "Runs", "Utilization", "Loss", "Delay ms p99", "Targets")
    for column in (*columns, "Slow access"):
        table.add_column(column, justify="left" if column == "Targets" else "right")
    for t in found.tried:
        c = t.check
        colour = _COLOURS[c.verdict]
        mark = ""
        if t.buffer_packets == found.found_packets:
            mark = " found"
        elif t.buffer_packets == found.smaller_packets:
            mark = " one step smaller"
        table.add_row(
            f"{t.buffer_packets:,} ({c.simulated_buffer_packets:,}){mark}",
            str(c.replications),
            _pct(c.utilization, c.utilization_ci99),
            f"{c.loss_rate:.2g}"
            + (f" ± {c.loss_rate_ci99:.2g}" if math.isfinite(c.loss_rate_ci99) else ""),
            f"{c.queue_delay_p99_s * 1e3:.3g}",
            f"[{colour}]{c.verdict}[/{colour}]",
            t.slow_access.verdict if t.slow_access is not None else "",
        )
    console.print(table)
    for t in found.tried:
        console.print(f"  {t.buffer_packets:,}: {t.check.reason}", markup=False, soft_wrap=True)
    if found.access is not None:
        console.print(f"Senders' access: {found.access.reason}.", markup=False, soft_wrap=True)
    render_limitations(found.not_represented, console)
    console.print(f"Search: {found.reason}", markup=False, soft_wrap=True)


def _verify_params() -> list[click.Parameter]:
    """``bufsize recommend``'s options but ``--verify`` (always on here)."""
    from app.cli.recommend import recommend

    return [param for param in recommend.params if param.name != "verify"]


@click.command(params=_verify_params())
@click.pass_context
def verify_command(ctx: click.Context, /, **opts: Any) -> None:
    """The recommended size, half and double it, simulated (and with --kernel, run through
    Linux's own TCP in network namespaces), beside the predictions."""
    from app.cli.recommend import recommend

    ctx.invoke(recommend, verify=True, **opts)
