"""Link operating regimes of statistical bandwidth sharing: transparent, elastic, overload."""

from __future__ import annotations

import math
from dataclasses import dataclass

from models import checks
from models.processor_sharing import (
    ps_saturation_probability,
    ps_throughput_ratio,
    ps_transparency_limit_load,
)
from models.queues import transparent_buffer_packets

TRANSPARENT = "transparent"
ELASTIC = "elastic"
OVERLOAD = "overload"


@dataclass(frozen=True)
class RegimeAssessment:
    """Which bandwidth-sharing regime a link is in, and what that means for its buffer.

    Attributes
    ----------
    regime : str
        ``"transparent"``, ``"elastic"`` or ``"overload"``.
    reason : str
        Why the link was put in this regime (numbers included).
    sizing_rule : str
        The buffer-sizing rule that applies in this regime.
    warning : str or None
        What can go wrong with that rule here.
    throughput_ratio : float or None
        Expected throughput ``γ`` of the peak-rate-limited flows as a fraction of the link
        capacity (PS model), ``None`` in overload.
    saturation_probability : float or None
        Probability that the flows' peak rates add up to the capacity left by the background
        load (PS model), ``None`` in overload.
    buffer_packets : int or None
        Transparent regime only: ``⌈ln ε / ln ρ⌉`` packets for the target loss ``ε``.
    """

    regime: str
    reason: str
    sizing_rule: str
    warning: str | None
    throughput_ratio: float | None = None
    saturation_probability: float | None = None
    buffer_packets: int | None = None


def _overload(rho: float) -> RegimeAssessment:
    return RegimeAssessment(
        regime=OVERLOAD,
        reason=f"offered load ρ = {rho:.3g} ≥ 1: more traffic arrives than the link can carry",
        sizing_rule=(
            "No buffer size fixes overload: add capacity, move traffic (traffic engineering) or "
            "apply admission/overload control; size the buffer once the load is below 1 "
            "(003 §3.3; 002 §III.C)."
        ),
        warning=(
            "In overload the number of flows in progress grows without bound and their "
            "throughput tends to zero; a larger buffer only adds delay. Near overload "
            "(ρ close to 1) the number of bottlenecked flows already grows rapidly."
        ),
    )


def _elastic_rule(residual: float) -> str:
    return (
        "Size for the bottlenecked flows: the buffer must grow with the residual "
        f"bandwidth-delay product (C·RTT × {residual:.3g} here) — roughly its square root in "
        "packets for a few bottlenecked flows (003 §5.1, §6 item 2), the full residual "
        "C·RTT for 100% utilization by a single flow, BSCL (004) or C·RTT/√N for many "
        "desynchronized bottlenecked flows."
    )


_ELASTIC_WARNING = (
    "A small buffer (tens of packets) overflows before a bottlenecked TCP window can grow: "
    "one Reno flow got only about 40% of the residual bandwidth with 20 packets in 002 §IV.B. "
    "A large buffer adds queueing delay for the other traffic. Pacing (003 §5.3) or per-flow "
    "fair queueing (002 §V.B) reduce the buffer needed."
)


