"""Checking a recommendation by simulation: the scaling rule and an end-to-end verification."""

from __future__ import annotations

import math

import pytest

from models.recommend import LinkScenario, Targets, recommend
from validation.verify import (
    ACCESS_FAST_FACTOR,
    MAX_SIMULATED_PPS,
    MIN_SCALED_FLOWS,
    plan,
    scale_link,
    senders_text,
    slow_label,
    verify,
)


def test_scaling_keeps_the_per_flow_rate_and_the_load() -> None:
    # README example: 10 Gb/s, 1000 B packets = 1.25 M packets/s -> k = 50,000 / 1.25 M = 0.04.
    link = LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=1000, packet_bytes=1000)
    s = scale_link(link, "sqrt_n")
    assert s.factor == pytest.approx(MAX_SIMULATED_PPS / 1.25e6)
    assert s.flows == 40 and s.capacity_bps == pytest.approx(400e6)
    assert s.capacity_bps / s.flows == pytest.approx(link.capacity_bps / link.flows)
    assert s.buffer_exponent == 0.5 and s.faithful
    # A link small enough is simulated as it is.
    small = LinkScenario(capacity_bps=100e6, rtts_s=(0.1,), flows=40, packet_bytes=1000)
    assert scale_link(small, "rule_of_thumb").factor == 1.0


def test_scaling_refuses_what_it_cannot_keep() -> None:
    # 100 flows at 100 Gb/s: k = 50,000 / 8.3 M = 0.006 leaves 1 flow < 20.
    link = LinkScenario(capacity_bps=100e9, rtts_s=(0.05,), flows=100)
    s = scale_link(link, "bscl")
    assert not s.faithful and f"fewer than {MIN_SCALED_FLOWS}" in s.reason
    # Access-paced traffic under a rule that rests on the spacing C/access.
    paced = LinkScenario(capacity_bps=10e9, rtts_s=(0.1,), flows=5000, access_bps=10e6)
    s = scale_link(paced, "paced")
    assert not s.faithful and "spacing" in s.reason
    rec = recommend(link)
    out = verify(link, rec)
    assert out.verdict == "not reproducible here" and not out.sizes
    assert out.reason.startswith("cannot be scaled faithfully")


