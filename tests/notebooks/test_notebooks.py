"""Every notebook in notebooks/ runs from top to bottom without error.

Each notebook ends by comparing its SymPy derivation with the ``models`` function at sample
points (``assert np.allclose``), so a failing assertion there fails this test too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from notebooks.render import notebook_paths
from tests.conftest import RenderedNotebooks

NOTEBOOKS = notebook_paths()
# With the browser tests, which open these notebooks' HTML: one process executes each once.
pytestmark = pytest.mark.xdist_group("browser")


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path: Path, rendered_notebooks: RenderedNotebooks) -> None:
    notebook: Any = rendered_notebooks.notebook(path)
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    assert code_cells, f"{path.name} has no code"
    for cell in code_cells:
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"


def test_rendered_html_loads_mathjax_and_scripts_locally(tmp_path: Path) -> None:
    """The HTML pages work offline: MathJax from the local copy, no require.js from a CDN.

    Whether the equations are then typeset is checked in a browser (tests/e2e).
    """
    import nbformat

    from notebooks.render import MATHJAX_CONFIG, MATHJAX_URL, export_html

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("$B = C T$")])
    html = export_html(notebook, tmp_path)
    assert MATHJAX_URL in html
    assert "require.min.js" not in html
    assert "mathjax/2.7" not in html  # nbconvert's default CDN MathJax
    assert (tmp_path / "mathjax" / "MathJax.js").is_file()
    # The configuration the page asks for is in the copy (a missing one leaves raw LaTeX).
    assert (tmp_path / "mathjax" / "config" / f"{MATHJAX_CONFIG}.js").is_file()
