"""This link's wait read from a flow a slower link paces (:mod:`validation.traces.paced_queue`).

A spacing RTT sample (H. Jiang, C. Dovrolis, CCR 2002, [21] of 004 §VI) holds the wait of its
packet at this link, which BSCL's RTT excludes (004 §III.A). A flow behind a slower access
link (004 §VII's RBP flows) reaches this link once every P while that link is backlogged, so
its departures less k·P trace the wait, once P and the anchor are found from the trace's
bounds (drops, busy periods, no wait below 0 or above B/C).

The hand-built trace: a 1 Mbit/s link whose packets are 125 bytes (τ = 1 ms), B/C = 100 ms,
busy from 0 to 10 s (flow 0 fills every departure slot the paced flow does not take). Flow 1
arrives every P = 20.3 ms from 0.5005 s to 9.75 s and waits w(t): from 10 ms at 0.5 s up to
99.5 ms at 4.85 s, full (99.5 ms) to 5.05 s, down to 5 ms at 6 s, up to 99.5 ms at 9.6 s and
full from there (a queue that drains no faster than the link: 0.1 s a second). Its packets
leave at the first departure slot (a multiple of τ) at or after a + w(a) + τ, so their true
wait is that slot less τ less a. Flow 0 loses a packet every 2 ms of 4.86-5.04 s and
9.61-9.75 s, where the queue is full (w >= B/C − τ/2 there).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.validation.mix_traces import SLOW_CAPACITY_BPS, estimated_mix, slow_mix_csv
from validation.traces import TraceEstimates, estimate_trace, open_trace
from validation.traces.paced_queue import median_wait, paced_waits

TAU_S = 1e-3
SIZE = 125
CAPACITY_BPS = 8 * SIZE / TAU_S
FULL_S = 0.1
PERIOD_S = 0.0203
FIRST_S = 0.5005
END_S = 10.0


def _wait(t: np.ndarray) -> np.ndarray:
    """The designed wait w(t), s: two slow rises to a full buffer and a drain between."""
    return np.interp(
        t, [0.5, 4.85, 5.05, 6.0, 9.6, 10.0], [0.010, 0.0995, 0.0995, 0.005, 0.0995, 0.0995]
    )


def _trace(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Write the trace as CSV; return flow 1's arrivals and true waits."""
    arrivals = FIRST_S + PERIOD_S * np.arange(int((9.75 - FIRST_S) / PERIOD_S))
    slots = np.ceil((arrivals + _wait(arrivals) + TAU_S) / TAU_S - 1e-9).astype(np.int64)
    assert np.all(np.diff(slots) > 0)  # FIFO: one slot each, in order
    waits = slots * TAU_S - TAU_S - arrivals
    rows = []
    paced = set(slots.tolist())
    for n in range(1, int(END_S / TAU_S) + 1):
        rows.append((n * TAU_S, 1 if n in paced else 0, 0))
    for start, end in ((4.86, 5.04), (9.61, 9.75)):
        rows.extend((t, 0, 1) for t in np.arange(start, end + 1e-9, 0.002).tolist())
    rows.sort()
    with path.open("w") as handle:
        handle.write("time_s,flow,size_bytes,dropped\n")
        for t, flow, dropped in rows:
            handle.write(f"{t:.9f},{flow},{SIZE},{dropped}\n")
    return arrivals, waits


