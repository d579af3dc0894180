"""The notebooks and the validation report work under the service's Content-Security-Policy.

The service sends every HTML page with a policy that runs only its own scripts and the inline
scripts whose hashes it lists (app/security.py). Checked in Chromium, with no policy violation
reported (``securitypolicyviolation`` events and console errors):

- each notebook's HTML as the service serves it (``/notebooks/{name}.html`` and its MathJax,
  answered by the application in-process, headers and all): its mathematics typeset and its
  figures drawn;
- the validation report as ``bufsize validate`` writes it, served with the policy the service
  gives an HTML page (as a reverse proxy in front of it would): its Plotly figures drawn.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Page, Route, expect

from app.main import create_app
from app.security import NON_HTML_POLICY, html_policy
from app.web import notebooks as served_notebooks
from notebooks.render import notebook_paths
from tests.conftest import RenderedNotebooks
from tests.e2e.test_notebooks_html import MATHJAX_DONE, MATHJAX_TIMEOUT_MS
from validation.harness.report import write
from validation.harness.runner import run_suite

#: The origin the pages are served from, an allowed host by default; a trustworthy origin, as
#: 127.0.0.1 is, so that Chromium applies the Cross-Origin-Opener-Policy and says nothing.
ORIGIN = "http://localhost"
NOTEBOOKS = notebook_paths()

# Every violation the page reports, whether or not it also reaches the console.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (event) => {
    window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""

Answer = tuple[int, dict[str, str], bytes]


def _serve(page: Page, answer: Callable[[str], Answer]) -> list[str]:
    """Answer every request to ORIGIN with ``answer(path)``; return the policies sent."""
    policies: list[str] = []

    def handle(route: Route) -> None:
        path = route.request.url.removeprefix(ORIGIN)
        status, headers, body = answer(path)
        if "text/html" in headers.get("content-type", ""):
            policies.append(headers.get("content-security-policy", ""))
        route.fulfill(status=status, headers=headers, body=body)

    page.add_init_script(RECORD_VIOLATIONS)
    page.route(f"{ORIGIN}/**", handle)
    return policies


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_served_notebook_typesets_and_draws_under_the_policy(
    path: Path,
    rendered_notebooks: RenderedNotebooks,
    page: Page,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rendered_notebooks.html_path(path)
    monkeypatch.setattr(served_notebooks, "BUILD_DIR", rendered_notebooks.build_dir)
    client = TestClient(create_app(), base_url=ORIGIN)

    def answer(request_path: str) -> Answer:
        response = client.get(request_path)
        return response.status_code, dict(response.headers), response.content

    policies = _serve(page, answer)
    page.goto(f"{ORIGIN}/notebooks/{path.stem}.html")
    page.wait_for_function(MATHJAX_DONE, timeout=MATHJAX_TIMEOUT_MS)
    facts: dict[str, Any] = page.evaluate(
        """() => ({
            violations: window.__violations,
            typeset: document.querySelectorAll('.MathJax').length,
            errors: document.querySelectorAll('.MathJax_Error, merror').length,
            images: Array.from(document.querySelectorAll('.jp-OutputArea-output img')).map(
                (img) => img.complete && img.naturalWidth > 0),
        })"""
    )
    # The page ran under the service's own policy: its inline scripts allowed by hash.
    assert policies and "script-src 'self' 'sha256-" in policies[0], policies
    assert facts["violations"] == [], facts["violations"]
    assert facts["typeset"] > 0 and facts["errors"] == 0, facts
    assert facts["images"] and all(facts["images"]), facts["images"]


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of one model-only dataset (004's Table 1), as ``bufsize validate`` writes it."""
    out = tmp_path_factory.mktemp("report-csp")
    write(run_suite("quick", names=["bscl_table_1"], workers=1), out)
    return out


def test_the_validation_report_draws_its_figures_under_the_policy(
    report_dir: Path, page: Page
) -> None:
    def answer(request_path: str) -> Answer:
        file = report_dir / request_path.lstrip("/").split("?")[0]
        if not file.is_file():
            return 404, {"content-type": "text/plain"}, b""
        body = file.read_bytes()
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        policy = html_policy(body) if kind == "text/html" else NON_HTML_POLICY
        return 200, {"content-type": kind, "content-security-policy": policy}, body

    policies = _serve(page, answer)
    page.goto(f"{ORIGIN}/report.html")
    figure = page.locator("#figure-bscl_table_1")
    expect(figure.locator("svg.main-svg").first).to_be_visible()
    assert figure.locator(".scatterlayer .trace").count() >= 1
    assert policies and "script-src 'self' 'sha256-" in policies[0], policies
    assert page.evaluate("() => window.__violations") == []
