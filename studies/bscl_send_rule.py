"""The window test on the bscl_loss mix: a fractional cwnd's ceiling against whole segments.

Run with ``.venv/bin/python studies/bscl_send_rule.py [--buffers 2459,672,38] [--seeds 1,2,3]
[--short] [--markdown FILE]``.

The diagnosis behind commit 6ca6bcb ("the window admits whole segments only"). Before it,
bufsize's sender (``validation/simulator/core/sender.py`` and the pure Python reference in
``validation/simulator/reference/simulator.py``, ``try_send``, now ``admits``) sent the next new
segment while ``snd_nxt - snd_una < cwnd``, and in SACK recovery while ``pipe < cwnd``: with a
fractional cwnd (ns-2's growth adds 1/cwnd per ACK) the flight reached ceil(cwnd), one segment
more than cwnd allows. RFC 5681 §2 (cwnd): the sender "MUST NOT send data with a sequence number
higher than the sum of the highest acknowledged sequence number and the minimum of cwnd and
rwnd", so a full-sized segment is sent only if it fits and the flight stays at most floor(cwnd);
RFC 6675 §5 (C): "(cwnd - pipe) >= 1 SMSS"; ns-2's ``TcpAgent::window()`` returns ``(int)cwnd_``
and ``send_much`` sends while ``t_seqno_ <= highest_ack_ + win`` (tcp.cc); Linux keeps an
integer ``snd_cwnd``. The simulator now takes whole segments.

This script runs the reference implementation (event for event the compiled core) on the
``bscl_loss`` mix at Table I's sizes with its window test as it is now ("whole segments") and
with the test it had before that commit ("ceil(cwnd)": :func:`ceil_rule_admits`, the old
comparison in place of the reference's ``admits``), and prints the loss at the link, the LBP
flows' loss-event rate and drops per event (as ``studies/ns2_bscl_mix.py`` counts them). It
changes nothing in the simulator: the patched method lives in this process only.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bscl_access_sensitivity import emit, interval, lbp_loss_events
from ns2_bscl_mix import LBP_FLOWS, scenario

from validation.simulator.parameters import make_parameters
from validation.simulator.reference import simulator as reference

CURRENT = reference.ReferenceSimulator.admits
RULES = ("ceil(cwnd), before 6ca6bcb", "whole segments, now")


def ceil_rule_admits(self, in_flight: float, window: float) -> bool:  # type: ignore[no-untyped-def]
    """``ReferenceSimulator.admits`` as the window test was before 6ca6bcb.

    A new segment while ``snd_nxt - snd_una < min(cwnd, rwnd)`` and, in SACK recovery, a segment
    while ``pipe < cwnd``: with a fractional cwnd, ceil(cwnd) segments.
    """
    return in_flight < window


def run(sc, buffer_packets: int, seed: int, rule: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    reference.ReferenceSimulator.admits = CURRENT if rule == RULES[1] else ceil_rule_admits
    r = reference.simulate_reference(sc, buffer_packets, seed, trace=True)
    p = make_parameters(sc, buffer_packets, seed)
    drops, events = lbp_loss_events(r.packet_trace, p, sc.warmup_s, LBP_FLOWS, buffer_packets)
    lbp = next(g for g in r.groups if g.name == "LBP")
    return {
        "loss": r.loss_rate,
        "event_rate": events / lbp.bottleneck_arrivals,
        "per_event": drops / max(events, 1),
        "utilization": r.utilization,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--buffers", default="2459,672,38")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--short", action="store_true", help="with the Poisson short flows")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    sc = scenario(1e9, args.short)
    started = time.perf_counter()
    lines = [
        f"Command: `.venv/bin/python studies/bscl_send_rule.py --buffers {args.buffers} "
        f"--seeds {args.seeds}{' --short' if args.short else ''}`",
        "",
        f"bscl_loss mix ({'with' if args.short else 'without'} the short flows), 200 s (20 s "
        f"warm-up), seeds {args.seeds}, the reference implementation; mean ± 99% Student-t "
        "half-width.",
        "",
        "| buffer | window test | loss at the link % | LBP loss-event rate % "
        "| LBP drops per event | utilization % |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for b in (int(x) for x in args.buffers.split(",")):
        for rule in RULES:
            rs = [run(sc, b, int(s), rule) for s in args.seeds.split(",")]

            def cell(key: str, scale: float, digits: int, rs=rs) -> str:
                mean, half = interval([scale * r[key] for r in rs])
                return f"{mean:.{digits}f} ± {half:.{digits}f}"

            lines.append(
                f"| {b} | {rule} | {cell('loss', 100, 2)} | {cell('event_rate', 100, 2)} "
                f"| {cell('per_event', 1, 2)} | {cell('utilization', 100, 2)} |"
            )
            print(lines[-1], flush=True)
    lines.insert(1, f"({time.perf_counter() - started:.0f} s wall)")
    emit(lines, args.markdown)


if __name__ == "__main__":
    main()
