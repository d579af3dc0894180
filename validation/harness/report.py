"""The validation report: ``report.json`` (the rows) and ``report.html`` (tables and figures).

The HTML page works offline: Plotly's JavaScript is inlined from the installed ``plotly``
package, and the page loads nothing from elsewhere.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from pathlib import Path

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

from validation import datasets
from validation.harness import phi
from validation.harness.runner import Report
from validation.harness.verdict import DEFINITION, Comparison, fmt
from validation.simulator import Scenario

VERDICT_CLASS = {"agrees": "agrees", "disagrees": "disagrees", "not reproducible here": "notrepro"}
COLORS = {"paper": "#444444", "simulation": "#1f77b4", "model": "#ff7f0e"}


def _nan_none(values: Sequence[float]) -> list[float | None]:
    return [v if math.isfinite(v) else None for v in values]


def figure(name: str, rows: Sequence[Comparison]) -> go.Figure:
    """Paper range, simulation (99% CI) and model for each row, one panel per quantity."""
    quantities = list(dict.fromkeys(r.quantity for r in rows))
    fig = make_subplots(rows=len(quantities), cols=1, subplot_titles=quantities)
    for panel, quantity in enumerate(quantities, start=1):
        part = [r for r in rows if r.quantity == quantity]
        names = [r.row for r in part]
        middle = [(r.low + r.high) / 2 for r in part]
        fig.add_trace(
            go.Scatter(
                x=names,
                y=middle,
                mode="markers",
                name="paper range",
                marker={"symbol": "line-ew-open", "size": 14, "color": COLORS["paper"]},
                error_y={
                    "type": "data",
                    "array": [(r.high - r.low) / 2 for r in part],
                    "color": COLORS["paper"],
                    "thickness": 6,
                    "width": 0,
                },
                showlegend=panel == 1,
                legendgroup="paper range",
            ),
            row=panel,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=names,
                y=_nan_none([r.paper for r in part]),
                mode="markers",
                name="paper",
                marker={"symbol": "diamond", "size": 9, "color": COLORS["paper"]},
                showlegend=panel == 1,
                legendgroup="paper",
            ),
            row=panel,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=names,
                y=_nan_none([r.simulation for r in part]),
                mode="markers",
                name="simulation (99% CI)",
                marker={"size": 9, "color": COLORS["simulation"]},
                error_y={
                    "type": "data",
                    "array": _nan_none([r.simulation_ci99 for r in part]),
                    "color": COLORS["simulation"],
                },
                showlegend=panel == 1,
                legendgroup="simulation",
            ),
            row=panel,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=names,
                y=_nan_none([r.model for r in part]),
                mode="markers",
                name="model",
                marker={"symbol": "x", "size": 9, "color": COLORS["model"]},
                showlegend=panel == 1,
                legendgroup="model",
            ),
            row=panel,
            col=1,
        )
    fig.update_layout(
        title=name, height=320 * len(quantities) + 80, margin={"l": 60, "r": 20, "t": 60, "b": 40}
    )
    return fig


def write_json(report: Report, path: Path) -> None:
    """Write ``report.json``: suite, counts, run time and one object per row."""
    path.write_text(json.dumps(report.to_dict(), indent=2, allow_nan=False), encoding="utf-8")


def _cell(value: float) -> str:
    return html.escape(fmt(value))


#: A scenario's default fields, left out of the parameters a row shows (report.json has all).
_DEFAULTS = Scenario().to_dict()


def _runs_cell(r: Comparison) -> str:
    """Seeds, scenario parameters and versions of a simulated row, folded under a summary."""
    if not r.seeds:
        return ""
    parts = [f"<b>seeds</b> {', '.join(str(s) for s in r.seeds)}"]
    for variant, values in r.scenarios.items():
        shown = ", ".join(
            f"{k}={v!r}" if k != "groups" else f"groups={len(v)}"
            for k, v in values.items()
            if k == "buffer_packets" or v != _DEFAULTS.get(k)
        )
        parts.append(f"<b>{html.escape(variant)}</b>: {html.escape(shown)}")
    versions = ", ".join(f"{k} {v}" for k, v in r.versions.items())
    parts.append(f"<b>versions</b> {html.escape(versions)}")
    return (
        '<details class="runs"><summary>seeds, scenario, versions</summary>'
        f"{'<br>'.join(parts)}</details>"
    )


def _table(rows: Sequence[Comparison]) -> str:
    head = (
        "<tr><th>row</th><th>quantity</th><th>paper</th><th>range</th><th>model</th>"
        "<th>simulation ± 99% CI</th><th>verdict</th><th>reason</th></tr>"
    )
    body = []
    for r in rows:
        sim = _cell(r.simulation)
        if math.isfinite(r.simulation_ci99):
            sim += f" ± {_cell(r.simulation_ci99)}"
        body.append(
            f'<tr class="{VERDICT_CLASS[r.verdict]}" data-row="{html.escape(r.row)}">'
            f"<td>{html.escape(r.row)}</td><td>{html.escape(r.quantity)}</td>"
            f"<td>{_cell(r.paper)}</td><td>[{_cell(r.low)}, {_cell(r.high)}]</td>"
            f'<td title="{html.escape(r.model_name)}">{_cell(r.model)}</td><td>{sim}</td>'
            f'<td class="verdict">{html.escape(r.verdict)}</td>'
            f"<td>{html.escape(r.reason)}<br><small>{html.escape(r.source)}: "
            f"&ldquo;{html.escape(r.quote)}&rdquo;</small>{_runs_cell(r)}</td></tr>"
        )
    return f'<table class="rows">{head}{"".join(body)}</table>'


STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top; text-align: left; }
tr.agrees td.verdict { background: #d9f2d9; }
tr.disagrees td.verdict { background: #f8d7d7; }
tr.notrepro td.verdict { background: #eeeeee; }
.provenance { font-size: 0.85em; color: #444; max-width: 70em; }
"""


