"""A job whose worker died is recorded with that cause, even when the pool's recovery runs
while the death is being recorded.

Recovery (run every poll when ``stale_job_after_s`` is 0) takes a job still marked running
that this service is not running for one a stopped service left behind. The pool used to
forget the job before recording its worker's death, so a recovery in between recorded "the
service stopped" instead (seen once in the full suite: the message of
``test_job_whose_worker_process_keeps_dying_fails_with_the_reason``). Here recovery is run
at exactly that moment, by the store's own call, so the interleaving is certain.
"""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from app.jobs.pool import WORKER_DIED, JobPool
from app.jobs.spec import SimulationSpec
from app.jobs.store import JobStore
from app.settings import Settings
from tests.app import test_api_simulations_runners as runners


def test_recovery_during_the_record_of_a_worker_death_leaves_the_cause(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        stale_job_after_s=0.0,
        dask_scheduler=None,
    )
    pool = JobPool(settings, runners.crashing_runner)  # never started: no executor
    spec = SimulationSpec.create({"duration_s": 1.0}, [10, 20], replications=1, seed=1)
    pool.store.submit(spec, max_pending=4)
    [(job_id, attempt)] = pool.store.claim(1)

    record = JobStore.interrupt_attempt

    def recover_first(store: JobStore, *args: object) -> None:
        pool._recover()  # the dispatcher's recovery, at the worst moment
        record(store, *args)  # type: ignore[arg-type]

    pool.store.interrupt_attempt = recover_first.__get__(pool.store)  # type: ignore[method-assign]
    died: Future[str] = Future()
    died.set_exception(BrokenProcessPool("a worker died"))
    pool._inflight[died] = (job_id, attempt)
    pool.budget.take("simulations", 1)
    pool._finished(died)

    view = pool.store.get(job_id)
    assert view is not None
    assert view.message is not None and WORKER_DIED in view.message, view.message
    assert "service stopped" not in view.message
    assert not pool._inflight
    pool.store.close()
