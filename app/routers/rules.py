"""``/v1/rules``: closed-form buffer-sizing rules (rule of thumb, sqrt(N), tiny buffers, BSCL)."""

from __future__ import annotations

import math

from fastapi import APIRouter

from app.errors import finite_result
from app.schemas.common import buffer_size_fields
from app.schemas.rules import (
    BdpRequest,
    BdpResponse,
    BsclRequest,
    BsclResponse,
    SqrtNRequest,
    SqrtNResponse,
    TinyRequest,
    TinyResponse,
)
from models.bscl import bscl_buffer
from models.rule_of_thumb import harmonic_mean_rtt_s, md_beta_buffer_packets
from models.sqrt_n import sqrt_n_buffer_packets, sqrt_n_utilization_lower_bound
from models.tiny_buffers import tiny_buffer_packets

router = APIRouter(prefix="/rules", tags=["rules"])


@router.post(
    "/bdp",
    summary="Rule of thumb: one bandwidth-delay product",
    description="B = C·RTT (000 §2.1 eq. 2.1), or B = C·RTT·(1−β)/β for a congestion control "
    "with multiplicative decrease β (RFC 9438); several RTTs enter through their harmonic mean "
    "(004 eqs. 11-12).",
)
async def bdp(body: BdpRequest) -> BdpResponse:
    rtt_s = body.rtt_s if body.rtts_s is None else harmonic_mean_rtt_s(body.rtts_s)
    assert rtt_s is not None  # the request schema requires rtt_s or rtts_s
    packets = float(
        md_beta_buffer_packets(body.capacity_bps, rtt_s, body.packet_bytes, body.md_beta)
    )
    return BdpResponse(
        **buffer_size_fields(packets, body.packet_bytes, body.capacity_bps),
        effective_rtt_s=rtt_s,
    )


@router.post(
    "/sqrt-n",
    summary="sqrt(N) rule for many desynchronized flows",
    description="B = C·RTT/√N (000 §2.2.2 eq. 2.2) and the utilization lower bound "
    "U ≥ erf(3√3/(2√2)·B/(C·RTT/√N)) at that buffer (Appenzeller et al., SIGCOMM 2004).",
)
async def sqrt_n(body: SqrtNRequest) -> SqrtNResponse:
    packets = float(
        sqrt_n_buffer_packets(body.capacity_bps, body.rtt_s, body.flows, body.packet_bytes)
    )
    utilization = float(
        sqrt_n_utilization_lower_bound(
            packets, body.capacity_bps, body.rtt_s, body.flows, body.packet_bytes
        )
    )
    return SqrtNResponse(
        **buffer_size_fields(packets, body.packet_bytes, body.capacity_bps),
        effective_rtt_s=body.rtt_s,
        utilization_lower_bound=utilization,
    )


@router.post(
    "/tiny",
    summary="Tiny buffers: O(log W) packets for smooth traffic",
    description="B ≥ log_{1/ρ}(W²/(2(1−θ))) (000 §3.3 Thm 1, App. A eq. A.13), for locally "
    "Poisson (paced) sources on an over-provisioned link, ρ < 1.",
)
async def tiny(body: TinyRequest) -> TinyResponse:
    exact = finite_result(
        float(tiny_buffer_packets(body.max_window_packets, body.load, body.min_utilization)),
        "load",
        "too close to 1: the bound log_{1/ρ}(W²/(2(1−θ))) is not finite",
    )
    packets = math.ceil(exact)
    seconds = None
    if body.capacity_bps is not None:
        seconds = 8.0 * packets * body.packet_bytes / body.capacity_bps
    return TinyResponse(
        buffer_packets=packets,
        buffer_packets_exact=exact,
        buffer_bytes=packets * body.packet_bytes,
        buffer_s=seconds,
    )


@router.post(
    "/bscl",
    summary="BSCL: buffer for a congested link",
    description="B = max{B_ρ, B_p} (004 Fig. 4, eqs. 13-26): the utilization term with partial "
    "loss synchronization, the loss-rate term K_p·N_b·M − C_e·T_e, and the delay check B ≤ C·d̂.",
)
async def bscl(body: BsclRequest) -> BsclResponse:
    result = bscl_buffer(
        body.capacity_bps,
        body.bottlenecked_share,
        body.bottlenecked_flows,
        body.packet_bytes,
        body.max_loss,
        effective_rtt_s=body.effective_rtt_s,
        rtts_s=body.rtts_s,
        sync_factor=body.sync_factor,
        max_queueing_delay_s=body.max_queueing_delay_s,
    )
    return BsclResponse(
        **buffer_size_fields(float(result.buffer_packets), body.packet_bytes, body.capacity_bps),
        b_rho_bytes=float(result.b_rho_bytes),
        b_p_bytes=float(result.b_p_bytes),
        governing_constraint=str(result.governing_constraint),
        crossover_flows=float(result.crossover_flows),
        delay_feasible=None if result.delay_feasible is None else bool(result.delay_feasible),
        min_feasible_delay_s=float(result.min_feasible_delay_s),
        effective_rtt_s=float(result.effective_rtt_s),
        loss_sync_q=float(result.loss_sync_q),
        kp_packets=float(result.kp_packets),
        few_flows_correction=bool(result.few_flows_correction),
    )
