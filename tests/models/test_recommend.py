"""Tests of the recommendation engine (models.recommend)."""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.bscl import bscl_buffer
from models.recommend import (
    LinkScenario,
    Prediction,
    Recommendation,
    Targets,
    predict,
    recommend,
    traffic_model,
)
from models.recommend.engine import _recommend
from models.recommend.performance import sawtooth_utilization, window_loss_rate
from models.recommend.rules import smallest_integer
from models.recommend.search import FALSE, OPEN, TRUE, smallest_integer_batched
from models.tcp_queue import tcp_mm1b_fixed_point


def _rule(rec: Recommendation, rule: str):  # type: ignore[no-untyped-def]
    return next(r for r in rec.rules if r.rule == rule)


# The thesis example: 000 §3.2, "1000 flows share a link of capacity 10 Gb/s. Assume that each
# flow has an RTT of 100ms, a maximum window size of 64 KB, and a packet size of 1 KB."
THESIS = LinkScenario(
    capacity_bps=10e9, rtts_s=(0.1,), flows=1000, packet_bytes=1000.0, max_window_packets=64
)


def test_thesis_example_every_rule() -> None:
    rec = recommend(THESIS)
    # 000 §3.2: "The bandwidth-delay product rule-of-thumb suggests a buffer size of 125MB, or
    # around 125,000 packets." 10e9 b/s × 0.1 s / 8000 b = 125,000 exactly.
    rot = _rule(rec, "rule_of_thumb")
    assert rot.buffer_packets == 125_000
    assert rot.buffer_bytes == 125e6
    assert rot.buffer_s == pytest.approx(0.1)
    # "The 2T×C/√N rule suggests a buffer size of around 3950 packets": 125000/√1000 = 3952.8,
    # rounded up to whole packets; the paper rounds to the nearest 50.
    sqrt_n = _rule(rec, "sqrt_n")
    assert sqrt_n.buffer_packets is not None and abs(sqrt_n.buffer_packets - 3950) <= 25
    # "Our analysis suggests a buffer size of twelve packets plus some small additive constant";
    # 000 §3.3 gives 15 packets for W = 64, ρ = 0.5, θ = 90%. Here ρ = 0.512 and θ = 0.9.
    tiny = _rule(rec, "tiny_buffers")
    assert tiny.buffer_packets is not None and 12 <= tiny.buffer_packets <= 15
    # The peak load N·W/(C·RTT) = 1000·64/125000 = 0.512 < 1: the flows are window-limited, so
    # the congestion-limited rules' assumption fails.
    assert rec.inputs.window_limited_load == pytest.approx(0.512)
    assert rot.status == "fails" and sqrt_n.status == "fails"
    assert tiny.status == "unknown"
    # Pacing/access rate is not given: that assumption is unknown, not silently assumed.
    paced = [a for a in tiny.assumptions if "paced" in a.text]
    assert [a.status for a in paced] == ["unknown"]
    # ... so the recommendation does not rest on it. 000 §3.4: "When we run simulations without
    # using Paced TCP, we can not obtain reasonable link utilizations with log-sized buffers,
    # even in the over-provisioned case"; the size falls back to sqrt(N), 3,953 packets, and
    # what_if shows the tiny size (15 packets) if the user confirms pacing.
    assert rec.recommended.rule == "sqrt_n"
    assert rec.recommended.buffer_packets == sqrt_n.buffer_packets == 3953
    assert "window-limited" in rec.recommended.reason
    assert "paced senders or access links much slower" in rec.recommended.reason
    (tiny_if,) = [w for w in rec.what_if if w.rule == "tiny_buffers"]
    assert tiny_if.input == "paced"
    assert tiny_if.buffer_packets == tiny.buffer_packets == 15
    for r in rec.rules:
        assert r.assumptions, r.rule
        for a in r.assumptions:
            assert a.status in ("holds", "fails", "unknown") and a.reason


def test_paced_senders_make_tiny_buffers_hold() -> None:
    scenario = LinkScenario(
        capacity_bps=10e9,
        rtts_s=(0.1,),
        flows=1000,
        packet_bytes=1000.0,
        max_window_packets=64,
        access_bps=100e6,
    )
    rec = recommend(scenario)
    tiny = _rule(rec, "tiny_buffers")
    # S = 10 Gb/s / 100 Mb/s = 100 >= 4·log2(64) = 24: access links slow enough.
    assert tiny.status == "holds"
    assert rec.recommended.rule == "tiny_buffers"
    assert any(r.rule == "paced" for r in rec.rules)


