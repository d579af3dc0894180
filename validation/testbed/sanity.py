"""The checks a testbed run passes before any of its figures is reported.

- RTT: each flow's round trip on the idle path (its handshake, measured before the flows
  start) is its configured RTT within :data:`RTT_TOLERANCE_S`, and during the run the
  router's forwarder wrote its packets (the port's departures, the line's ACKs) on average
  less than that late (the RTT the flows saw, less the queue, is the configured one within
  the same 1 ms).
- The machine did not cause the losses: at most STALL_DROP_SHARE of the drops followed a
  stall of the forwarder (a write over 0.5 ms late: the packets due meanwhile leave
  together, and the ACKs among them release a sender's burst). On this machine (load 15 on
  2 cores) the forwarder stalled for 1-3 ms about once a second, real-time priority and
  all; with one Reno flow at 20 Mbit/s, 50 ms and 4 packets of buffer, two of a run's three
  3-ms stalls were each followed by 4-5 drops within 7 ms (9 of its 15 drops), and such
  runs carried 41-55 % of the link where the simulator's flow carries 77 %. Drops within
  10 ms of a stall count as the stall's; at about one stall a second that window holds
  1 % of the time, so TCP's own drops are rarely counted as the machine's.
- Nor did the hosts: at most STALL_DROP_SHARE of the drops were *burst drops*, ending a run
  of ``BURST_PACKETS`` or more of one flow's packets back to back, which its ACKs release
  only when the machine bunched them (the forwarder reading or writing them late within the
  stall threshold, the receiver sending them together, the sender's socket holding them;
  ``studies/kernel_loss_trace.py`` traced them with the kernel's tracepoints). Measured at
  load 9.5-12 with one Reno or CUBIC flow at 20 Mbit/s, 50 ms and 4 packets of buffer: 38 of
  48 loss episodes came one RTT after such a run, with the window at 10-72 packets where
  the flow's own overflow comes at 87, and the stored runs that the stall rule let through
  carried 0.55-0.60 of the link where the simulator's flow carries 0.76-0.88.
- Nothing but the bottleneck dropped a packet while the run was measured (every veth and
  the TUN devices' drop counters), and each flow ran the congestion control it asked for
  (as ``ss -ti`` reports it).
- Once per link (:func:`reno_check`): one Reno flow with a buffer of
  :data:`RENO_CHECK_BDP` bandwidth-delay products reaches at least
  :data:`RENO_CHECK_UTILIZATION` of the rate. A flow whose window, halved, still covers the
  path and the queue never leaves the link idle (the rule of thumb's reasoning, 000 §2.1),
  so less than that means the testbed itself (its rate limiter, its delay line, or a
  machine too busy for it) cannot carry the link, and the link is refused.
"""

from __future__ import annotations

import math

from validation.testbed.bed import Flow, Measurement, Testbed, Transfer
from validation.testbed.forwarder import BURST_PACKETS, STALL_S

#: How far the measured RTT may be from the configured one, s.
RTT_TOLERANCE_S = 1e-3
#: The share of a run's drops that may follow the forwarder's stalls.
STALL_DROP_SHARE = 0.1
#: One Reno flow's buffer in the per-link check, in bandwidth-delay products.
RENO_CHECK_BDP = 2.0
#: The utilization that one Reno flow with that buffer reaches at least.
RENO_CHECK_UTILIZATION = 0.99


def run_problems(measurement: Measurement) -> list[str]:
    """What makes a run's figures unfit to report (empty: none)."""
    problems = []
    for flow, probe_s in zip(measurement.flows, measurement.probe_rtt_s, strict=True):
        rtt = rtt_problem(probe_s, flow.rtt_s)
        if rtt is not None:
            problems.append(rtt)
            break
    late_s = float(measurement.forwarder_late.get("mean_s", math.inf))
    if late_s > RTT_TOLERANCE_S:
        problems.append(
            f"the router's forwarder wrote packets {1e3 * late_s:.2f} ms late on average "
            f"(tolerance {1e3 * RTT_TOLERANCE_S:g} ms): the machine is too busy"
        )
    stalled = stall_problem(measurement.drops, measurement.forwarder_late)
    if stalled is not None:
        problems.append(stalled)
    bursts = burst_problem(measurement.drops, measurement.forwarder_late)
    if bursts is not None:
        problems.append(bursts)
    if measurement.other_drops:
        problems.append(other_drops_problem(measurement.other_drops))
    for flow, seen in zip(measurement.flows, measurement.flow_cc, strict=True):
        if seen != flow.congestion_control:
            problems.append(f"a flow asked for {flow.congestion_control} and ran {seen}")
            break
    return problems


