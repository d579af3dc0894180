"""Execute every notebook and write it as HTML to ``notebooks/_build/``.

Usage: ``python -m notebooks.render [NAME ...]`` (``make notebooks`` renders them all). The
notebooks are kept as jupytext percent-format ``.py`` files; this converts each to a notebook
in memory, runs it in the ``python3`` kernel of the current environment and exports the result.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

NOTEBOOK_DIR = Path(__file__).resolve().parent
BUILD_DIR = NOTEBOOK_DIR / "_build"
REPO_ROOT = NOTEBOOK_DIR.parent
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


def render(path: Path) -> Path:
    """Execute one notebook and write ``_build/<name>.html``; return the HTML path."""
    notebook = execute_notebook(path)
    body, _ = HTMLExporter().from_notebook_node(notebook)
    BUILD_DIR.mkdir(exist_ok=True)
    out = BUILD_DIR / f"{path.stem}.html"
    out.write_text(body, encoding="utf-8")
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
