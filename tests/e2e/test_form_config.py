"""The page's device configuration: the snippet for the recommended size, and its Copy button.

The snippet is compared with the size the page itself shows (the sentence's packet count), and
with what ``/v1/recommend`` answers for the same inputs and device, read by the test itself.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Browser, expect

from tests.e2e.conftest import LiveServer, PageLog, Screenshot, sized_page
from tests.e2e.test_form import DEFAULT_BODY, api_answer, packets_on_page, wait_for_charts


def test_snippet_for_the_recommended_size_switches_vendor_and_copies(
    browser: Browser, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    # The clipboard is read back below.
    with sized_page(browser, live_server, 1366, 768, clipboard=True) as (page, log):
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
    page_log.assert_clean()


def test_sonic_shows_the_size_without_a_chip_buffer_and_copies_valid_json(
    browser: Browser, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    with sized_page(browser, live_server, 1366, 768, clipboard=True) as (page, log):
        # A DCTCP leaf (10 Gb/s, 100 µs): without the chip buffer the page still answers and
        # says what SONiC's configuration needs.
        page.goto(
            f"{live_server.url}/?capacity=10+Gbit/s&rtt=100+us&packet=1500+B&flows=20"
            "&cc=dctcp&vendor=sonic&interface=Ethernet8"
        )
        expect(page.locator("#recommendation")).to_be_visible()
        needs = page.locator("#device-needs")
        expect(needs).to_contain_text("needs the chip buffer")
        packets = packets_on_page(page.locator("#recommendation").inner_text())
        expect(needs).to_contain_text(f"{packets:,} packets")
        page.get_by_label("Chip buffer").fill("32 MiB")
        page.get_by_role("button", name="Recommend a buffer").click()
        expect(page.locator("#device-title")).to_have_text(
            "Device configuration: SONiC (CONFIG_DB)"
        )
        wait_for_charts(page)
        body = {
            "scenario": {
                **DEFAULT_BODY["scenario"],
                "rtt_s": "100 us",
                "packet_bytes": "1500 B",
                "flows": 20,
                "congestion_control": "dctcp",
            },
            "targets": DEFAULT_BODY["targets"],
            "device": {"vendor": "sonic", "chip_buffer_bytes": "32 MiB", "interface": "Ethernet8"},
        }
        answer = api_answer(live_server, body)
        assert answer["recommended"]["buffer_packets"] == packets
        copy = page.get_by_role("button", name="Copy")
        copy.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#copy-status")).to_have_text("Copied")
        copied = page.evaluate("() => navigator.clipboard.readText()")
        document = json.loads(copied)  # what Copy gives loads as JSON, as it is
        assert document == answer["device_config"]["config_db"]
        # DCTCP: ECN marking at K on the port's queue (WRED_PROFILE, min = max = K).
        wred = document["WRED_PROFILE"]["bufsize_ecn"]
        assert wred["ecn"] == "ecn_all"
        assert wred["green_min_threshold"] == wred["green_max_threshold"]
        assert document["QUEUE"] == {"Ethernet8|0": {"wred_profile": "bufsize_ecn"}}
        expect(page.locator(".device-notes")).to_contain_text("bufsize: queue limit")
        page.locator("#device").scroll_into_view_if_needed()
        screenshot(page, "device-config-sonic-dctcp", full_page=False)
        log.assert_clean()
    page_log.assert_clean()


def test_eos_commands_by_keyboard_on_a_phone(
    browser: Browser, live_server: LiveServer, screenshot: Screenshot
) -> None:
    # A DCTCP leaf on Arista EOS, chosen from the keyboard on a 390-px screen: the QoS profile
    # drops at the recommended size and marks ECN at K, as /v1/recommend answers, and the page
    # stays within the screen.
    with sized_page(browser, live_server, 390, 844) as (page, log):
        page.goto(
            f"{live_server.url}/?capacity=10+Gbit/s&rtt=100+us&packet=1500+B&flows=20"
            "&cc=dctcp&vendor=tc&interface=Ethernet3/1"
        )
        expect(page.locator("#recommendation")).to_be_visible()
        page.get_by_label("Device", exact=True).focus()
        page.keyboard.type("a")  # the choice's type-ahead: "Arista EOS"
        expect(page.get_by_label("Device", exact=True)).to_have_value("eos")
        page.get_by_label("Interface").focus()
        page.keyboard.press("Enter")  # Enter in a text input sends the form
        expect(page.locator("#device-title")).to_have_text("Device configuration: Arista EOS")
        wait_for_charts(page)
        assert parse_qs(urlsplit(page.url).query)["vendor"] == ["eos"]
        body = {
            "scenario": {
                "capacity_bps": "10 Gbit/s",
                "rtt_s": "100 us",
                "packet_bytes": "1500 B",
                "flows": 20,
                "congestion_control": "dctcp",
            },
            "targets": DEFAULT_BODY["targets"],
            "device": {"vendor": "eos", "interface": "Ethernet3/1"},
        }
        answer = api_answer(live_server, body)
        packets = packets_on_page(page.locator("#recommendation").inner_text())
        assert answer["recommended"]["buffer_packets"] == packets
        snippet = page.locator("#device-snippet")
        assert snippet.inner_text() == answer["device_config"]["text"]
        limit = answer["device_config"]["limit"]["limit_bytes"]
        assert limit == packets * 1500  # EOS counts bytes, no cell
        commands = [line for line in snippet.inner_text().splitlines() if line[:1] != "!"]
        assert commands[:3] == ["qos profile bufsize", "   tx-queue 0", (
            f"      random-detect drop minimum-threshold {limit} bytes maximum-threshold {limit} "
            "bytes drop-probability 100 weight 0"
        )]  # fmt: skip
        assert commands[3].startswith("      random-detect ecn minimum-threshold ")
        assert commands[-2:] == ["interface Ethernet3/1", "   service-profile bufsize"]
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, width
        page.locator("#device").scroll_into_view_if_needed()
        screenshot(page, "device-config-eos-dctcp-390", full_page=False)
        log.assert_clean()


def test_eos_with_the_chip_buffer_gives_the_trident_mmu_profile(
    browser: Browser, live_server: LiveServer, screenshot: Screenshot
) -> None:
    # With the chip's shared memory, EOS's text also sets the queue's dynamic threshold α on
    # Trident-family switches (AVD's 'platform trident mmu queue profile'), as /v1/recommend
    # answers for the same inputs.
    query = "capacity=10+Gbit/s&rtt=100+ms&packet=1000+B&flows=1000&cc=cubic&vendor=eos&chip=64+MiB"
    with sized_page(browser, live_server, 1366, 768) as (page, log):
        page.goto(f"{live_server.url}/?{query}")
        expect(page.locator("#device-title")).to_have_text("Device configuration: Arista EOS")
        body = {
            "scenario": {
                "capacity_bps": "10 Gbit/s",
                "rtt_s": "100 ms",
                "packet_bytes": "1000 B",
                "flows": 1000,
                "congestion_control": "cubic",
            },
            "targets": DEFAULT_BODY["targets"],
            "device": {"vendor": "eos", "chip_buffer_bytes": "64 MiB"},
        }
        answer = api_answer(live_server, body)
        snippet = page.locator("#device-snippet").inner_text()
        assert snippet == answer["device_config"]["text"]
        # α is a power of two: 2^k written 1/2^-k below one (the API's shared.alpha_log2).
        k = answer["device_config"]["shared"]["alpha_log2"]
        alpha = f"1/{2**-k}" if k < 0 else f"{2**k}"
        commands = [line for line in snippet.splitlines() if line[:1] != "!"]
        assert commands[:3] == [
            "platform trident mmu queue profile bufsize",
            f"    egress unicast queue 0 threshold {alpha}",
            "platform trident mmu queue profile bufsize apply",
        ]
        page.locator("#device").scroll_into_view_if_needed()
        screenshot(page, "device-config-eos-trident", full_page=False)
        log.assert_clean()