def test_few_flows_pick_the_rule_of_thumb() -> None:
    # 2 long-lived Reno flows, 1 Gb/s, 50 ms, 1500 B: BDP = 1e9·0.05/(8·1500) = 4166.7 packets.
    scenario = LinkScenario(capacity_bps=1e9, rtts_s=(0.05,), flows=2, congestion_control="reno")
    rec = recommend(scenario)
    assert rec.recommended.rule == "rule_of_thumb"
    assert rec.recommended.buffer_packets == 4167
    assert _rule(rec, "rule_of_thumb").status in ("holds", "unknown")
    # q = 1 (synchronized): the sawtooth model reaches full utilization exactly at the BDP.
    assert rec.recommended.predicted.utilization == pytest.approx(1.0)


def test_few_cubic_flows_use_the_beta_rule() -> None:
    # RFC 9438: B = C·RTT·(1−β)/β with β = 0.7 -> 0.4286 of the BDP (check value, CUBIC:
    # 0.43×); 4166.7 × 3/7 = 1785.7 packets.
    scenario = LinkScenario(capacity_bps=1e9, rtts_s=(0.05,), flows=1, congestion_control="cubic")
    rec = recommend(scenario)
    assert rec.recommended.rule == "md_beta"
    assert rec.recommended.buffer_packets == 1786
    assert _rule(rec, "rule_of_thumb").status == "fails"  # Reno assumption fails for CUBIC


def test_congested_link_with_many_bottlenecked_flows_picks_bscl() -> None:
    # 004 §VII's kind of link: 50 Mb/s, heterogeneous RTTs, 200 LBP flows carrying 90%.
    rtts = tuple(np.linspace(0.02, 0.53, 20))
    scenario = LinkScenario(
        capacity_bps=50e6,
        rtts_s=rtts,
        flows=260,
        packet_bytes=1500.0,
        bottlenecked_flows=200,
        bottlenecked_share=0.9,
        congestion_control="reno",
    )
    rec = recommend(scenario, Targets(min_utilization=0.98, max_loss=0.01))
    assert rec.recommended.rule == "bscl"
    bscl = _rule(rec, "bscl")
    assert bscl.status == "unknown"  # α is 004's simulation value, not measured here
    # The recommended size is BSCL's (possibly raised, never lowered).
    assert bscl.buffer_packets is not None
    assert rec.recommended.buffer_packets >= bscl.buffer_packets
    # Independent check of the size: K_p(1%) = 0.87/√0.01 = 8.7 packets per flow (004 eq. 22);
    # with 200 flows B_p = 8.7·200 − C_e·T_e/M dominates (004: "for larger N_b, the buffer
    # requirement is determined by the maximum loss rate constraint").
    t_e = len(rtts) / sum(1.0 / t for t in rtts)
    b_p = 8.7 * 200 - 0.9 * 50e6 * t_e / (8 * 1500)
    assert bscl.buffer_packets_exact == pytest.approx(b_p, rel=1e-9)
    assert rec.feasible and rec.recommended.predicted.meets_loss


def test_many_flows_without_nb_pick_sqrt_n() -> None:
    scenario = LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=10_000)
    rec = recommend(scenario)
    assert rec.recommended.rule == "sqrt_n"
    # Appenzeller's bound at B = C·RTT/√N: erf(3√3/(2√2)) ≈ 0.989 (000 §2.2.2, docs/references.md).
    assert rec.recommended.predicted.utilization >= 0.989 * (1 - 1e-3)


