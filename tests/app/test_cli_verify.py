"""The verification table a person reads after ``bufsize recommend --verify``."""

from __future__ import annotations

import math

from rich.console import Console

from app.cli.verify import render_verification
from models.recommend import LinkScenario, Targets
from tests.validation.fixed_runs import fixed_runner
from validation.verify import plan, run_batches, verify


def test_the_table_shows_the_simulated_loss_interval() -> None:
    # The prediction's fate may rest on the loss's 99% interval reaching within a factor 3 of the
    # prediction; the table shows that interval so that the reader sees why (000 Fig. 3.1's
    # 100 Mb/s link, 40 flows, the BSCL-governed size at N_b = 40, two replications).
    link = LinkScenario(
        capacity_bps=100e6, rtts_s=(0.1,), flows=40, packet_bytes=1000, bottlenecked_flows=40
    )
    checked = verify(
        link,
        None,
        Targets(max_loss=0.01),
        replications=2,
        max_replications=2,
        seed=1,
        size=("bscl", 300),
    )
    console = Console(record=True, width=200)
    render_verification(checked, console)
    text = console.export_text()
    for size in checked.sizes:
        assert math.isfinite(size.loss_rate_ci99)
        assert f"{size.loss_rate:.2g} ± {size.loss_rate_ci99:.2g}" in text
    assert f"Verdict: {checked.verdict}" in text
    # The headline (the recommended size's worst target outcome) comes first, before the table.
    headline = f"targets at the recommended size: {checked.verdict}"
    assert text.index(headline) < text.index("Packets (sim.)") < text.index("Verdict:")
    for size in checked.sizes:
        assert f"  {size.label}: {size.reason}"[:60] in text.replace("\n", " ")


def test_both_ends_and_what_was_not_represented_are_printed() -> None:
    # A 600 ms link, access rate not given, runs whose figures the test sets (no simulation):
    # the slow end's rows follow the fast end's, the limitations are listed one per line, and
    # the verdict line says which end governs.
    link = LinkScenario(capacity_bps=10e6, rtts_s=(0.6,), flows=20, congestion_control="reno")
    targets = Targets(min_utilization=0.9, max_loss=0.01, max_queueing_delay_s=1.0)
    p = plan(link, None, targets, replications=3, seed=1, size=("rule_of_thumb", 500))
    checked = run_batches(p, fixed_runner(0.5, 0.99))
    console = Console(record=True, width=200)
    render_verification(checked, console)
    text = console.export_text()
    for label in ("half", "recommended", "double"):
        assert text.index(f"{label}, slow access") > text.index("double ")
    assert "Not represented by this check:" in text
    assert len(checked.not_represented) == 1  # the round trips measured
    flat = " ".join(text.split())
    for limitation in checked.not_represented:
        assert f"  - {limitation}"[:60] in text
        # Printed once: as the list's line, not again in the verdict's reason.
        assert flat.count(" ".join(limitation.split())[:60]) == 1
    # The assumed access rate, likewise, is said once (in the verdict's reason).
    assert flat.count("Senders' access: access rate not given") == 1
    assert "the slow end governs" in text and "Verdict: missed" in text
