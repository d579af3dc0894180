"""Server time of one submit of the form at ``/`` for every example of the README's panel.

Run with ``.venv/bin/python benchmarks/form_submit_time.py [--repeats 5]``. The service runs
in this process (FastAPI's test client, no network): each figure is the time from the request
to the complete page, i.e. the server's work (reading the inputs, the recommendation, the
worst-case loss curve when N_b is not given, the device configuration and the template) plus
the test client's small overhead. The first submit after start (imports and caches cold) is
printed apart; then the median and the largest of ``--repeats`` submits per example. The target
is under 1 s of server time per submit. Printed, never asserted (the machine is shared).
"""

from __future__ import annotations

import argparse
import statistics
import time

from fastapi.testclient import TestClient

from app.main import app
from app.web.examples import EXAMPLE_LINKS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    client = TestClient(app, base_url="http://127.0.0.1")  # a host the service allows
    first_query = EXAMPLE_LINKS[0][1]
    start = time.perf_counter()
    first = client.get(f"/?{first_query}")
    cold = time.perf_counter() - start
    assert first.status_code == 200
    print(f"first submit after start (cold): {cold * 1e3:8.1f} ms  ({EXAMPLE_LINKS[0][0][:40]})")
    print(f"{'median ms':>10} {'max ms':>8}  example")
    worst = 0.0
    for title, query in EXAMPLE_LINKS:
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            answer = client.get(f"/?{query}")
            times.append(time.perf_counter() - start)
            if answer.status_code != 200 or 'id="recommendation"' not in answer.text:
                raise SystemExit(f"{title}: no recommendation ({answer.status_code})")
        worst = max(worst, max(times))
        print(f"{statistics.median(times) * 1e3:10.1f} {max(times) * 1e3:8.1f}  {title}")
    verdict = "all under" if worst < 1.0 else "NOT all under"
    print(f"largest warm submit: {worst * 1e3:.1f} ms ({verdict} 1 s)")


if __name__ == "__main__":
    main()
