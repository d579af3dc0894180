"""``bufsize validate [SUITE]``: compare the papers' datasets with the models and the simulator."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from app.cli.progress import ProgressBar


@click.command()
@click.argument("suite", type=click.Choice(["quick", "full"]), default="quick")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("validation-report"),
    show_default=True,
    help="Folder for report.html and report.json.",
)
@click.option(
    "--dataset",
    "names",
    multiple=True,
    help="Only this dataset (repeatable); default: all of validation/datasets.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Local worker processes (default: the CPUs available). BUFSIZE_DASK_SCHEDULER "
    "sends the runs to a Dask cluster instead.",
)
@click.option(
    "--cache/--no-cache",
    default=True,
    show_default=True,
    help="Keep every simulated run in OUT/runs (by scenario, buffer, seed and simulator code) "
    "and read back the runs an earlier invocation kept instead of simulating them again.",
)
def validate(
    suite: str, out_dir: Path, names: tuple[str, ...], workers: int | None, cache: bool
) -> None:
    """Run SUITE (quick or full) and write report.html and report.json.

    Every dataset row (validation/datasets, provenance.toml) is compared with a model and with
    the packet simulator, and gets a verdict: agrees, disagrees or not reproducible here.
    A row gets 3 replications, and a 4th only while its 99% confidence interval straddles an
    end of the paper's range.
    """
    from validation import datasets
    from validation.harness.report import write
    from validation.harness.run_cache import RunCache
    from validation.harness.runner import run_suite

    known = datasets.names()
    for name in names:
        if name not in known:
            raise click.BadParameter(
                f"{name!r} is not a dataset; known: {', '.join(known)}", param_hint="--dataset"
            )
    bar: list[ProgressBar] = []

    def progress(done: int, total: int) -> None:
        if not bar:
            bar.append(ProgressBar(steps=total, started_s=0.0))
        bar[0].report(done, 0.0, f"{done} runs (at most {total})")

    try:
        report = run_suite(
            suite,
            names=list(names) or None,
            workers=workers,
            progress=progress,
            cache=RunCache(out_dir / "runs") if cache else None,
        )
    finally:
        if bar:
            bar[0].__exit__(None, None, None)
    json_path, html_path = write(report, out_dir)
    console = Console()
    table = Table(title=f"{suite} suite: {len(report.comparisons)} rows, {report.wall_s:.1f} s")
    table.add_column("verdict")
    table.add_column("rows", justify="right")
    for verdict, count in report.counts().items():
        table.add_row(verdict, str(count))
    console.print(table)
    meta = report.meta
    console.print(
        f"{meta['runs_simulated']} runs simulated ({meta['simulated_cpu_s']:.0f} CPU-s), "
        f"{meta['runs_from_cache']} read from the cache (at most {meta['runs_at_most']} "
        "with every replication)"
    )
    console.print(f"wrote {html_path} and {json_path}")
