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
#: MathJax 2.7 is copied from its installed package (jupyter-server-mathjax, Jupyter's own
#: offline MathJax) beside the HTML, so the pages render offline. That copy ships one combined
#: configuration, TeX input with HTML-CSS output and its STIX web fonts; nbconvert's default
#: ``TeX-AMS_CHTML-full`` is not in it (a 404 left the LaTeX raw).
MATHJAX_SOURCE = Path(jupyter_server_mathjax.__file__).resolve().parent / "static"
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full"
MATHJAX_URL = f"mathjax/MathJax.js?config={MATHJAX_CONFIG},Safe"
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


def export_html(notebook: nbformat.NotebookNode, build_dir: Path = BUILD_DIR) -> str:
    """HTML of an executed notebook, with MathJax from ``build_dir/mathjax`` (copied on first
    use)."""
    exporter = HTMLExporter(
        template_name="offline",
        extra_template_basedirs=[str(NOTEBOOK_DIR / "templates")],
        mathjax_url=MATHJAX_URL,
    )
    body, _ = exporter.from_notebook_node(notebook)
    build_dir.mkdir(parents=True, exist_ok=True)
    if not (build_dir / "mathjax").exists():
        shutil.copytree(MATHJAX_SOURCE, build_dir / "mathjax")
    return str(body)


def write_html(notebook: nbformat.NotebookNode, name: str, build_dir: Path = BUILD_DIR) -> Path:
    """Write an executed notebook as ``build_dir/<name>.html``; return the HTML path."""
    out = build_dir / f"{name}.html"
    html = export_html(notebook, build_dir)
    out.write_text(html, encoding="utf-8")
    return out


def render(path: Path, build_dir: Path = BUILD_DIR) -> Path:
    """Execute one notebook and write ``build_dir/<name>.html``; return the HTML path."""
    return write_html(execute_notebook(path), path.stem, build_dir)


def main(argv: list[str]) -> int:
    paths = notebook_paths()
    if argv:
        paths = [p for p in paths if p.stem in argv or p.name in argv]
        if not paths:
            print(f"no notebook named {' '.join(argv)}", file=sys.stderr)
            return 2
    for path in paths:
        print(f"{path.name} -> {render(path).relative_to(REPO_ROOT)}")
    index = write_index()
    print(f"index -> {index.relative_to(REPO_ROOT)}")
    return 0


def write_index(build_dir: Path = BUILD_DIR) -> Path:
    """``build_dir/index.html``: every notebook, what it derives, a link to each rendered one."""
    from app.web.notebooks import index_html, notebooks

    rendered = {p.stem for p in build_dir.glob("[0-9][0-9]_*.html")}
    build_dir.mkdir(parents=True, exist_ok=True)
    out = build_dir / "index.html"
    out.write_text(index_html(notebooks(), rendered, from_build=True), encoding="utf-8")
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
