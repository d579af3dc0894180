"""The start-up heap is kept out of the garbage collector's passes (app/heap.py).

A full collection walks every object the collector tracks; with the ~150,000 objects of a started
service it paused the event loop for 140-240 ms (loaded machine) about once per 2,000 answers.
While the service runs, the objects alive at its start are frozen (``gc.freeze``) in the web
process and in each answer worker; the shutdown unfreezes them.
"""

from __future__ import annotations

import gc
from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings, get_settings


def test_the_start_up_heap_is_frozen_while_the_service_runs(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}", workers=1, answer_workers=1
    )
    application = create_app()
    application.dependency_overrides[get_settings] = lambda: settings
    gc.unfreeze()
    with TestClient(application, base_url="http://127.0.0.1"):
        # Everything imported by then is exempt: the app, FastAPI, NumPy, SciPy's erf (the
        # engine's lazy import, done by the warm-up answer), ... (well over 10,000 objects).
        assert gc.get_freeze_count() > 10_000
        executor = application.state.answer_pool._executor
        assert executor is not None
        assert executor.submit(gc.get_freeze_count).result(timeout=60) > 10_000
    assert gc.get_freeze_count() == 0
