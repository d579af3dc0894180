"""The curves a recommendation is plotted with: utilization, loss and delay against size."""

from __future__ import annotations

import math

import numpy as np

from models.recommend.context import Context
from models.recommend.performance import TrafficModel
from models.recommend.result import Curves, RuleResult

#: Points on each curve, log-spaced from 1 packet to beyond the BDP and every rule's size.
CURVE_POINTS = 160


def plot_curves(
    ctx: Context, model: TrafficModel, rules: tuple[RuleResult, ...], recommended: int
) -> Curves:
    """Utilization, loss and delay on a log grid from 1 packet past every rule's size."""
    sizes = [r.buffer_packets for r in rules if r.buffer_packets is not None]
    top = max([2.0 * ctx.bdp_packets, 2.0 * recommended, 10.0, *(2.0 * s for s in sizes)])
    grid = np.unique(np.logspace(0.0, math.log10(top), CURVE_POINTS))
    utilization = model.utilization(grid)
    known = model.utilization_known(grid).tolist()
    normalized = np.minimum(1.0, utilization / model.max_utilization)
    return Curves(
        buffer_packets=tuple(grid.tolist()),
        utilization=tuple(
            x if k else None for x, k in zip(utilization.tolist(), known, strict=True)
        ),
        normalized_utilization=tuple(
            x if k else None for x, k in zip(normalized.tolist(), known, strict=True)
        ),
        loss_probability=tuple(
            None if math.isnan(x) else x for x in model.loss_probability(grid).tolist()
        ),
        queueing_delay_s=tuple(model.queueing_delay_s(grid).tolist()),
    )
