"""The page's device configuration: the snippet for the recommended size, and its Copy button.

The snippet is compared with the size the page itself shows (the sentence's packet count), and
with what ``/v1/recommend`` answers for the same inputs and device, read by the test itself.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Browser, expect

from tests.e2e.conftest import LiveServer, PageLog, Screenshot, _record
from tests.e2e.test_form import DEFAULT_BODY, api_answer, packets_on_page, wait_for_charts


def test_snippet_for_the_recommended_size_switches_vendor_and_copies(
    browser: Browser, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    # The clipboard is read back below; Chromium asks for these permissions.
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    log = PageLog(allowed_netlocs={live_server.netloc})
    try:
        page = context.new_page()
        _record(page, log)
        page.goto(f"{live_server.url}/")
        expect(page.get_by_label("Device", exact=True)).to_have_value("tc")
        page.get_by_role("button", name="Recommend a buffer").click()
        expect(page.locator("#recommendation")).to_be_visible()
        wait_for_charts(page)

        # Linux tc by default: pfifo limit = the recommended packets the page shows (1000 B
        # packets, tc counts whole packets).
        packets = packets_on_page(page.locator("#recommendation").inner_text())
        expect(page.locator("#device-title")).to_have_text("Device configuration: Linux tc")
        snippet = page.locator("#device-snippet")
        expect(snippet).to_contain_text(f"root pfifo limit {packets}\n")
        assert parse_qs(urlsplit(page.url).query)["vendor"] == ["tc"]

        # Junos: chosen in the form, kept in the address, the limit in microseconds.
        page.get_by_label("Device", exact=True).select_option("junos")
        page.get_by_role("button", name="Recommend a buffer").click()
        expect(page.locator("#device-title")).to_have_text("Device configuration: Juniper Junos")
        wait_for_charts(page)
        assert parse_qs(urlsplit(page.url).query)["vendor"] == ["junos"]
        expect(page.get_by_label("Device", exact=True)).to_have_value("junos")
        answer = api_answer(live_server, {**DEFAULT_BODY, "device": {"vendor": "junos"}})
        assert answer["recommended"]["buffer_packets"] == packets
        limit_us = answer["device_config"]["limit"]["limit_us"]
        # 1000 B packets drained at 10 Gbit/s: 0.8 us each, rounded up to whole microseconds.
        assert limit_us == -(-packets * 8 // 10)
        expect(snippet).to_contain_text(f"buffer-size temporal {limit_us}\n")
        assert snippet.inner_text() == answer["device_config"]["text"]

        # Copy, by keyboard: focus the button and press Enter.
        copy = page.get_by_role("button", name="Copy")
        copy.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#copy-status")).to_have_text("Copied")
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == answer["device_config"]["text"]
        assert f"buffer-size temporal {limit_us}" in copied
        page.locator("#device").scroll_into_view_if_needed()
        screenshot(page, "device-config-junos-copied", full_page=False)
        log.assert_clean()
    finally:
        context.close()
    page_log.assert_clean()


def test_sonic_without_chip_buffer_asks_for_it_beside_the_input(
    browser: Browser, live_server: LiveServer, page_log: PageLog
) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    log = PageLog(allowed_netlocs={live_server.netloc})
    try:
        page = context.new_page()
        _record(page, log)
        page.goto(f"{live_server.url}/?capacity=10+Gbit/s&rtt=100+ms&flows=1000&vendor=sonic")
        expect(page.locator("#field-chip .error")).to_contain_text("required for sonic")
        page.get_by_label("Chip buffer").fill("64 MiB")
        page.get_by_role("button", name="Recommend a buffer").click()
        expect(page.locator("#device-title")).to_have_text(
            "Device configuration: SONiC (CONFIG_DB)"
        )
        expect(page.locator("#device-snippet")).to_contain_text('"dynamic_th"')
        log.assert_clean()
    finally:
        context.close()
    page_log.assert_clean()
