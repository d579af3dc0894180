"""The traffic model's utilization, loss and delay at given sizes, and the smallest size
meeting the targets."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from models.recommend.context import Context, TargetValues
from models.recommend.performance import TrafficModel
from models.recommend.result import Prediction, RuleResult, TargetCheck
from models.recommend.scenario import Targets
from models.recommend.search import FALSE, TRUE, Sizes, Verdicts, smallest_integer_batched

#: Largest buffer the engine searches when looking for the smallest size meeting the targets.
SEARCH_MAX_PACKETS = 1 << 40

#: Relative slack when comparing a prediction with a target (floating-point rounding only).
_TOLERANCE = 1e-9


def predict(
    model: TrafficModel, targets: Targets | TargetValues, buffer_packets: float
) -> Prediction:
    """The model's utilization, loss and delay at one buffer size, checked against targets."""
    return predict_many(model, target_values(model, targets), [float(buffer_packets)])[0]


def target_values(model: TrafficModel, targets: Targets | TargetValues) -> TargetValues:
    if isinstance(targets, TargetValues):
        return targets
    from models.recommend.context import resolve_targets

    return resolve_targets(targets, model.rtt_s)


def predict_many(
    model: TrafficModel, targets: TargetValues, sizes: Sequence[float]
) -> list[Prediction]:
    """:func:`predict` at several sizes with one evaluation of the model (same numbers).

    The model's functions are elementwise, so each size gets exactly the value a call for it
    alone would give.
    """
    b = np.asarray(sizes, dtype=np.float64)
    u = model.utilization(b)
    nu = np.minimum(1.0, u / model.max_utilization)  # model.normalized_utilization(b)
    u_known = model.utilization_known(b)
    loss = model.loss_probability(b)
    delay = model.queueing_delay_s(b)
    d_max = targets.max_queueing_delay_s
    out = []
    for i, size in enumerate(sizes):
        loss_i = float(loss[i])
        known = math.isfinite(loss_i)
        nu_i = float(nu[i]) if u_known[i] else None
        out.append(
            Prediction(
                buffer_packets=float(size),
                utilization=float(u[i]) if u_known[i] else None,
                normalized_utilization=nu_i,
                loss_probability=loss_i if known else None,
                queueing_delay_s=float(delay[i]),
                meets_utilization=(
                    None if nu_i is None else nu_i >= targets.min_utilization * (1.0 - _TOLERANCE)
                ),
                meets_loss=(loss_i <= targets.max_loss * (1.0 + _TOLERANCE)) if known else None,
                meets_delay=float(delay[i]) <= d_max * (1.0 + _TOLERANCE),
            )
        )
    return out


def checks(prediction: Prediction | None, targets: TargetValues) -> tuple[TargetCheck, ...]:
    """Which targets a prediction meets, each with its source."""
    if prediction is None:
        return ()
    return (
        TargetCheck(
            "min_utilization", targets.source("min_utilization"), prediction.meets_utilization
        ),
        TargetCheck("max_loss", targets.source("max_loss"), prediction.meets_loss),
        TargetCheck(
            "max_queueing_delay_s", targets.source("max_queueing_delay_s"), prediction.meets_delay
        ),
    )


def with_predictions(
    rules: Sequence[RuleResult], model: TrafficModel, ctx: Context
) -> tuple[RuleResult, ...]:
    """Every rule with the model's prediction at its size (one model evaluation for all)."""
    sized = [r for r in rules if r.buffer_packets is not None]
    predictions = iter(
        predict_many(model, ctx.targets, [float(r.buffer_packets or 0) for r in sized])
    )
    out = []
    for r in rules:
        if r.buffer_packets is None:
            out.append(r)
            continue
        p = next(predictions)
        out.append(replace(r, predicted=p, targets_met=checks(p, ctx.targets)))
    return tuple(out)


def _throughput_verdicts(
    model: TrafficModel, targets: TargetValues, utilization: bool = True, loss: bool = True
) -> Callable[[Sizes], Verdicts]:
    """Whether the utilization and (when decided) loss targets are met, at many sizes."""

    def decide(sizes: Sizes) -> Verdicts:
        ok = np.ones(sizes.shape, dtype=bool)
        if utilization:
            u = model.utilization(sizes)
            nu = np.minimum(1.0, u / model.max_utilization)
            ok &= nu >= targets.min_utilization * (1.0 - _TOLERANCE)
        if loss and model.loss_known:
            ok &= model.loss_probability(sizes) <= targets.max_loss * (1.0 + _TOLERANCE)
        out: Verdicts = np.where(ok, TRUE, FALSE).astype(np.int8)
        return out

    return decide


def smallest(
    model: TrafficModel,
    targets: TargetValues,
    meet_utilization: bool = True,
    meet_loss: bool = True,
) -> int | None:
    # The traffic models cost about the same for one size or a hundred: one batch for all
    # the doubling steps, six bisection steps per batch.
    return smallest_integer_batched(
        _throughput_verdicts(model, targets, meet_utilization, meet_loss),
        SEARCH_MAX_PACKETS,
        depth=6,
        doublings=64,
    )
