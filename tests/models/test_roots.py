"""The bisection root against SciPy's brentq (the solver it replaces on the engine's path)."""

import math

import pytest
from scipy import optimize

from models import processor_sharing
from models.roots import bracketed_root
from models.tcp_queue import tcp_mm1b_fixed_point


@pytest.mark.parametrize(
    ("f", "lo", "hi"),
    [
        (lambda x: x**3 - 2.0, 0.0, 2.0),
        (lambda x: math.exp(-x) - 0.25, 1e-9, 30.0),
        (lambda x: math.log(x) + 20.0, 1e-12, 1.0),
        (lambda x: 0.5 - x, 0.0, 1.0),
    ],
)
def test_root_agrees_with_brentq(f, lo, hi) -> None:  # type: ignore[no-untyped-def]
    # Both stop within xtol + rtol·|x| of the root: they agree to twice that.
    xtol, rtol = 1e-13, 1e-12
    ours = bracketed_root(f, lo, hi, xtol=xtol, rtol=rtol)
    theirs = optimize.brentq(f, lo, hi, xtol=xtol, rtol=rtol)
    assert abs(ours - theirs) <= 2.0 * (xtol + rtol * abs(theirs))


def test_no_bracket_is_a_fault_not_a_bad_input() -> None:
    from models.errors import ParameterError

    with pytest.raises(ValueError, match="must differ in sign") as info:
        bracketed_root(lambda x: x + 1.0, 0.0, 1.0, xtol=1e-12, rtol=1e-12)
    assert not isinstance(info.value, ParameterError)


@pytest.mark.parametrize("buffer_packets", [1.0, 5.0, 15.0, 40.0])
def test_tcp_fixed_point_is_brentqs_root(buffer_packets: float) -> None:
    # 000 §3.6 with the thesis's link (10 Gb/s, 100 ms, W = 64 packets of 1000 B) and 3000
    # flows, loss-limited at small buffers: the load solves rho = N·R(p(rho))/C as brentq finds it.
    fp = tcp_mm1b_fixed_point(3000, 64, 10e9, 0.1, buffer_packets, 1000.0)

    def excess(rho: float) -> float:
        from models.queues import mm1b_loss_scalar

        p = mm1b_loss_scalar(rho, buffer_packets)
        rate = 64 / 0.1 if p <= 0.0 else min(64 / 0.1, math.sqrt(1.5 / p) / 0.1)
        return rho - 3000 * rate / fp.capacity_pps

    lo = fp.peak_load * 1e-12
    if excess(fp.peak_load) <= 0.0:
        assert fp.load == fp.peak_load
        return
    root = optimize.brentq(excess, lo, fp.peak_load, xtol=lo, rtol=1e-13)
    assert fp.load == pytest.approx(root, rel=3e-13, abs=2.0 * lo)


@pytest.mark.parametrize("peak", [0.2, 0.05, 5.12e-4, 1e-6])
def test_transparency_limit_is_brentqs_root(peak: float) -> None:
    # 003 §3.3: the load at which flows keep half their peak rate, as brentq finds it.
    prof = processor_sharing._profile(peak, None)

    def excess(rho: float) -> float:
        return processor_sharing._gamma(processor_sharing._sums(rho, prof)) / peak - 0.5

    root = optimize.brentq(excess, 1e-9, 1.0 - 1e-12, xtol=1e-13, rtol=1e-12)
    ours = processor_sharing.ps_transparency_limit_load(peak, 0.5)
    assert ours == pytest.approx(root, rel=2e-12, abs=2e-13)


def test_root_of_a_step_is_found_by_the_bisection_safeguard() -> None:
    # A discontinuous f (a step at 0.3): the chord's estimates alone crawl towards the step,
    # the bisection safeguard halves the bracket at least every second step.
    calls = []

    def step(x: float) -> float:
        calls.append(x)
        return -1.0 if x < 0.3 else 1e9

    x = bracketed_root(step, 0.0, 1.0, xtol=1e-12, rtol=0.0)
    assert abs(x - 0.3) <= 1e-12
    assert len(calls) <= 2 * 41 + 2  # two evaluations per halving of 1 down to 1e-12
