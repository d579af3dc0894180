"""The smallest buffer that meets every target in simulation (``bufsize recommend --search``).

:func:`search` starts from the bracket of the rules' sizes (the smallest and the largest size
any rule gives for the link, the recommended one included) and bisects it on a log scale: each
size tried is simulated on the scaled link of :mod:`validation.verify` (same scaling, same
access-rate assumption with both ends when the access rate is not given, same replications,
extra batches and one-sided 99 % bounds) and counts as meeting the targets only when every
target is **met** (an undecided target counts as not met: the search never claims a size the
simulation does not back). Utilization and loss can only improve with the buffer and the delay
only worsen, so the bisection looks for the smallest size meeting the utilization and loss
targets, and the delay target is checked there (missed: no size meets every target, and the
answer says so). The bisection stops when the two ends are within
:data:`RESOLUTION` of each other (or one simulated packet apart); the answer is the upper end,
the smallest size found to meet every target, and the lower end is reported with it as the size
one step smaller, which does not. If the bracket's upper end misses the utilization or the loss
target, it is doubled (at most :data:`GROWTHS` times) before giving up; if its lower end
already meets them, half of it is tried, down to one packet.

Each size tried keeps its simulated figures and bounds (:class:`validation.verify.SizeCheck`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from models.recommend import LinkScenario, Recommendation, Targets
from validation.sweeps import executor
from validation.verify import (
    Access,
    BatchRunner,
    Plan,
    Progress,
    Scaling,
    SizeCheck,
    Verification,
    clean,
    local_runner,
    plan_sizes,
    run_batches,
    senders_text,
    sized_senders,
    slow_label,
    worst,
)

#: The bisection stops when the upper end is at most this fraction above the lower end.
RESOLUTION = 0.1
#: Times the bracket's upper end may be doubled when it misses a target.
GROWTHS = 2
#: Most sizes a search simulates (the bracket's ends, growths and the bisection steps).
MAX_TRIES = 14


@dataclass
class Tried:
    """One size tried: the simulated check there (and at the slow end of the access rates).

    ``meets_throughput``: the utilization and loss targets met (at both ends), which a larger
    buffer can only help; ``meets_targets``: every target met, the delay target too, which a
    larger buffer can only hurt.
    """

    buffer_packets: int
    meets_throughput: bool
    meets_targets: bool
    check: SizeCheck
    slow_access: SizeCheck | None


@dataclass
class SearchOutcome:
    """The smallest size found to meet every target, beside the rule's, and each size tried."""

    rule: str
    rule_buffer_packets: int
    bracket: tuple[int, int]
    scaling: Scaling
    access: Access | None
    replications: int
    seed: int
    max_replications: int
    found_packets: int | None = None
    #: The largest size tried below the one found (it missed or left a target undecided).
    smaller_packets: int | None = None
    tried: list[Tried] = field(default_factory=list)
    reason: str = ""
    #: The congestion control simulated, and why that one (:func:`~validation.verify.senders_text`).
    senders: str = ""
    #: What the simulation cannot represent (:func:`~validation.verify.not_represented`).
    not_represented: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict (NaN -> None)."""
        out: dict[str, Any] = clean(asdict(self))
        return out


def bracket(rec: Recommendation) -> tuple[int, int]:
    """The smallest and largest size any rule gives (the recommended one included), packets."""
    sizes = [
        math.ceil(r.buffer_packets)
        for r in rec.rules
        if r.buffer_packets is not None and math.isfinite(r.buffer_packets)
    ]
    sizes.append(int(rec.recommended.buffer_packets))
    return max(min(sizes), 1), max(max(sizes), 1)


def size_plan(
    link: LinkScenario,
    targets: Targets | None,
    rule: str,
    packets: int,
    *,
    replications: int,
    seed: int,
    max_replications: int | None,
    congestion_control_given: bool = True,
) -> Plan:
    """The plan that checks one size (and the slow end of the access rates, when assumed)."""
    return plan_sizes(
        link,
        targets,
        rule,
        {"recommended": packets},
        slow_of={slow_label("recommended"): "recommended"},
        replications=replications,
        seed=seed,
        max_replications=max_replications,
        congestion_control_given=congestion_control_given,
    )


def _tried(packets: int, v: Verification) -> Tried:
    check = v.sizes[0]
    slow = v.slow(check.label)
    checks = [check, *([slow] if slow is not None else [])]
    throughput = [t.outcome for c in checks for t in c.targets if t.name != "delay"]
    met = worst([c.verdict for c in checks]) == "met"
    return Tried(packets, worst(throughput) == "met", met, check, slow)


def search_with(
    link: LinkScenario,
    rec: Recommendation,
    targets: Targets | None,
    run: BatchRunner,
    *,
    replications: int = 5,
    seed: int = 1,
    max_replications: int | None = None,
) -> SearchOutcome:
    """:func:`search` with the batches run by ``run`` (the service passes its job runner)."""
    rule = rec.recommended.rule
    given = link.congestion_control is not None
    link = sized_senders(link, rec)
    low, high = bracket(rec)
    first = size_plan(
        link,
        targets,
        rule,
        low,
        replications=replications,
        seed=seed,
        max_replications=max_replications,
        congestion_control_given=given,
    )
    out = SearchOutcome(
        rule=rule,
        rule_buffer_packets=int(rec.recommended.buffer_packets),
        bracket=(low, high),
        scaling=first.scaling,
        access=first.access,
        replications=replications,
        seed=seed,
        max_replications=first.max_replications,
        senders=senders_text(link, given),
        not_represented=list(first.not_represented),
    )
    if first.scenario is None:
        out.reason = first.unfaithful().reason
        return out
    scale = first.scaling.factor**first.scaling.buffer_exponent
    cache: dict[int, Tried] = {}

    def trial(packets: int) -> Tried:
        if packets not in cache:
            p = size_plan(
                link,
                targets,
                rule,
                packets,
                replications=replications,
                seed=seed,
                max_replications=max_replications,
            )
            if p.scenario is None:
                raise ValueError(p.unfaithful().reason)
            cache[packets] = _tried(packets, run_batches(p, run))
            out.tried.append(cache[packets])
        return cache[packets]

    def close(lo: int, hi: int) -> bool:
        return hi <= lo * (1.0 + RESOLUTION) or round(hi * scale) - round(lo * scale) <= 1

    # Utilization and loss can only improve with the buffer, the delay only worsen: bisect for
    # the smallest size meeting the first two, then check the delay target there.
    try:
        hi = high
        growths = 0
        while not trial(hi).meets_throughput:
            if growths == GROWTHS:
                out.tried.sort(key=lambda t: t.buffer_packets)
                out.reason = (
                    f"no size up to {hi:,} packets ({GROWTHS}x doubling the rules' largest, "
                    f"{high:,}) meets the utilization and loss targets in simulation"
                )
                return out
            hi, growths = 2 * hi, growths + 1
        lo = min(low, hi)
        while trial(lo).meets_throughput and lo > 1:
            hi, lo = lo, max(lo // 2, 1)
        if trial(lo).meets_throughput:  # one packet is enough
            hi, smaller = lo, None
        else:
            while not close(lo, hi) and len(cache) < MAX_TRIES:
                mid = round(math.sqrt(lo * hi))
                mid = min(max(mid, lo + 1), hi - 1)
                if trial(mid).meets_throughput:
                    hi = mid
                else:
                    lo = mid
            smaller = lo
    except ValueError as exc:  # a size below one simulated packet
        out.reason = f"cannot be searched faithfully: {exc}"
        return out
    out.tried.sort(key=lambda t: t.buffer_packets)
    if not cache[hi].meets_targets:
        out.reason = (
            f"{hi:,} packets is the smallest size found to meet the utilization and loss "
            f"targets, and it does not meet the delay target (a larger buffer only adds delay): "
            f"no size meets every target in simulation; {cache[hi].check.reason}"
        )
        return out
    out.found_packets, out.smaller_packets = hi, smaller
    ratio = out.found_packets / out.rule_buffer_packets
    step = (
        f"; {out.smaller_packets:,} packets, one step smaller, does not"
        if out.smaller_packets is not None
        else ""
    )
    out.reason = (
        f"{out.found_packets:,} packets is the smallest size found to meet every target in "
        f"simulation ({ratio:.2g}x the {rule} rule's {out.rule_buffer_packets:,}){step}; "
        f"{len(out.tried)} sizes tried in the rules' bracket {low:,}-{high:,} packets; "
        f"senders: {out.senders}"
    )
    return out


def search(
    link: LinkScenario,
    rec: Recommendation,
    targets: Targets | None = None,
    *,
    replications: int = 5,
    seed: int = 1,
    max_replications: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
) -> SearchOutcome:
    """The smallest buffer meeting every target in simulation (module docstring).

    Parameters
    ----------
    link, rec, targets : the link, the engine's recommendation for it and the targets.
    replications, seed, max_replications : as :func:`validation.verify.verify`, per size tried.
    workers, scheduler, progress : see :func:`validation.sweeps.run_tasks` (progress counts
        runs; the total grows as sizes are tried).
    """
    with executor(scheduler, workers) as pool:  # one pool for every size tried
        run = local_runner(workers=workers, scheduler=scheduler, progress=progress, pool=pool)
        return search_with(
            link,
            rec,
            targets,
            run,
            replications=replications,
            seed=seed,
            max_replications=max_replications,
        )
