"""/healthz latency while large bodies of quantity strings are read: median, p99 and max.

Starts its own service (``bufsize serve`` on a free loopback port, a store of its own; as
``benchmarks/api_load.py`` does), asks ``/healthz`` every 20 ms with nothing else running
(the machine's own latency), then again while four clients in another process each send, one
after another, ``POST /v1/rules/bdp`` bodies of 10,000 distinct RTT strings (refused: a list
holding a string is limited to 1,000 items) and of 1,000 (read), and prints both::

    .venv/bin/python benchmarks/healthz_barrage.py

The issue's target: /healthz answered within 100 ms at every request meanwhile.
``tests/app/test_event_loop.py`` sends the same barrage and bounds the median against the quiet
median; timings belong here, measured on a quiet machine.
"""

from __future__ import annotations

import argparse
import multiprocessing
import threading
import time
from typing import Any

import httpx
import numpy as np
from api_load import started_service

STRINGS = 10_000
ACCEPTED = 1_000


def _body(client: int, round_: int, strings: int) -> dict[str, Any]:
    rtts = [f"60.{client}{round_}{i:04d} millisecond" for i in range(strings)]
    return {"capacity_bps": "10 Gbit/s", "rtts_s": rtts}


def _client(url: str, client: int, rounds: int, statuses: list[int]) -> None:
    with httpx.Client(timeout=120) as http:
        for round_ in range(rounds):
            for strings in (STRINGS, ACCEPTED):
                answer = http.post(f"{url}/v1/rules/bdp", json=_body(client, round_, strings))
                statuses.append(answer.status_code)


def _barrage(url: str, rounds: int) -> None:
    statuses: list[int] = []
    threads = [threading.Thread(target=_client, args=(url, c, rounds, statuses)) for c in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expected = sorted([422, 200] * 4 * rounds)
    if sorted(statuses) != expected:
        raise SystemExit(f"unexpected answers: {sorted(set(statuses))}")


def _probe(http: httpx.Client, url: str, until: Any) -> list[float]:
    latencies = []
    while not until():
        started = time.perf_counter()
        http.get(f"{url}/healthz").raise_for_status()
        latencies.append(time.perf_counter() - started)
        time.sleep(0.02)
    return latencies


def _line(name: str, latencies: list[float]) -> str:
    median, p99 = np.percentile(latencies, [50, 99]) * 1e3
    return (
        f"{name:<16} {len(latencies):>4} requests   median {median:7.1f} ms   "
        f"p99 {p99:7.1f} ms   max {max(latencies) * 1e3:7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="bodies per client, pairs (20)")
    args = parser.parse_args()
    with started_service() as (url, _pid), httpx.Client(timeout=60) as http:
        count = iter(range(50))
        quiet = _probe(http, url, lambda: next(count, None) is None)
        barrage = multiprocessing.get_context("spawn").Process(
            target=_barrage, args=(url, args.rounds)
        )
        barrage.start()
        # The first probes go out while the barrage's process starts: all of them count.
        busy = _probe(http, url, lambda: not barrage.is_alive())
        barrage.join()
        print(_line("/healthz quiet", quiet))
        print(_line("during barrage", busy))
        if barrage.exitcode != 0:
            raise SystemExit("the barrage failed")


if __name__ == "__main__":
    main()
