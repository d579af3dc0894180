"""The testbed's PM QoS request (validation/testbed/wakeups.py), on a file standing in for
``/dev/cpu_dma_latency``: the bound written is 0 as a native 32-bit integer, and a device
that cannot be opened gives no request rather than an error."""

from __future__ import annotations

import os
import struct
from pathlib import Path

from validation.testbed import wakeups


def test_the_request_writes_a_zero_bound_and_is_withdrawn_by_closing(tmp_path: Path) -> None:
    device = tmp_path / "cpu_dma_latency"
    device.write_bytes(b"\xff" * 4)
    fd = wakeups.hold_prompt_wakeups(str(device))
    assert fd is not None
    assert struct.unpack("i", device.read_bytes()[:4]) == (0,)
    wakeups.release(fd)
    try:
        os.fstat(fd)
    except OSError:
        pass
    else:
        raise AssertionError("the request's file is still open after release")


def test_no_device_means_no_request(tmp_path: Path) -> None:
    assert wakeups.hold_prompt_wakeups(str(tmp_path / "absent" / "cpu_dma_latency")) is None
    wakeups.release(None)  # nothing to withdraw, no error
