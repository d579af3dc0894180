"""report.html in a real browser: tables, verdict counts, Plotly figures, nothing fetched."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from validation.harness.report import write
from validation.harness.runner import run_suite
from validation.harness.verdict import DEFINITION, Comparison, follows_definition


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of two model-only datasets and one simulated one (004 §VII, 3 rows)."""
    out = tmp_path_factory.mktemp("report")
    report = run_suite("quick", names=["bscl_table_1", "level3", "bscl_loss"], workers=2)
    write(report, out)
    return out


def test_report_shows_tables_verdicts_and_figures_offline(
    page: Page, report_dir: Path, screenshot: object
) -> None:
    data = json.loads((report_dir / "report.json").read_text())
    page.goto((report_dir / "report.html").as_uri())
    expect(page.locator("h1")).to_contain_text("validation report: quick suite")
    # The verdict counts a person reads are those of report.json.
    for verdict, count in data["counts"].items():
        cell = page.locator(f'td.count[data-verdict="{verdict}"]')
        expect(cell).to_have_text(str(count))
    # Every row's verdict is the one the definition printed above the table gives.
    expect(page.locator("body")).to_contain_text(DEFINITION)
    for row in data["rows"]:
        figures = {k: (math.nan if v is None else v) for k, v in row.items()}
        assert follows_definition(Comparison(**figures)), row
    # One table row per dataset row, each with its verdict.
    rows = page.locator("table.rows tr[data-row]")
    expect(rows).to_have_count(len(data["rows"]))
    expect(page.locator("#level3 tr[data-row] td.verdict").first).to_have_text(
        "not reproducible here"
    )
    expect(page.locator('#bscl_table_1 tr[data-row="nb300"] td.verdict')).to_have_text("agrees")
    # Plotly drew each dataset's figure: an SVG with one marker trace group per series.
    figures = page.locator(".js-plotly-plot")
    expect(figures).to_have_count(3)
    for index in range(3):
        expect(figures.nth(index).locator("svg.main-svg").first).to_be_visible()
        assert figures.nth(index).locator(".scatterlayer .trace").count() >= 4
    # The simulated dataset's points are drawn (the loss panel has three x positions).
    sim_points = page.locator("#figure-bscl_loss .scatterlayer .trace").nth(2).locator(".point")
    expect(sim_points).to_have_count(3)
    # A simulated row shows its seeds, its scenario and the software, one click away.
    row = next(r for r in data["rows"] if r["dataset"] == "bscl_loss")
    assert row["seeds"] and row["scenarios"]["run"]["buffer_packets"] > 0
    details = page.locator(f'#bscl_loss tr[data-row="{row["row"]}"] details.runs')
    expect(details).not_to_have_attribute("open", "")
    expect(details.locator("b").first).not_to_be_visible()  # folded until clicked
    details.locator("summary").click()
    expect(details.locator("b").first).to_be_visible()
    body = details.locator("xpath=.")
    expect(body).to_contain_text(f"seeds {', '.join(str(s) for s in row['seeds'])}")
    expect(body).to_contain_text(f"buffer_packets={row['scenarios']['run']['buffer_packets']}")
    expect(body).to_contain_text("capacity_bps=50000000.0")
    expect(body).to_contain_text(f"numba {row['versions']['numba']}")
    # A row that was not simulated has no such details.
    expect(page.locator("#level3 details.runs")).to_have_count(0)
    expect(page.locator("body > p").first).to_contain_text(f"numpy {row['versions']['numpy']}")
    screenshot(page, "validation-report")  # type: ignore[operator]
