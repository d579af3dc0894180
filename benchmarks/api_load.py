"""Load generator for a bufsize service: requests per second, p50/p99 latency and memory.

Runs a fixed number of concurrent clients (closed loop: each sends its next request when the
previous answer arrives) against ``POST /v1/rules/bdp`` and ``POST /v1/recommend``, each run
bounded by a request count and a wall-clock limit, and prints one line per run; then submits
1,000 small simulation jobs (a few at a time, as the per-client quota allows), reads each
result once, and prints the service's memory (RSS) before and after (100 jobs took 16 s on
the loaded 2-core machine; ``--jobs 100`` for a quicker look). One command starts its own
service (``bufsize serve`` on a free loopback port, its store in a temporary directory) and
stops it at the end::

    .venv/bin/python benchmarks/api_load.py

or measures a running one (no memory figures then: its process is not ours)::

    .venv/bin/python benchmarks/api_load.py http://127.0.0.1:8001

``/v1/recommend`` is measured twice: the same scenario every time (answers repeat, as for a
dashboard polling one port; the service keeps recent answers) and a different scenario each
time (every request runs the engine).

Targets on a 2-core machine, client and service on the same host: bdp >= 1,000 req/s with
p99 < 20 ms; recommend p99 < 50 ms, at 20 concurrent clients. With closed-loop clients the
service answers them about as fast as its cores allow, so the p99 of distinct scenarios is about
20 times the machine's CPU time per answer (service and load generator) divided by its cores.

The service it starts is ``bufsize serve`` with the environment's ``BUFSIZE_*`` settings: it
computes /v1/recommend's answers in one worker process per core, at most 4 (app/answer_pool.py),
unless ``BUFSIZE_ANSWER_WORKERS`` says otherwise (0: on the web process's event loop). An A/B of
that setting in one command, each setting's service started in turn, three rounds, the order
reversed every other round, then one line per setting with the latencies of its runs pooled
(about 3 minutes)::

    .venv/bin/python benchmarks/api_load.py --only distinct --answer-workers 0,2

Each run's line gives throughput, p50/p99/max latency, the CPU per request of the load generator
and of the service (``psutil``; the service's only when this command started it: the web process
with its worker processes, which compute /v1/recommend's answers, and the web process alone),
and the share of the machine's cores the load generator took; ``--only distinct`` runs one of
them.

The client shares the machine with the service, so it must cost much less per request than the
service. By default each simulated client is one keep-alive HTTP/1.1 connection driven by
``h11`` over asyncio streams (about 0.15 ms of CPU per request here); ``--httpx`` uses
``httpx.AsyncClient`` instead, which costs about 2 ms of CPU per request on this machine, more
than the service itself, and so measures mostly the client.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import h11
import httpx
import numpy as np
import psutil

BDP_BODY = {"capacity_bps": "10 Gbit/s", "rtt_s": "100 ms", "packet_bytes": "1000 B"}

# 000 §1.3's link, with access links so that every rule applies.
RECOMMEND_SCENARIO = {
    "capacity_bps": 10e9,
    "rtt_s": 0.1,
    "flows": 1000,
    "packet_bytes": 1000.0,
    "max_window_packets": 64,
    "access_bps": 10e6,
}


@dataclass(frozen=True)
class RunResult:
    name: str
    clients: int
    completed: int
    failed: int
    elapsed_s: float
    latencies_s: np.ndarray[Any, np.dtype[np.float64]]
    #: CPU seconds the load generator (this process) and the service spent during the run:
    #: its web process, and the web process with its worker processes (None: the service is
    #: not ours to measure).
    client_cpu_s: float
    service_cpu_s: tuple[float, float] | None

    def line(self) -> str:
        if self.completed == 0:
            return f"{self.name:<28} no successful request ({self.failed} failed)"
        p50, p99, top = np.percentile(self.latencies_s, [50, 99, 100]) * 1e3
        rate = self.completed / self.elapsed_s
        requests = self.completed + self.failed
        cpu = f"client CPU {self.client_cpu_s / requests * 1e3:.2f} ms/req"
        if self.service_cpu_s is not None:
            web, total = (seconds / requests * 1e3 for seconds in self.service_cpu_s)
            cpu += f", service CPU {total:.2f} ms/req (web process {web:.2f})"
        # The share of the machine's cores the load generator took: on a 2-core host it
        # competes with the service for them.
        share = self.client_cpu_s / (self.elapsed_s * (os.cpu_count() or 1))
        return (
            f"{self.name:<28} {self.clients:>3} clients {self.completed:>7} ok "
            f"{self.failed:>4} failed {rate:>9.0f} req/s   p50 {p50:7.2f} ms   p99 {p99:7.2f} ms"
            f"   max {top:7.2f} ms   {cpu}; client {share:.0%} of {os.cpu_count()} cores"
        )


# Sends one JSON POST and returns the status code.
Poster = Callable[[str, dict[str, Any]], Awaitable[int]]


class H11Connection:
    """One keep-alive HTTP/1.1 connection: JSON POSTs, one at a time."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.conn = h11.Connection(h11.CLIENT)

    async def post(self, path: str, body: dict[str, Any]) -> int:
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = json.dumps(body).encode()
        headers = [
            ("Host", self.host),
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
        ]
        conn = self.conn
        self.writer.write(
            conn.send(h11.Request(method="POST", target=path, headers=headers))
            + conn.send(h11.Data(data=data))
            + conn.send(h11.EndOfMessage())
        )
        status = 0
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                chunk = await self.reader.read(1 << 16)
                if not chunk:
                    raise ConnectionError("the service closed the connection")
                conn.receive_data(chunk)
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.EndOfMessage):
                break
        conn.start_next_cycle()
        return status

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            await self.writer.wait_closed()