@pytest.mark.slow
def test_verification_of_a_small_link_reports_each_size() -> None:
    # A 10 Mb/s link with 10 Reno flows (000 Fig. 3.1's per-flow rate at a tenth of the scale).
    link = LinkScenario(
        capacity_bps=10e6, rtts_s=(0.1,), flows=10, packet_bytes=1000, congestion_control="reno"
    )
    targets = Targets()
    rec = recommend(link, targets)
    # No extra batch (max_replications = replications): every size runs the same two seeds.
    out = verify(link, rec, targets, replications=2, max_replications=2, seed=3, workers=2)
    assert out.max_replications == 2
    assert [c.label for c in out.sizes] == ["half", "recommended", "double"]
    half, main, double = out.sizes
    assert main.buffer_packets == rec.recommended.buffer_packets
    assert half.buffer_packets == max(main.buffer_packets // 2, 1)
    assert double.buffer_packets == 2 * main.buffer_packets
    assert out.scaling.factor == 1.0 and main.simulated_buffer_packets == main.buffer_packets
    for c in out.sizes:
        assert 0.0 < c.utilization <= 1.0 and 0.0 <= c.loss_rate < 1.0
        # The queueing delay can never exceed a full buffer at line rate (plus one packet).
        assert c.queue_delay_p99_s <= c.buffer_packets * 8000 / 10e6 + 8000 / 10e6
        assert c.verdict in ("met", "missed", "undecided") and c.reason
        assert c.prediction in ("within", "conservative", "optimistic")
        assert c.replications == 2
    # Metamorphic: double the buffer loses no more than half of it (same seeds).
    assert double.loss_rate <= half.loss_rate
    # The access rate is not given: every size is simulated at both ends, each with its
    # verdict; the headline is the worst target outcome at the recommended size at either end.
    assert [c.label for c in out.slow_sizes] == [slow_label(c.label) for c in out.sizes]
    assert [c.buffer_packets for c in out.slow_sizes] == [c.buffer_packets for c in out.sizes]
    assert all(c.access_bps == 10e6 for c in out.slow_sizes)  # the port's rate (10 flows)
    assert all(c.access_bps == ACCESS_FAST_FACTOR * 10e6 for c in out.sizes)
    slow = out.slow("recommended")
    assert slow is not None
    order = ("missed", "undecided", "met")
    assert out.verdict == min(main.verdict, slow.verdict, key=order.index)
    data = out.to_dict()
    assert data["sizes"][1]["predicted"]["buffer_packets"] == main.buffer_packets
    assert not any(isinstance(v, float) and math.isnan(v) for v in data["sizes"][0].values())


def test_a_given_size_is_checked_with_its_rule() -> None:
    # ``size=(rule, packets)`` replaces the recommended size (what ``bufsize trace --verify``
    # checks: the trace's BSCL size): half, it and double it, scaled by the rule's exponent.
    link = LinkScenario(capacity_bps=1e9, rtts_s=(0.1,), flows=200, packet_bytes=1250)
    p = plan(link, None, Targets(max_loss=0.01), replications=2, seed=5, size=("bscl", 3001))
    assert p.rule == "bscl"
    # The access rate is not given: every size is also simulated at the slow end.
    fast = {"half": 1500, "recommended": 3001, "double": 6002}
    assert p.sizes == {**fast, **{slow_label(k): v for k, v in fast.items()}}
    # 1 Gb/s of 1250 B packets = 100,000 packets/s -> k = 50,000 / 100,000 = 0.5 (BSCL: B ∝ k).
    assert p.scaling.factor == pytest.approx(0.5) and p.scaling.buffer_exponent == 1.0
    scaled = {"half": 750, "recommended": 1500, "double": 3001}
    assert p.simulated == {**scaled, **{slow_label(k): v for k, v in scaled.items()}}
    with pytest.raises(ValueError, match="recommendation or a size"):
        plan(link, None)
    with pytest.raises(ValueError, match=">= 1 packet"):
        plan(link, None, size=("bscl", 0))


@pytest.mark.parametrize("cc", ["reno", "cubic", "bbr", "dctcp"])
def test_the_recommendations_congestion_control_is_simulated_or_refused(cc: str) -> None:
    # Issue "The simulator speaks today's TCP", item 6: `recommend --verify` simulates the
    # congestion control the user gave, never silently Reno. A 100 Mb/s link, 40 flows (000
    # Fig. 3.1's link), with each congestion control: either the simulated senders run it, or
    # the verification is "not reproducible here" and names it.
    from validation.simulator.scenario import CC_KINDS
    from validation.verify import simulated_congestion_control

    link = LinkScenario(
        capacity_bps=100e6, rtts_s=(0.1,), flows=40, packet_bytes=1000, congestion_control=cc
    )
    p = plan(link, recommend(link), replications=2, seed=1)
    if cc in CC_KINDS:
        assert p.scenario is not None and p.scenario.congestion_control == cc
        if cc == "dctcp":
            # K = C·RTT/7 = (100 Mb/s · 0.1 s / 8,000 bits per 1000-B packet)/7 = 1,250/7 = 178.6
            # -> 179 packets (Alizadeh et al. §3.4), k = 1.
            assert p.scenario.ecn_threshold_packets == 179
    else:
        assert p.scenario is None
        out = p.unfaithful()
        assert out.verdict == "not reproducible here" and not out.sizes
        assert out.reason.startswith("not simulated: ") and cc in out.reason.lower()
        assert simulated_congestion_control(link)[0] is None


def test_cubic_is_simulated_as_cubic_not_reno() -> None:
    link = LinkScenario(
        capacity_bps=100e6, rtts_s=(0.1,), flows=40, packet_bytes=1000, congestion_control="cubic"
    )
    p = plan(link, recommend(link), replications=2, seed=1)
    assert p.scenario is not None and p.scenario.congestion_control == "cubic"
    assert p.congestion_control_given
    reno = LinkScenario(
        capacity_bps=100e6, rtts_s=(0.1,), flows=40, packet_bytes=1000, congestion_control="reno"
    )
    p_reno = plan(reno, recommend(reno), replications=2, seed=1)
    assert p_reno.scenario is not None and p_reno.scenario.congestion_control == "reno"


def test_a_congestion_control_not_given_is_simulated_as_the_candidate_sized_for() -> None:
    # Not given, it is an unknown: a GEO link's 8 flows get Reno's 2,500 packets (CUBIC's
    # 1,072 is the what-if), and the check simulates Reno senders and says why.
    link = LinkScenario(capacity_bps=50e6, rtts_s=(0.6,), flows=8)
    assert link.congestion_control is None
    rec = recommend(link)
    assert rec.inputs.congestion_control == "reno" and rec.recommended.buffer_packets == 2500
    p = plan(link, rec, replications=2, seed=1)
    assert p.scenario is not None and p.scenario.congestion_control == "reno"
    assert not p.congestion_control_given
    text = senders_text(p.link, p.congestion_control_given)
    assert text.startswith("reno, the candidate the recommended size is for")
    assert "not given" in text


@pytest.mark.parametrize("aqm", ["none", "codel", "pie", "dualq"])
def test_the_links_aqm_is_simulated_or_refused(aqm: str) -> None:
    # A recommendation for a port with CoDel (RFC 8289), PIE (RFC 8033) or DualQ (RFC 9332)
    # is checked on a simulated port running that AQM below the buffer, never on a drop-tail
    # one.
    link = LinkScenario(capacity_bps=100e6, rtts_s=(0.1,), flows=40, packet_bytes=1000, aqm=aqm)
    p = plan(link, recommend(link), replications=2, seed=1)
    assert p.scenario is not None and p.scenario.aqm == aqm
    assert p.not_simulated == ""


def test_dualq_is_simulated_with_one_class_and_its_own_times_only() -> None:
    # DCTCP alone goes to DualQ's L4S queue, marked by its 1 ms step (no DCTCP K threshold); DCTCP
    # beside background traffic would be a mix of classes, and other PI2 times than Linux's
    # are not simulated: both are refused by name.
    base = {"capacity_bps": 100e6, "rtts_s": (0.1,), "flows": 40, "packet_bytes": 1000}
    dctcp = LinkScenario(**base, aqm="dualq", congestion_control="dctcp")
    p = plan(dctcp, recommend(dctcp), replications=2, seed=1)
    assert p.scenario is not None and p.scenario.dualq_scalable
    assert p.scenario.ecn_threshold_packets is None
    mixed = LinkScenario(
        **base,
        aqm="dualq",
        congestion_control="dctcp",
        bottlenecked_flows=20,
        bottlenecked_share=0.5,
    )
    p = plan(mixed, recommend(mixed), replications=2, seed=1)
    assert p.scenario is None and "one class of traffic" in p.not_simulated
    slow = LinkScenario(**base, aqm="dualq", aqm_target_s=0.005)
    p = plan(slow, recommend(slow), replications=2, seed=1)
    assert p.scenario is None
    assert "(5 ms and 16 ms)" in p.not_simulated


def test_the_links_aqm_times_are_simulated_or_refused() -> None:
    # The simulated CoDel takes the link's own target and interval; the simulated PIE has
    # RFC 8033's QDELAY_REF and T_UPDATE only, so another PIE target is refused by name.
    base = {"capacity_bps": 100e6, "rtts_s": (0.1,), "flows": 40, "packet_bytes": 1000}
    codel = LinkScenario(**base, aqm="codel", aqm_target_s=0.002, aqm_interval_s=0.05)
    p = plan(codel, recommend(codel), replications=2, seed=1)
    assert p.scenario is not None
    assert (p.scenario.codel_target_s, p.scenario.codel_interval_s) == (0.002, 0.05)
    pie = LinkScenario(**base, aqm="pie", aqm_target_s=0.02)
    p = plan(pie, recommend(pie), replications=2, seed=1)
    assert p.scenario is None
    assert "PIE is simulated with RFC 8033's QDELAY_REF and T_UPDATE" in p.not_simulated
    assert "(20 ms and 15 ms)" in p.not_simulated


def test_a_codel_port_is_checked_with_codel_dropping() -> None:
    # The verification of a CoDel port really runs CoDel: 000 Fig. 3.1's 100 Mb/s link with
    # 40 flows and a one-BDP buffer (1,250 packets of 1000 B at 100 ms). Measured with seed 1:
    # the same check on a drop-tail port gives a mean queueing delay of 99.9 ms at that size,
    # with CoDel 7.2 ms (its 5 ms target plus the dropping state's excess, as in
    # tests/validation/test_sim_aqm.py); under 25 ms can only come from the AQM.
    link = LinkScenario(capacity_bps=100e6, rtts_s=(0.1,), flows=40, packet_bytes=1000, aqm="codel")
    checked = verify(link, None, Targets(), replications=2, seed=1, size=("bdp", 1250))
    assert checked.scenario is not None and checked.scenario["aqm"] == "codel"
    recommended = next(size for size in checked.sizes if size.label == "recommended")
    assert recommended.queue_delay_mean_s < 0.025


@pytest.mark.slow
def test_bscl_at_3000_reno_flows_makes_no_loss_claim_the_simulation_contradicts() -> None:
    # Issue 27: 1 Gbit/s, 180 ms, N_b = 3000 Reno flows carrying 90 %, loss target 1 %: BSCL
    # gives 12,600 packets (004 eq. 23), and the simulator loses several percent there; the
    # check printed "agrees" on 5.6 % ± 6.8 %. Scaled by 0.6 (1800 flows at 600 Mb/s), three
    # runs per size (and no extra batch, to keep the test short). Measured with seed 1: 4.7 %
    # mean loss at the recommended size (upper 99 % bound 7.4 %, 9 runs), so "met" would be a
    # false claim; with three runs the verdict may be missed or undecided, never met.
    link = LinkScenario(
        capacity_bps=1e9,
        rtts_s=(0.18,),
        flows=3000,
        packet_bytes=1500,
        bottlenecked_flows=3000,
        bottlenecked_share=0.9,
        congestion_control="reno",
    )
    targets = Targets(max_loss=0.01)
    rec = recommend(link, targets)
    assert rec.recommended.rule == "bscl" and rec.recommended.buffer_packets == 12_600
    out = verify(link, rec, targets, replications=3, max_replications=3, seed=1, workers=2)
    main = next(c for c in out.sizes if c.label == "recommended")
    loss = next(t for t in main.targets if t.name == "loss")
    # The loss is judged although BSCL's own prediction passes it, and not passed: the mean is
    # more than twice the target (measured 4.7 %), far outside what sampling alone explains.
    assert loss.estimate > 0.02 and loss.outcome != "met"
    assert out.verdict in ("missed", "undecided")
    assert "agrees" not in out.reason


@pytest.mark.slow
def test_a_one_flow_uplink_is_simulated_behind_a_stated_access_rate_and_queues() -> None:
    # Issue 27: a one-flow 35 Mb/s uplink with no access rate given was simulated behind an
    # access link at the port's own rate, so the port never queued and half the size, the size
    # and double it all showed 100 %. The access rate is now an assumption the check states:
    # 10 x the port for every size, and every size again at the slow end, twice the
    # port for one flow (at the port's rate it would never queue).
    # CUBIC senders, as measured (not given, the engine would size for Reno's whole BDP).
    link = LinkScenario(capacity_bps=35e6, rtts_s=(0.04,), flows=1, congestion_control="cubic")
    rec = recommend(link)
    p = plan(link, rec, replications=3, seed=1)
    assert p.access is not None and not p.access.given
    assert p.scenario is not None and p.scenario.access_bps == ACCESS_FAST_FACTOR * 35e6
    assert p.slow_scenario is not None and p.slow_scenario.access_bps == 2 * 35e6
    assert "access rate not given" in p.access.reason and "70 Mb/s" in p.access.reason
    checked = verify(link, rec, replications=3, max_replications=3, seed=1, workers=2)
    # Measured with seed 1 (50 packets recommended): half 96.95 % with a mean queue of 3.2 ms,
    # the recommended size 99.92 % and 9.4 ms, the slow end 9.6 ms. The port queues, and half
    # the size costs utilization, as on the real uplink.
    half = checked.sizes[0]
    assert half.label == "half" and half.utilization < 0.99
    assert all(c.queue_delay_mean_s > 1e-3 for c in checked.sizes)
    assert len(checked.slow_sizes) == 3
    assert all(c.queue_delay_mean_s > 1e-3 for c in checked.slow_sizes)
    assert "Senders' access: access rate not given" in checked.reason
    # The old assumption, the port's own rate, as an explicit access rate: nothing ever queues
    # (mean queue below a microsecond) and every size shows 100 %: the check could not tell.
    at_port_rate = LinkScenario(
        capacity_bps=35e6, rtts_s=(0.04,), flows=1, access_bps=35e6, congestion_control="cubic"
    )
    flat = verify(at_port_rate, rec, replications=2, max_replications=2, seed=1, workers=2)
    assert all(c.queue_delay_mean_s < 1e-6 and c.utilization > 0.999 for c in flat.sizes)
    assert flat.slow_sizes == [] and flat.access is not None and flat.access.given


@pytest.mark.slow
def test_many_bbr_flows_the_simulator_backs_the_bbr_rule_and_its_loss_warning() -> None:
    # Issue 27: 100 BBR flows at 400 Mbit/s, 60 ms. The engine's BBR rule gives 0.25·C·T_e =
    # 500 packets and warns that these senders' loss does not fall with the buffer. Measured
    # with seed 1, 3 runs (studies/results/sim_loss_at_rule_sizes.md): 99.2 % ± 2.0 %
    # utilization, 6.7 % ± 2.0 % loss at 500 packets. The 99 % bounds then sit far from both
    # targets (utilization's lower bound near 97 % against 90 %, loss's lower bound near 4.7 %
    # against 1 %): utilization is met and loss missed, and the headline says so.
    link = LinkScenario(
        capacity_bps=400e6, rtts_s=(0.06,), flows=100, congestion_control="bbr", access_bps=4e9
    )
    rec = recommend(link)
    assert rec.recommended.rule == "bbr" and rec.recommended.buffer_packets == 500
    assert any(w.startswith("BBR senders") for w in rec.warnings)
    out = verify(link, rec, replications=3, max_replications=3, seed=1, workers=2)
    main = next(c for c in out.sizes if c.label == "recommended")
    outcome = {t.name: t.outcome for t in main.targets}
    assert outcome["utilization"] == "met" and outcome["loss"] == "missed"
    assert main.loss_rate > 0.03
    assert out.verdict == "missed"


def test_the_check_lists_what_it_cannot_represent() -> None:
    # A GEO link, 600 ms: 50 Mb/s of 1500 B is 4,167 packets/s, so the measurement lasts
    # min(20 s, 2e6/4,167 = 480 s) = 20 s, 20/0.6 = 33 round trips: fewer than 100.
    geo = LinkScenario(capacity_bps=50e6, rtts_s=(0.6,), flows=8, congestion_control="cubic")
    p = plan(geo, recommend(geo), replications=2, seed=1)
    assert any("only 33 round trips" in item for item in p.not_represented)
    # The thesis link is scaled (k = 0.04: 40 flows for 1,000), and a given load is not
    # simulated (the flows run persistent), nor is an input-queued switch.
    core = LinkScenario(
        capacity_bps=10e9,
        rtts_s=(0.1,),
        flows=1000,
        packet_bytes=1000,
        load=0.6,
        input_queued=True,
        congestion_control="reno",
    )
    items = plan(core, recommend(core), replications=2, seed=1).not_represented
    assert any("40 simulated flows stand for 1,000" in item for item in items)
    assert any("offered load ρ = 0.6 is not simulated" in item for item in items)
    assert any("CIOQ" in item for item in items)
    # A small link measured over many RTTs, as given: nothing to list.
    small = LinkScenario(capacity_bps=10e6, rtts_s=(0.05,), flows=10, congestion_control="reno")
    assert plan(small, recommend(small), replications=2, seed=1).not_represented == ()