def test_delay_bound_that_cannot_be_met_is_a_trade_off() -> None:
    # 004 §V: with many bottlenecked flows the loss constraint needs B_p, which exceeds C·d̂
    # for a small d̂; "the operator would have to choose".
    scenario = LinkScenario(
        capacity_bps=100e6,
        rtts_s=(0.1,),
        flows=500,
        bottlenecked_flows=500,
        congestion_control="reno",
    )
    targets = Targets(max_loss=0.01, max_queueing_delay_s=0.01)
    rec = recommend(scenario, targets)
    assert not rec.feasible
    assert rec.trade_off is not None
    assert rec.trade_off.conflict == "utilization and loss vs delay"
    at_cap, at_need = rec.trade_off.alternatives
    assert at_cap.meets_delay and not at_cap.meets_loss
    assert at_need.meets_loss and at_need.meets_utilization and not at_need.meets_delay
    # Default priority keeps utilization and loss (004 §V).
    assert rec.recommended.buffer_packets == at_need.buffer_packets
    assert not rec.recommended.predicted.meets_delay
    # Priority "delay" takes the other side of the same trade-off.
    rec_d = recommend(scenario, Targets(max_queueing_delay_s=0.01, priority="delay"))
    assert rec_d.recommended.buffer_packets == at_cap.buffer_packets
    # C·d̂ = 100e6·0.01/12000 = 83.3 -> at most 83 whole packets.
    assert rec_d.recommended.buffer_packets == 83
    assert rec_d.recommended.predicted.meets_delay


def test_delay_bound_that_can_be_met_caps_the_rule() -> None:
    # 2 Reno flows at 1 Gb/s, 50 ms: the rule of thumb (4167 pkts = 50 ms) exceeds a 40 ms bound,
    # but the sawtooth model still gives >= 90% there (q = 1, B = 0.8·BDP), so the rule is
    # capped at C·d̂ = 3333 packets and every target is met.
    scenario = LinkScenario(capacity_bps=1e9, rtts_s=(0.05,), flows=2, congestion_control="reno")
    rec = recommend(scenario, Targets(max_queueing_delay_s=0.04))
    assert rec.feasible
    assert rec.recommended.buffer_packets == 3333
    p = rec.recommended.predicted
    assert p.meets_delay and p.meets_utilization
    # N_b not given: the loss of the two flows is not guessed (issue: unknowns stay unknown).
    assert p.loss_probability is None and p.meets_loss is None


def test_optical_buffers_are_capped_and_designed() -> None:
    scenario = LinkScenario(
        capacity_bps=10e9,
        rtts_s=(0.1,),
        flows=1000,
        packet_bytes=1000.0,
        max_window_packets=64,
        medium="optical",
        # 100 Mb/s access links: S = 100 >= 4·log2(64) = 24, the spacing tiny buffers need.
        access_bps=100e6,
    )
    rec = recommend(scenario)
    assert rec.recommended.rule == "tiny_buffers"
    assert rec.recommended.buffer_packets == 15
    assert rec.optical is not None
    # 15 packets -> N = 16 (smallest power of two with N − 1 >= 15): 2·log2(16) − 1 = 7 delay
    # lines for K = 1 (000 Thm 6 / docs/references.md).
    assert rec.optical.delay_lines == 7
    # Without the access rate (or pacing) the tiny size is not assumed (000 §3.4): sqrt(N)'s
    # 3,953 packets are capped at the optical limit of 50, N = 64: 2·log2(64) − 1 = 11 lines.
    unspaced = recommend(replace(scenario, access_bps=None))
    assert unspaced.recommended.buffer_packets == 50
    assert unspaced.optical is not None and unspaced.optical.delay_lines == 11
    assert unspaced.trade_off is not None and "optical" in unspaced.trade_off.conflict
    rot = _rule(rec, "rule_of_thumb")
    assert any(a.status == "fails" and "optical" in a.text for a in rot.assumptions)
    # A congested optical link cannot hold what utilization and loss need: a trade-off.
    congested = LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=3, medium="optical")
    rec_c = recommend(congested)
    assert rec_c.recommended.buffer_packets == 50
    assert rec_c.trade_off is not None and "optical" in rec_c.trade_off.conflict


def test_transparent_regime_uses_rho_b() -> None:
    # Load 0.5 of flows whose peak rate is 1% of C: ρ^B <= 1% needs ⌈ln 0.01/ln 0.5⌉ =
    # ⌈6.64⌉ = 7 packets (003 §4.2; computed by hand).
    scenario = LinkScenario(
        capacity_bps=10e9, rtts_s=(0.05,), flows=5000, load=0.5, peak_rate_bps=100e6
    )
    rec = recommend(scenario)
    assert rec.regime.regime == "transparent"
    assert rec.recommended.rule == "transparent"
    assert rec.recommended.buffer_packets == 7