def same_body(body: dict[str, Any]) -> Callable[[int], dict[str, Any]]:
    return lambda _: body


def distinct_recommend_body(i: int) -> dict[str, Any]:
    """A different port capacity for every request: no two scenarios are equal."""
    capacity = 1e9 * (1.0 + (i % 1_000_000) * 1e-6) * (1 + i // 1_000_000)
    return {"scenario": {**RECOMMEND_SCENARIO, "capacity_bps": capacity}}


async def run(
    posters: list[Poster],
    name: str,
    path: str,
    body_for: Callable[[int], dict[str, Any]],
    *,
    max_requests: int,
    max_seconds: float,
    service_pid: int | None = None,
) -> RunResult:
    counter: Iterator[int] = itertools.count()
    latencies: list[float] = []
    failed = 0
    client_cpu = time.process_time()
    service_cpu = _cpu_s(service_pid)
    start = time.perf_counter()
    deadline = start + max_seconds

    async def worker(post: Poster) -> None:
        nonlocal failed
        while time.perf_counter() < deadline:
            i = next(counter)
            if i >= max_requests:
                return
            body = body_for(i)
            sent = time.perf_counter()
            try:
                ok = await post(path, body) == 200
            except (OSError, h11.ProtocolError, httpx.HTTPError):
                ok = False
            if ok:
                latencies.append(time.perf_counter() - sent)
            else:
                failed += 1

    await asyncio.gather(*(worker(post) for post in posters))
    elapsed = time.perf_counter() - start
    latencies_s = np.asarray(latencies, dtype=np.float64)
    after = _cpu_s(service_pid)
    return RunResult(
        name,
        len(posters),
        len(latencies),
        failed,
        elapsed,
        latencies_s,
        time.process_time() - client_cpu,
        None
        if service_pid is None or after is None or service_cpu is None
        else _cpu_between(service_pid, service_cpu, after),
    )


def _cpu_s(pid: int | None) -> dict[int, float] | None:
    """CPU seconds (user + system) used so far by the process ``pid`` and by each of its
    descendants (its answer and job workers), by process id; None without one."""
    if pid is None:
        return None
    process = psutil.Process(pid)
    used: dict[int, float] = {}
    for each in [process, *process.children(recursive=True)]:
        try:
            times = each.cpu_times()
        except psutil.NoSuchProcess:
            continue
        used[each.pid] = float(times.user + times.system)
    return used


def _cpu_between(
    pid: int, before: dict[int, float], after: dict[int, float]
) -> tuple[float, float]:
    """CPU seconds the web process ``pid`` and its descendants (together) used between two
    :func:`_cpu_s` readings (a descendant that ended between them is not counted)."""
    spent = {p: after[p] - before.get(p, 0.0) for p in after}
    return spent.get(pid, 0.0), sum(spent.values())


async def main(args: argparse.Namespace) -> list[RunResult]:
    results: list[RunResult] = []
    limits = httpx.Limits(max_connections=args.clients, max_keepalive_connections=args.clients)
    async with httpx.AsyncClient(base_url=args.url, limits=limits, timeout=30.0) as client:
        (await client.get("/healthz")).raise_for_status()
        connections = [H11Connection(args.url) for _ in range(args.clients)]
        posters: list[Poster]
        if args.httpx:

            async def httpx_post(path: str, body: dict[str, Any]) -> int:
                return (await client.post(path, json=body)).status_code

            posters = [httpx_post] * args.clients
        else:
            posters = [c.post for c in connections]
        runs: list[tuple[str, str, Callable[[int], dict[str, Any]], int]] = [
            ("POST /v1/rules/bdp", "/v1/rules/bdp", same_body(BDP_BODY), args.requests),
            (
                "POST /v1/recommend (same)",
                "/v1/recommend",
                same_body({"scenario": RECOMMEND_SCENARIO}),
                args.requests,
            ),
            (
                "POST /v1/recommend (distinct)",
                "/v1/recommend",
                distinct_recommend_body,
                args.requests // 5,
            ),
        ]
        runs = [run for run in runs if args.only is None or args.only in run[0]]
        client_kind = "httpx.AsyncClient" if args.httpx else "h11 keep-alive connections"
        print(f"service {args.url}; client {client_kind}; each run at most {args.seconds:g} s")
        for name, path, body_for, count in runs:
            # Warm-up: connections opened, code paths and caches primed (not measured).
            await run(
                posters,
                name,
                path,
                body_for,
                max_requests=2 * args.clients,
                max_seconds=args.seconds,
            )
            measured = _offset(body_for) if body_for is distinct_recommend_body else body_for
            result = await run(
                posters,
                name,
                path,
                measured,
                max_requests=count,
                max_seconds=args.seconds,
                service_pid=args.service_pid,
            )
            print(result.line(), flush=True)
            results.append(result)
        for connection in connections:
            await connection.close()
        if args.service_pid is not None and args.jobs > 0:
            before = _rss(args.service_pid)
            await submit_jobs(client, args.jobs)
            after = _rss(args.service_pid)
            print(
                f"service memory (RSS, web process / with its workers): before {args.jobs:,} "
                f"jobs {before[0] / 2**20:.0f} / {before[1] / 2**20:.0f} MiB, after "
                f"{after[0] / 2**20:.0f} / {after[1] / 2**20:.0f} MiB",
                flush=True,
            )
    return results


def summary(setting: str, results: list[RunResult]) -> str:
    """One line for the runs of one setting of an A/B: latencies pooled over its runs."""
    latencies = np.concatenate([r.latencies_s for r in results])
    if latencies.size == 0:
        return f"BUFSIZE_ANSWER_WORKERS={setting}: no successful request"
    p50, p99, top = np.percentile(latencies, [50, 99, 100]) * 1e3
    rate = sum(r.completed for r in results) / sum(r.elapsed_s for r in results)
    each = ", ".join(
        f"{np.percentile(r.latencies_s, 99) * 1e3:.0f}" for r in results if r.completed
    )
    return (
        f"BUFSIZE_ANSWER_WORKERS={setting}: {len(results)} runs, {rate:.0f} req/s, "
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {top:.1f} ms (p99 of each run: {each} ms)"
    )


def answer_workers_ab(args: argparse.Namespace) -> None:
    """Each setting of ``--answer-workers`` in turn, ``--rounds`` times (the order reversed every
    other round), each with a service of its own; then one summary line per setting."""
    settings = args.answer_workers.split(",")
    args.jobs = 0  # the A/B is about the answers' latency
    results: dict[str, list[RunResult]] = {setting: [] for setting in settings}
    for round_ in range(args.rounds):
        for setting in settings if round_ % 2 == 0 else settings[::-1]:
            print(f"round {round_ + 1}: BUFSIZE_ANSWER_WORKERS={setting}", flush=True)
            with started_service({"BUFSIZE_ANSWER_WORKERS": setting}) as (url, pid):
                args.url, args.service_pid = url, pid
                results[setting] += asyncio.run(main(args))
    for setting, runs in results.items():
        print(summary(setting, runs), flush=True)


#: A small simulation: one flow on a 1 Mbit/s link for 2 s, one buffer size, one run.
JOB_BODY: dict[str, Any] = {
    "scenario": {
        "capacity_bps": "1 Mbit/s",
        "rtt_s": "20 ms",
        "flows": 1,
        "duration_s": 2,
        "warmup_s": 0,
    },
    "buffer_packets": [10],
    "replications": 1,
}


async def submit_jobs(client: httpx.AsyncClient, count: int) -> None:
    """Submit ``count`` distinct jobs (a new seed each), keeping as many pending as the
    service allows (429: wait for one to end), and read each result once when it is done."""
    pending: list[str] = []
    submitted = done = 0
    started = time.perf_counter()
    while done < count:
        if submitted < count:
            answer = await client.post("/v1/simulations", json={**JOB_BODY, "seed": submitted})
            if answer.status_code == 202:
                pending.append(answer.json()["id"])
                submitted += 1
                continue
            if answer.status_code != 429:
                raise RuntimeError(f"job refused: {answer.status_code} {answer.text}")
        for job_id in list(pending):
            job = (await client.get(f"/v1/simulations/{job_id}")).json()
            if job["status"] in ("succeeded", "failed", "cancelled"):
                pending.remove(job_id)
                done += 1
        await asyncio.sleep(0.05)
    print(f"{count:,} jobs done in {time.perf_counter() - started:.0f} s", flush=True)


def _rss(pid: int) -> tuple[int, int]:
    """Resident memory of the process ``pid`` and of it with all its descendants, bytes."""
    process = psutil.Process(pid)
    own = process.memory_info().rss
    children = 0
    for child in process.children(recursive=True):
        try:
            children += child.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return own, own + children


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def started_service(settings: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    """``bufsize serve`` on a free loopback port with a store of its own, and ``settings``
    (``BUFSIZE_*`` variables) over the environment's: (url, pid)."""
    with tempfile.TemporaryDirectory(prefix="bufsize-api-load-") as work:
        port = _free_port()
        env = {
            **os.environ,
            "BUFSIZE_DATABASE_URL": f"sqlite:///{Path(work) / 'jobs.sqlite3'}",
            # Worker processes live for many jobs here: a fresh process per job (the default)
            # would make 1,000 jobs take most of an hour on two cores, and the figure wanted
            # is the web process's memory.
            "BUFSIZE_JOBS_PER_WORKER_PROCESS": "1000",
            # No simulator compile in the background while the load runs (it would take a
            # core); the first job's worker loads the compiled simulator from numba's cache.
            "BUFSIZE_WARM_SIMULATOR": "0",
            **(settings or {}),
        }
        bufsize = str(Path(sys.executable).with_name("bufsize"))
        log = (Path(work) / "service.log").open("wb")
        process = subprocess.Popen(
            [bufsize, "serve", "--host", "127.0.0.1", "--port", str(port), "--no-access-log"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180
            while True:
                if process.poll() is not None:
                    raise RuntimeError((Path(work) / "service.log").read_text())
                try:
                    if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("the service was not ready within 180 s")
                time.sleep(0.2)
            yield url, process.pid
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()


def _offset(body_for: Callable[[int], dict[str, Any]]) -> Callable[[int], dict[str, Any]]:
    """Scenarios not seen during the warm-up."""
    return lambda i: body_for(i + 10_000)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "url", nargs="?", default=None, help="a running service (default: start one)"
    )
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients (20)")
    parser.add_argument(
        "--requests", type=int, default=5000, help="requests per run, at most (5000)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="wall-clock limit per run")
    parser.add_argument(
        "--httpx", action="store_true", help="drive the load with httpx.AsyncClient instead"
    )
    parser.add_argument(
        "--only",
        default=None,
        help="only the runs whose name contains this text, e.g. 'distinct'",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1000,
        help="simulation jobs between the two memory figures (1000; 0: none)",
    )
    parser.add_argument(
        "--answer-workers",
        default=None,
        help="an A/B of BUFSIZE_ANSWER_WORKERS settings, e.g. '0,2': a service of each in "
        "turn, --rounds times, then a summary line per setting (no jobs)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the A/B (3)")
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse_args()
    arguments.service_pid = None
    # The load generator's own start-up heap is kept out of its garbage collector's passes: a
    # full collection of it (NumPy, httpx, ...) would stall every client at once and count as
    # the service's latency.
    gc.collect()
    gc.freeze()
    if arguments.answer_workers is not None:
        if arguments.url is not None:
            raise SystemExit("--answer-workers starts its own services: give no url")
        answer_workers_ab(arguments)
    elif arguments.url is not None:
        asyncio.run(main(arguments))
    else:
        with started_service() as (arguments.url, arguments.service_pid):
            asyncio.run(main(arguments))
