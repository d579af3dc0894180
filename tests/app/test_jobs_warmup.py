"""The simulator's start-up compile: the pool dispatches nothing meanwhile, and a waiting check
says why, with progress; the gate opens when the compile ends, even if it fails."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from app.jobs.warmup import MESSAGE, SimulatorWarmup, start_early


class Gate:
    def __init__(self) -> None:
        self.ready = threading.Event()
        self.ready.set()
        self.woken = 0

    def wake(self) -> None:
        self.woken += 1


def _wait(event: threading.Event, timeout_s: float = 60.0) -> bool:
    return event.wait(timeout_s)


def test_the_gate_is_closed_while_compiling_and_a_check_says_why() -> None:
    gate = Gate()
    # A stand-in for the compile: a child process that takes a second and a half.
    warmup = SimulatorWarmup(command=(sys.executable, "-c", "import time; time.sleep(1.5)"))
    warmup.start(gate)
    assert not gate.ready.is_set()
    status = warmup.status()
    assert status is not None
    message, progress = status
    assert message.startswith(f"{MESSAGE}: compiling its code")
    assert 0.0 <= progress <= 0.95
    assert _wait(gate.ready)
    assert warmup.status() is None and not warmup.preparing
    assert gate.woken == 1


def test_a_failed_compile_still_opens_the_gate() -> None:
    gate = Gate()
    warmup = SimulatorWarmup(command=(sys.executable, "-c", "raise SystemExit(3)"))
    warmup.start(gate)
    assert _wait(gate.ready)
    deadline = time.monotonic() + 10
    while warmup.preparing and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not warmup.preparing


def test_without_warm_up_nothing_waits() -> None:
    assert SimulatorWarmup().status() is None


def test_a_compile_started_before_the_service_is_adopted_not_repeated(tmp_path: Path) -> None:
    # bufsize serve starts the compile first thing (start_early); the lifespan's warm-up then
    # waits for that process and counts its progress from its start, instead of compiling again.
    runs = tmp_path / "runs"
    command = (sys.executable, "-c", f"open({str(runs)!r}, 'a').write('run\\n')")
    before = time.monotonic()
    early = start_early(command)
    after = time.monotonic()
    gate = Gate()
    warmup = SimulatorWarmup(command=command)
    warmup.start(gate)
    assert warmup.started_at is not None and before <= warmup.started_at <= after
    assert _wait(gate.ready)
    assert early.returncode == 0
    assert runs.read_text().splitlines() == ["run"]


def test_stopping_the_service_stops_the_compile() -> None:
    # The lifespan stops the warm-up at shutdown: a compile still running is killed, and the
    # gate opens (no child process outlives the service).
    gate = Gate()
    warmup = SimulatorWarmup(command=(sys.executable, "-c", "import time; time.sleep(600)"))
    warmup.start(gate)
    warmup.stop()
    assert _wait(gate.ready)
    assert not warmup.preparing
