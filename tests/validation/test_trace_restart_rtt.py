"""RTT samples of flows that lost their first flight, and T_e's interval when flows have none.

The restart sample (:func:`validation.traces.kernel._restart_flights`): after a retransmission
timeout a sender starts again from one segment (RFC 5681 §3.1), and the spacing of the first
departures of two growing flights of that slow start is an RTT sample of the kind H. Jiang
and C. Dovrolis take at a flow's start ([21] of 004 §VI). T_e's interval
(:func:`validation.traces.estimate._harmonic_interval`): an LBP flow without an RTT sample may
have any RTT up to its bound, and eq. 12 of 004 then ranges from 0 to the harmonic mean with
it at that bound. The expected values below are worked out by hand in the docstrings.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tests.validation.kernel_runs import run_kernel
from tests.validation.mix_traces import estimated_mix
from validation.harness.bscl import CAPACITY_BPS as MIX_CAPACITY_BPS
from validation.traces import kernel
from validation.traces.estimate import _Accumulator, _harmonic_interval, _window_still

#: A slow start from one segment after a timeout, flow 0, capacity not given (so only the
#: 1 ms ``GAP_MIN_S`` and four times a flight's longest inner gap cut the flights): the
#: first flight (two packets at 0 and 0.1 ms) is lost; the lone retransmission L leaves at
#: 1.0 s, 0.9999 s after the last drop; flight A (2 packets) at 1.3 s, B (4) at 1.62 s, C (6)
#: at 1.9 s, and one packet at 2.2 s closes C. Inside a flight the packets are 0.1 ms apart.
LOST_FIRST_FLIGHT = [(0.0, True), (0.0001, True)]
RESTART = (
    [(1.0, False)]
    + [(1.3 + k * 1e-4, False) for k in range(2)]
    + [(1.62 + k * 1e-4, False) for k in range(4)]
    + [(1.9 + k * 1e-4, False) for k in range(6)]
    + [(2.2, False)]
)


def _advance(
    rows: list[tuple[float, bool]],
    queue_full_s: float = 0.0,
    other_drops_s: tuple[float, ...] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's state of flow 0 after its packets ``(time, dropped)``, 1500 bytes each,
    and drops of flow 1 at ``other_drops_s``."""
    rows3 = sorted([(t, d, 0) for t, d in rows] + [(t, True, 1) for t in other_drops_s])
    time_s = np.round(np.array([r[0] for r in rows3]), 9)
    dropped = np.array([r[1] for r in rows3], dtype=np.bool_)
    flow = np.array([r[2] for r in rows3])
    fs, fi = run_kernel(time_s, flow, dropped, flows=2, queue_full_s=queue_full_s)
    return fs[0], fi[0]


def test_restart_after_a_lost_first_flight_gives_the_shorter_spacing() -> None:
    """A to B is 1.62 - 1.3 = 0.32 s, B to C 1.9 - 1.62 = 0.28 s: the sample is 0.28 s (the
    less queueing), taken at C's first departure, 1.9 s. L's silence (0.9999 s) is over the
    200 ms delayed-ACK bound and longer than both spacings; A, B, C grow 2 < 4 < 6."""
    fs, fi = _advance(LOST_FIRST_FLIGHT + RESTART)
    assert fi[kernel.I["first_flight_drops"]] == 2
    assert fi[kernel.I["restart_state"]] == 2
    assert fs[kernel.F["restart_raw_s"]] == pytest.approx(0.28, abs=1e-9)
    assert fs[kernel.F["restart_at_s"]] == pytest.approx(1.9, abs=1e-9)


def test_restart_sample_keeps_the_queue_correction_of_the_first_round() -> None:
    """With a full buffer's delay of 50 ms given and flow 1 dropping a packet at 1.88 s, C's
    first departure (1.9 s) comes 20 ms after a drop at the link: the kernel's first-round
    correction (the full buffer's delay after a drop less than that long ago) is 50 ms for
    the B-to-C sample, 0.28 s. Without that drop it is 0 (the latest drop, flow 0's at
    0.1 ms, is 1.9 s before)."""
    for other, queue in (((1.88,), 0.05), ((), 0.0)):
        fs, _ = _advance(LOST_FIRST_FLIGHT + RESTART, queue_full_s=0.05, other_drops_s=other)
        assert fs[kernel.F["restart_raw_s"]] == pytest.approx(0.28, abs=1e-9)
        assert fs[kernel.F["restart_queue_s"]] == queue


