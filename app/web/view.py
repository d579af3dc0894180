"""What the page shows, built from the ``/v1/recommend`` answer (read through ``fields.RESULT``).

The template and the page's script read only the structures built here, so a change of the
API's result names touches :data:`app.web.fields.RESULT` alone.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Any

from app.formatting import human_bytes
from app.schemas.recommend import RecommendRequest
from app.web.fields import BY_NAME, RESULT
from app.web.simulation import verification_plan
from app.web.words import echo, explanation, plain, what_if


def _get(mapping: dict[str, Any], key: str) -> Any:
    return mapping.get(RESULT[key])


def packets_text(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def bytes_text(value: float | None) -> str:
    return "—" if value is None else human_bytes(value)


def ms_text(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    ms = seconds * 1e3
    if ms == 0:
        return "0 ms"
    digits = max(0, 2 - math.floor(math.log10(abs(ms))))
    return f"{ms:,.{min(digits, 4)}f} ms"


def percent_text(fraction: float | None) -> str:
    if fraction is None:
        return "unknown"
    return f"{fraction * 100:.3g} %"


def probability_text(value: float | None) -> str:
    if value is None:
        return "unknown"
    if value == 0:
        return "0"
    return f"{value:.2g}"


@dataclass(frozen=True)
class RuleRow:
    rule: str
    name: str
    equation: str
    reference: str
    status: str
    packets: str
    bytes: str
    ms: str
    buffer_packets: float | None
    assumptions: list[dict[str, str]]
    note: str | None


@dataclass(frozen=True)
class DeviceView:
    """The recommended size as one device's configuration, to read and copy."""

    vendor: str
    label: str  #: the vendor as the form's choice names it
    text: str
    release: str
    cell_bytes: int
    notes: list[str]


def device_view(answer: dict[str, Any]) -> DeviceView | None:
    """The snippet of the answer's ``device_config``; None when the request named no device."""
    config = _get(answer, "device_config")
    if not config:
        return None
    vendor = str(config.get("vendor"))
    labels = dict(BY_NAME["vendor"].choices)
    return DeviceView(
        vendor=vendor,
        label=labels.get(vendor, vendor),
        text=str(_get(config, "text")),
        release=str(_get(config, "release")),
        cell_bytes=int(_get(config, "limit")[RESULT["cell_bytes"]]),
        notes=[str(n) for n in _get(config, "notes") or []],
    )


@dataclass(frozen=True)
class ResultView:
    sentence_packets: str
    sentence_bytes: str
    sentence_ms: str
    governing_rule: str
    reason: str
    feasible: bool
    trade_off: str | None
    regime: str
    regime_reason: str
    regime_warning: str | None
    warnings: list[str]
    rows: list[RuleRow]
    predicted: dict[str, str]
    chart_data: dict[str, Any]
    device: DeviceView | None
    explanation: list[str]
    echo: list[tuple[str, str]]
    what_if: list[str]


def _rule_name(rules: list[dict[str, Any]], rule_id: str) -> str:
    for rule in rules:
        if rule.get("rule") == rule_id:
            return str(rule.get("name", rule_id))
    return rule_id


