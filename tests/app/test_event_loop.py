"""No request stalls the service: bodies full of quantity strings leave /healthz answering.

A real service (``bufsize serve`` in a subprocess). Four clients at once, in a process of their
own, each send, twenty times, ``POST /v1/rules/bdp`` with 10,000 distinct RTT strings
(``"60.0001 millisecond"``, ... about 240 KB), then the longest list of strings accepted
(1,000); while they are read, /healthz is asked every 20 ms. With a unit library reading each
string on the event loop, one 10,000-string body held the loop about 5 s and four held /healthz
for 20 s; read by the grammar, each still held it about 40 ms (four at once: /healthz median
111 ms on a quiet machine). A list with a string in it now holds at most 1,000 items (a longer
one is sent as numbers): a body is refused in about 1.5 ms and the longest read in about 2.5 ms
of the loop. ``benchmarks/healthz_barrage.py`` prints /healthz's median, p99 and max meanwhile.
"""

from __future__ import annotations

import multiprocessing
import statistics
import threading
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from pathlib import Path

import httpx
import numpy as np
import pytest

from tests.app.test_jobs_service_death import Service

STRINGS = 10_000
ACCEPTED = 1_000  # app.schemas.common.MAX_QUANTITY_STRINGS
# Each client sends this many pairs of bodies one after another: read quickly (as they now
# are, about 5 ms each), four bodies alone can be over before /healthz has been asked three
# times, and the test would measure nothing; 20 rounds last about 0.4 s even on a fast machine.
ROUNDS = 20


def _body(client: int, round_: int, strings: int = STRINGS) -> dict[str, object]:
    rtts = [f"60.{client}{round_}{i:04d} millisecond" for i in range(strings)]
    return {"capacity_bps": "10 Gbit/s", "rtts_s": rtts}


def _send(url: str, client: int, answers: list[int]) -> None:
    """One client's rounds: a refused 10,000-string body, then the longest accepted list."""
    for round_ in range(ROUNDS):
        refused = httpx.post(f"{url}/v1/rules/bdp", json=_body(client, round_), timeout=120)
        answers.append(refused.status_code)
        detail = refused.json()["detail"][0]
        assert detail["loc"] == ["body", "rtts_s"] and "at most 1000" in detail["msg"]
        # The 422 does not echo the 10,000 strings back.
        assert len(refused.content) < 1_000, len(refused.content)
        read = httpx.post(f"{url}/v1/rules/bdp", json=_body(client, round_, ACCEPTED), timeout=120)
        answers.append(read.status_code)


def _barrage(url: str, started: Event, answers: Queue[list[int]]) -> None:
    """Four clients at once, in a process of their own (see the module's docstring)."""
    sent: list[int] = []
    clients = [threading.Thread(target=_send, args=(url, c, sent)) for c in range(4)]
    started.set()
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    answers.put(sent)


@pytest.mark.slow
def test_healthz_answers_while_bodies_of_unit_strings_are_read(tmp_path: Path) -> None:
    service = Service(tmp_path / "jobs.sqlite3", tmp_path / "service.log")
    context = multiprocessing.get_context("spawn")
    try:
        latencies: list[float] = []
        with httpx.Client(timeout=60) as health:
            # The machine's own latency first (it is shared and loaded): /healthz with no load.
            quiet = []
            for _ in range(20):
                started = time.perf_counter()
                assert health.get(f"{service.url}/healthz").status_code == 200
                quiet.append(time.perf_counter() - started)
                time.sleep(0.02)
            # The senders build and encode their bodies in another process: in this one they
            # would hold the interpreter between the probe's sending and its reading, and the
            # probe would measure them, not the service.
            sending = context.Event()
            answers: Queue[list[int]] = context.Queue()
            barrage = context.Process(target=_barrage, args=(service.url, sending, answers))
            barrage.start()
            assert sending.wait(120), "the barrage did not start"
            while barrage.is_alive() and answers.empty():
                started = time.perf_counter()
                assert health.get(f"{service.url}/healthz").status_code == 200
                latencies.append(time.perf_counter() - started)
                time.sleep(0.02)
            sent = answers.get(timeout=120)
            barrage.join(30)
        assert sorted(sent) == sorted([422, 200] * 4 * ROUNDS)
        assert len(latencies) >= 3, latencies
        # The issue asks /healthz to answer within 100 ms meanwhile. The machine's own latency
        # (shared, often loaded) is measured first and allowed for, so the bound holds on a fast
        # and a slow machine alike: the median during the barrage within 100 ms of the quiet
        # median, plus three times that median again, the run-queue wait of the barrage's own
        # five busy processes on a loaded machine (2.5 ms quiet: +7.5 ms; measured at a load of
        # 24: quiet 36 ms, barrage 158 ms). The worst single answer is held only to 3 s: on a
        # loaded machine the scheduler alone can delay one request that long.
        baseline = statistics.median(quiet)
        p99 = float(np.percentile(latencies, 99))
        print(
            f"/healthz quiet median {baseline * 1e3:.1f} ms, max {max(quiet) * 1e3:.1f} ms; "
            f"during the barrage median {statistics.median(latencies) * 1e3:.1f} ms, p99 "
            f"{p99 * 1e3:.1f} ms, max {max(latencies) * 1e3:.1f} ms over {len(latencies)} "
            "requests"
        )
        assert statistics.median(latencies) < 4 * baseline + 0.1, (baseline, latencies)
        assert max(latencies) < 3.0, latencies
    finally:
        service.stop()