@pytest.mark.parametrize(
    ("add", "remove", "why"),
    [
        ([(0.85, False)], [], "L's silence is 0.15 s, within a delayed ACK's 200 ms"),
        ([(1.45, True)], [], "a drop between A and B: A is not clean"),
        ([], [1.6202, 1.6203], "B has 2 packets, no more than A"),
        ([(0.75, False)], [], "L's silence, 0.25 s, is shorter than the 0.28 s spacing"),
        ([(1.0001, False)], [], "L has two packets: no restart from one segment"),
        ([], [1.9003, 1.9004, 1.9005], "C has 3 packets, fewer than B's 4"),
    ],
)
def test_no_restart_sample_without_a_clean_growing_slow_start(
    add: list[tuple[float, bool]], remove: list[float], why: str
) -> None:
    """The same restart with one change each. (1) A departure at 0.85 s: L then follows a
    0.15 s silence, which a delayed acknowledgement may fill (and the flights at 0.85, 1.0
    and 1.3 s, of 1, 1 and 2 packets, do not grow). (2) A drop at 1.45 s, after A's packets
    and before B's: A counts no packets. (3) B's last two packets never sent: B has 2, no
    more than A (and C's triple starts with A, no lone packet). (4) A departure at 0.75 s:
    L's silence, 0.25 s, is over 200 ms but shorter than the spacings it would vouch for
    (0.32 and 0.28 s), whereas a timeout is longer than the smoothed RTT (RFC 6298 §2.3).
    (5) A second packet 0.1 ms after L: a flight of two, not the one segment a timeout
    restarts from (RFC 5681 §3.1). (6) C's last three packets never sent: C (3) is smaller
    than B (4), so B's growth over A is not confirmed. No sample in each case."""
    rows = [r for r in LOST_FIRST_FLIGHT + RESTART if round(r[0], 9) not in remove] + add
    fs, fi = _advance(rows)
    assert math.isnan(fs[kernel.F["restart_raw_s"]]), why
    assert fi[kernel.I["restart_state"]] == 1, why


#: 004 §VII's mix, seed 20, N_b = 2, C_e 80 %: LBP flow 0 (true RTT 130.35 ms) lost its whole
#: first flight (10 drops at 13.884 s) and restarted from one segment after the 1 s timeout,
#: with flights of 1, 2, 3 and 3 packets at 14.8843, 15.1158, 15.2476 and 15.3797 s, then 2
#: at 15.4787 s. Shifted here to L at 1.0 s, A (2) at 1.2315 s, B (3) at 1.3633 s, C (3) at
#: 1.4954 s and 2 packets at 1.5944 s; inside a flight the packets are 0.25 ms apart (one
#: 1500-byte transmission at 48 Mbit/s).
DELAYED_ACK_RESTART = (
    [(1.0, False)]
    + [(1.2315 + k * 2.5e-4, False) for k in range(2)]
    + [(1.3633 + k * 2.5e-4, False) for k in range(3)]
    + [(1.4954 + k * 2.5e-4, False) for k in range(3)]
    + [(1.5944 + k * 2.5e-4, False) for k in range(2)]
)


def test_restart_of_one_two_three_three_with_delayed_acks_gives_a_sample() -> None:
    """C no larger than B: with an ACK for every second segment (RFC 5681 §4.2) and one
    segment of growth per ACK (RFC 5681 §3.1), B's 3 packets draw one prompt ACK, which
    releases 3 (2 acknowledged, 1 of growth); the third's ACK waits for the receiver's timer
    and releases the 2 at 1.5944 s (100 ms after C). A to B is 1.3633 - 1.2315 = 131.8 ms,
    B to C 1.4954 - 1.3633 = 132.1 ms, within a factor of two of each other: the sample is the
    shorter, 131.8 ms, taken at B's first departure (1.3633 s). The rule before took none
    (it wanted C larger than B), and the flow had no RTT: T_e of that row was +27.7 %."""
    fs, fi = _advance(LOST_FIRST_FLIGHT + DELAYED_ACK_RESTART)
    assert fi[kernel.I["restart_state"]] == 2
    assert fs[kernel.F["restart_raw_s"]] == pytest.approx(0.1318, abs=1e-9)
    assert fs[kernel.F["restart_at_s"]] == pytest.approx(1.3633, abs=1e-9)


