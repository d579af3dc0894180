"""The simulator's start-up compile: the pool dispatches nothing meanwhile, and a waiting check
says why, with progress; the gate opens when the compile ends, even if it fails."""

from __future__ import annotations

import sys
import threading
import time

from app.jobs.warmup import MESSAGE, SimulatorWarmup


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
