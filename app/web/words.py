"""The answer in an operator's words: what rule, why it applies here, what was assumed, and how
each input was read. Built from the ``/v1/recommend`` answer and the request; no API field name
reaches the page (:func:`plain` replaces any left in the engine's own sentences by the form's
labels).
"""

from __future__ import annotations

import re
from typing import Any

from app.rule_words import REGIME_WORDS, RULE_WORDS
from app.schemas.recommend import RecommendRequest, ScenarioIn
from app.web.fields import BY_NAME, FIELDS
from models.recommend.scenario import AQM_INTERVAL_S, AQM_TARGET_S

# API names as they may appear in the engine's sentences, each replaced by the form's label.
_API_LABELS = {path[-1]: f.label.lower() for f in FIELDS for path in (f.path, *f.also)}
_API_LABELS.update(
    {
        "what_if": "what if (below)",
        "min_utilization": "utilization target",
        "max_loss": "loss target",
        "max_queueing_delay_s": "queueing-delay target",
        "bdp_packets": "bandwidth-delay product",
        "effective_rtt_s": "effective round-trip time",
        "deciding_inputs": "deciding inputs",
    }
)
_API_RE = re.compile(
    r"`?\b(" + "|".join(re.escape(n) for n in sorted(_API_LABELS, key=len, reverse=True)) + r")\b`?"
)


def plain(text: str) -> str:
    """``text`` with every API field name replaced by the words the form uses for it."""
    return _API_RE.sub(lambda m: _API_LABELS[m.group(1)], text)


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:,.3g} ms" if ms < 1000 else f"{seconds:,.3g} s"


def _rate(bps: float) -> str:
    for factor, unit in ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if bps >= factor:
            return f"{bps / factor:,.4g} {unit}"
    return f"{bps:,.4g} bit/s"


def _aqm_times(sc: ScenarioIn) -> list[tuple[str, float, bool]]:
    """The AQM's target and interval as (input name, seconds, whether given); none without."""
    if sc.aqm == "none":
        return []
    return [
        (name, given if given is not None else default, given is not None)
        for name, given, default in (
            ("aqm_target", sc.aqm_target_s, AQM_TARGET_S[sc.aqm]),
            ("aqm_interval", sc.aqm_interval_s, AQM_INTERVAL_S[sc.aqm]),
        )
    ]


def echo(request: RecommendRequest, answer: dict[str, Any]) -> list[tuple[str, str]]:
    """How each input was read, as (label, reading) pairs, the engine's defaults named."""
    sc = request.scenario
    derived = answer.get("inputs") or {}
    rows = [(BY_NAME["capacity"].label, _rate(sc.capacity_bps))]
    if sc.rtts_s is not None and len(sc.rtts_s) > 1:
        listed = ", ".join(_ms(r) for r in sc.rtts_s)
        rows.append(
            (
                BY_NAME["rtt"].label,
                f"{_ms(derived.get('effective_rtt_s', sc.rtts[0]))} (harmonic mean of {listed})",
            )
        )
    else:
        rows.append((BY_NAME["rtt"].label, _ms(sc.rtts[0])))
    rows.append((BY_NAME["packet"].label, f"{sc.packet_bytes:,.0f} bytes"))
    rows.append((BY_NAME["flows"].label, f"{sc.flows:,}"))
    used = derived.get("bottlenecked_flows_used")
    if sc.bottlenecked_flows is None:
        rows.append(
            (
                BY_NAME["bottlenecked"].label,
                "not given: loss is drawn for the worst case (all flows bottlenecked)",
            )
        )
    else:
        rows.append((BY_NAME["bottlenecked"].label, f"{sc.bottlenecked_flows:,}"))
    if used is not None and sc.bottlenecked_flows is not None and used != sc.bottlenecked_flows:
        rows.append(("Bottlenecked flows used", f"{used:,}"))
    rows.append(
        (
            BY_NAME["load"].label,
            "not given" if sc.load is None else f"{sc.load:.3g} of the capacity",
        )
    )
    rows.append(
        (
            BY_NAME["access"].label,
            "not given (senders may send at line rate)"
            if sc.access_bps is None
            else _rate(sc.access_bps),
        )
    )
    if sc.max_window_packets is not None:
        rows.append((BY_NAME["window"].label, f"{sc.max_window_packets:,.4g} packets"))
    rows.append((BY_NAME["paced"].label, "yes" if sc.paced else "no (not confirmed)"))
    ccs = dict(BY_NAME["cc"].choices)
    rows.append((BY_NAME["cc"].label, ccs[sc.congestion_control or ""]))
    if sc.incast_senders is not None:
        rows.append(
            (
                BY_NAME["incast"].label,
                f"{sc.incast_senders:,} senders × {sc.initial_window_packets:g} packets",
            )
        )
    aqms = dict(BY_NAME["aqm"].choices)
    rows.append((BY_NAME["aqm"].label, aqms.get(sc.aqm, sc.aqm)))
    for name, seconds, given in _aqm_times(sc):
        rows.append((BY_NAME[name].label, _ms(seconds) + ("" if given else " (the RFC's default)")))
    words = {
        "min_utilization": ("Utilization target", lambda v: f"at least {v:.0%}"),
        "max_loss": ("Loss target", lambda v: f"at most {v:.3g}"),
        "max_queueing_delay_s": ("Queueing-delay target", lambda v: f"at most {_ms(v)}"),
    }
    for target in answer.get("targets") or []:
        label, say = words.get(target["name"], (target["name"], str))
        source = "yours" if target.get("source") == "user" else "default"
        rows.append((label, f"{say(float(target['value']))} ({source})"))
    return rows


def explanation(answer: dict[str, Any], request: RecommendRequest) -> list[str]:
    """Two or three sentences: what rule, why it applies to this link, what was assumed."""
    rec = answer["recommended"]
    rule = str(rec.get("rule"))
    regime = answer.get("regime") or {}
    rules = {str(r.get("rule")): r for r in answer.get("rules") or []}
    name = str(rules.get(rule, {}).get("name", rule))
    sentences = [
        f"The size comes from {name}: {RULE_WORDS.get(rule, 'the rule named in the table')}."
    ]
    kind = str(regime.get("regime", "unknown"))
    sentences.append(
        f"It applies here because {REGIME_WORDS.get(kind, kind)}; each rule's assumptions are "
        "marked in the rules table."
    )
    assumed = []
    sc = request.scenario
    if sc.bottlenecked_flows is None:
        assumed.append("the number of bottlenecked flows is unknown")
    if sc.load is None:
        assumed.append("the load is unknown")
    if not sc.paced and sc.access_bps is None:
        assumed.append("the senders are not known to be paced")
    whose = {True: "(yours)", False: "(the RFC's)"}
    times = [
        f"{name.removeprefix('aqm_')} {_ms(seconds)} {whose[given]}"
        for name, seconds, given in _aqm_times(sc)
    ]
    if times:
        assumed.append(f"the AQM keeps its {' and '.join(times)}, the buffer is its hard limit")
    defaults = [t["name"] for t in answer.get("targets") or [] if t.get("source") != "user"]
    if defaults:
        assumed.append("the targets you left empty take their defaults")
    if assumed:
        sentences.append("Assumed: " + "; ".join(assumed) + ".")
    return sentences


def what_if(answer: dict[str, Any]) -> list[str]:
    """The engine's "what if" entries, in plain words."""
    return [plain(str(w.get("explanation", ""))) for w in answer.get("what_if") or []]
