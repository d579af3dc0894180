"""A batch runner whose runs have figures a test sets, for checks of the verdict logic."""

from __future__ import annotations

from validation.verify import BatchRunner, Plan


def fixed_runner(slow_utilization: float, fast_utilization: float) -> BatchRunner:
    """A batch runner whose runs have the given utilizations at each end (three values each,
    +-0.001 around it), no loss and 1 ms of queueing."""

    def run(p: Plan, labels: list[str], batch: int) -> list[dict[str, float]]:
        out = []
        for label in labels:
            u = slow_utilization if label in p.slow_labels else fast_utilization
            for d in (-0.001, 0.0, 0.001)[: p.batch_replications(batch)]:
                out.append(
                    {
                        "utilization": u + d,
                        "loss_rate": 0.0,
                        "queue_delay_mean_s": 1e-3,
                        "queue_delay_p99_s": 2e-3,
                    }
                )
        return out

    return run
