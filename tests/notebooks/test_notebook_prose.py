"""The notebooks' prose writes mathematics in TeX, not as inline code.

A symbol such as ``N_b`` or a formula such as ``C·T`` in backticks is shown as grey monospace
code; in ``$...$`` MathJax typesets it like the premises and SymPy's output around it. The
rule telling mathematics from code is in ``tests/notebooks/inline_maths.py``; the browser check
of the rendered pages is in ``tests/e2e/test_notebooks_html.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from notebooks.render import notebook_paths
from tests.notebooks.inline_maths import (
    code_identifiers,
    is_mathematical,
    markdown_and_code,
    math_spans,
)

NOTEBOOKS = notebook_paths()

# The introduction of notebooks/07_bscl.py as it was written before its symbols were TeX
# (the text a reader saw as code: N_b, p̂, B, K_p, Ñ_b).
OLD_BSCL_INTRO = """\
Dhamdhere, Jiang and Dovrolis (seed `004_cb0749363e88d206.txt`) size the buffer of a link
saturated by `N_b` locally bottlenecked persistent (LBP) TCP flows under two constraints:
keep the link busy (utilization, §III) and keep the loss rate below `p̂` (§IV). This notebook
solves eq. 15 for `B` (eq. 16), derives `K_p` from eqs. 18-22 and finds the crossover `Ñ_b`
where the loss constraint takes over (eq. 23).
"""


def bscl_identifiers() -> frozenset[str]:
    """Identifiers of notebook 07's code cells (the rule's examples are judged against them)."""
    _, code = markdown_and_code(next(p for p in NOTEBOOKS if p.stem == "07_bscl"))
    return code_identifiers(code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_markdown_writes_mathematics_as_tex(path: Path) -> None:
    markdown, code = markdown_and_code(path)
    assert markdown, f"{path.name} has no prose"
    found = math_spans(markdown, code_identifiers(code))
    assert found == [], f"{path.name}: mathematics as inline code, write it as $...$: {found}"


def test_old_bscl_intro_is_flagged() -> None:
    """The rule finds every symbol of the old text, and leaves its seed file name alone."""
    assert math_spans([OLD_BSCL_INTRO], bscl_identifiers()) == ["N_b", "p̂", "B", "K_p", "Ñ_b"]


@pytest.mark.parametrize(
    "span",
    [
        # Symbols (rule 2), from the notebooks' old prose; B and T are also SymPy variables of
        # the code cells, which does not make them code.
        "N_b",
        "p̂",
        "Ñ_b",
        "B̂",
        "T̄",
        "B",
        "T",
        "λ",
        "W_max",
        "ρ^B",
        "W^flt",
        "π_B",
        # Formulas (rule 3).
        "C·T",
        "√N",
        "B = C·RTT",
        "N_b = 1000",
        "W_max = 64",
        "T/2",
        "S -> 1",
        "e^-40",
        "|W − E[W]| ≤ B/2",
        "N_b·R = C",
        "0..B",
        "log N",
        "O(log N)",
        "log W_max",
        # Numbers (rule 4).
        "0.70",
        "1e-9",
        "[0, 1]",
        "1, 2, ...",
    ],
)
def test_rule_flags_mathematics(span: str) -> None:
    assert is_mathematical(span, bscl_identifiers())


@pytest.mark.parametrize(
    "span",
    [
        "004_cb0749363e88d206.txt",  # a seed file
        "validation/simulator/optical_fifo.py",  # a module's file
        "001",  # a seed, by its number
        "models",
        "models.bscl",
        "models.queues.md1b_queue",
        "bscl_buffer",  # a function of models and of the notebook's code
        "packet_bytes",  # an argument of the models functions
        "capacity_bps",
        "bottlenecked_share",
        "optical_fifo_design",
        "D3[0]",  # a label of notebook 08's figure
    ],
)
def test_rule_keeps_code(span: str) -> None:
    assert not is_mathematical(span, bscl_identifiers())
