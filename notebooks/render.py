"""Execute every notebook and write it as HTML to ``notebooks/_build/``.

Usage: ``python -m notebooks.render [NAME ...]`` (``make notebooks`` renders them all). The
notebooks are kept as jupytext percent-format ``.py`` files; this converts each to a notebook
in memory, runs it in the ``python3`` kernel of the current environment and exports the result.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import jupyter_server_mathjax
import jupytext
import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

NOTEBOOK_DIR = Path(__file__).resolve().parent
BUILD_DIR = NOTEBOOK_DIR / "_build"
REPO_ROOT = NOTEBOOK_DIR.parent
#: MathJax is copied from its installed package beside the HTML, so the pages render offline.
MATHJAX_SOURCE = Path(jupyter_server_mathjax.__file__).resolve().parent / "static"
MATHJAX_URL = "mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
#: Per-cell limit in seconds; every notebook runs in well under a minute.
CELL_TIMEOUT_S = 300


def notebook_paths() -> list[Path]:
    """The notebooks, in reading order: ``notebooks/NN_*.py``."""
    return sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))


def execute_notebook(path: Path) -> nbformat.NotebookNode:
    """Read a percent-format notebook, run every cell, and return the executed notebook.

    Raises ``nbclient.exceptions.CellExecutionError`` if a cell fails.
    """
    notebook = jupytext.read(path)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(REPO_ROOT)}},
    )
    client.execute()
    return notebook


def export_html(notebook: nbformat.NotebookNode) -> str:
    """HTML of an executed notebook, with MathJax from ``_build/mathjax`` (copied on first use)."""
    exporter = HTMLExporter(
        template_name="offline",
        extra_template_basedirs=[str(NOTEBOOK_DIR / "templates")],
        mathjax_url=MATHJAX_URL,
    )
    body, _ = exporter.from_notebook_node(notebook)
    BUILD_DIR.mkdir(exist_ok=True)
    if not (BUILD_DIR / "mathjax").exists():
        shutil.copytree(MATHJAX_SOURCE, BUILD_DIR / "mathjax")
    return str(body)


def render(path: Path) -> Path:
    """Execute one notebook and write ``_build/<name>.html``; return the HTML path."""
    out = BUILD_DIR / f"{path.stem}.html"
    html = export_html(execute_notebook(path))
    out.write_text(html, encoding="utf-8")
    return out


def main(argv: list[str]) -> int:
    paths = notebook_paths()
    if argv:
        paths = [p for p in paths if p.stem in argv or p.name in argv]
        if not paths:
            print(f"no notebook named {' '.join(argv)}", file=sys.stderr)
            return 2
    for path in paths:
        print(f"{path.name} -> {render(path).relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
