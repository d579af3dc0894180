"""What a simulation job computes, in canonical form, and the hashes that identify it.

Two requests that ask for the same runs (the same scenario in SI units after parsing, the same set
of buffer sizes, replications and seed) have the same :attr:`SimulationSpec.request_hash`, so the
second reuses the first job. Each (scenario, buffer size, replications, seed) has a
:func:`SimulationSpec.run_key`; a result stored under it is reused by any job that needs it, which
is also how an interrupted job resumes where it stopped.

Both hashes include :func:`validation.simulator.stamp.simulator_stamp`, the hash of the
simulator's source files (its code and its parameters' defaults) and numerical packages: after
an upgrade that changes the simulator, an identical request computes anew instead of being
answered with the old code's numbers (the package version alone did not change with it).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from validation.simulator.stamp import simulator_stamp

# Bumped when the stored result format or the way the service sets a run up changes (code outside
# the simulator package, which simulator_stamp does not see), so that older results are not reused.
RESULT_FORMAT = 2


def _digest(payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class SimulationSpec:
    """A simulation job: every scenario field in SI units, sorted distinct buffer sizes."""

    scenario: dict[str, Any]
    buffer_packets: tuple[int, ...]
    replications: int
    seed: int

    @classmethod
    def create(
        cls, scenario: dict[str, Any], buffer_packets: list[int], replications: int, seed: int
    ) -> SimulationSpec:
        """Canonical form: buffer sizes sorted and each listed once."""
        return cls(
            scenario=dict(scenario),
            buffer_packets=tuple(sorted(set(buffer_packets))),
            replications=replications,
            seed=seed,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "buffer_packets": list(self.buffer_packets),
            "replications": self.replications,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SimulationSpec:
        return cls.create(
            data["scenario"], list(data["buffer_packets"]), data["replications"], data["seed"]
        )

    @property
    def request_hash(self) -> str:
        """SHA-256 of the canonical request and the simulator that computes it."""
        return _digest({"request": self.to_json(), "code": simulator_stamp(), "v": RESULT_FORMAT})

    def run_key(self, buffer_packets: int) -> str:
        """SHA-256 naming the replicated runs of one buffer size."""
        return _digest(
            {
                "scenario": self.scenario,
                "buffer_packets": buffer_packets,
                "replications": self.replications,
                "seed": self.seed,
                "code": simulator_stamp(),
                "v": RESULT_FORMAT,
            }
        )