@pytest.mark.parametrize(
    ("c_start_s", "why"),
    [
        (1.3663, "C 3 ms after B: a window cut in two by other flows' packets"),
        (1.4233, "B to C 60 ms, under half of A to B (131.8 ms)"),
    ],
)
def test_no_restart_sample_when_a_non_growing_c_follows_b_too_soon(
    c_start_s: float, why: str
) -> None:
    """DELAYED_ACK_RESTART with C moved earlier. (1) C's first departure 3 ms after B's (2.5 ms
    after B's last): the spacing of a window split at this link by other flows' packets, not
    of a round; the min of the two spacings would be 3 ms. (2) 60 ms: the two spacings, each
    the RTT plus this link's queue at B and C, disagree by more than a factor of two. No
    sample in each case, as before (C is not larger than B)."""
    rows = [r for r in DELAYED_ACK_RESTART if not 1.4954 <= r[0] < 1.4962]
    rows += [(c_start_s + k * 2.5e-4, False) for k in range(3)]
    fs, fi = _advance(LOST_FIRST_FLIGHT + sorted(rows))
    assert math.isnan(fs[kernel.F["restart_raw_s"]]), why
    assert fi[kernel.I["restart_state"]] == 1, why


def test_a_silence_a_delayed_ack_may_fill_starts_no_restart() -> None:
    """A faster restart: L at 1.0 s, A (2) at 1.1 s, B (4) at 1.21 s, C (6) at 1.3 s, one
    packet at 1.4 s: spacings 0.11 and 0.09 s, sample 0.09 s when L follows the lost first
    flight (silence 0.9999 s). With a departure at 0.85 s, L's silence is 0.15 s: longer than
    both spacings, but a receiver may hold an ACK 200 ms (Linux's TCP_DELACK_MAX), so L may
    be the packet a delayed ACK released rather than a retransmission after a timeout."""
    fast = (
        [(1.0, False)]
        + [(1.1 + k * 1e-4, False) for k in range(2)]
        + [(1.21 + k * 1e-4, False) for k in range(4)]
        + [(1.3 + k * 1e-4, False) for k in range(6)]
        + [(1.4, False)]
    )
    fs, _ = _advance(LOST_FIRST_FLIGHT + fast)
    assert fs[kernel.F["restart_raw_s"]] == pytest.approx(0.09, abs=1e-9)
    fs, _ = _advance([*LOST_FIRST_FLIGHT, (0.85, False), *fast])
    assert math.isnan(fs[kernel.F["restart_raw_s"]])


def test_a_drop_taints_a_flight_that_leaves_within_the_buffer_delay() -> None:
    """The first flight lost at 0 and 0.1 ms; L at 0.25 s (silence 0.2499 s), A (2) at
    0.35 s, B (4) at 0.46 s, C (6) at 0.55 s, one packet at 0.65 s: spacings 0.11 and 0.09 s.
    With a full buffer's delay of 0.2 s, L's first packet left more than 0.2 s after the
    drops, so it arrived after them and the lost packets are not L's: the sample is 0.09 s.
    With 0.3 s, L may have arrived before the drops and waited (a packet of L's flight may be
    among the lost ones): L is not clean and there is no sample."""
    rows = (
        [(0.25, False)]
        + [(0.35 + k * 1e-4, False) for k in range(2)]
        + [(0.46 + k * 1e-4, False) for k in range(4)]
        + [(0.55 + k * 1e-4, False) for k in range(6)]
        + [(0.65, False)]
    )
    fs, _ = _advance(LOST_FIRST_FLIGHT + rows, queue_full_s=0.2)
    assert fs[kernel.F["restart_raw_s"]] == pytest.approx(0.09, abs=1e-9)
    fs, _ = _advance(LOST_FIRST_FLIGHT + rows, queue_full_s=0.3)
    assert math.isnan(fs[kernel.F["restart_raw_s"]])


def test_no_restart_sample_after_a_clean_first_flight() -> None:
    """A first flight of two packets at 0 and 0.1 ms leaves whole, a second one at 0.3 s (the
    first-round sample, 0.3 s), then a drop at 0.5 s and the restart above: the first flight
    lost nothing, so the flow has its first-round sample and no restart is looked for."""
    rows = [(0.0, False), (0.0001, False), (0.3, False), (0.3001, False), (0.5, True)]
    fs, fi = _advance(rows + RESTART)
    assert fi[kernel.I["first_flight_drops"]] == 0
    assert fs[kernel.F["raw_rtt_s"]] == pytest.approx(0.3, abs=1e-9)
    assert fi[kernel.I["restart_state"]] == 0
    assert math.isnan(fs[kernel.F["restart_raw_s"]])


