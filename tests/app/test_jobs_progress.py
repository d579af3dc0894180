"""A job's progress never goes backwards, even when a resumed attempt counts again from the
buffer sizes it kept (it used to drop from 0.75 to 0.5 after a restart)."""

from __future__ import annotations

from pathlib import Path

from app.jobs.spec import SimulationSpec
from app.jobs.store import JobStore


def test_progress_reports_never_lower_the_progress(tmp_path: Path) -> None:
    store = JobStore(f"sqlite:///{tmp_path / 'jobs.db'}")
    spec = SimulationSpec.create({"duration_s": 1.0}, [10, 20], replications=2, seed=1)
    store.submit(spec, max_pending=4)
    [(job_id, attempt)] = store.claim(1)
    store.report_progress(job_id, attempt, 0.75)
    store.report_progress(job_id, attempt, 0.5)  # a resumed attempt's first report
    view = store.get(job_id)
    assert view is not None and view.progress == 0.75
    store.report_progress(job_id, attempt, 0.9)
    view = store.get(job_id)
    assert view is not None and view.progress == 0.9
    store.close()
