"""The operators' page at ``/``, its downloads, and the files it loads (all from this service).

``GET /`` shows the form (with the defaults of a 10 Gb/s core link) and, once sent, the
recommendation: the form is sent with GET, so the address bar holds every input and the URL
reproduces the page. ``/recommendation.csv`` and ``/recommendation.json`` answer the same query
as files. Plotly's JavaScript comes from the installed ``plotly`` package.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import plotly
from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates

from app.web.compare import differences, side, variants
from app.web.examples import EXAMPLE_LINKS
from app.web.fields import FIELDS, GROUPS
from app.web.form import Submission, answer
from app.web.view import build_view, recommendation_csv

APP_DIR = Path(__file__).resolve().parent.parent
STATIC_DIR = APP_DIR / "static"
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"

templates = Jinja2Templates(directory=str(APP_DIR / "templates"))
router = APIRouter(include_in_schema=False)


def _query(sub: Submission) -> str:
    return urlencode({name: value for name, value in sub.values.items() if value})


@router.get("/", response_class=HTMLResponse)
async def form_page(request: Request) -> HTMLResponse:
    sub = await answer(request.query_params)
    view = None
    if sub.answer is not None and sub.request is not None:
        view = build_view(sub.answer, sub.request, sub.worst_loss)
    return templates.TemplateResponse(
        request,
        "index.html",
        {
            "fields": FIELDS,
            "groups": GROUPS,
            "sub": sub,
            "view": view,
            "query": _query(sub),
            "examples": EXAMPLE_LINKS,
            "compare": variants(sub, _query(sub)) if view is not None else [],
        },
    )


@router.get("/compare", response_class=HTMLResponse)
async def compare_page(request: Request, a: str = "", b: str = "") -> HTMLResponse:
    """Two sides, each the form's query string (or a link to the page), side by side."""
    sides = [await side("A", a), await side("B", b)] if a or b else []
    return templates.TemplateResponse(
        request,
        "compare.html",
        {
            "sides": sides,
            "rows": differences(*sides) if sides else [],
            "a": a,
            "b": b,
        },
    )


async def _answer_or_errors(request: Request) -> tuple[Submission, JSONResponse | None]:
    sub = await answer(request.query_params)
    if sub.answer is None:
        detail: list[dict[str, str | None]] = [
            {"input": name, "msg": msg} for name, msg in sub.errors.items()
        ]
        detail += [{"input": None, "msg": msg} for msg in sub.general_errors]
        if not detail:
            detail = [{"input": None, "msg": "no inputs: add the form's query string"}]
        return sub, JSONResponse({"detail": detail}, status_code=422)
    return sub, None


@router.get("/recommendation.json")
async def recommendation_json_file(request: Request) -> Response:
    sub, refused = await _answer_or_errors(request)
    if refused is not None:
        return refused
    return Response(
        json.dumps(sub.answer, indent=2),
        media_type="application/json",
        headers={"Content-Disposition": 'attachment; filename="bufsize-recommendation.json"'},
    )


@router.get("/recommendation.csv")
async def recommendation_csv_file(request: Request) -> Response:
    sub, refused = await _answer_or_errors(request)
    if refused is not None:
        return refused
    assert sub.answer is not None
    return Response(
        recommendation_csv(sub.answer),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="bufsize-recommendation.csv"'},
    )


#: The page's files change only with a new release of the service or of plotly; a browser may
#: keep them a day (4.6 MB of Plotly is the bulk of the page).
CACHE_CONTROL = {"Cache-Control": "public, max-age=86400"}


@router.get("/static/plotly.min.js")
def plotly_js() -> FileResponse:
    return FileResponse(PLOTLY_JS, media_type="text/javascript", headers=CACHE_CONTROL)


@router.get("/static/{name}")
def static_file(name: str) -> Response:
    """The page's own script and style sheet."""
    allowed = {"form.js": "text/javascript", "form.css": "text/css"}
    if name not in allowed:
        return Response(status_code=404)
    return FileResponse(STATIC_DIR / name, media_type=allowed[name])