#: A first flight of three packets at 0, 0.1 and 0.2 ms whose first two are dropped, a second
#: flight of one packet at 0.12 s (the first-round spacing as measured: 0.12 - 0 = 0.12 s, no
#: RTT sample as the first flight lost packets), a timeout, the lone retransmission L at
#: 1.2 s (1.08 s after the flow's latest departure) and flight A (2 packets, 0.1 ms apart) at
#: 1.33 s. Capacity not given: a gap over 1 ms (and four times the flight's longest) starts a
#: flight.
BOUND_FLOW = [
    (0.0, True),
    (0.0001, True),
    (0.0002, False),
    (0.12, False),
    (1.2, False),
    (1.33, False),
    (1.3301, False),
]


def test_restart_bound_is_the_spacing_from_a_lone_packet_after_a_long_silence() -> None:
    """With the full buffer's delay Q = 50 ms given, L's silence (1.2 - 0.12 = 1.08 s) is over
    R + Q + D = 0.12 + 0.05 + 0.2 = 0.37 s: the acknowledgements of the packets before it all
    came back before L was sent, so A left at least an RTT after L. The bound is
    1.33 - 1.2 = 0.13 s. The one-packet flight at 0.12 s (silence 0.1198 s, under 0.37 s)
    gives none."""
    fs, fi = _advance(BOUND_FLOW, queue_full_s=0.05)
    assert fs[kernel.F["raw_rtt_s"]] == pytest.approx(0.12, abs=1e-9)
    assert fi[kernel.I["first_flight_drops"]] == 2
    assert fs[kernel.F["restart_bound_s"]] == pytest.approx(0.13, abs=1e-9)


def test_restart_bound_keeps_the_shortest_spacing() -> None:
    """After BOUND_FLOW a second silence: a lone packet at 3.0 s (1.6699 s after A's last
    packet, over 0.37 s) and the next at 3.1 s: spacings 0.13 and 0.1 s, the bound is 0.1 s.
    Then one at 5.0 s and the next at 5.5 s (0.5 s): the bound stays 0.1 s."""
    rows = [*BOUND_FLOW, (3.0, False), (3.1, False), (5.0, False), (5.5, False)]
    fs, _ = _advance(rows, queue_full_s=0.05)
    assert fs[kernel.F["restart_bound_s"]] == pytest.approx(0.1, abs=1e-9)


@pytest.mark.parametrize(
    ("add", "queue_full_s", "why"),
    [
        ([], 1.0, "L's silence, 1.08 s, is under R + Q + D = 0.12 + 1.0 + 0.2 = 1.32 s"),
        ([(1.2001, False)], 0.05, "L's flight has two packets: not one segment in flight"),
        ([(1.25, True)], 0.05, "a drop between L and A: L's flight is not clean"),
    ],
)
def test_no_restart_bound(add: list[tuple[float, bool]], queue_full_s: float, why: str) -> None:
    """BOUND_FLOW with one change each. (1) Q = 1 s: the acknowledgement of the packet that
    left at 0.12 s may still be on its way when L is sent (1.08 s < 1.32 s), and may have
    released A. (2) A second packet 0.1 ms after L: L's flight has two packets, not the one
    segment of RFC 5681 §3.1's loss window, and packets sent together may be split by other
    flows' packets at the link (A may be one of them). (3) A drop at 1.25 s: a packet sent
    between L and A (or with L) was lost, the flight is not clean. No bound in each case."""
    fs, _ = _advance(sorted(BOUND_FLOW + add), queue_full_s=queue_full_s)
    assert math.isnan(fs[kernel.F["restart_bound_s"]]), why


