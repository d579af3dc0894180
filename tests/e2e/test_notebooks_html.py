"""Every notebook's HTML (as ``make notebooks`` writes it) shows typeset mathematics offline.

The page is opened from disk, as a reader would open ``notebooks/_build/*.html``; MathJax comes
from the copy beside it. Checked per notebook: MathJax finished typesetting without a TeX
error, the page shows typeset equations and no raw LaTeX (``$\\displaystyle`` is how SymPy's
output arrives before MathJax typesets it), the premises are typeset as mathematics (not as
inline code), and every figure the notebook produced is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from notebooks.render import notebook_paths
from tests.conftest import RenderedNotebooks
from tests.e2e.conftest import PageLog, Screenshot

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
    notebook = rendered_notebooks.notebook(path)
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
    assert figures > 0, f"{path.stem} draws no figure"
    assert len(facts["images"]) == figures, facts["images"]
    assert all(img["loaded"] for img in facts["images"]), facts["images"]
    page_log.assert_clean()
