"""The derivation notebooks, served: ``/notebooks/`` lists every one with what it derives.

The notebooks are jupytext percent-format files ``notebooks/NN_*.py``; ``make notebooks`` runs
them and writes HTML to ``notebooks/_build/`` (with MathJax beside it, so they render offline).
The index is built from the sources, so it lists every notebook whether or not it has been
rendered; a rendered one links to its HTML, served from the build folder, and every one to its
source. ``notebooks/render.py`` writes the same index into the build folder.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse, Response

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
BUILD_DIR = NOTEBOOK_DIR / "_build"
_NAME = re.compile(r"[0-9][0-9]_[a-z0-9_]+")

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Notebook:
    name: str  #: file stem, e.g. 01_rule_of_thumb
    title: str  #: the first heading, LaTeX left as written ($\sqrt{N}$)
    derives: str  #: the first paragraph under the heading


def _markdown_lines(source: str) -> list[str]:
    """The lines of the first markdown cell, without their leading '# '."""
    lines: list[str] = []
    inside = False
    for line in source.splitlines():
        if line.startswith("# %% [markdown]"):
            if inside:
                break
            inside = True
            continue
        if inside:
            if line.startswith("# %%"):
                break
            lines.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
    return lines


def read_notebook(path: Path) -> Notebook:
    lines = _markdown_lines(path.read_text(encoding="utf-8"))
    title = next((ln.lstrip("# ").strip() for ln in lines if ln.startswith("#")), path.stem)
    paragraph: list[str] = []
    for line in lines:
        if line.startswith("#"):
            if paragraph:
                break
            continue
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    return Notebook(path.stem, title, " ".join(paragraph))


def notebooks() -> list[Notebook]:
    """Every notebook, in reading order."""
    return [read_notebook(p) for p in sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))]


def index_html(items: list[Notebook], rendered: set[str], *, from_build: bool = False) -> str:
    """The index page: each notebook's title, what it derives, and its links."""
    rows = []
    for nb in items:
        links = []
        if nb.name in rendered:
            links.append(f'<a href="{nb.name}.html">read it</a>')
        else:
            links.append("not rendered yet (<code>make notebooks</code>)")
        if not from_build:
            links.append(f'<a href="{nb.name}.py">source</a>')
        rows.append(
            f'<li id="nb-{nb.name}"><h2>{html.escape(nb.title)}</h2>'
            f"<p>{html.escape(nb.derives)}</p><p>{' · '.join(links)}</p></li>"
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>bufsize: the derivation notebooks</title>"
        '<link rel="icon" href="data:,"><style>body{font-family:system-ui,sans-serif;'
        "max-width:60rem;margin:0 auto;padding:0 1rem 2rem;line-height:1.45}"
        "li{margin:0 0 1rem}h2{font-size:1.1rem;margin:0.6rem 0 0.2rem}"
        "p{margin:0.2rem 0}</style></head><body>"
        "<h1>The derivation notebooks</h1>"
        f"<p>{len(items)} notebooks, each deriving one model of <code>models/</code> from its "
        "paper with SymPy and checking it numerically against the code. "
        '<a href="/">Back to the form</a></p>'
        f'<ol class="notebooks">{"".join(rows)}</ol></body></html>'
    )


def _rendered() -> set[str]:
    if not BUILD_DIR.is_dir():
        return set()
    return {p.stem for p in BUILD_DIR.glob("[0-9][0-9]_*.html")}


@router.get("/notebooks", response_class=HTMLResponse)
@router.get("/notebooks/", response_class=HTMLResponse)
def notebook_index() -> HTMLResponse:
    return HTMLResponse(index_html(notebooks(), _rendered()))


@router.get("/notebooks/{name}.html")
def notebook_page(name: str) -> Response:
    path = BUILD_DIR / f"{name}.html"
    if not _NAME.fullmatch(name) or not path.is_file():
        return Response(status_code=404)
    return FileResponse(path, media_type="text/html")


@router.get("/notebooks/{name}.py")
def notebook_source(name: str) -> Response:
    path = NOTEBOOK_DIR / f"{name}.py"
    if not _NAME.fullmatch(name) or not path.is_file():
        return Response(status_code=404)
    return PlainTextResponse(path.read_text(encoding="utf-8"))


@router.get("/notebooks/mathjax/{rest:path}")
def notebook_mathjax(rest: str) -> Response:
    """MathJax as the renderer copied it beside the HTML (no path outside that folder)."""
    root = (BUILD_DIR / "mathjax").resolve()
    path = (root / rest).resolve()
    if root not in path.parents or not path.is_file():
        return Response(status_code=404)
    return FileResponse(path)
