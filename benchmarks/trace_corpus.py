"""Each capture of the corpus (tests/data/captures): outcome, packets, time and peak memory.

Run with ``.venv/bin/python benchmarks/trace_corpus.py [DIR]``. Each file is estimated in a
child process forked after the compiled code is loaded; its peak resident memory (the child's
``ru_maxrss``) counts the pages the child touches (what the file costs, and the shared pages
it reads); the loaded parent's peak is printed first. The outcome classes are asserted in
``tests/validation/test_capture_corpus.py``; this prints the figures.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time
from pathlib import Path

from validation.traces import TraceFormatError, estimate_trace, open_trace

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "captures"


def run_one(path: str, out: multiprocessing.queues.Queue) -> None:  # type: ignore[type-arg]
    start = time.perf_counter()
    try:
        est = estimate_trace(open_trace(path))
        outcome = f"estimate: {est.packets:,} packets, {est.flows} flows"
    except (TraceFormatError, ValueError) as exc:
        outcome = "refused: " + str(exc).split(": ", 1)[-1][:90]
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.put((seconds, peak_mb, outcome))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=CORPUS)
    args = parser.parse_args()
    files = sorted(
        p for p in args.directory.iterdir() if p.name not in ("MANIFEST.csv", "README.md")
    )
    estimate_trace(open_trace(CORPUS / "ssh-bulk.pcap"))  # load the compiled code
    base_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"loaded process: {base_mb:.0f} MB peak resident")
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    worst = 0.0
    for path in files:
        child = context.Process(target=run_one, args=(str(path), queue))
        child.start()
        seconds, peak_mb, outcome = queue.get()
        child.join()
        worst = max(worst, peak_mb)
        print(f"{path.name:28s} {seconds:7.3f} s {peak_mb:7.0f} MB  {outcome}")
    print(f"{len(files)} files; largest peak {worst:.0f} MB (loaded process {base_mb:.0f} MB)")


if __name__ == "__main__":
    main()