def transfer_problems(transfer: Transfer) -> list[str]:
    """What makes a finite transfer's timing unfit to report (empty: none): the run's checks
    that apply to it, its idle RTT within :data:`RTT_TOLERANCE_S` and no drop outside the
    bottleneck."""
    problems = []
    rtt = rtt_problem(transfer.probe_rtt_s, transfer.flow.rtt_s)
    if rtt is not None:
        problems.append(rtt)
    if transfer.other_drops:
        problems.append(other_drops_problem(transfer.other_drops))
    return problems


def rtt_problem(probe_s: float, rtt_s: float) -> str | None:
    """Why an idle RTT probe of ``probe_s`` spoils a flow configured with ``rtt_s``, or None:
    it is not within :data:`RTT_TOLERANCE_S` of it."""
    if math.isfinite(probe_s) and abs(probe_s - rtt_s) <= RTT_TOLERANCE_S:
        return None
    return (
        f"a flow's idle RTT was {1e3 * probe_s:.2f} ms, configured "
        f"{1e3 * rtt_s:.2f} ms (tolerance {1e3 * RTT_TOLERANCE_S:g} ms)"
    )


def other_drops_problem(drops: dict[str, int]) -> str:
    """The problem of packets dropped outside the bottleneck (``drops``: device counters)."""
    return f"packets were dropped outside the bottleneck: {drops}"


def stall_problem(drops: int, late: dict[str, float]) -> str | None:
    """Why the forwarder's stalls (see :mod:`validation.testbed.forwarder`) spoil a run's
    losses, or None: more than STALL_DROP_SHARE of its drops (and more than one) came within
    a few milliseconds of a stall, when the packets held meanwhile left together."""
    stall_drops = int(late.get("stall_drops", 0))
    if stall_drops > max(1.0, STALL_DROP_SHARE * drops):
        return (
            f"{stall_drops} of the {drops} drops followed a stall of the machine "
            f"({int(late.get('stalls', 0))} stalls of over "
            f"{1e3 * STALL_S:g} ms): the machine is too busy for this buffer"
        )
    return None


def burst_problem(drops: int, late: dict[str, float]) -> str | None:
    """Why the hosts' bunched ACKs spoil a run's losses, or None: more than STALL_DROP_SHARE
    of its drops (and more than one) were burst drops (the module docstring)."""
    burst_drops = int(late.get("burst_drops", 0))
    if burst_drops > max(1.0, STALL_DROP_SHARE * drops):
        return (
            f"{burst_drops} of the {drops} drops ended a run of {BURST_PACKETS} or more "
            "packets of one flow, which its ACKs release only when the machine bunches "
            "them: the machine is too busy for this buffer"
        )
    return None


def bdp_packets(capacity_bps: float, rtt_s: float, mtu: int) -> float:
    """The bandwidth-delay product in full-size packets of ``mtu`` bytes."""
    return capacity_bps * rtt_s / (8.0 * mtu)


def reno_check(
    bed: Testbed, rtt_s: float, *, warmup_s: float = 5.0, measure_s: float = 10.0
) -> tuple[Measurement, list[str]]:
    """One Reno flow through ``bed`` with RENO_CHECK_BDP of buffer: the run and its problems.

    The bed's buffer is set for the check and put back afterwards."""
    kept = bed.buffer_packets
    bed.set_buffer(max(2, round(RENO_CHECK_BDP * bdp_packets(bed.capacity_bps, rtt_s, bed.mtu))))
    try:
        measurement = bed.run([Flow("reno", rtt_s)], warmup_s=warmup_s, measure_s=measure_s)
    finally:
        bed.set_buffer(kept)
    problems = run_problems(measurement)
    if measurement.utilization < RENO_CHECK_UTILIZATION:
        problems.append(
            f"one Reno flow with {RENO_CHECK_BDP:g} BDP of buffer reached "
            f"{100 * measurement.utilization:.1f} % of {measurement.capacity_bps / 1e6:g} Mbit/s "
            f"(at least {100 * RENO_CHECK_UTILIZATION:g} % expected): the testbed cannot carry "
            "this link faithfully"
        )
    return measurement, problems