def test_to_dict_is_json() -> None:
    rec = recommend(THESIS, Targets(max_queueing_delay_s=0.001))
    data = rec.to_dict()
    text = json.dumps(data, allow_nan=False)
    back = json.loads(text)
    assert back["recommended"]["rule"] == "sqrt_n"  # pacing unknown: not tiny buffers
    assert [w["rule"] for w in back["what_if"]] == ["tiny_buffers"]
    assert {r["rule"] for r in back["rules"]} >= {"rule_of_thumb", "sqrt_n", "tiny_buffers"}
    assert len(back["curves"]["buffer_packets"]) == len(back["curves"]["loss_probability"])


# --- the traffic models --------------------------------------------------------------------


def test_sawtooth_single_flow_without_buffer_is_75_percent() -> None:
    # 001 slides, "TCP with no buffers: Utilization of bottleneck link = 75%"; 002 §IV: "A single
    # bottlenecked TCP flow on an empty link with a buffer of only 1 packet should acquire a
    # throughput of 75% of the link capacity". Continuous fluid model: exact 3/4 at B = 0.
    assert float(sawtooth_utilization(0.0, 1000.0)[()]) == pytest.approx(0.75)
    # Full utilization at B = BDP (000 §2.1) ...
    assert float(sawtooth_utilization(1000.0, 1000.0)[()]) == pytest.approx(1.0)
    # ... and not before.
    assert float(sawtooth_utilization(990.0, 1000.0)[()]) < 1.0


def test_sawtooth_full_at_bscl_b_rho() -> None:
    # With partial synchronization the model's full-utilization point is 004 eq. 16's B_ρ,
    # computed by the BSCL module (independent code).
    res = bscl_buffer(100e6, 1.0, 50, 1500.0, 0.01, effective_rtt_s=0.2)
    b_rho = float(res.b_rho_bytes) / 1500.0
    bdp = 100e6 * 0.2 / 12000.0
    q = float(res.loss_sync_q)
    assert float(sawtooth_utilization(b_rho, bdp, 0.5, q, 50)[()]) == pytest.approx(1.0)
    assert float(sawtooth_utilization(0.97 * b_rho, bdp, 0.5, q, 50)[()]) < 1.0


def test_window_loss_rate_inverts_b_p() -> None:
    # B_p = K_p·N_b − C_e·T_e (004 eq. 23) is where the Mathis loss equals p̂.
    res = bscl_buffer(100e6, 1.0, 400, 1500.0, 0.01, effective_rtt_s=0.1)
    b_p = float(res.b_p_bytes) / 1500.0
    bdp = 100e6 * 0.1 / 12000.0
    assert float(window_loss_rate(b_p, bdp, 400)[()]) == pytest.approx(0.01)


@given(
    q=st.floats(0.05, 1.0),
    beta=st.sampled_from([0.5, 0.7]),
    n_b=st.integers(1, 500),
    bdp=st.floats(10.0, 1e6),
)
@settings(max_examples=60, deadline=None)
def test_sawtooth_never_falls_with_more_buffer(q: float, beta: float, n_b: int, bdp: float) -> None:
    b = np.logspace(-1, math.log10(4 * bdp), 200)
    u = sawtooth_utilization(b, bdp, beta, q, n_b)
    assert np.all(np.diff(u) >= -1e-12)
    assert np.all((u > 0) & (u <= 1))


def test_sawtooth_with_astronomical_windows_keeps_its_shape() -> None:
    # The window model squares W_max = P + B, which overflowed for P near 1e200. It is a ratio
    # of quadratics, so the 000 §2.1 / 001 check values hold at any scale: 3/4 without a
    # buffer (001: "Utilization of bottleneck link = 75%") and 1 at B = P.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(sawtooth_utilization(0.0, 1e200)[()]) == pytest.approx(0.75, rel=1e-12)
        assert float(sawtooth_utilization(1e200, 1e200)[()]) == pytest.approx(1.0)
        assert float(sawtooth_utilization(1e300, 1e300)[()]) == pytest.approx(1.0)
        # More flows than packets in flight: the Mathis loss is capped at 1 without overflow.
        assert float(window_loss_rate(0.0, 1e-300, 1e300)[()]) == 1.0


