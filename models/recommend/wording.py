"""How the engine writes a prediction, a share and a delay in its sentences."""

from __future__ import annotations

from models.recommend.result import Prediction


def describe(prediction: Prediction) -> str:
    """A prediction in one phrase: size, utilization, loss and queueing delay."""
    loss = (
        "not predicted (N_b not given, or senders not governed by loss)"
        if prediction.loss_probability is None
        else f"{prediction.loss_probability:.2g}"
    )
    u, nu = prediction.utilization, prediction.normalized_utilization
    utilization = (
        "not predicted (no model or measurement here for these senders at this size)"
        if u is None or nu is None
        else f"{u:.1%} of C ({nu:.1%} of what the traffic can carry)"
    )
    return (
        f"{prediction.buffer_packets:,.0f} packets: utilization {utilization}, loss "
        f"{loss}, queueing delay up to {prediction.queueing_delay_s * 1e3:.3g} ms"
    )


def percent(probability: float) -> str:
    """A probability as a percentage, in scientific notation when below 0.01%."""
    return f"{probability:.2%}" if probability >= 1e-4 else f"{probability * 100:.1e}%"


def ms(duration_s: float) -> str:
    """A duration in milliseconds, three significant figures."""
    return f"{duration_s * 1e3:.3g} ms"
