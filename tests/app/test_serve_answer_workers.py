"""``bufsize serve``'s default number of answer workers (app/settings.default_answer_workers):
one per core, at most 4, none on a single core, where a worker would only add the hand-over to
the web process's work. On the idle 2-core machine 2 workers answered 20 clients' distinct
scenarios at a 99th percentile of 39 ms against 70 ms with none (README, benchmarks/api_load.py).
"""

from __future__ import annotations

import os

import pytest

from app import settings


@pytest.mark.parametrize(("cores", "workers"), [(None, 0), (1, 0), (2, 2), (3, 3), (16, 4)])
def test_one_answer_worker_per_core_at_most_four_none_on_one_core(
    monkeypatch: pytest.MonkeyPatch, cores: int | None, workers: int
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert settings.default_answer_workers() == workers