@given(
    b=st.one_of(st.just(0.0), st.floats(-300.0, 300.0).map(lambda x: 10.0**x)),
    bdp=st.floats(-300.0, 300.0).map(lambda x: 10.0**x),
    beta=st.floats(0.01, 0.99),
    q=st.one_of(st.just(1.0), st.floats(-300.0, 0.0).map(lambda x: 10.0**x)),
    n_b=st.floats(0.0, 300.0).map(lambda x: 10.0**x),
)
@settings(max_examples=100, deadline=None)
def test_traffic_models_warn_nothing_over_wide_inputs(
    b: float, bdp: float, beta: float, q: float, n_b: float
) -> None:
    # Buffers and pipes from 1e-300 to 1e300 packets, q down to 1e-300, N_b up to 1e300: no
    # overflow, division or invalid-value warning; utilization in [0, 1], loss in (0, 1].
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        u = float(sawtooth_utilization(b, bdp, beta, q, n_b)[()])
        loss = float(window_loss_rate(b, bdp, n_b)[()])
    assert 0.0 <= u <= 1.0
    assert 0.0 <= loss <= 1.0


# --- consistency of the engine with its own curves -------------------------------------------

scenarios = st.builds(
    LinkScenario,
    capacity_bps=st.sampled_from([1e8, 1e9, 1e10, 4e10]),
    rtts_s=st.lists(st.floats(0.005, 0.3), min_size=1, max_size=4).map(tuple),
    flows=st.integers(1, 20_000),
    packet_bytes=st.sampled_from([576.0, 1000.0, 1500.0, 9000.0]),
    max_window_packets=st.one_of(st.none(), st.floats(2.0, 2000.0)),
    access_bps=st.one_of(st.none(), st.sampled_from([1e7, 1e8, 1e9])),
    paced=st.booleans(),
    congestion_control=st.sampled_from(["reno", "cubic"]),
)
targets = st.builds(
    Targets,
    min_utilization=st.floats(0.5, 0.99),
    max_loss=st.floats(1e-4, 0.05),
    max_queueing_delay_s=st.one_of(st.none(), st.floats(1e-4, 0.2)),
    priority=st.sampled_from(["throughput", "delay"]),
)


@given(scenario=scenarios, target=targets)
@settings(max_examples=40, deadline=None)
def test_recommendation_meets_what_it_claims(scenario: LinkScenario, target: Targets) -> None:
    rec = recommend(scenario, target)
    best = rec.recommended
    model = traffic_model(scenario, target)
    # The claims are the model's own predictions at the recommended size.
    again = predict(model, target, best.buffer_packets)
    assert again == best.predicted
    if rec.feasible:
        assert rec.trade_off is None
        # Every target the user gave is met (a loss the inputs do not decide is None); a
        # default target may be left unmet only at the default one-RTT cap.
        at_default_cap = best.buffer_packets == math.ceil(rec.inputs.bdp_packets - 1e-9)
        for check in best.targets_met:
            if check.source == "user" or not at_default_cap:
                assert check.met is not False, check
    else:
        assert rec.trade_off is not None and rec.trade_off.explanation
    # The smallest size meeting utilization and loss is minimal.
    need = best.minimum_meeting_targets_packets
    if need is not None:
        p = predict(model, target, need)
        assert p.meets_utilization and p.meets_loss is not False
        if need > 1:
            q = predict(model, target, need - 1)
            assert not (q.meets_utilization and q.meets_loss is not False)
    # Curves: log-spaced from 1 packet to beyond the BDP; monotone.
    c = rec.curves
    b = np.asarray(c.buffer_packets)
    assert b[0] == pytest.approx(1.0) and b[-1] > rec.inputs.bdp_packets
    assert np.all(np.diff(b) > 0)
    assert np.all(np.diff(np.asarray(c.utilization)) >= -1e-12)
    if None in c.loss_probability:  # N_b not given: the loss curve is undecided throughout
        assert set(c.loss_probability) == {None}
    else:
        assert np.all(np.diff(np.asarray(c.loss_probability, dtype=float)) <= 1e-12)
    assert np.all(np.diff(np.asarray(c.queueing_delay_s)) > 0)
    # The curve agrees with the prediction at the recommended size (monotone between points).
    i = int(np.searchsorted(b, best.buffer_packets))
    if i < b.size:
        curve_loss, best_loss = c.loss_probability[i], best.predicted.loss_probability
        if curve_loss is not None and best_loss is not None:
            assert curve_loss <= best_loss + 1e-12
        assert c.utilization[i] >= best.predicted.utilization - 1e-12


# --- batched search and predictions: same answers as one size at a time ---------------------


