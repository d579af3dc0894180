"""The "check by simulation" job the page starts: the recommended scenario on a scaled link.

A 10 Gb/s port with thousands of flows is too many packets to simulate while a person waits,
so the page simulates a smaller link with the same per-flow quantities: capacity, bottlenecked
flows and every buffer size are multiplied by one factor ``scale`` (≤ 1), while the RTT, the
packet size, each flow's access rate and window stay. Each flow's share of the capacity, the
buffer per flow and the queueing delay of a full buffer are then unchanged; rules that are not
linear in N (the √N rule) are checked only approximately, which the page says. The simulated
buffer sizes are drawn back at ``simulated / scale`` on the full-size axis.

This is the seam where the verification of the validation work plugs in when it exists: the
page posts :func:`simulation_plan`'s ``request`` to ``/v1/simulations`` in one function of its
script.
"""

from __future__ import annotations

import math
from typing import Any

from app.web.fields import BY_NAME, RESULT

#: Rate of the simulated link, bit/s: about 2500 packets of 1000 B a second.
SIMULATED_CAPACITY_BPS = 20e6
SIMULATED_DURATION_S = 30.0
SIMULATED_WARMUP_S = 5.0
#: Replications per buffer size: the 99% confidence interval uses Student's t with 4 degrees
#: of freedom (4.6 standard errors).
REPLICATIONS = 5
SEED = 1
MAX_SIZES = 12
MAX_WINDOW_PACKETS = 65_536  # the simulator's limit (validation.simulator.scenario)
MIN_WINDOW_PACKETS = 64
#: Below this many flows, losses are often synchronized (000 §2.2.1-2.2.2): the √N argument
#: needs many desynchronized flows (its assumption "many (>= 100)" in models.recommend).
FEW_FLOWS = 100


def _scaled_sizes(answer: dict[str, Any], scale: float) -> list[int]:
    rec = answer[RESULT["recommended"]]
    sizes = [rec[RESULT["buffer_packets"]]]
    sizes += [
        rule[RESULT["buffer_packets"]]
        for rule in answer[RESULT["rules"]]
        if rule.get(RESULT["buffer_packets"])
    ]
    scaled = sorted({max(1, round(float(b) * scale)) for b in sizes if b})
    keep = {max(1, round(float(rec[RESULT["buffer_packets"]]) * scale))}
    # Too many sizes: keep the recommended one and an even spread of the others.
    if len(scaled) > MAX_SIZES:
        step = len(scaled) / (MAX_SIZES - 1)
        keep |= {scaled[min(len(scaled) - 1, round(i * step))] for i in range(MAX_SIZES - 1)}
        scaled = sorted(keep)
    return scaled


def simulation_plan(answer: dict[str, Any], scenario: dict[str, Any]) -> dict[str, Any]:
    """The /v1/simulations request for this recommendation, and how to draw its results.

    ``scenario`` is the validated request scenario in SI units (``ScenarioIn.model_dump()``).
    """
    inputs = answer[RESULT["inputs"]]
    capacity_bps = float(scenario[BY_NAME["capacity"].path[-1]])
    scale = min(1.0, SIMULATED_CAPACITY_BPS / capacity_bps)
    flows_b = int(inputs[RESULT["bottlenecked_flows_used"]])
    flows = max(1, round(flows_b * scale))
    rtt_s = float(inputs[RESULT["effective_rtt_s"]])
    packet_bytes = max(1, round(float(scenario[BY_NAME["packet"].path[-1]])))
    per_flow_bdp = capacity_bps * rtt_s / (8 * packet_bytes) / max(flows_b, 1)
    window = scenario.get(BY_NAME["window"].path[-1])
    if window is None:
        window = max(MIN_WINDOW_PACKETS, math.ceil(4 * per_flow_bdp))
    window = int(min(MAX_WINDOW_PACKETS, max(1, round(float(window)))))
    sim: dict[str, Any] = {
        "capacity_bps": capacity_bps * scale,
        "flows": flows,
        "rtt_s": rtt_s,
        "rtt_jitter_s": rtt_s / 5,
        "packet_bytes": packet_bytes,
        "max_window_packets": window,
        "pacing": bool(scenario.get(BY_NAME["paced"].path[-1])),
        "duration_s": SIMULATED_DURATION_S,
        "warmup_s": SIMULATED_WARMUP_S,
    }
    access = scenario.get(BY_NAME["access"].path[-1])
    if access is not None:
        sim["access_bps"] = float(access)
    description = (
        f"Simulated on a link scaled by {scale:.3g}: {capacity_bps * scale / 1e6:.3g} Mbit/s "
        f"with {flows} long-lived flows (the bottlenecked flows × {scale:.3g}), the same "
        f"{rtt_s * 1e3:.3g} ms RTT (±20 %) and every buffer × {scale:.3g}; points are drawn "
        f"at the full-size buffer, with 99 % confidence intervals over {REPLICATIONS} runs."
    )
    if flows < FEW_FLOWS <= flows_b:
        description += (
            f" Few flows ({flows}) tend to lose packets together, so sizes that rely on many "
            "desynchronized flows (the √N rule) look worse here than on the full-size link."
        )
    return {
        "scale": scale,
        "request": {
            "scenario": sim,
            "buffer_packets": _scaled_sizes(answer, scale),
            "replications": REPLICATIONS,
            "seed": SEED,
        },
        "description": description,
    }
