"""Two links, or two assumptions about one link, side by side: ``/compare?a=QUERY&b=QUERY``.

Each side is the query string of the form at ``/`` (so each side is a URL of its own, and the
comparison's URL holds both); each is answered exactly as the form answers it. The page shows
the inputs that differ, as each side's input echo reads them, then the recommended size, its
rule and the predicted performance side by side. :func:`variants` gives the comparisons the
result page offers for its own inputs ("CUBIC vs BBR", "N_b known vs not").
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit

from app.web.fields import BY_NAME
from app.web.form import Submission, answer
from app.web.view import ResultView, build_view


@dataclass(frozen=True)
class Side:
    label: str  #: "A" or "B"
    query: str  #: the form's query string
    sub: Submission
    view: ResultView | None


def side_query(text: str) -> str:
    """The form's query string from what was given: a query string, or a whole page URL."""
    text = text.strip()
    if "?" in text or text.startswith(("http://", "https://", "/")):
        text = urlsplit(text).query
    return text


async def side(label: str, text: str) -> Side:
    query = side_query(text)
    sub = await answer(dict(parse_qsl(query, keep_blank_values=True)))
    view = None
    if sub.answer is not None and sub.request is not None:
        view = build_view(sub.answer, sub.request, sub.worst_loss)
    return Side(label, query, sub, view)


def differences(a: Side, b: Side) -> list[tuple[str, str, str]]:
    """The inputs read differently on the two sides: (label, side A, side B)."""
    if a.view is None or b.view is None:
        return []
    left, right = dict(a.view.echo), dict(b.view.echo)
    labels = list(dict.fromkeys([*left, *right]))
    return [
        (label, left.get(label, "—"), right.get(label, "—"))
        for label in labels
        if left.get(label) != right.get(label)
    ]


def _with(query: str, **changes: str) -> str:
    values = dict(parse_qsl(query, keep_blank_values=True))
    values.update(changes)
    return urlencode({k: v for k, v in values.items() if v})


def variants(sub: Submission, query: str) -> list[tuple[str, str]]:
    """(title, /compare URL) of the comparisons worth a look for these inputs."""
    out = []
    cc = sub.values.get(BY_NAME["cc"].name, "")
    labels = dict(BY_NAME["cc"].choices)
    other = "bbr" if cc != "bbr" else "cubic"
    out.append(
        (
            f"{labels.get(cc, cc)} vs {labels[other]}",
            "/compare?" + urlencode({"a": query, "b": _with(query, cc=other)}),
        )
    )
    flows = sub.values.get(BY_NAME["flows"].name, "")
    if not sub.values.get(BY_NAME["bottlenecked"].name) and flows:
        out.append(
            (
                "bottlenecked flows not known vs all of them bottlenecked here",
                "/compare?" + urlencode({"a": query, "b": _with(query, bottlenecked=flows)}),
            )
        )
    elif sub.values.get(BY_NAME["bottlenecked"].name):
        out.append(
            (
                "bottlenecked flows known vs not",
                "/compare?" + urlencode({"a": query, "b": _with(query, bottlenecked="")}),
            )
        )
    return out