@given(
    upper=st.integers(1, 1 << 40),
    threshold=st.integers(1, 1 << 41),
    noise=st.integers(0, 2**32 - 1),
    open_share=st.sampled_from([0.0, 0.3, 1.0]),
    depth=st.integers(1, 6),
)
@settings(max_examples=200, deadline=None)
def test_batched_search_walks_the_same_steps(
    upper: int, threshold: int, noise: int, open_share: float, depth: int
) -> None:
    # The engine's batched search must return what the plain doubling-then-bisection search
    # returns, step for step, even for a condition that is not monotone (a few sizes flipped
    # at random) and whatever share of the sizes the cheap verdict leaves open.
    def truth(b: int) -> bool:
        flipped = hash((noise, b)) % 97 == 0
        return (b >= threshold) != flipped

    def decide(sizes: np.ndarray) -> np.ndarray:
        out = []
        for b in sizes.astype(int).tolist():
            left_open = (hash((noise, b, 7)) % 1000) < open_share * 1000
            out.append(OPEN if left_open else (TRUE if truth(b) else FALSE))
        return np.asarray(out, dtype=np.int8)

    expected = smallest_integer(truth, upper)
    assert smallest_integer_batched(decide, upper, settle=truth, depth=depth) == expected


def _one_size_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Swap the engine's batched searches and predictions for the plain ones."""
    import models.recommend.predictions as predictions
    import models.recommend.rules as rules

    def sequential(decide, upper, settle=None, depth=0, doublings=0):  # type: ignore[no-untyped-def]
        def ok(b: int) -> bool:
            verdict = int(decide(np.asarray([float(b)]))[0])
            return bool(settle(b)) if verdict == OPEN else verdict == TRUE  # type: ignore[misc]

        return smallest_integer(ok, upper)

    def one_by_one(model, targets, sizes):  # type: ignore[no-untyped-def]
        return [predict_at_one_size(model, targets, b) for b in sizes]

    def predict_at_one_size(model, targets, b):  # type: ignore[no-untyped-def]
        x = np.asarray([float(b)])
        u = float(model.utilization(x)[0])
        nu = float(model.normalized_utilization(x)[0])
        loss = float(model.loss_probability(x)[0])
        delay = float(model.queueing_delay_s(x)[0])
        d_max = targets.max_queueing_delay_s
        known = not math.isnan(loss)  # N_b not given: the loss is left undecided
        return Prediction(
            buffer_packets=float(b),
            utilization=u,
            normalized_utilization=nu,
            loss_probability=loss if known else None,
            queueing_delay_s=delay,
            meets_utilization=nu >= targets.min_utilization * (1.0 - 1e-9),
            meets_loss=loss <= targets.max_loss * (1.0 + 1e-9) if known else None,
            meets_delay=delay <= d_max * (1.0 + 1e-9),
        )

    monkeypatch.setattr(predictions, "smallest_integer_batched", sequential)
    monkeypatch.setattr(rules, "smallest_integer_batched", sequential)
    monkeypatch.setattr(predictions, "predict_many", one_by_one)

    # The paced rule's cheap verdicts are swapped for the full bound at every step.
    def full_bound_only(ctx, w, access, theta):  # type: ignore[no-untyped-def]
        return lambda sizes: np.full(sizes.shape, OPEN, dtype=np.int8)

    monkeypatch.setattr(rules, "_paced_verdicts", full_bound_only)


PACED_THESIS = LinkScenario(
    capacity_bps=10e9,
    rtts_s=(0.1,),
    flows=1000,
    packet_bytes=1000.0,
    max_window_packets=64,
    access_bps=100e6,
    paced=True,
)
BSCL_LINK = LinkScenario(
    capacity_bps=50e6,
    rtts_s=tuple(float(x) for x in np.linspace(0.02, 0.53, 20)),
    flows=260,
    bottlenecked_flows=200,
    bottlenecked_share=0.9,
    congestion_control="reno",
)
TRANSPARENT_LINK = LinkScenario(
    capacity_bps=10e9, rtts_s=(0.05,), flows=5000, load=0.5, peak_rate_bps=100e6
)


