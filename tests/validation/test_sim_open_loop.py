"""Open-loop mode against the queueing formulas of ``models.queues`` (issue 4 checks).

Poisson arrivals of fixed-size packets at a drop-tail port of B packets (the one in
transmission included) is the M/D/1/B queue; with exponential sizes it is M/M/1/B
(000 eq. 3.3: p = ρ^B(1−ρ)/(1−ρ^(B+1))). The simulated loss must fall inside the 99%
confidence interval of independent replications (Student t over replications, fixed seeds).
"""

from __future__ import annotations

import pytest

from models.queues import md1b_queue, mm1b_loss_probability
from tests.validation.hosts import classic_scenario
from validation.simulator import replicate

# Loads 0.5-1.1 and several B; pairs where the loss is below ~1e-3 are left out because a
# run of 50,000 packets would see only a handful of drops (the CI would be too coarse).
POINTS = [
    (0.5, 2),
    (0.5, 5),
    (0.8, 2),
    (0.8, 5),
    (0.8, 10),
    (0.95, 5),
    (0.95, 10),
    (0.95, 20),
    (1.1, 5),
    (1.1, 10),
    (1.1, 20),
]


def _run(load: float, buffer_packets: int, sizes: str, seed: int) -> tuple[float, float, float]:
    # 10 Mb/s of 1000-byte packets: 1250 packets/s; 40 s is ~50,000 arrivals per replication.
    sc = classic_scenario(
        traffic="open_loop",
        capacity_bps=10e6,
        open_loop_load=load,
        open_loop_sizes=sizes,  # type: ignore[arg-type]
        duration_s=41.0,
        warmup_s=1.0,
    )
    rep = replicate(sc, buffer_packets, replications=8, seed=seed)
    est = rep["loss_rate"]
    return est.mean, est.low, est.high


@pytest.mark.parametrize(("load", "buffer_packets"), POINTS)
def test_poisson_fixed_sizes_match_md1b(load: float, buffer_packets: int) -> None:
    expected = float(md1b_queue(load, buffer_packets).loss_probability)
    mean, low, high = _run(load, buffer_packets, "fixed", seed=100 + buffer_packets)
    assert low <= expected <= high, (mean, expected)


@pytest.mark.parametrize(("load", "buffer_packets"), POINTS)
def test_poisson_exponential_sizes_match_mm1b(load: float, buffer_packets: int) -> None:
    expected = float(mm1b_loss_probability(load, buffer_packets))
    mean, low, high = _run(load, buffer_packets, "exponential", seed=200 + buffer_packets)
    assert low <= expected <= high, (mean, expected)


def test_periodic_arrivals_below_capacity_never_drop() -> None:
    # D/D/1: packets arriving every 1/ρ transmission times, ρ < 1, never find the port busy.
    sc = classic_scenario(
        traffic="open_loop",
        open_loop_arrivals="periodic",
        open_loop_load=0.9,
        duration_s=5.0,
        warmup_s=1.0,
    )
    r = replicate(sc, 1, replications=2, seed=1)
    assert r["loss_rate"].mean == 0.0
    assert r["utilization"].mean == pytest.approx(0.9, rel=1e-3)
