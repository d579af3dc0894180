"""The host settings the simulator's tests were written against, stated rather than defaulted.

The simulator's defaults follow today's hosts (:class:`validation.simulator.Scenario`: RTTs spread
by ±20 %, 1448-byte segments with 52-byte headers, delayed ACKs, initial window 10, a 3 MiB
window). The checks against the papers model the thesis's simulations instead (000 §3.4 and
§4.2: 1000-byte packets, an ACK per packet, a 32-packet largest window), and the checks of the
simulator's own mechanics were calibrated with the same settings; they state them here.
"""

from __future__ import annotations

from typing import Any

from validation.simulator import Scenario

#: No RTT jitter, 1000-byte packets without headers, an ACK per segment, initial window 2, a
#: largest window of 32 packets.
CLASSIC_HOSTS: dict[str, Any] = {
    "rtt_jitter_s": 0.0,
    "packet_bytes": 1000,
    "header_bytes": 0,
    "delayed_ack": 1,
    "initial_window_packets": 2,
    "max_window_packets": 32,
}


def classic_scenario(**fields: Any) -> Scenario:
    """A :class:`Scenario` with :data:`CLASSIC_HOSTS` unless ``fields`` say otherwise."""
    return Scenario(**{**CLASSIC_HOSTS, **fields})