@pytest.mark.parametrize(
    ("scenario", "targets"),
    [
        (THESIS, Targets()),
        (THESIS, Targets(max_queueing_delay_s=0.001)),
        (PACED_THESIS, Targets()),
        (BSCL_LINK, Targets(min_utilization=0.98, max_loss=0.01)),
        (TRANSPARENT_LINK, Targets()),
        (LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=10_000), Targets()),
    ],
)
def test_batched_engine_gives_the_one_size_at_a_time_answer(
    monkeypatch: pytest.MonkeyPatch, scenario: LinkScenario, targets: Targets
) -> None:
    fast = recommend(scenario, targets).to_dict()
    _one_size_at_a_time(monkeypatch)
    slow = recommend(scenario, targets).to_dict()
    assert fast == slow  # every number, string and flag, exactly
    rules = {r["rule"]: r for r in fast["rules"]}
    # The papers' numbers still come out: 000 §1.3/§3.2 on the thesis link ("125,000
    # packets", "around 3950 packets", 15 packets for W = 64, ρ = 0.5, θ = 90%); 003 §4.2
    # on the transparent link (⌈ln 0.01/ln 0.5⌉ = 7 packets, by hand).
    if scenario in (THESIS, PACED_THESIS):
        assert rules["rule_of_thumb"]["buffer_packets"] == 125_000
        assert abs(rules["sqrt_n"]["buffer_packets"] - 3950) <= 25
        assert 12 <= rules["tiny_buffers"]["buffer_packets"] <= 15
    if scenario is TRANSPARENT_LINK:
        assert fast["recommended"]["buffer_packets"] == 7
    if scenario is BSCL_LINK:
        # 004 eq. 23: B_p = K_p·N_b − C_e·T_e with K_p = 0.87/√0.01 = 8.7 packets.
        t_e = 20 / sum(1.0 / t for t in scenario.rtts_s)
        b_p = 8.7 * 200 - 0.9 * 50e6 * t_e / (8 * 1500)
        assert rules["bscl"]["buffer_packets_exact"] == pytest.approx(b_p, rel=1e-9)


