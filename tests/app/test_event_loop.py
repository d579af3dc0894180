"""No request stalls the service: bodies full of quantity strings leave /healthz answering.

A real service (``bufsize serve`` in a subprocess). Four clients at once each send
``POST /v1/recommend`` with 10,000 distinct RTT strings (``"60.0001 millisecond"``, ... about
240 KB); while they are read, /healthz is asked every 20 ms. With a unit library reading each
string on the event loop, one such body held the loop about 5 s and four held /healthz for 20 s.
"""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.app.test_jobs_service_death import Service

STRINGS = 10_000


def _body(client: int) -> dict[str, object]:
    rtts = [f"60.{client}{i:04d} millisecond" for i in range(STRINGS)]
    return {"scenario": {"capacity_bps": "10 Gbit/s", "rtts_s": rtts, "flows": 1000}}


@pytest.mark.slow
def test_healthz_answers_while_bodies_of_unit_strings_are_read(tmp_path: Path) -> None:
    service = Service(tmp_path / "jobs.sqlite3", tmp_path / "service.log")
    try:
        answers: list[int] = []

        def send(client: int) -> None:
            answer = httpx.post(f"{service.url}/v1/recommend", json=_body(client), timeout=120)
            answers.append(answer.status_code)

        clients = [threading.Thread(target=send, args=(c,)) for c in range(4)]
        latencies: list[float] = []
        with httpx.Client(timeout=60) as health:
            health.get(f"{service.url}/healthz")  # the connection is open before the barrage
            for thread in clients:
                thread.start()
            while any(thread.is_alive() for thread in clients):
                started = time.perf_counter()
                assert health.get(f"{service.url}/healthz").status_code == 200
                latencies.append(time.perf_counter() - started)
                time.sleep(0.02)
        for thread in clients:
            thread.join()
        assert answers == [200] * 4
        assert len(latencies) >= 3, latencies
        # The bound is 100 ms. This machine is shared and loaded, so the median is held
        # to it and the worst to 2 s: a loop held by the bodies (5 s each before) fails both.
        assert statistics.median(latencies) < 0.1, latencies
        assert max(latencies) < 2.0, latencies
        print(
            f"/healthz during the barrage: median {statistics.median(latencies) * 1e3:.1f} ms, "
            f"max {max(latencies) * 1e3:.1f} ms over {len(latencies)} requests"
        )
    finally:
        service.stop()
