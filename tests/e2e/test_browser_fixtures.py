"""The browser fixtures themselves: they see what they are meant to catch.

A page test is only as good as its recorder: if a console error or a request to another host
went unnoticed, every other browser test would pass on a broken page.
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from tests.e2e.conftest import DESKTOP_VIEWPORT, LiveServer, PageLog, Screenshot, _record

# A host under the reserved .invalid TLD (RFC 2606 §2): it never resolves, and the recorder
# aborts the request in the browser before any lookup anyway.
OUTSIDE = "https://cdn.example.invalid"


def test_recorder_catches_outside_requests_and_console_errors(
    browser: Browser, live_server: LiveServer
) -> None:
    log = PageLog(allowed_netlocs={live_server.netloc})
    context = browser.new_context(viewport=DESKTOP_VIEWPORT)
    try:
        page = context.new_page()
        _record(page, log)
        page.goto(f"{live_server.url}/healthz")
        page.goto(f"{live_server.url}/no-such-page")
        # The service's answers carry a Content-Security-Policy that blocks outside images
        # before any request is made; the recorder is checked on a page without one.
        page.goto("about:blank")
        page.set_content(
            f'<img src="{OUTSIDE}/pixel.png"><script>console.error("boom")</script>'
            '<script>throw new Error("uncaught")</script>'
        )
        page.wait_for_timeout(200)
    finally:
        context.close()
    assert log.outside_requests == [f"{OUTSIDE}/pixel.png"]
    # Chromium reports the 404 and the aborted request in the console too.
    assert sorted(m.split(" (")[0] for m in log.console_errors) == [
        "Failed to load resource: net::ERR_BLOCKED_BY_CLIENT.Inspector",
        "Failed to load resource: the server responded with a status of 404",
        "boom",
    ]
    assert len(log.page_errors) == 1 and "uncaught" in log.page_errors[0]
    assert log.error_responses == [f"404 {live_server.url}/no-such-page"]
    assert len(log.problems()) == 6


def test_live_server_answers_in_the_browser(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    response = page.goto(f"{live_server.url}/healthz")
    assert response is not None and response.status == 200
    assert '"ok"' in page.inner_text("body")
    saved = screenshot(page, "healthz")
    assert saved.stat().st_size > 0 and saved.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page_log.assert_clean()
