"""The loss law of 004, fitted to this project's simulated Reno and CUBIC senders; BBR
senders' simulated utilization (:func:`bbr_utilization`).

BSCL's loss term (004 §IV eqs. 18-23) rests on the Mathis law: N_b flows sharing a window of
``P + B`` packets (P = C_e·T_e) each hold ``w = (P + B)/N_b`` and lose ``p = (0.87/w)²``
(004 eq. 2). 004 calibrated it on ns-2 Reno. This project's packet simulator
(``validation/simulator``) loses more at the same window: measured at BSCL's own size for a 1 %
target on 004's kind of congested link (1 Gbit/s, 180 ms, the N_b flows carrying 90 %), by
``studies/sim_loss_at_rule_sizes.py --part bscl`` (seed 1, 3 runs each; the table is in
``studies/results/sim_loss_at_rule_sizes.md``; lost retransmissions resent by RACK, RFC 8985
§6.2, as Linux does; before RACK they waited for the retransmission timer, and the losses
were within 0.03 points of these).

Each measurement (w, p) gives the constant ``c = √p · w`` of the law ``p = (c/w)²``; between
the measured windows c is interpolated linearly in ln w. The fit holds only in that range of
windows (8.7 to 56 packets per flow) and on that kind of link; outside it, :func:`fitted_loss`
and :func:`fitted_window` answer None and the engine says the size is for the simulator to find.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt

#: (N_b, window per flow w = (C_e·T_e + B)/N_b in packets, simulated loss p) at BSCL's size
#: for a 1 % target, 1 Gbit/s, 180 ms, the N_b flows carrying 90 % (C_e·T_e = 13,500 packets;
#: BSCL gives 12,600, 2,892 and 3,409 packets for N_b = 3,000, 1,000 and 300), means of 3 runs
#: with seed 1 (studies/results/sim_loss_at_rule_sizes.md).
SIMULATED_LOSS_AT_BSCL: dict[str, tuple[tuple[int, float, float], ...]] = {
    "reno": (
        (3000, 26_100 / 3000, 0.0274),
        (1000, 16_392 / 1000, 0.0105),
        (300, 16_909 / 300, 0.0014),
    ),
    "cubic": (
        (3000, 26_100 / 3000, 0.0322),
        (1000, 16_392 / 1000, 0.0117),
        (300, 16_909 / 300, 0.0033),
    ),
}


def _law(congestion_control: str | None) -> list[tuple[float, float]]:
    """(ln w, c) of the fitted law, by increasing w (empty when the senders are not fitted)."""
    points = SIMULATED_LOSS_AT_BSCL.get(congestion_control or "", ())
    return sorted((math.log(w), math.sqrt(p) * w) for _, w, p in points)


def _constant(law: list[tuple[float, float]], window: float) -> float | None:
    """c at ``window`` (interpolated in ln w), or None outside the measured windows."""
    x = math.log(window)
    for (x0, c0), (x1, c1) in itertools.pairwise(law):
        if x0 <= x <= x1:
            return c0 + (c1 - c0) * (x - x0) / (x1 - x0)
    return None


def fitted_loss(congestion_control: str | None, window: float) -> float | None:
    """The fitted law's loss at a mean window (packets per flow), or None outside its range."""
    law = _law(congestion_control)
    c = _constant(law, window) if law else None
    return None if c is None else min(1.0, (c / window) ** 2)


def fitted_window(congestion_control: str | None, max_loss: float) -> float | None:
    """The smallest mean window (packets per flow) at which the fitted law's loss is at most
    ``max_loss``, or None when it lies outside the measured windows.

    Found by bisection on ln w between the measured windows (the law's loss falls with w there:
    c grows more slowly than w).
    """
    law = _law(congestion_control)
    if not law:
        return None
    lo, hi = math.exp(law[0][0]), math.exp(law[-1][0])

    def meets(w: float) -> bool:
        loss = fitted_loss(congestion_control, w)
        return loss is not None and loss <= max_loss

    if meets(lo):
        return None  # met already at the smallest measured window: below the fit's range
    if not meets(hi):
        return None  # not met within the measured windows
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if meets(mid):
            hi = mid
        else:
            lo = mid
    return hi


#: BBR v1 senders' utilization in this simulator, by buffer size as a fraction of the BDP: the
#: lowest mean over the four links of ``studies/sim_loss_at_rule_sizes.py --part bbr`` (4 to
#: 100 flows, 50-400 Mb/s, 40-60 ms; seed 1, 3 runs each;
#: studies/results/sim_loss_at_rule_sizes.md, with RACK's resending of lost retransmissions,
#: Linux's ACK-aggregation allowance and the handshake's RTprop).
#: 0.1 BDP: 99.0 % (50 Mb/s, 4 flows); 0.25: 99.4 %; 0.5: 99.2 %; 1: 98.8 %; 2: 98.7 %.
BBR_UTILIZATION_BY_BDP_FRACTION: tuple[tuple[float, float], ...] = (
    (0.1, 0.990),
    (0.25, 0.994),
    (0.5, 0.992),
    (1.0, 0.988),
    (2.0, 0.987),
)


def bbr_utilization_measured(bdp_fractions: Any) -> npt.NDArray[np.bool_]:
    """Whether :func:`bbr_utilization` rests on a measurement at each fraction of the BDP: at
    or above the smallest measured fraction (0.1 BDP); below it nothing is claimed."""
    x = np.asarray(bdp_fractions, dtype=np.float64)
    out: npt.NDArray[np.bool_] = x * (1.0 + 1e-12) >= BBR_UTILIZATION_BY_BDP_FRACTION[0][0]
    return out


def bbr_utilization(bdp_fractions: Any) -> npt.NDArray[np.float64]:
    """BBR senders' utilization at buffers of these fractions of the BDP: the measured figure
    at the largest measured fraction at or below each (a step, never above what was measured
    at a smaller buffer); 0 below the smallest measured fraction, where nothing was measured
    and nothing is claimed."""
    fractions = np.array([f for f, _ in BBR_UTILIZATION_BY_BDP_FRACTION])
    values = np.array([0.0, *(u for _, u in BBR_UTILIZATION_BY_BDP_FRACTION)])
    x = np.asarray(bdp_fractions, dtype=np.float64)
    out: npt.NDArray[np.float64] = values[np.searchsorted(fractions, x * (1.0 + 1e-12), "right")]
    return out