def test_restart_bound_when_no_packet_left_before_the_lone_one() -> None:
    """The whole first flight (0 and 0.1 ms) is dropped; L at 1.2 s is the flow's first
    departure and A (2 packets) follows at 1.5 s. The first-round spacing as measured is
    1.5 - 0 = 1.5 s (a timeout in it), so R + Q + D = 1.5 + 0.05 + 0.2 = 1.75 s, longer than
    L's 1.1999 s of silence after the drops. But no packet of the flow left before L, and a
    dropped packet is acknowledged by nobody: no ACK can be on its way when L is sent, and A
    waited for L's. The bound is 1.5 - 1.2 = 0.3 s. With one first-flight packet delivered
    at 0.2 ms, L comes 1.1998 s after it, under R + Q + D = 1.2 + 0.05 + 0.2 = 1.45 s (the
    first-round spacing is then 1.2 - 0 = 1.2 s): that packet's ACK may have released A, no
    bound."""
    rows = [(0.0, True), (0.0001, True), (1.2, False), (1.5, False), (1.5001, False)]
    fs, _ = _advance(rows, queue_full_s=0.05)
    assert fs[kernel.F["raw_rtt_s"]] == pytest.approx(1.5, abs=1e-9)
    assert fs[kernel.F["restart_bound_s"]] == pytest.approx(0.3, abs=1e-9)
    fs, _ = _advance(sorted([*rows, (0.0002, False)]), queue_full_s=0.05)
    assert fs[kernel.F["raw_rtt_s"]] == pytest.approx(1.2, abs=1e-9)
    assert math.isnan(fs[kernel.F["restart_bound_s"]])


def _still_flow(raw_s: float, bound_s: float) -> tuple[np.ndarray, np.ndarray]:
    """One flow's state as :func:`_window_still` reads it: seed 5's window-limited flow 31 at
    C_e 80 % (004 §VII's mix, N_b = 2): first-round spacing ``raw_s``, restart bound
    ``bound_s``, one loss-free stretch open from 20.4 s (the warm-up's end) to its last packet
    at 200 s, no silence in it, 15770 departures."""
    fs, fi = kernel.new_state(1)
    fs[0, kernel.F["raw_rtt_s"]] = raw_s
    fs[0, kernel.F["restart_bound_s"]] = bound_s
    fs[0, kernel.F["stretch_start_s"]] = 20.4
    fs[0, kernel.F["last_s"]] = 200.0
    fi[0, kernel.I["stretch_packets"]] = 15770
    return fs, fi


@pytest.mark.parametrize(
    ("bound_s", "paced", "still"),
    [(math.nan, False, False), (0.114, False, True), (0.114, True, False)],
)
def test_window_still_with_the_restart_bound(bound_s: float, paced: bool, still: bool) -> None:
    """Q = 216.8 ms (B = C·T_avg), D = 0.2 s, span 200 - 20.4 = 179.6 s. With the first-round
    spacing R = 342.2 ms alone (its first flight lost 6 of 7 packets, so it holds the
    queue, a timeout or a delayed ACK): R + Q + D = 0.759 s, K = floor(179.6 / 0.759) =
    floor(236.6) = 236 rounds, a growing window sends at least 236 * 235 / 4 = 13865 packets,
    fewer than the 15770 sent: not found still. With the restart bound 114.0 ms: R + Q + D =
    0.5308 s, K = floor(338.4) = 338, at least 338 * 337 / 4 = 28476.5 packets, more than it
    sent: still (window-limited). Behind a slower link (paced) the bound is left out."""
    fs, fi = _still_flow(0.3422, bound_s)
    acc = _Accumulator(20.0)
    acc.queue_full_s = 0.2168
    found = _window_still(fs, fi, acc, np.array([paced]))
    assert bool(found[0]) is still


def test_harmonic_interval_without_unsampled_flows_is_the_bootstrap() -> None:
    """One sampled flow of 0.2 s and none missing: every resample is 0.2 s."""
    te = _harmonic_interval(np.array([0.2]), np.zeros(0))
    assert (te.value, te.low, te.high) == pytest.approx((0.2, 0.2, 0.2))


@pytest.mark.parametrize(("upper", "high"), [(math.inf, 0.4), (0.6, 0.3)])
def test_harmonic_interval_widens_for_a_flow_without_rtt(upper: float, high: float) -> None:
    """N_b = 2, one flow sampled at 0.2 s, the other without a sample (004 §VII's seed 10, N_b
    = 2, before the restart sample: the interval was 397.2-397.2 ms). The value stays 0.2 s
    (the sampled flow's eq. 12). The missing RTT T may be anything in (0, upper]: eq. 12,
    2 / (1/0.2 + 1/T), goes to 0 as T does, and at T = upper is 2 / (5 + 0) = 0.4 s
    (unbounded) or 2 / (5 + 1/0.6) = 2 / 6.667 = 0.3 s (bounded by a spacing of 0.6 s)."""
    te = _harmonic_interval(np.array([0.2]), np.array([upper]))
    assert te.value == pytest.approx(0.2)
    assert te.low == 0.0
    assert te.high == pytest.approx(high)