def _targets(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The target lines of the charts, keyed by the chart they belong to."""
    out: dict[str, dict[str, Any]] = {}
    for target in answer.get("targets") or []:
        value = float(target["value"])
        given = "your target" if target.get("source") == "user" else "default target"
        if target["name"] == "min_utilization":
            out["utilization"] = {"value": value, "label": f"{given}: ≥ {value:.0%}"}
        elif target["name"] == "max_loss":
            out["loss"] = {"value": value, "label": f"{given}: ≤ {value:.2g}"}
        elif target["name"] == "max_queueing_delay_s":
            out["delay_s"] = {"value": value, "label": f"{given}: ≤ {ms_text(value)}"}
    return out


def build_view(
    answer: dict[str, Any],
    request: RecommendRequest,
    worst_loss: list[float | None] | None = None,
) -> ResultView:
    """The page's view of one recommendation and the request that produced it."""
    rec = _get(answer, "recommended")
    rules: list[dict[str, Any]] = _get(answer, "rules")
    regime = _get(answer, "regime")
    curves = _get(answer, "curves")
    trade = _get(answer, "trade_off")
    pred = _get(rec, "predicted")
    rows = []
    markers = []
    for rule in rules:
        packets = _get(rule, "buffer_packets")
        rows.append(
            RuleRow(
                rule=str(rule.get("rule")),
                name=str(rule.get("name")),
                equation=str(rule.get("equation", "")),
                reference=str(rule.get("reference", "")),
                status=str(rule.get("status")),
                packets=packets_text(packets),
                bytes=bytes_text(_get(rule, "buffer_bytes")),
                ms=ms_text(_get(rule, "buffer_s")),
                buffer_packets=packets,
                assumptions=[
                    {"text": plain(a["text"]), "status": a["status"], "reason": plain(a["reason"])}
                    for a in rule.get("assumptions", [])
                ],
                note=None if rule.get("note") is None else plain(str(rule["note"])),
            )
        )
        rule_pred = _get(rule, "predicted")
        if packets is not None and packets > 0 and rule_pred is not None:
            markers.append(
                {
                    "name": str(rule.get("name")),
                    "buffer_packets": packets,
                    "utilization": _get(rule_pred, "normalized_utilization"),
                    "loss": _get(rule_pred, "loss"),
                    "delay_s": _get(rule_pred, "delay_s"),
                }
            )
    governing = _rule_name(rules, str(rec.get("rule")))
    targets_met = {
        "utilization": percent_text(_get(pred, "normalized_utilization")),
        "loss": probability_text(_get(pred, "loss")),
        "delay": ms_text(_get(pred, "delay_s")),
    }
    chart_data = {
        "curve": {
            "buffer_packets": curves[RESULT["buffer_packets"]],
            "utilization": curves[RESULT["normalized_utilization"]],
            "loss": curves[RESULT["loss"]],
            "delay_s": curves[RESULT["delay_s"]],
        },
        "rules": markers,
        "recommended": {
            "name": governing,
            "buffer_packets": _get(rec, "buffer_packets"),
            "utilization": _get(pred, "normalized_utilization"),
            "loss": _get(pred, "loss"),
            "delay_s": _get(pred, "delay_s"),
        },
        "simulation": verification_plan(request),
        "targets": _targets(answer),
    }
    if worst_loss is not None:
        chart_data["worst_case"] = {
            "loss": worst_loss,
            "label": f"worst case: all {request.scenario.flows:,} flows bottlenecked here",
        }
    return ResultView(
        sentence_packets=packets_text(_get(rec, "buffer_packets")),
        sentence_bytes=bytes_text(_get(rec, "buffer_bytes")),
        sentence_ms=ms_text(_get(rec, "buffer_s")),
        governing_rule=governing,
        reason=plain(str(rec.get("reason", ""))),
        feasible=bool(_get(answer, "feasible")),
        trade_off=None if not trade else plain(str(trade.get("explanation", ""))),
        regime=str(regime.get("regime")),
        regime_reason=plain(str(regime.get("reason", ""))),
        regime_warning=None if not regime.get("warning") else plain(str(regime["warning"])),
        warnings=[plain(str(w)) for w in _get(answer, "warnings") or []],
        rows=rows,
        predicted=targets_met,
        chart_data=chart_data,
        device=device_view(answer),
        explanation=explanation(answer, request),
        echo=echo(request, answer),
        what_if=what_if(answer),
    )


CSV_COLUMNS = (
    "rule",
    "name",
    "status",
    "buffer_packets",
    "buffer_bytes",
    "buffer_s",
    "predicted_utilization",
    "predicted_loss",
    "predicted_queueing_delay_s",
    "governs",
    "assumptions",
    "reference",
)


def recommendation_csv(answer: dict[str, Any]) -> str:
    """One row per rule, the one governing the recommendation marked; assumptions joined as
    'status: text'."""
    rec = _get(answer, "recommended")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rule in _get(answer, "rules"):
        pred = _get(rule, "predicted") or {}
        writer.writerow(
            [
                rule.get("rule"),
                rule.get("name"),
                rule.get("status"),
                _get(rule, "buffer_packets"),
                _get(rule, "buffer_bytes"),
                _get(rule, "buffer_s"),
                _get(pred, "normalized_utilization"),
                _get(pred, "loss"),
                _get(pred, "delay_s"),
                "yes" if rule.get("rule") == rec.get("rule") else "",
                "; ".join(f"{a['status']}: {a['text']}" for a in rule.get("assumptions", [])),
                rule.get("reference"),
            ]
        )
    return out.getvalue()
