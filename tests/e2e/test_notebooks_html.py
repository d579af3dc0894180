"""Every notebook's HTML (as ``make notebooks`` writes it) shows typeset mathematics offline.

The page is opened from disk, as a reader would open ``notebooks/_build/*.html``; MathJax comes
from the copy beside it. Checked per notebook: MathJax finished typesetting without a TeX
error, the page shows typeset equations and no raw LaTeX (``$\\displaystyle`` is how SymPy's
output arrives before MathJax typesets it), the premises are typeset as mathematics (not as
inline code), no inline code in the prose is a mathematical symbol or formula (the rule of
``tests/notebooks/inline_maths.py``), and every figure the notebook produced is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from notebooks.render import notebook_paths
from tests.conftest import RenderedNotebooks
from tests.e2e.conftest import PageLog, Screenshot
from tests.notebooks.inline_maths import code_identifiers, is_mathematical

NOTEBOOKS = notebook_paths()
MATHJAX_TIMEOUT_MS = 60_000

# MathJax 2 is done when its queue is empty after the page's Typeset call.
MATHJAX_DONE = """() => window.MathJax && MathJax.isReady && MathJax.Hub.queue.pending === 0
    && MathJax.Hub.queue.running === 0"""

PAGE_FACTS = """() => ({
    typeset: document.querySelectorAll('.MathJax').length,
    sources: document.querySelectorAll('script[type^="math/tex"]').length,
    errors: document.querySelectorAll('.MathJax_Error, merror, [data-mjx-error]').length,
    raw: document.body.innerText.includes('$\\\\displaystyle'),
    dollars: (document.body.innerText.match(/\\$[^$\\n]{1,80}\\$/g) || []).slice(0, 5),
    premises: (() => {
        const strong = Array.from(document.querySelectorAll('p > strong')).find(
            (el) => el.textContent.trim() === 'Premises');
        if (!strong) return null;
        const block = [strong.parentElement];
        const next = strong.parentElement.nextElementSibling;
        if (next && (next.tagName === 'OL' || next.tagName === 'UL')) block.push(next);
        return {
            code: block.reduce((n, el) => n + el.querySelectorAll('code').length, 0),
            maths: block.reduce((n, el) => n + el.querySelectorAll('.MathJax').length, 0),
        };
    })(),
    markdownCode: Array.from(document.querySelectorAll('.jp-MarkdownCell code')).map(
        (el) => el.textContent),
    images: Array.from(document.querySelectorAll('.jp-OutputArea-output img')).map(
        (img) => ({loaded: img.complete && img.naturalWidth > 0, width: img.naturalWidth})),
})"""


def outputs_of_type(notebook: Any, mimetype: str) -> int:
    return sum(
        1
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if mimetype in output.get("data", {})
    )


def image_outputs(notebook: Any) -> int:
    """Figures in the executed notebook: its image/png outputs."""
    return outputs_of_type(notebook, "image/png")


def latex_outputs(notebook: Any) -> int:
    """Expressions the notebook displays as LaTeX."""
    return outputs_of_type(notebook, "text/latex")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_html_typesets_its_mathematics(
    path: Path,
    rendered_notebooks: RenderedNotebooks,
    page: Page,
    page_log: PageLog,
    screenshot: Screenshot,
) -> None:
    html = rendered_notebooks.html_path(path)
    notebook: Any = rendered_notebooks.notebook(path)
    figures = image_outputs(notebook)
    page.goto(html.as_uri())
    page.wait_for_function(MATHJAX_DONE, timeout=MATHJAX_TIMEOUT_MS)
    facts = page.evaluate(PAGE_FACTS)
    screenshot(page, path.stem, full_page=False)
    assert facts["errors"] == 0, f"{path.stem}: {facts['errors']} TeX errors"
    assert not facts["raw"], f"{path.stem}: raw $\\displaystyle text left on the page"
    assert facts["dollars"] == [], f"{path.stem}: untypeset maths {facts['dollars']}"
    # Each TeX source MathJax found is shown typeset, and there are at least as many as the
    # notebook's LaTeX outputs (SymPy's displayed expressions).
    assert facts["typeset"] == facts["sources"] >= max(latex_outputs(notebook), 1), facts
    # The premises (a paragraph opening with **Premises**, and its list) are mathematics.
    premises = facts["premises"]
    assert premises is not None, f"{path.stem}: no **Premises** paragraph"
    assert premises["code"] == 0 and premises["maths"] > 0, premises
    # What the prose shows as code is code (file, module, function or argument names).
    code_sources = [c.source for c in notebook.cells if c.cell_type == "code"]
    identifiers = code_identifiers(code_sources)
    shown_as_code_maths = [t for t in facts["markdownCode"] if is_mathematical(t, identifiers)]
    assert shown_as_code_maths == [], f"{path.stem}: maths shown as code {shown_as_code_maths}"
    assert figures > 0, f"{path.stem} draws no figure"
    assert len(facts["images"]) == figures, facts["images"]
    assert all(img["loaded"] for img in facts["images"]), facts["images"]
    page_log.assert_clean()


# The first markdown cell of notebooks/07_bscl.py: its title, the paragraph after it (the
# introduction) and everything the cell shows as inline code.
BSCL_INTRO = """() => {
    const cell = document.querySelector('.jp-MarkdownCell');
    const intro = cell.querySelector('h1').nextElementSibling;
    const shown = (el) => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0;
    };
    return {
        tag: intro.tagName,
        text: intro.innerText,
        tex: Array.from(intro.querySelectorAll('script[type^="math/tex"]')).map(
            (el) => el.textContent),
        typeset: Array.from(intro.querySelectorAll('.MathJax')).filter(shown).length,
        code: Array.from(intro.querySelectorAll('code')).map((el) => el.textContent),
        cellCode: Array.from(cell.querySelectorAll('code')).map((el) => el.textContent),
    };
}"""


def test_bscl_intro_symbols_are_typeset_not_code(
    rendered_notebooks: RenderedNotebooks,
    page: Page,
    page_log: PageLog,
    screenshot: Screenshot,
) -> None:
    """The introduction of the BSCL notebook names N_b, p̂, B, K_p and Ñ_b: a reader sees them
    typeset by MathJax, as the premises below, not as grey inline code."""
    path = next(p for p in NOTEBOOKS if p.stem == "07_bscl")
    page.goto(rendered_notebooks.html_path(path).as_uri())
    page.wait_for_function(MATHJAX_DONE, timeout=MATHJAX_TIMEOUT_MS)
    intro = page.evaluate(BSCL_INTRO)
    screenshot(page, "07_bscl_intro", full_page=False)
    assert intro["tag"] == "P", intro
    # The five symbols of the introduction (notebooks/07_bscl.py), in reading order, each
    # shown as a typeset MathJax element.
    assert intro["tex"] == ["N_b", "\\hat p", "B", "K_p", "\\tilde N_b"], intro
    assert intro["typeset"] == len(intro["tex"]), intro
    # The only code left is the seed's file name; no TeX source or backticked symbol shows.
    assert intro["code"] == ["004_cb0749363e88d206.txt"], intro
    assert "N_b" not in intro["cellCode"], intro["cellCode"]
    assert "N_b" not in intro["text"] and "$" not in intro["text"], intro["text"]
    page_log.assert_clean()
