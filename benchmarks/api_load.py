"""Load generator for a running bufsize service: requests per second and p50/p99 latency.

Runs a fixed number of concurrent clients (closed loop: each sends its next request when the
previous answer arrives) against ``POST /v1/rules/bdp`` and ``POST /v1/recommend``, each run
bounded by a request count and a wall-clock limit, and prints one line per run::

    .venv/bin/bufsize serve --port 8001 &
    .venv/bin/python benchmarks/api_load.py http://127.0.0.1:8001

``/v1/recommend`` is measured twice: the same scenario every time (answers repeat, as for a
dashboard polling one port; the service keeps recent answers) and a different scenario each
time (every request runs the engine).

Targets on a 2-core machine, client and service on the same host: bdp >= 1,000 req/s with
p99 < 20 ms; recommend p99 < 100 ms, at 20 concurrent clients.

The client shares the machine with the service, so it must cost much less per request than the
service. By default each simulated client is one keep-alive HTTP/1.1 connection driven by
``h11`` over asyncio streams (about 0.15 ms of CPU per request here); ``--httpx`` uses
``httpx.AsyncClient`` instead, which costs about 2 ms of CPU per request on this machine, more
than the service itself, and so measures mostly the client.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import h11
import httpx
import numpy as np

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

    def line(self) -> str:
        if self.completed == 0:
            return f"{self.name:<28} no successful request ({self.failed} failed)"
        p50, p99 = np.percentile(self.latencies_s, [50, 99]) * 1e3
        rate = self.completed / self.elapsed_s
        return (
            f"{self.name:<28} {self.clients:>3} clients {self.completed:>7} ok "
            f"{self.failed:>4} failed {rate:>9.0f} req/s   p50 {p50:7.2f} ms   p99 {p99:7.2f} ms"
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
) -> RunResult:
    counter: Iterator[int] = itertools.count()
    latencies: list[float] = []
    failed = 0
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
    return RunResult(name, len(posters), len(latencies), failed, elapsed, latencies_s)


async def main(args: argparse.Namespace) -> None:
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
                posters, name, path, measured, max_requests=count, max_seconds=args.seconds
            )
            print(result.line(), flush=True)
        for connection in connections:
            await connection.close()


def _offset(body_for: Callable[[int], dict[str, Any]]) -> Callable[[int], dict[str, Any]]:
    """Scenarios not seen during the warm-up."""
    return lambda i: body_for(i + 10_000)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:8000")
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients (20)")
    parser.add_argument(
        "--requests", type=int, default=5000, help="requests per run, at most (5000)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="wall-clock limit per run")
    parser.add_argument(
        "--httpx", action="store_true", help="drive the load with httpx.AsyncClient instead"
    )
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
