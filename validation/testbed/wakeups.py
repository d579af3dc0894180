"""Prompt wake-ups while the testbed runs: a PM QoS request for no CPU idle exit latency.

On a virtual machine whose idle vCPUs halt (the guest's ``haltpoll`` cpuidle state, the
host's scheduling), a halted vCPU that a packet or a timer wakes runs again 0.3-1.6 ms late,
several times per round trip: measured on this project's 2-core VM, a configured 20 ms RTT
came out at 21.1-23.2 ms on an idle machine, and the testbed's sanity check (RTT within 1 ms)
refused the link, while under load, when no vCPU halts, it passed. Linux's PM QoS interface
(``Documentation/power/pm_qos_interface.rst``): a process that writes a 32-bit latency bound
to ``/dev/cpu_dma_latency`` and keeps the file open holds that bound for every CPU, and the
cpuidle governor then picks only states whose exit latency is within it; with 0 that is the
polling state, so a vCPU never halts while the request is held. Closing the file (or the
process ending) withdraws the request. With it held, the same check passed three runs out
of three on the idle machine (RTT within 1 ms), where it had failed every run without.

The cost is CPU spent polling while idle, for the testbed's lifetime only. Where the file is
absent or not writable the testbed runs without the request, and its sanity checks still
decide whether the timing held.
"""

from __future__ import annotations

import os
import struct

#: The PM QoS device for the CPUs' idle exit latency bound (µs, a native 32-bit integer).
DEVICE = "/dev/cpu_dma_latency"


def hold_prompt_wakeups(device: str = DEVICE) -> int | None:
    """Request no idle exit latency; return the file descriptor to close to withdraw it,
    or None where the request cannot be made."""
    try:
        fd = os.open(device, os.O_WRONLY)
    except OSError:
        return None
    try:
        os.write(fd, struct.pack("i", 0))
    except OSError:
        os.close(fd)
        return None
    return fd


def release(fd: int | None) -> None:
    """Withdraw a request made by :func:`hold_prompt_wakeups` (None: nothing to do)."""
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass
