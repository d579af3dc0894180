"""Time of the first "Check by simulation" after a fresh start of the service.

Run with ``.venv/bin/python benchmarks/first_check_time.py [--cold]``. It starts ``bufsize
serve`` on a free loopback port with a new job database, sends the web form's check for the
thesis link (``POST /v1/verifications``, the body the page sends: 5 replications, seed 1) as
soon as the service answers, polls it every second as the page does, and prints the time to
the verdict and every distinct message the page would show meanwhile. ``--cold`` points numba's
cache at an empty directory (``NUMBA_CACHE_DIR``), as on a fresh copy whose install did not
compile the core: the service then compiles it in the background from its start. The target is
under 30 s. Printed, never asserted (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

BODY = {
    "scenario": {
        "capacity_bps": "10 Gbit/s",
        "rtt_s": "100 ms",
        "packet_bytes": "1000 B",
        "flows": 1000,
        "congestion_control": "cubic",
    },
    "targets": {"min_utilization": 0.9, "max_loss": 0.01},
    "replications": 5,
    "seed": 1,
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="start with an empty numba cache")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, BUFSIZE_DATABASE_URL=f"sqlite:///{Path(tmp) / 'jobs.sqlite3'}")
        if args.cold:
            env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")
        port = _free_port()
        bufsize = Path(sys.executable).with_name("bufsize")
        start = time.monotonic()
        server = subprocess.Popen(
            [str(bufsize), "serve", "--port", str(port), "--no-access-log"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            with httpx.Client(timeout=30.0) as client:
                while True:
                    try:
                        if client.get(f"{url}/healthz").status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    time.sleep(0.2)
                up = time.monotonic() - start
                print(
                    f"service answering after {up:.1f} s ({'cold' if args.cold else 'warm'} cache)"
                )
                clicked = time.monotonic()
                seen: list[str] = []
                while True:
                    answer = client.post(f"{url}/v1/verifications", json=BODY)
                    body = answer.json()
                    message = body.get("message") or body.get("status", "")
                    if message and (not seen or not message.startswith(seen[-1][:40])):
                        seen.append(message)
                        print(f"  {time.monotonic() - clicked:6.1f} s  {message}")
                    if answer.status_code == 200:
                        verdict = body["verification"]["verdict"]
                        break
                    time.sleep(1.0)
                took = time.monotonic() - clicked
            print(f"first check: {took:.1f} s from the click to the verdict ({verdict})")
            print(f"target under 30 s: {'met' if took < 30 else 'NOT met'}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
