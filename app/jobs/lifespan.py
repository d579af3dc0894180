"""The job pool's place in the FastAPI application: started and stopped by the lifespan.

The settings and the simulation runner are FastAPI dependencies (:func:`app.settings.get_settings`
and :func:`simulation_runner`), so ``app.dependency_overrides`` replaces them for the pool as it
does for the routes, e.g. to use a test database.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, cast

from fastapi import FastAPI, HTTPException, Request
from starlette.concurrency import run_in_threadpool

from app import heap
from app.answer_pool import AnswerPool
from app.jobs.budget import WorkerBudget
from app.jobs.pool import JobPool
from app.jobs.runner import run_replications
from app.jobs.warmup import SimulatorWarmup
from app.jobs.worker import Runner
from app.settings import Settings, get_settings
from app.storage import check_database
from app.trace_child import TraceRunner, read_trace
from app.trace_jobs import TraceJobs


def simulation_runner() -> Runner:
    """The function that runs one buffer size's replications (the packet simulator)."""
    return run_replications


def trace_runner() -> TraceRunner:
    """The function a trace job's process runs (the trace read, sized and checked)."""
    return read_trace


def _resolve(application: FastAPI, provider: Callable[[], Any]) -> Any:
    chosen: Callable[[], Any] = application.dependency_overrides.get(provider, provider)
    return chosen()


@asynccontextmanager
async def jobs_lifespan(application: FastAPI) -> AsyncIterator[None]:
    """Start the simulation job pool and the trace jobs (each recovering the jobs a stopped
    service left) and the processes computing /v1/recommend's answers, and stop them at
    shutdown."""
    settings = cast(Settings, _resolve(application, get_settings))
    # An unusable database stops the start here, however the service was started (one line:
    # app.storage.DatabaseAtStartup).
    await run_in_threadpool(check_database, settings.database_url)
    runner = cast(Runner, _resolve(application, simulation_runner))
    # simulations and trace jobs share the service's workers
    budget = WorkerBudget(settings.workers)
    pool = JobPool(settings, runner, budget=budget)
    warmup = SimulatorWarmup()
    if settings.warm_simulator:
        warmup.start(pool)
    application.state.simulator_warmup = warmup
    await run_in_threadpool(pool.start)
    application.state.job_pool = pool
    traces = TraceJobs(settings, cast(TraceRunner, _resolve(application, trace_runner)), budget)
    await run_in_threadpool(traces.start)
    application.state.trace_jobs = traces
    answers = AnswerPool(settings.answer_workers)
    await run_in_threadpool(answers.start)
    application.state.answer_pool = answers
    heap.settle()
    try:
        yield
    finally:
        heap.release()
        application.state.job_pool = None
        application.state.trace_jobs = None
        application.state.answer_pool = None
        await run_in_threadpool(answers.shutdown)
        # a running trace job's process (and its check's simulator processes) stop now
        await run_in_threadpool(traces.shutdown)
        await run_in_threadpool(pool.shutdown)
        warmup.stop()


# The dependencies below only read the app's state: async, so that FastAPI calls them on the
# event loop instead of handing each request to a thread and back (about 0.2 ms of a
# /v1/recommend request's CPU, and a wait for the interpreter's lock under load).


async def get_warmup(request: Request) -> SimulatorWarmup:
    """The start-up compile of the simulator (one that never started when not configured)."""
    warmup = getattr(request.app.state, "simulator_warmup", None)
    return warmup if isinstance(warmup, SimulatorWarmup) else SimulatorWarmup()


#: Without the lifespan's pool, answers are computed on the event loop.
_NO_ANSWER_WORKERS = AnswerPool(0)


async def get_answer_pool(request: Request) -> AnswerPool:
    """The processes computing /v1/recommend's answers (none before the lifespan starts them)."""
    pool = getattr(request.app.state, "answer_pool", None)
    return pool if isinstance(pool, AnswerPool) else _NO_ANSWER_WORKERS


async def get_trace_jobs(request: Request) -> TraceJobs:
    jobs = getattr(request.app.state, "trace_jobs", None)
    if jobs is None:
        raise HTTPException(status_code=503, detail="the trace jobs are not running")
    return cast(TraceJobs, jobs)


async def get_job_pool(request: Request) -> JobPool:
    pool = getattr(request.app.state, "job_pool", None)
    if pool is None:
        raise HTTPException(status_code=503, detail="the simulation job pool is not running")
    return cast(JobPool, pool)
