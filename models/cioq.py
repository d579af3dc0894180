"""Buffers of a combined input-output queued (CIOQ) switch, from the output-queued answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from models import checks

EMULATION_SPEEDUP = 2.0
"""Speedup with which stable-marriage matching makes a CIOQ switch emulate an OQ switch."""

PACKETS_PER_VOQ = 2.0
"""Input buffer per virtual output queue that sufficed in the thesis's ns-2 runs (000 §5.1.2)."""


@dataclass(frozen=True)
class CIOQAdvice:
    """Buffer advice for a CIOQ switch.

    Attributes
    ----------
    emulates_output_queueing : bool
        True when the speedup is at least 2, so that a stable-marriage scheduler can make the switch
        exactly emulate an output-queued one (then Lemma 1 bounds its buffer by the OQ buffer).
    output_buffer_packets : float
        Buffer per output port, in packets: the output-queued size given.
    voq_packets_per_input : float
        Buffer of each virtual output queue at an input port, in packets (2).
    note : str
        The advice in words, with its conditions.
    input_buffer_packets : float
        Total buffer per input port, in packets: ``voq_packets_per_input`` times the number of
        VOQs (one per output port).
    """

    emulates_output_queueing: bool
    output_buffer_packets: float
    voq_packets_per_input: float
    note: str
    input_buffer_packets: float


def cioq_advice(output_buffer_packets: Any, ports: Any, speedup: Any = 2.0) -> CIOQAdvice:
    """Advise the input and output buffers of a CIOQ switch with virtual output queues.

    Parameters
    ----------
    output_buffer_packets : float
        Buffer an output-queued switch would need per output port, in packets (> 0), e.g. from
        the rule of thumb, sqrt(N) or tiny-buffers models.
    ports : int
        Number of input (and output) ports N of the switch (>= 2).
    speedup : float, optional
        Speedup s of the switching fabric relative to the line rate (>= 1), 2 by default.

    Returns
    -------
    CIOQAdvice
        Whether OQ emulation is guaranteed, the output buffer, the VOQ buffer and a note.

    Notes
    -----
    Lemma 1 (000 §5.1.1): a CIOQ switch that exactly emulates an OQ switch holds, for every output
    j and time t, ``Q_CIOQ(j, t) <= Q_OQ(j, t)`` packets; with speedup 2 and stable-marriage
    matching a CIOQ switch exactly emulates an OQ switch (Chuang et al., 000 ref. [15]), hence
    Theorem 3: the OQ buffer results, tiny buffers included, carry over. In the ns-2 runs of 000
    §5.1.2 (Fig. 5.2; 32 ports, speedup 2, a simpler less-recently-served scheduler) the VOQ
    occupancy never exceeded 2 packets, even with 1000-packet output buffers, and 2 packets per
    VOQ were used thereafter.

    Assumptions:

    - speedup >= 2 and a stable-marriage (OQ-emulating) scheduler for the guarantee;
    - the OQ buffer given is right for the traffic (the conditions of the model that produced it);
    - the 2-packets-per-VOQ figure is empirical (one ns-2 topology, TCP Reno, 40 Gb/s ports);
    - below speedup 2 nothing is guaranteed: the advice is then a starting point to check by
      simulation.

    References
    ----------
    .. [1] Y. Ganjali, "Buffer Sizing in Internet Routers", PhD thesis, Stanford, 2007 (seed
       ``000_9b46cc70677d86b3.txt``), §5.1, Lemma 1, Theorem 3, Fig. 5.2.
    """
    output = float(checks.positive("output_buffer_packets", output_buffer_packets))
    n_ports = checks.integer_at_least("ports", ports, 2)
    s = float(checks.at_least("speedup", speedup, 1.0))
    emulates = s >= EMULATION_SPEEDUP
    voq_total = PACKETS_PER_VOQ * n_ports
    common = (
        f"Keep {output:g} packets per output port and about {PACKETS_PER_VOQ:g} packets per "
        f"virtual output queue ({voq_total:g} packets per input for {n_ports} outputs)."
    )
    if emulates:
        note = (
            f"With speedup {s:g} >= 2 and stable-marriage matching the switch emulates output "
            "queueing exactly, so it needs no more buffer than an output-queued switch "
            f"(Ganjali 2007, §5.1 Lemma 1, Thm 3). {common}"
        )
    else:
        note = (
            f"Speedup {s:g} is below 2: output-queueing emulation is not guaranteed and the "
            f"output-queued sizes may not carry over. {common} Check by simulation, or raise the "
            "speedup to 2."
        )
    return CIOQAdvice(
        emulates_output_queueing=emulates,
        output_buffer_packets=output,
        voq_packets_per_input=PACKETS_PER_VOQ,
        note=note,
        input_buffer_packets=voq_total,
    )
