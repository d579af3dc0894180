"""The verification's scaled link through the kernel testbed: Linux's TCP beside the simulator.

:func:`verify_kernel` takes the plan of :func:`validation.verify.plan` (the user's link scaled
to a simulable size; the recommended buffer, half and double it, scaled the same way) and runs
each size through a :class:`~validation.testbed.Testbed` with the link's congestion control,
the RTTs and start times the simulator draws for each replication's seed, the same warm-up
and measured time. The kernel's figures then go through the same
:func:`validation.verify.assemble` as the simulator's: the same predictions, the same verdict
rules, the same scaling back to the user's link.

Refused, with the reason, before anything runs (a :class:`KernelRefusal`):

- a link the simulator's verification refuses (it cannot be scaled faithfully);
- a congestion control this kernel does not offer (``tcp_available_congestion_control``);
- what the testbed does not emulate: an AQM below the buffer, background traffic, access
  links slower than the port, a largest window below the path's BDP and queue;
- a scaled rate that the testbed does not carry faithfully, as measured by its per-link
  sanity check (one Reno flow with 2 BDP of buffer reaching 99 %,
  :func:`validation.testbed.reno_check`), or a machine too busy for it (the check's RTT and
  delay-line tests), both found by running that check first.

A run that fails its own sanity checks (:func:`validation.testbed.run_problems`) is tried
again once; if it fails again the verification stops and says why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from validation.simulator.parameters import make_parameters
from validation.testbed.bed import Flow, Testbed, TestbedUnavailable, unavailable_reason
from validation.testbed.sanity import reno_check, run_problems
from validation.verify import Plan, Verification, assemble

Progress = Callable[[int, int], None]
#: Where the kernel lists the congestion controls a socket may ask for.
AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


class KernelRefusal(RuntimeError):
    """The link cannot be run faithfully through the kernel testbed (the message says why)."""


def refusal(p: Plan) -> str | None:
    """Why ``p``'s scaled link cannot go through the testbed, before any run (or None)."""
    if p.scenario is None:
        return p.unfaithful().reason
    scenario = p.scenario
    cc = scenario.congestion_control
    offered = AVAILABLE_CC.read_text().split() if AVAILABLE_CC.exists() else []
    if cc not in offered:
        return f"this kernel offers {', '.join(offered) or 'no congestion control list'}, not {cc}"
    if scenario.aqm != "none":
        return f"the testbed's port is drop-tail only; {scenario.aqm} is not emulated"
    if scenario.background_load > 0.0:
        return "the testbed runs the bottlenecked flows only; background traffic is not emulated"
    if scenario.access_bps < scenario.capacity_bps:
        return (
            "the testbed's senders reach the router at veth speed; slower access links are "
            "not emulated"
        )
    longest_s = scenario.rtt_s + (scenario.rtt_jitter_s or 0.0)
    bdp = scenario.capacity_bps * longest_s / (8 * scenario.wire_bytes)
    if scenario.max_window_packets < bdp + max(p.simulated.values()):
        return (
            f"the flows are window-limited ({scenario.max_window_packets} packets); the testbed "
            "leaves Linux's windows as they are"
        )
    return None


def kernel_flows(p: Plan, buffer_packets: int, seed: int) -> list[Flow]:
    """The testbed's flows for one run: the simulator's RTTs and start times for ``seed``."""
    assert p.scenario is not None
    drawn = make_parameters(p.scenario, buffer_packets, seed)
    cc = p.scenario.congestion_control
    return [Flow(cc, float(r), float(s)) for r, s in zip(drawn.rtt_s, drawn.start_s, strict=True)]


def verify_kernel(p: Plan, replications: int, progress: Progress | None = None) -> Verification:
    """The plan's sizes through the kernel testbed, judged by the verification's rules.

    Raises :class:`TestbedUnavailable` without root or namespaces, :class:`KernelRefusal`
    for a link the testbed cannot run faithfully (module docstring)."""
    reason = unavailable_reason()
    if reason is not None:
        raise TestbedUnavailable(reason)
    why_not = refusal(p)
    if why_not is not None:
        raise KernelRefusal(why_not)
    assert p.scenario is not None
    scenario = p.scenario
    from validation.simulator import replication_seeds

    seeds = replication_seeds(p.seed, replications)
    total = len(p.sizes) * replications + 1
    done = 0
    runs: dict[str, list[dict[str, float]]] = {}
    warmup_s = scenario.warmup_s
    measure_s = scenario.duration_s - scenario.warmup_s
    with Testbed(scenario.capacity_bps, 2, scenario.wire_bytes) as bed:
        check, problems = reno_check(bed, scenario.rtt_s)
        done += 1
        if progress is not None:
            progress(done, total)
        if problems:
            raise KernelRefusal(
                f"at the scaled {scenario.capacity_bps / 1e6:.4g} Mbit/s the testbed failed its "
                f"sanity check: {'; '.join(problems)}"
            )
        for label, buffer_packets in p.simulated.items():
            bed.set_buffer(max(buffer_packets, 1))
            runs[label] = []
            for seed in seeds:
                flows = kernel_flows(p, buffer_packets, seed)
                for attempt in range(2):
                    measured = bed.run(flows, warmup_s=warmup_s, measure_s=measure_s)
                    problems = run_problems(measured)
                    if not problems:
                        break
                    if attempt == 1:
                        raise KernelRefusal(
                            f"a run at {buffer_packets} packets failed its sanity checks twice: "
                            + "; ".join(problems)
                        )
                runs[label].append(
                    {
                        "utilization": measured.utilization,
                        "loss_rate": measured.loss_rate,
                        "queue_delay_mean_s": measured.queue_delay_mean_s,
                        "queue_delay_p99_s": measured.queue_delay_p99_s,
                    }
                )
                done += 1
                if progress is not None:
                    progress(done, total)
    outcome = assemble(p, runs, where="on Linux's TCP")
    outcome.reason = (
        f"Linux {check.kernel} through the namespace testbed ({replications} runs per size; one "
        f"Reno flow with 2 BDP reached {check.utilization:.1%}): " + outcome.reason
    )
    return outcome