def write_html(report: Report, path: Path) -> None:
    """Write ``report.html``: verdict counts, then per dataset its provenance, figure and table."""
    counts = report.counts()
    prov = datasets.provenance()
    sections = []
    by_dataset: dict[str, list[Comparison]] = {}
    for item in report.comparisons:
        by_dataset.setdefault(item.dataset, []).append(item)
    for name, rows in by_dataset.items():
        entry = prov[name]
        fig_html = figure(entry["title"], rows).to_html(
            include_plotlyjs=False, full_html=False, div_id=f"figure-{name}"
        )
        sections.append(
            f'<section id="{html.escape(name)}"><h2>{html.escape(name)}</h2>'
            f'<p class="provenance"><b>{html.escape(entry["seed"])}</b>, '
            f"{html.escape(entry['section'])}. {html.escape(entry['parameters'])}<br>"
            f"<b>Assumed:</b> {html.escape(entry['assumed'])}<br>"
            f"<b>Ranges:</b> {html.escape(entry['tolerance'])}<br>"
            f"<b>Scaling:</b> {html.escape(entry['scaling'])}</p>"
            f"{fig_html}{_table(rows)}</section>"
        )
    if report.phi is not None:
        phi_html = phi.figure(report.phi).to_html(
            include_plotlyjs=False, full_html=False, div_id="figure-phi"
        )
        sections.append(
            '<section id="phi"><h2>Augé-Roberts method: φ(i) and γ(ρ)</h2>'
            f'<p class="provenance">{html.escape(phi.__doc__ or "")}</p>{phi_html}</section>'
        )
    summary = "".join(
        f"<tr><td>{html.escape(v)}</td>"
        f'<td class="count" data-verdict="{html.escape(v)}">{n}</td></tr>'
        for v, n in counts.items()
    )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>bufsize validation report ({html.escape(report.suite)})</title>
<style>{STYLE}</style>
<script>{get_plotlyjs()}</script>
</head><body>
<h1>bufsize validation report: {html.escape(report.suite)} suite</h1>
<p>{len(report.comparisons)} rows from {len(by_dataset)} datasets; {report.runs} simulator runs
in {report.wall_s:.1f} s of wall time ({report.meta.get("replications")} replications per
scenario at most; {html.escape(str(report.meta.get("stopping_rule", "")))}). Software:
{html.escape(", ".join(f"{k} {v}" for k, v in report.meta.get("versions", {}).items()))}.
Each row compares what the paper states with a model of <code>models</code> and with
the packet simulator; {html.escape(DEFINITION)}.</p>
<table id="verdicts"><tr><th>verdict</th><th>rows</th></tr>{summary}</table>
{"".join(sections)}
</body></html>
"""
    path.write_text(page, encoding="utf-8")


def write(report: Report, folder: Path) -> tuple[Path, Path]:
    """Write report.json and report.html into ``folder``; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    json_path, html_path = folder / "report.json", folder / "report.html"
    write_json(report, json_path)
    write_html(report, html_path)
    return json_path, html_path