# --- invalid input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"capacity_bps": 0.0}, "capacity_bps"),
        ({"capacity_bps": -1e9}, "capacity_bps"),
        ({"capacity_bps": math.nan}, "capacity_bps"),
        ({"rtts_s": ()}, "rtts_s"),
        ({"rtts_s": (0.1, math.inf)}, "rtts_s"),
        ({"flows": 0}, "flows"),
        ({"bottlenecked_flows": 0}, "bottlenecked_flows"),
        ({"bottlenecked_flows": 2000}, "bottlenecked_flows"),
        ({"bottlenecked_share": 1.5}, "bottlenecked_share"),
        ({"max_window_packets": 0.5}, "max_window_packets"),
        ({"congestion_control": "vegas"}, "congestion_control"),
        ({"medium": "quantum"}, "medium"),
        ({"load": -0.1}, "load"),
    ],
)
def test_invalid_scenario_names_the_parameter(kwargs: dict[str, object], name: str) -> None:
    base: dict[str, object] = {"capacity_bps": 1e9, "rtts_s": (0.1,), "flows": 1000}
    base.update(kwargs)
    with pytest.raises(ValueError, match=name):
        LinkScenario(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"min_utilization": 1.0}, "min_utilization"),
        ({"min_utilization": 0.0}, "min_utilization"),
        ({"max_loss": 1.5}, "max_loss"),
        ({"max_loss": math.nan}, "max_loss"),
        ({"max_queueing_delay_s": 0.0}, "max_queueing_delay_s"),
        ({"priority": "cost"}, "priority"),
    ],
)
def test_invalid_targets_name_the_parameter(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Targets(**kwargs)  # type: ignore[arg-type]


def test_congestion_control_not_given_is_unknown_and_sized_for_reno_and_cubic() -> None:
    # 3 flows at 1 Gb/s, 50 ms: the single-flow rule. Reno: C·T = 1e9·0.05/12,000 = 4,166.7
    # -> 4,167 packets (000 §2.1); CUBIC: 4,166.7·0.3/0.7 = 1,785.7 -> 1,786 (RFC 9438 §4.6).
    rec = recommend(LinkScenario(capacity_bps=1e9, rtts_s=(0.05,), flows=3))
    assert rec.inputs.congestion_control_given is False
    assert rec.inputs.congestion_control == "reno"
    assert rec.recommended.buffer_packets == 4167
    # Never a verified assumption: the senders' assumptions are unknown, not holding.
    reno = _rule(rec, "rule_of_thumb")
    senders = next(a for a in reno.assumptions if "Reno" in a.text)
    assert senders.status == "unknown" and "not given" in senders.reason
    assert "senders halve their window" in rec.recommended.reason
    # Both sizes are stated, CUBIC's row is listed, and what_if gives CUBIC's answer.
    assert "Reno 4,167 packets; CUBIC 1,786 packets" in rec.warnings[0]
    assert _rule(rec, "md_beta").buffer_packets == 1786
    cubic = next(w for w in rec.what_if if w.input == "congestion_control")
    assert cubic.buffer_packets == 1786
    # Given, it is a verified input again.
    given = recommend(
        LinkScenario(capacity_bps=1e9, rtts_s=(0.05,), flows=3, congestion_control="reno")
    )
    assert given.inputs.congestion_control_given is True
    assert given.recommended.buffer_packets == 4167
    assert not any("not given" in w for w in given.warnings)


def test_congestion_control_not_given_where_it_does_not_matter() -> None:
    # sqrt(N) on the thesis link (000 §2.2.2) does not depend on β: 1,250 packets under a 1 ms
    # delay bound either way; no what-if for the senders, the reason says so.
    rec = recommend(THESIS, Targets(max_queueing_delay_s=0.001))
    assert rec.recommended.buffer_packets == 1250
    assert "which get the same size here (1,250 packets)" in rec.recommended.reason
    assert all(w.input != "congestion_control" for w in rec.what_if)


def test_congestion_control_not_given_answers_with_the_chosen_candidates_own_curves() -> None:
    # Both candidates are sized, and only the chosen one is given curves and what-ifs: they
    # must be the ones a whole run for that candidate gives. Reno is chosen on both links
    # (4,167 packets against CUBIC's 1,786 at 3 flows; the same size on the thesis link, and
    # Reno's on a tie).
    for scenario in (LinkScenario(capacity_bps=1e9, rtts_s=(0.05,), flows=3), THESIS):
        rec = recommend(scenario)
        assert rec.inputs.congestion_control == "reno"
        whole = _recommend(
            scenario.with_congestion_control("reno"), Targets(), congestion_control_given=False
        )
        assert rec.curves == whole.curves
        assert rec.inputs == whole.inputs
        assert [w for w in rec.what_if if w.input != "congestion_control"] == list(whole.what_if)


def test_shared_bscl_and_fixed_point_answers_follow_their_arguments() -> None:
    # BSCL and the TCP + M/M/1/B fixed point are computed once for both congestion-control
    # candidates: a later request with another loss target, RTT or utilization target must
    # not get the earlier answer. Each size is compared with the model called directly.
    link = LinkScenario(
        capacity_bps=1e9,
        rtts_s=(0.05,),
        flows=400,
        bottlenecked_flows=200,
        max_window_packets=64,
        packet_bytes=1000.0,
    )
    for scenario, targets in (
        (link, Targets(max_loss=0.01)),
        (link, Targets(max_loss=0.001)),
        (replace(link, rtts_s=(0.02,)), Targets(max_loss=0.01)),
        (link, Targets(max_loss=0.01, min_utilization=0.5)),
    ):
        rec = recommend(scenario, targets)
        rtt = scenario.rtts_s[0]
        direct = bscl_buffer(1e9, 1.0, 200, 1000.0, targets.max_loss, effective_rtt_s=rtt)
        assert _rule(rec, "bscl").buffer_packets == math.ceil(float(direct.buffer_packets))
        theta = targets.min_utilization or 0.9
        fixed = _rule(rec, "tcp_mm1b").buffer_packets
        assert fixed is not None
        reaches = [
            tcp_mm1b_fixed_point(400, 64, 1e9, rtt, float(b), 1000.0).load
            for b in (fixed - 1, fixed)
        ]
        peak = min(1.0, 400 * 64 / (1e9 / 8000 * rtt))
        assert reaches[0] < theta * peak <= reaches[1] * (1 + 1e-9)


def test_with_congestion_control_checks_the_new_value_and_keeps_the_rest() -> None:
    cubic = THESIS.with_congestion_control("cubic")
    assert cubic.congestion_control == "cubic" and THESIS.congestion_control is None
    assert replace(cubic, congestion_control=None) == THESIS
    with pytest.raises(ValueError, match="congestion_control must be one of"):
        THESIS.with_congestion_control("vegas")  # type: ignore[arg-type]
