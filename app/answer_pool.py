"""Processes that compute ``/v1/recommend``'s answers, so that answers use every core.

The engine is pure Python and holds the interpreter's lock while it runs (about 2 ms per
scenario): in the web process, answers to different clients run one after another on one core
however many cores the machine has. :class:`AnswerPool` runs them in a few worker processes
(``BUFSIZE_ANSWER_WORKERS``) while the web process reads, checks and routes the next requests;
the event loop awaits each answer, so ``/healthz`` and every other request go on meanwhile.

Only the computation moves: the answer cache, the job pool, the quotas and everything else
with state stay in the web process. The workers are forked from a server process that has
imported the engine, and each dies with the service (:func:`validation.lifeline.die_with_service`,
kill -9 included), as the job pool's do. With no workers, or in an app whose lifespan has not
started the pool, answers are computed on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from app import heap
from app.services import recommend as service
from models.recommend import LinkScenario, Targets
from validation.lifeline import die_with_service
from validation.socket_dir import forkserver_context

logger = logging.getLogger(__name__)


def _worker_start(service_pid: int) -> None:
    """A worker's start: it dies with the service, and its start-up heap is settled
    (:func:`app.heap.settle`: no full garbage collection pauses an answer)."""
    die_with_service(service_pid)
    heap.settle()


def _ready() -> int:
    """A worker's first task: by then it has imported this module, and so the engine."""
    return os.getpid()


class AnswerPool:
    """``workers`` processes computing answers; with 0, answers are computed by the caller."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the workers (and the server they are forked from) and wait until each has
        answered once, so that no request waits for their start."""
        if self.workers == 0:
            return
        executor = self._new_executor()
        for future in [executor.submit(_ready) for _ in range(self.workers)]:
            future.result()

    def _new_executor(self) -> ProcessPoolExecutor:
        # The fork server is the process's one (the job pool's, its preload theirs): each worker
        # imports the engine once, at its start (:meth:`start`) or first answer.
        executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=forkserver_context(),
            initializer=_worker_start,
            initargs=(os.getpid(),),
        )
        with self._lock:
            self._executor = executor
        return executor

    def shutdown(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def worker_pids(self) -> list[int]:
        """The workers' process ids (none before the start, or without workers)."""
        with self._lock:
            executor = self._executor
        return sorted(getattr(executor, "_processes", None) or {})

    async def recommendation_json(self, scenario: LinkScenario, targets: Targets) -> bytes:
        """:func:`app.services.recommend.recommendation_json`, computed by a worker when the
        pool has started; ``ParameterError`` if refused."""
        with self._lock:
            executor = self._executor
        if executor is None:
            return service.recommendation_json(scenario, targets)
        try:
            return await asyncio.wrap_future(
                executor.submit(service.recommendation_json, scenario, targets)
            )
        except BrokenProcessPool:
            # A worker died (killed from outside, out of memory): this answer is computed here,
            # the next ones by a new pool.
            logger.warning("an answer worker died; the answer pool is started again")
            with self._lock:
                replace = self._executor is executor
                if replace:
                    self._executor = None
            if replace:  # once, however many answers were waiting on the broken pool
                executor.shutdown(wait=False, cancel_futures=True)
                self._new_executor()
            return service.recommendation_json(scenario, targets)
