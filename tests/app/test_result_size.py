"""A job's stored results are bounded: long series are cut to 1,000 points, the size is
estimated at submission (422 past max_result_bytes), and runs=true comes one buffer size a page.

The 148-byte request of the report (``buffer_packets: [1000000]``, 20 replications) once stored
100 MB (each run's million-entry queue distribution), took 9.2 s to GET and 80 MB with runs.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.jobs.compact import MAX_SERIES_POINTS, compact_run
from tests.app import test_api_simulations_runners as runners
from tests.app.test_api_simulations import finished, job_settings, service, wait_for

SMALL_BODY = {"buffer_packets": [1000000], "replications": 20}


def _stored_bytes(database: Path) -> int:
    with sqlite3.connect(database) as db:
        total = 0
        for table, column in (("simulation_results", "result"), ("simulation_runs", "runs")):
            query = f"SELECT coalesce(sum(length({column})), 0) FROM {table}"
            total += db.execute(query).fetchone()[0]
        return int(total)


def test_the_148_byte_request_stores_megabytes_not_a_hundred(tmp_path: Path) -> None:
    assert len(json.dumps(SMALL_BODY)) < 148
    database = tmp_path / "jobs.db"
    with service(job_settings(database), runners.wide_runner) as client:
        answer = client.post("/v1/simulations", json=SMALL_BODY)
        assert answer.status_code == 202, answer.text
        job_id = answer.json()["id"]
        job = wait_for(client, job_id, finished)
        assert job["status"] == "succeeded", job
        # A plain GET reads no runs.
        plain = client.get(f"/v1/simulations/{job_id}")
        assert "runs" not in plain.json()["results"][0]
        assert len(plain.content) < 20_000, len(plain.content)
        # runs=true: one buffer size's 20 runs, each series at most 1,000 points.
        paged = client.get(f"/v1/simulations/{job_id}", params={"runs": "true", "runs_page": 0})
        body = paged.json()
        assert body["runs_page"] == 0 and body["runs_pages"] == 1
        runs = body["results"][0]["runs"]
        assert len(runs) == 20
        for run in runs:
            assert len(run["queue_distribution"]) <= MAX_SERIES_POINTS
            # Binned, not dropped: the time fractions still sum to the whole (1e-9: float sums
            # of a million terms).
            assert sum(run["queue_distribution"]) == pytest.approx(1.0, abs=1e-9)
            assert run["queue_distribution_bin_packets"] == 1001  # ceil(1,000,001 / 1,000)
            assert run["per_flow_throughput_bps_summary"]["count"] == 10_000
            assert run["per_flow_throughput_bps_summary"]["max"] == 9999.0
            assert run["loss_burst_lengths"] == [1, 2, 3]  # short series are kept whole
    # Stored: 20 runs of ~1,000 numbers each, not 20 million numbers (over 100 MB as JSON).
    assert _stored_bytes(database) < 1_500_000, _stored_bytes(database)


def test_a_job_over_max_result_bytes_is_refused_at_submission(tmp_path: Path) -> None:
    settings = job_settings(tmp_path / "jobs.db", max_result_bytes=1_048_576, max_replications=100)
    with service(settings, runners.quick_runner) as client:
        body = {"buffer_packets": list(range(1, 65)), "replications": 100}
        answer = client.post("/v1/simulations", json=body)
        assert answer.status_code == 422, answer.text
        detail = answer.json()["detail"][0]
        assert detail["loc"] == ["body", "replications"]
        assert "max_result_bytes" in detail["msg"] and "1,048,576" in detail["msg"]
        # A job within the bound is taken.
        assert client.post("/v1/simulations", json={"buffer_packets": [10]}).status_code == 202


def test_compaction_keeps_short_series_and_trims_trailing_zeros() -> None:
    run = {"queue_distribution": [0.5, 0.25, 0.25, 0.0, 0.0], "samples": [1.0] * 5, "x": 1}
    out = compact_run(run)
    assert out == {
        "queue_distribution": [0.5, 0.25, 0.25],
        "queue_distribution_bin_packets": 1,
        "samples": [1.0] * 5,
        "x": 1,
    }