@pytest.mark.parametrize("when", [2.0, 3.7, 5.5, 7.0, 8.5])
def test_the_wait_a_paced_flow_shows_where_the_queue_rises_steadily(
    tmp_path: Path, when: float
) -> None:
    """The wait at ``when`` as flow 1 shows it, against its true wait there (interpolated
    between its packets). Tolerance 2τ: each bound holds to a slot (τ), the drops pin the
    wait to B/C less up to τ, and the wait moves by at most 0.09 × 20.3 ms = 1.8 ms between
    two packets; a drop every 2 ms while the queue is full bounds an arrival to 2 ms. Flow
    1's lowest wait (5 ms at 6 s) taken as 0, with P fitted so that the lowest waits lie flat
    (the lower convex hull of its departures: P 20.280 ms), is off by 2.8-9.1 ms at these
    five times (measured when this test was written): it takes part of the steady rise for P.
    The median spacing (21 ms, whole slots) is off by 13-208 ms."""
    path = tmp_path / "paced.csv"
    arrivals, waits = _trace(path)
    paced = np.array([False, True])
    per_flow = paced_waits(open_trace(path), paced, np.array([when]), CAPACITY_BPS, FULL_S)
    truth = float(np.interp(when, arrivals + waits + TAU_S, waits))
    assert per_flow.shape == (1, 1)
    assert abs(float(per_flow[0, 0]) - truth) <= 2 * TAU_S


def test_no_wait_outside_the_paced_flow_s_packets(tmp_path: Path) -> None:
    """Before flow 1's first departure and after its last (9.75 s) there is nothing to
    interpolate: no wait (NaN), and the median over the flows is NaN too."""
    path = tmp_path / "paced.csv"
    _trace(path)
    per_flow = paced_waits(
        open_trace(path), np.array([False, True]), np.array([0.2, 9.95]), CAPACITY_BPS, FULL_S
    )
    assert np.isnan(per_flow).all()
    assert np.isnan(median_wait(per_flow)).all()


def test_median_over_the_flows_outvotes_one() -> None:
    """The sample's wait is the median of the flows that cover it (one flow that no slower
    link paces gives a wrong wait and is outvoted); flows that do not cover it are left out."""
    waits = np.array([[0.050, 0.051, 0.190, np.nan], [np.nan, np.nan, np.nan, np.nan]])
    out = median_wait(waits)
    assert out[0] == pytest.approx(0.051)
    assert np.isnan(out[1])


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "sample_ms"), [(16, 397.1), (22, 332.5)])
def test_a_flow_that_starts_into_a_standing_queue_on_004_mix(
    seed: int, sample_ms: float, tmp_path: Path
) -> None:
    """004 §VII's mix with N_b = 2, C_e/C = 80 %, 200 s, B = C·T_avg. LBP flow 0 (true RTT
    243.4 ms in seed 16, 164.3 ms in seed 22) starts into the other's standing queue: its
    first-round spacing is 397.1 and 332.5 ms, and its 4 and 3 drops (one loss episode each)
    agree on several lags, so no drop lag is taken. The median queue correction left it at
    397.1 and 332.5 ms, and T_e +20.6 % and +23.4 % off; the RBP flows' paced arrivals give
    the wait at its sample (153.5 and 168.2 ms with the access rate known), and it is now
    within [21]'s max(10 %, 5 ms) of its RTT, and T_e within issue 13's 10 % of the harmonic
    mean of the LBP flows' propagation RTTs (004 eq. 12, §III.A)."""
    _, _, sim, est = estimated_mix(2, 0.8, full=True, seed=seed, tmp_path=tmp_path)
    (row,) = [f for f in est.flow_table if f.key == "0"]
    truth = float(sim.rtts_s[0])
    assert row.rtt_source == "first_round"
    assert row.rtt_sample_s == pytest.approx(sample_ms / 1e3, abs=5e-5)  # the table's rounding
    assert abs(row.rtt_s - truth) <= max(0.1 * truth, 0.005)
    assert abs(est.effective_rtt_s.value - sim.effective_rtt_s) <= 0.1 * sim.effective_rtt_s


def _readings(
    events: list[tuple[str, float]],
) -> tuple[list[float], list[tuple[str, list[float]]]]:
    """Progress calls ("" label) and, in order, each later reading's label and fractions."""
    progress = [f for label, f in events if not label]
    readings: list[tuple[str, list[float]]] = []
    for label, f in events:
        if label:
            if not readings or readings[-1][0] != label:
                readings.append((label, []))
            readings[-1][1].append(f)
    return progress, readings


