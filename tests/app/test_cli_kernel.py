"""``bufsize verify --kernel`` where the kernel testbed cannot run, and what it refuses.

The testbed's own runs are tested in tests/validation/test_testbed.py; a whole ``--kernel``
verification takes minutes (30 s a run) and is quoted, not asserted, in the README.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from models.recommend import LinkScenario
from validation.testbed.verify import refusal
from validation.verify import plan

BUFSIZE = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "bufsize"
LINK = ["--capacity", "100 Mbit/s", "--rtt", "100ms", "--flows", "40"]


def test_without_privileges_it_says_so_in_one_line_and_exits_2() -> None:
    command = [str(BUFSIZE), "verify", *LINK, "--kernel"]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("root, and no setpriv to drop its capabilities with")
        # Root without capabilities: what a container without CAP_SYS_ADMIN gives.
        command = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("Error: --kernel needs root and network namespaces: ")


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"congestion_control": "dctcp"}, "not dctcp"),
        ({"aqm": "codel"}, "drop-tail only"),
        ({"access_bps": 10e6}, "slower access links"),
        ({"max_window_packets": 20}, "window-limited"),
    ],
)
def test_what_the_testbed_does_not_emulate_is_refused_with_the_reason(
    changes: dict[str, object], reason: str
) -> None:
    link = LinkScenario(capacity_bps=100e6, rtts_s=(0.1,), flows=40, packet_bytes=1500)
    p = plan(link, None, size=("rule_of_thumb", 833), replications=1)
    assert refusal(p) is None  # the link itself goes through
    assert p.scenario is not None
    p.scenario = p.scenario.replace(**changes)
    refused = refusal(p)
    assert refused is not None and reason in refused, refused
