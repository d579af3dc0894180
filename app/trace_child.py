"""The process of one trace job: the trace read under a memory limit, its reports sent over a pipe.

:class:`app.trace_jobs.TraceJobs` starts one for each job (``spawn``: a fresh interpreter, not
a fork of the threaded service). The process dies with the service
(:func:`validation.lifeline.die_with_service`), limits its own address space to
``trace_job_memory_bytes`` (``RLIMIT_AS``) and runs the job's runner; the service gives it
``workers`` = :data:`validation.sweeps.IN_PROCESS`, so the check's simulator runs are made in
this process too and the limit bounds the whole job. The runner sends ``("progress",
fraction)`` and ``("message", text)``; last the process sends ``("outcome", (status, message,
result))``. SIGTERM stops it (and the simulator processes of a check given worker processes).
"""

from __future__ import annotations

import logging
import os
import resource
import signal
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

from app.services.trace import TraceOptions, run_trace
from validation.lifeline import die_with_service

#: The exit status of a job's process stopped by SIGTERM (cancelled, or the service stopped).
STOPPED_EXIT = 3
#: What a runner reports: ``("progress", fraction)`` or ``("message", text)``.
Send = Callable[[tuple[str, Any]], None]


class TraceRunner(Protocol):
    """Reads the trace at ``path`` and returns the JSON-able result; reports through ``send``.

    A trace that cannot be read raises ``ValueError`` (``TraceFormatError`` is one) saying what
    is wrong and where. A runner is sent to the job's process by reference, so it must be a
    module-level function.
    """

    def __call__(
        self, path: Path, options: TraceOptions, workers: int | None, send: Send
    ) -> dict[str, Any]: ...


def read_trace(
    path: Path, options: TraceOptions, workers: int | None, send: Send
) -> dict[str, Any]:
    """The trace job's runner: :func:`app.services.trace.run_trace`, its progress reported (at
    most once per percent), later readings and the check's runs as messages."""
    last = [-1.0]

    def progress(fraction: float) -> None:
        fraction = min(max(fraction, 0.0), 1.0)
        if fraction - last[0] >= 0.01 or fraction == 1.0:
            last[0] = fraction
            send(("progress", fraction))

    def reading_again(label: str, fraction: float) -> None:
        # progress stays at 1 (the file was read once); the message says what runs now
        send(("message", f"{label}: {fraction:.0%} of the file"))

    def verifying(done: int, total: int) -> None:
        send(("message", f"verifying the BSCL size: {done}/{total} simulator runs"))

    return run_trace(
        path,
        options,
        progress=progress,
        stage=reading_again,
        verify_progress=verifying,
        workers=workers,
    ).doc


def memory_message(memory_bytes: int) -> str:
    """Why a job that ran out of its address space failed."""
    return (
        f"reading this trace needs more than the {memory_bytes / 2**30:g} GiB a trace job may "
        "use (trace_job_memory_bytes)"
    )


def run_child(
    runner: TraceRunner,
    path: str,
    options: TraceOptions,
    workers: int | None,
    memory_bytes: int,
    pipe: Connection,
    service_pid: int,
) -> None:
    """The job's process: dies with the service, limited to ``memory_bytes`` of address space,
    runs ``runner`` and sends its reports and outcome over ``pipe``."""
    from validation.sweeps import stop_all
    from validation.traces import TraceFormatError

    def stop(_signal: int, _frame: object) -> None:
        # The job is cancelled or the service stops: the check's simulator processes first.
        stop_all()
        os._exit(STOPPED_EXIT)

    signal.signal(signal.SIGTERM, stop)
    die_with_service(service_pid)
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    outcome: tuple[str, str, dict[str, Any] | None]
    try:
        outcome = ("succeeded", "", runner(Path(path), options, workers, pipe.send))
    except (TraceFormatError, ValueError) as exc:
        # The trace, not the service: say what is wrong with it (and where).
        outcome = ("failed", str(exc), None)
    except MemoryError:
        outcome = ("failed", memory_message(memory_bytes), None)
    except Exception as exc:  # a bug: report it as ours, not as the user's input
        logging.getLogger(__name__).exception("trace job failed on %s", path)
        outcome = ("failed", f"internal error while reading the trace ({type(exc).__name__})", None)
    pipe.send(("outcome", outcome))
    pipe.close()
