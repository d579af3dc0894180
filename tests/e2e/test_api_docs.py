"""/docs (Swagger UI) and /redoc (ReDoc) render in a browser with no way out.

Both pages load their JavaScript, CSS and favicon from the service itself (the installed
fastapi-offline package); the page fixture aborts and reports any request to another host, and
any console error.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.conftest import LiveServer, PageLog, Screenshot

HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def operations(live_server: LiveServer) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, operation) of every operation the OpenAPI document lists."""
    spec = httpx.get(f"{live_server.url}/openapi.json", timeout=10).json()
    return [
        (method, path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in HTTP_METHODS
    ]


def test_swagger_ui_shows_every_operation_offline(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    ops = operations(live_server)
    assert len(ops) >= 14  # docs/contract.md lists 14 operations or more
    page.goto(f"{live_server.url}/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("bufsize")
    blocks = page.locator(".swagger-ui .opblock")
    expect(blocks).to_have_count(len(ops))
    shown = {
        (
            block.locator(".opblock-summary-method").inner_text().strip().lower(),
            block.locator(".opblock-summary-path").get_attribute("data-path"),
        )
        for block in blocks.all()
    }
    assert shown == {(method, path) for method, path, _ in ops}
    # The favicon is the service's own.
    icon = page.locator("link[rel='shortcut icon'], link[rel='icon']").first.get_attribute("href")
    assert icon is not None and icon.startswith("/")
    screenshot(page, "docs")
    page_log.assert_clean()


def test_swagger_ui_runs_the_recommend_example(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    """'Try it out' then 'Execute' on POST /v1/recommend sends its example and shows a 200."""
    page.goto(f"{live_server.url}/docs")
    block = page.locator(".opblock-post", has=page.locator("[data-path='/v1/recommend']"))
    block.locator(".opblock-summary-control").click()
    block.get_by_role("button", name="Try it out").click()
    body = block.locator("textarea.body-param__text")
    expect(body).to_contain_text('"capacity_bps": "10 Gbit/s"')
    block.get_by_role("button", name="Execute").click()
    status = block.locator(".live-responses-table tbody .response-col_status").first
    expect(status).to_have_text("200", timeout=30_000)
    expect(block.locator(".live-responses-table .microlight").first).to_contain_text(
        '"recommended"'
    )
    status.scroll_into_view_if_needed()
    screenshot(page, "docs-recommend-executed", full_page=False)
    page_log.assert_clean()


def test_redoc_renders_every_operation_offline(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    ops = operations(live_server)
    page.goto(f"{live_server.url}/redoc")
    expect(page.locator("h1").first).to_contain_text("bufsize", timeout=30_000)
    sections = page.locator("[data-section-id^='operation/']")
    expect(sections).to_have_count(len(ops), timeout=30_000)
    ids = {section.get_attribute("data-section-id") for section in sections.all()}
    assert ids == {f"operation/{op['operationId']}" for _, _, op in ops}
    screenshot(page, "redoc", full_page=False)
    page_log.assert_clean()
