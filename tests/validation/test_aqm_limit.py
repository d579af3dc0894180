"""The hard limit the engine gives a port with an AQM holds the senders' start-up.

Issue 27: with CoDel, the engine's hard limit was CUBIC's β rule, 0.43 BDP, and in the first
seconds tail drops outnumbered CoDel's. The engine now raises the limit to C·(R + T_e), the
queue a slow start builds before the AQM's first drop reaches it (models/recommend/rules.py,
aqm_limit_rule). Checked here in the simulator on the panel's home uplink (20 Mb/s, 40 ms,
4 CUBIC flows), all flows starting together (the hardest start-up), first 3 s, three seeds.
"""

from __future__ import annotations

import pytest

from models.choices import SimulatedAqm
from models.recommend import LinkScenario, recommend
from validation.simulator import Scenario, simulate

SEEDS = (1, 2, 3)


def _drops(aqm: SimulatedAqm, buffer_packets: int) -> tuple[int, int]:
    """(AQM drops, tail drops) over the first 3 s, summed over the seeds."""
    scenario = Scenario(
        capacity_bps=20e6,
        flows=4,
        rtt_s=0.04,
        rtt_jitter_s=0.004,
        access_bps=200e6,
        congestion_control="cubic",
        aqm=aqm,
        duration_s=3.0,
        warmup_s=0.001,
        start_spread_s=0.0,
    )
    runs = [simulate(scenario, buffer_packets, seed) for seed in SEEDS]
    return sum(r.aqm_drops for r in runs), sum(r.overflow_drops for r in runs)


@pytest.mark.parametrize("aqm", ["codel", "pie", "dualq"])
def test_the_aqm_not_the_tail_drop_ends_the_start_up_at_the_engine_s_limit(
    aqm: SimulatedAqm,
) -> None:
    link = LinkScenario(
        capacity_bps=20e6, rtts_s=(0.04,), flows=4, congestion_control="cubic", aqm=aqm
    )
    rec = recommend(link)
    # CoDel: R = TARGET + INTERVAL = 105 ms (RFC 8289 §4.2-4.3): 20e6·(0.105 + 0.04)/12,000 =
    # 241.7 -> 242 packets. PIE: R = MAX_BURST + T_UPDATE = 165 ms (RFC 8033 §4.4): 341.7 -> 342.
    # DualQ (Classic queue): R = PI2 target + Tupdate = 31 ms (RFC 9332 App. A.1, Linux
    # sch_dualpi2.c): 20e6·(0.031 + 0.04)/12,000 = 118.3 -> 119.
    assert rec.recommended.rule == "aqm_limit"
    assert rec.recommended.buffer_packets == {"codel": 242, "pie": 342, "dualq": 119}[aqm]
    old = next(r for r in rec.rules if r.rule == "md_beta").buffer_packets
    assert old == 29  # CUBIC's β rule, the limit the engine gave before
    aqm_drops, tail_drops = _drops(aqm, rec.recommended.buffer_packets)
    # Measured (seeds 1-3, summed; simulator with RACK): CoDel 147 AQM drops against 31 tail
    # drops at 242 packets; PIE 1,871 against 0 at 342; DualQ as Linux runs it (decisions at
    # dequeue from the head packet's sojourn time, core/dualq.py) 295 (77, 148, 70) against
    # 128 (37, 82, 9) at 119.
    # The AQM must at least match the tail drop.
    assert aqm_drops >= tail_drops
    # At the old limit the tail drop ended the start-up (CoDel 49 against 171, PIE 0 against
    # 236, DualQ 4 against 232): the test can tell the two apart.
    old_aqm, old_tail = _drops(aqm, old)
    assert old_tail > old_aqm