def _estimate(
    path: Path, capacity_bps: float | None, warmup_s: float, buffer_bytes: float
) -> tuple[TraceEstimates, list[tuple[str, float]]]:
    """The estimates, and every progress ("" label) and later reading's call in order."""
    events: list[tuple[str, float]] = []
    est = estimate_trace(
        open_trace(path),
        capacity_bps=capacity_bps,
        warmup_s=warmup_s,
        buffer_bytes=buffer_bytes,
        progress=lambda f: events.append(("", f)),
        stage=lambda label, f: events.append((label, f)),
    )
    return est, events


def test_the_reading_for_this_link_s_queue_reports_how_far_it_got(tmp_path: Path) -> None:
    """004 §VII's mix on a 10 Mbit/s link (4 LBP flows, 80 %, 60 s, seed 1), C and B given.
    LBP flow 0 (true RTT 221.7 ms) has a first-round spacing of 403.5 ms and no drop lag, so
    the file is read once more for the RBP flows' paced arrivals. That reading says what it
    is and how far it got, from 0 to the whole file, while the progress (the file read once)
    stays at 1; before, it ran with the job at 100 % and no word of it. The wait it finds
    takes flow 0 to 215.8 ms (the median correction alone: 187.6 ms, 34 ms off), within
    [21]'s max(10 %, 5 ms) of its RTT (measured when this test was written)."""
    sc, buffer, sim, path = slow_mix_csv(4, 0.8, seed=1, tmp_path=tmp_path)
    est, events = _estimate(path, SLOW_CAPACITY_BPS, sc.warmup_s, buffer * sc.wire_bytes)
    progress, readings = _readings(events)
    assert [label for label, _ in readings] == ["second reading for this link's queue"]
    shares = readings[0][1]
    assert shares[0] == 0.0 and shares[-1] == 1.0 and shares == sorted(shares)
    first = next(k for k, (label, _) in enumerate(events) if label)
    assert all(f == 1.0 for label, f in events[first:] if not label)
    assert progress == sorted(progress) and progress[-1] == 1.0
    assert any("paced arrivals" in note for note in est.notes)
    (row,) = [f for f in est.flow_table if f.key == "0"]
    truth = float(sim.rtts_s[0])
    assert row.rtt_source == "first_round"
    assert abs(row.rtt_s - truth) <= max(0.1 * truth, 0.005)


def test_a_slow_link_without_capacity_is_read_three_times_in_order(tmp_path: Path) -> None:
    """The same trace and buffer, C not given: the first reading estimates C (the busiest
    second's rate, about 10 Mbit/s: a 1552-byte packet takes 1.24 ms there, over the 1 ms
    first-flight gap), the second reads the file with it, and the third is the reading for
    this link's queue, which needs C (estimate_trace). Progress never goes back and ends at
    1; each later reading says which it is, in that order, each from 0 to the whole file; and
    flow 0's RTT is as with C given, within max(10 %, 5 ms) of its truth."""
    sc, buffer, sim, path = slow_mix_csv(4, 0.8, seed=1, tmp_path=tmp_path)
    est, events = _estimate(path, None, sc.warmup_s, buffer * sc.wire_bytes)
    assert est.capacity_source == "estimated"
    progress, readings = _readings(events)
    assert [label for label, _ in readings] == [
        f"second reading at the estimated rate ({est.capacity_bps / 1e6:.4g} Mbit/s)",
        "third reading for this link's queue",
    ]
    for _, shares in readings:
        assert shares[0] == 0.0 and shares[-1] == 1.0 and shares == sorted(shares)
    first = next(k for k, (label, _) in enumerate(events) if label)
    assert all(f == 1.0 for label, f in events[first:] if not label)
    assert progress == sorted(progress) and progress[-1] == 1.0
    (row,) = [f for f in est.flow_table if f.key == "0"]
    truth = float(sim.rtts_s[0])
    assert abs(row.rtt_s - truth) <= max(0.1 * truth, 0.005)
