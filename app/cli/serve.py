"""``bufsize serve``: run the HTTP service with uvicorn."""

from __future__ import annotations

import os

import click
import uvicorn


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--access-log/--no-access-log",
    default=True,
    show_default=True,
    help="Log every request (turn off under heavy load: it costs about a fifth of throughput).",
)
def serve(host: str, port: int, access_log: bool) -> None:
    """Start the bufsize service (OpenAPI at /docs)."""
    # The simulator is compiled in the background at start (unless BUFSIZE_WARM_SIMULATOR=0).
    os.environ.setdefault("BUFSIZE_WARM_SIMULATOR", "1")
    from app.settings import default_answer_workers, get_settings

    # /v1/recommend's answers computed on every core (unless BUFSIZE_ANSWER_WORKERS says).
    os.environ.setdefault("BUFSIZE_ANSWER_WORKERS", str(default_answer_workers()))

    settings = get_settings()
    early = None
    if settings.warm_simulator:
        # First thing, so that the compile overlaps the service's own start (its imports).
        from app.jobs.warmup import start_early

        early = start_early()
    from app.storage import DatabaseUnusable, check_database

    try:
        try:
            check_database(settings.database_url)
        except DatabaseUnusable as exc:
            raise click.ClickException(str(exc)) from exc
        uvicorn.run("app.main:app", host=host, port=port, access_log=access_log)
    finally:
        if early is not None and early.poll() is None:  # refused, or stopped before it ended
            early.kill()
            early.wait()