def test_harmonic_interval_keeps_the_wider_bootstrap_end() -> None:
    """Sampled 0.1 and 0.3 s (eq. 12: 2 / (10 + 3.333) = 0.15 s), one flow unbounded: with it
    at infinity eq. 12 is 3 / 13.333 = 0.225 s, but a quarter of the bootstrap resamples draw
    0.3 s twice (harmonic mean 0.3 s), so the 97.5th percentile, 0.3 s, stays the high end."""
    te = _harmonic_interval(np.array([0.1, 0.3]), np.array([math.inf]))
    assert (te.value, te.low, te.high) == pytest.approx((0.15, 0.0, 0.3))


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.95, 0.9])
def test_lbp_flow_that_lost_its_first_flight_on_004_mix(share: float, tmp_path: Path) -> None:
    """004 §VII's mix with N_b = 2, 200 s, B = C·T_avg, seed 10. LBP flow 1 (RTT 101.8 ms)
    starts at 6.66 s into flow 0's full queue: 9 of its 10 first packets are dropped, then one
    at 7.08 s; it has no drop after the warm-up and no first-round sample. T_e was flow 0's
    397.2 ms alone (interval 397.2-397.2 ms; +145.1 % against the truth, 162.1 ms). After its
    timeout it restarts from one segment at 8.43 s (1.13 s of silence), then flights of 2, 4
    and 6 packets at 8.543, 8.648 and 8.750 s: spacings 105.0 and 102.1 ms, the sample
    102.1 ms (0.3 ms over the propagation RTT, the access links' transmissions and this
    link's). T_e measured 162.4 ms (+0.2 %) at both shares. Targets of issue 13: T_e within
    10 %; the restart sample is the RTT plus at most the full buffer's delay B/C (it is a
    sample with this link's queue in it)."""
    sc, buffer_packets, sim, est = estimated_mix(2, share, full=True, seed=10, tmp_path=tmp_path)
    assert est.bottlenecked_flows.value == 2
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s
    assert est.effective_rtt_s.low <= sim.effective_rtt_s <= est.effective_rtt_s.high
    (row,) = [f for f in est.flow_table if f.key == "1"]
    assert row.rtt_source == "restart"
    queue_full_s = 8.0 * buffer_packets * sc.wire_bytes / MIX_CAPACITY_BPS
    assert float(sim.rtts_s[1]) <= row.rtt_s <= float(sim.rtts_s[1]) + queue_full_s


@pytest.mark.slow
def test_interval_widens_for_an_lbp_flow_without_rtt_on_004_mix(tmp_path: Path) -> None:
    """004 §VII's mix with N_b = 10, 200 s, B = C·T_avg, seed 9, C_e 80 %: LBP flow 0 (RTT
    362.9 ms) lost 7 of the 10 packets of its first flight (no first-round sample), no lone
    packet after a long silence follows (its next flights have 3, 3, 5 and 5 packets: no
    restart from one segment) and its 2 drops after the warm-up agree on no lag: it has no
    RTT sample. T_e stays the nine sampled flows' eq. 12 (measured 141.1 ms, truth 150.2 ms:
    -6.1 %), and the interval runs from 0 (flow 0's RTT may be near 0) to at least eq. 12
    with flow 0 at its first-round spacing as measured (measured 0.0-321.0 ms). (This test
    used seed 6's flow 4 at C_e 80 % until the restart's flights of 1, 2, 3 and 3 packets
    gave that flow a sample, 492.4 ms against 409.1 ms; before the restart bound it used
    seed 5's window-limited flow 31 at N_b = 2, then counted LBP without an RTT sample.)"""
    _, _, sim, est = estimated_mix(10, 0.8, full=True, seed=9, tmp_path=tmp_path)
    (row,) = [f for f in est.flow_table if f.key == "0"]
    assert row.flow_class == "lbp"
    assert row.rtt_source == "none"
    te = est.effective_rtt_s
    sampled = [f.rtt_s for f in est.flow_table if f.flow_class == "lbp" and f.key != "0"]
    assert len(sampled) == 9
    assert te.value == pytest.approx(9.0 / sum(1.0 / r for r in sampled))
    assert te.low == 0.0
    assert te.value < te.high
    assert te.low <= sim.effective_rtt_s <= te.high