def classify_regime(
    load: float,
    *,
    peak_rate_fraction: float | None = None,
    background_load: float = 0.0,
    max_loss: float = 0.01,
    max_peak_fraction: float = 0.1,
    throughput_fraction: float = 0.5,
    max_saturation_probability: float = 0.05,
) -> RegimeAssessment:
    """Classify a link as transparent, elastic or overloaded, with its sizing rule and warning.

    Parameters
    ----------
    load : float
        Total offered load ``ρ`` (dimensionless: flow arrival rate × mean size / capacity),
        ``> 0``; ``ρ >= 1`` is overload.
    peak_rate_fraction : float, optional
        ``p/C``: the highest exogenous peak rate of the flows (e.g. their access rate) as a
        fraction of the link capacity, ``> 0``. ``None`` (unknown) is treated as unlimited,
        the conservative choice.
    background_load : float, optional
        Part of ``load`` carried by low-peak-rate flows that are never bottlenecked here
        (``ρ_b``, in ``[0, load]``), default 0.
    max_loss : float, optional
        Target loss ``ε`` for the transparent-regime buffer, in ``(0, 1)``; default 0.01.
    max_peak_fraction : float, optional
        Largest peak rate, as a fraction of the residual capacity ``C(1 − ρ_b)``, for which
        the transparent (Poisson) sizing is trusted; in ``(0, 1]``, default 0.1 (003 §4.2,
        §6 item 3: "e.g., 1/10").
    throughput_fraction : float, optional
        Transparent while the flows get at least this fraction of their peak rate on average
        (``γ >= throughput_fraction · p``), in ``(0, 1)``; default 0.5, which puts the limit
        near ``1 − p/C`` as 003 §3.3 reads Fig. 1.
    max_saturation_probability : float, optional
        Transparent only while the flows' peak rates add up to the residual capacity at most
        this fraction of the time (PS model), in ``(0, 1]``; default 0.05, our reading of
        "with high probability" (003 §4) and "rarely saturated" (003 §6 item 3).

    Returns
    -------
    RegimeAssessment
        Regime, reason, sizing rule and warning, with the PS throughput ratio, the saturation
        probability and (transparent regime) the ``ρ^B < ε`` buffer.

    Notes
    -----
    Decision (002 §III.C, 003 §3.3 and §6):

    1. ``ρ >= 1``: overload.
    2. Otherwise the potentially bottlenecked flows carry ``ρ_r = (ρ − ρ_b)/(1 − ρ_b)`` of the
       residual capacity with peak ``a_r = (p/C)/(1 − ρ_b)`` of it. If ``a_r >= 1`` a single
       flow can fill the residual capacity: elastic (003 §6 item 2).
    3. If ``a_r <= max_peak_fraction``, the PS model with ``φ(i) = min(i·a_r, 1)`` keeps
       ``γ >= throughput_fraction · a_r`` at ``ρ_r`` (the link is transparent to throughput,
       003 §3.3 Fig. 1) and the peak rates add up to the residual capacity with probability
       at most ``max_saturation_probability`` ("the sum of flow peak rates is, with high
       probability, less than link capacity", 003 §4): transparent, sized by ``ρ^B < ε``
       (003 §4.2). Otherwise elastic; the reason gives the saturation probability. (At
       ρ = 0.92 with p = 0.1·C the link is saturated 73% of the time: elastic.)

    Peak rates and φ are fractions of the residual capacity ``C(1 − ρ_b)``, 003's unit: the
    caller gives ``p/C`` and the function converts (``a_r = (p/C)/(1 − ρ_b)``).

    Assumptions:

    - flow-level processor sharing (Poisson flow arrivals, fair sharing, insensitivity);
    - the peak-rate-limited flows all have the same peak rate ``p``;
    - the background of low-rate flows behaves as Poisson packet arrivals;
    - in the transparent regime, packet arrivals are locally Poisson and the M/M/1 bound
      ``ρ^B`` gives the loss.

    References
    ----------
    .. [1] J. Augé, J. Roberts, "Buffer sizing for elastic traffic", NGI 2006 (seed
       ``002_e29b74a3ab8ed403.txt``), §III.C (Fig. 1), §IV.A-B.
    .. [2] J. Augé, J. Roberts, "A statistical bandwidth sharing perspective on buffer sizing"
       (seed ``003_04878e78c5c6bb91.txt``), §3.3, §4.2, §5, §6.
    """
    rho = float(checks.positive("load", load))
    rho_b = float(checks.in_range("background_load", background_load, 0.0, rho))
    eps = float(checks.probability("max_loss", max_loss))
    gate = float(
        checks.in_range("max_peak_fraction", max_peak_fraction, 0.0, 1.0, low_inclusive=False)
    )
    frac = float(checks.probability("throughput_fraction", throughput_fraction))
    max_sat = float(
        checks.in_range(
            "max_saturation_probability",
            max_saturation_probability,
            0.0,
            1.0,
            low_inclusive=False,
        )
    )
    if peak_rate_fraction is None:
        a = math.inf
    else:
        a = float(checks.positive("peak_rate_fraction", peak_rate_fraction))

    if rho >= 1.0:
        return _overload(rho)

    residual = 1.0 - rho_b
    rho_r = (rho - rho_b) / residual
    a_r = a / residual
    peak_text = "unknown (treated as unlimited)" if math.isinf(a) else f"{a:.3g}·C"
    near_overload = (
        f" The load {rho:.3g} is close to 1: the number of bottlenecked flows grows rapidly."
        if rho > 0.9
        else ""
    )

    if rho_r <= 0.0:
        gamma_c, sat = min(a, 1.0), 0.0
    elif a_r >= 1.0:
        gamma_c, sat = (1.0 - rho_r) * residual, rho_r
    else:
        gamma_c = float(ps_throughput_ratio(rho_r, peak_rate_fraction=a_r)) * residual
        sat = ps_saturation_probability(rho_r, a_r)

    if a_r >= 1.0 and rho_r > 0.0:
        return RegimeAssessment(
            regime=ELASTIC,
            reason=(
                f"flow peak rate {peak_text} can fill the residual capacity "
                f"C·(1 − ρ_b) = {residual:.3g}·C on its own: the flows in progress "
                f"(load {rho - rho_b:.3g}) are bottlenecked here a fraction {sat:.2g} of the time"
            ),
            sizing_rule=_elastic_rule(residual),
            warning=_ELASTIC_WARNING + near_overload,
            throughput_ratio=gamma_c,
            saturation_probability=sat,
        )

    limit = ps_transparency_limit_load(a_r, frac) if rho_r > 0.0 else 1.0
    if a_r <= gate and rho_r <= limit and sat <= max_sat:
        b = int(transparent_buffer_packets(rho, eps))
        warning = (
            "Valid only while flow peak rates stay a small fraction of the link rate and "
            "packets arrive Poisson-like (paced by slower access links); flows with a high "
            "access rate make the link elastic, and then this small buffer leaves them well "
            "below their fair share (002 §IV.B)."
        )
        return RegimeAssessment(
            regime=TRANSPARENT,
            reason=(
                f"peak rate {peak_text} is {a_r:.3g} of the residual capacity (at most "
                f"{gate:.3g}) and the flows keep {gamma_c / (a_r * residual):.0%} of it on "
                f"average at load {rho:.3g} (transparent up to about "
                f"{rho_b + limit * residual:.3g}); their peak rates add up to the residual "
                f"capacity only {sat:.2%} of the time (probability {sat:.2g}, at most "
                f"{max_sat:.0%})"
            ),
            sizing_rule=(
                f"M/M/1 rule ρ^B < ε (003 §4.2): B = ⌈ln ε / ln ρ⌉ = {b} packets for "
                f"ε = {eps:g} at ρ = {rho:.3g} (e.g. 20 packets keep loss below 1% up to 79% "
                "load)."
            ),
            warning=warning + near_overload,
            throughput_ratio=gamma_c,
            saturation_probability=sat,
            buffer_packets=b,
        )

    if a_r <= gate and rho_r <= limit:
        why = (
            f"peak rate {peak_text} is {a_r:.3g} of the residual capacity, but at load "
            f"{rho:.3g} the flows' peak rates add up to the residual capacity {sat:.0%} of the "
            f"time (PS model), more than {max_sat:.0%}: the link is not transparent (003 §4 "
            "needs the sum of peak rates below C with high probability)"
        )
    elif a_r > gate:
        why = (
            f"flow peak rate {peak_text} is {a_r:.3g} of the residual capacity, above "
            f"{gate:.3g}: a few such flows together saturate the link"
        )
    else:
        why = (
            f"at load {rho:.3g} the flows get only {gamma_c / (a_r * residual):.0%} of their "
            f"peak rate {peak_text} on average (transparent only up to about "
            f"{rho_b + limit * residual:.3g})"
        )
    return RegimeAssessment(
        regime=ELASTIC,
        reason=why + f"; the link is saturated {sat:.0%} of the time (probability {sat:.2g})",
        sizing_rule=_elastic_rule(residual),
        warning=_ELASTIC_WARNING + near_overload,
        throughput_ratio=gamma_c,
        saturation_probability=sat,
    )
