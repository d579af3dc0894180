"""What the answer would be if the user confirmed an assumption or gave a missing input."""

from __future__ import annotations

import math
from collections.abc import Sequence

from models.recommend.context import Context
from models.recommend.performance import TrafficModel
from models.recommend.result import RegimeInfo, RuleResult, WhatIf
from models.recommend.rules import BSCL, TINY, TRANSPARENT, bscl_of, paced_or_slow
from models.recommend.wording import ms


def what_ifs(
    ctx: Context,
    regime: RegimeInfo,
    model: TrafficModel,
    rules: Sequence[RuleResult],
    governing: RuleResult,
) -> tuple[WhatIf, ...]:
    """How the answer changes if the user confirms the worst case or gives a missing input."""
    sc = ctx.scenario
    t = ctx.targets
    out: list[WhatIf] = []
    tiny = next((r for r in rules if r.rule == TINY), None)
    if (
        model.kind == "window_limited"
        and governing.rule != TINY
        and tiny is not None
        and tiny.buffer_packets is not None
        and tiny.buffer_s is not None
    ):
        spacing = paced_or_slow(ctx)
        needed = ctx.slow_access_needed
        slow = "" if needed is None else f" (at least {needed:.3g}× slower than the port)"
        out.append(
            WhatIf(
                input="paced" if spacing.status == "unknown" else "access_bps",
                assumption="senders pace their packets or their access links are much slower "
                "than the port",
                rule=TINY,
                buffer_packets=tiny.buffer_packets,
                buffer_s=tiny.buffer_s,
                explanation=(
                    f"If the senders pace, or their access links are slow enough{slow}, the "
                    f"tiny-buffers theorem needs only {tiny.buffer_packets:,} packets "
                    f"({ms(tiny.buffer_s)} of queueing) for θ = {t.min_utilization:g} of the "
                    "window-limited peak (000 §3.3 Thm 1; the paced bound, Thm 2 and App. B, "
                    "may need fewer): set paced or give access_bps. Without it, unpaced "
                    f"line-rate bursts do not reach that utilization ({spacing.reason}; "
                    "000 §3.4)."
                ),
            )
        )
    if model.kind == "congested_tcp" and not ctx.bottlenecked_flows_given:
        worst = bscl_of(ctx, sc.flows)
        packets = max(1, math.ceil(float(worst.buffer_packets) * (1.0 - 1e-12)))
        seconds = packets * ctx.packet_time_s
        out.append(
            WhatIf(
                input="bottlenecked_flows",
                assumption=f"all N = {sc.flows:,} flows are long-lived and bottlenecked here",
                rule=BSCL,
                buffer_packets=packets,
                buffer_s=seconds,
                explanation=(
                    f"If all N = {sc.flows:,} flows are bottlenecked here, BSCL needs "
                    f"{packets:,} packets ({ms(seconds)} of queueing, "
                    f"{seconds / ctx.effective_rtt_s:.3g}× the RTT) for loss <= "
                    f"{t.max_loss:.2g} ({worst.governing_constraint} term governs; 004 Fig. "
                    "4). N_b decides whether the loss target constrains the buffer: give "
                    "bottlenecked_flows (and max_loss) to size for it; 004 §VI estimates it "
                    "from a packet trace."
                ),
            )
        )
    need_w = ctx.bdp_packets / sc.flows
    # Only where a window cap is plausible: at least two packets per flow fit in C·RTT.
    if model.kind == "congested_tcp" and sc.max_window_packets is None and need_w >= 2.0:
        slow = (
            ""
            if ctx.slowdown is None
            else (
                f" With access links {ctx.slowdown:.3g}× slower than the port the paced-traffic "
                "bound (000 Thm 2) applies too."
            )
        )
        out.append(
            WhatIf(
                input="max_window_packets",
                assumption=f"the flows' windows are capped below C·RTT/N = {need_w:.3g} packets",
                rule=TINY,
                buffer_packets=None,
                buffer_s=None,
                explanation=(
                    f"If every flow's window is capped below {need_w:.3g} packets "
                    "(N·W_max < C·RTT), no flow is bottlenecked here and the tiny-buffers "
                    "theorem needs only O(log W_max) packets, a few dozen (000 §3.3 Thm 1)." + slow
                ),
            )
        )
    if regime.regime == "unknown":
        out.append(
            WhatIf(
                input="load",
                assumption="the offered load and the flows' peak rate are known",
                rule=TRANSPARENT,
                buffer_packets=None,
                buffer_s=None,
                explanation=(
                    "With the load and a peak rate well below C the link may be transparent "
                    "(peak rates summing below C with high probability, 003 §4): then ρ^B <= ε "
                    "sizes the buffer, e.g. 20 packets keep loss below 1% up to 79% load "
                    "(003 §4.2)."
                ),
            )
        )
    return tuple(out)
