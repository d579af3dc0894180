"""The page as an operator uses it on the README's own links: every link it can size gives the
API's answer, the charts answer questions (targets drawn, axes that can be read, no cloud
buttons), the words are the form's, and the inputs are echoed as read.

Expected sizes come from ``/v1/recommend`` for the same inputs (read by the test), or from the
README's panel table (worked out by hand in tests/models/test_panel.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from app.web.examples import EXAMPLE_LINKS, PANEL
from app.web.notebooks import NOTEBOOK_DIR
from tests.e2e.conftest import LiveServer, PageLog, Screenshot, sized_page
from tests.e2e.test_form import api_answer, packets_on_page, wait_for_charts

#: Panel links whose inputs the old form could not express, with the API body the test sends
#: for the same inputs and the size the README's panel gives.
ENGINE_INPUTS = {
    "Datacenter leaf": (
        {
            "capacity_bps": "10 Gbit/s",
            "rtt_s": "100 us",
            "packet_bytes": "1500 B",
            "flows": 40,
            "congestion_control": "dctcp",
            "incast_senders": 40,
        },
        412,
    ),
    "Home uplink with CoDel": (
        {
            "capacity_bps": "20 Mbit/s",
            "rtt_s": "40 ms",
            "packet_bytes": "1500 B",
            "flows": 4,
            "congestion_control": "cubic",
            "aqm": "codel",
        },
        242,
    ),
    "BBR bottleneck": (
        {
            "capacity_bps": "1 Gbit/s",
            "rtt_s": "50 ms",
            "packet_bytes": "1500 B",
            "flows": 20,
            "congestion_control": "bbr",
        },
        1042,
    ),
}


def _example(prefix: str) -> str:
    return next(query for title, query in EXAMPLE_LINKS if title.startswith(prefix))


@pytest.mark.parametrize("prefix", list(ENGINE_INPUTS))
def test_dctcp_codel_and_bbr_links_give_the_apis_answer(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot, prefix: str
) -> None:
    scenario, readme = ENGINE_INPUTS[prefix]
    page.goto(f"{live_server.url}/?{_example(prefix)}")
    expect(page.locator("#recommendation")).to_be_visible()
    wait_for_charts(page)
    on_page = packets_on_page(page.locator("#recommendation").inner_text())
    answer = api_answer(live_server, {"scenario": scenario, "targets": {}})
    assert on_page == answer["recommended"]["buffer_packets"] == readme
    # The folded inputs that hold a value are shown open, so the page says what it used.
    if "incast_senders" in scenario or "aqm" in scenario:
        expect(page.locator("details.more[open]")).to_have_count(1)
    else:
        expect(page.locator("details.more[open]")).to_have_count(0)
    screenshot(page, f"panel-{prefix.split()[0].lower()}", full_page=False)
    page_log.assert_clean()


def _axis_facts(page: Page, chart_id: str) -> dict[str, Any]:
    facts: dict[str, Any] = page.evaluate(
        """(id) => {
            const el = document.getElementById(id);
            const ticks = Array.from(el.querySelectorAll('.ytick text')).map((t) => t.textContent);
            return {range: el._fullLayout.yaxis.range, ticks: ticks,
                    shapes: (el.layout.shapes || []).map((s) => ({y0: s.y0, yref: s.yref}))};
        }""",
        chart_id,
    )
    return facts


@pytest.mark.parametrize("prefix", ["Backbone", "Optical core"])
def test_loss_axis_is_clipped_to_readable_values_and_draws_at_once(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot, prefix: str
) -> None:
    # These two README links predicted losses down to about 1e-313: the loss axis got 1,001
    # tick labels and the page froze for about a minute.
    page.goto(f"{live_server.url}/?{_example(prefix)}")
    wait_for_charts(page)
    loss = _axis_facts(page, "chart-loss")
    low, high = loss["range"]
    assert low >= -9.5 and high > low, loss["range"]  # nothing below 1e-9 is drawn
    assert 0 < len(loss["ticks"]) <= 15, loss["ticks"]
    # The loss target (0.01 by default) is drawn as a line on the chart.
    assert any(s["yref"] == "y" and s["y0"] == pytest.approx(0.01) for s in loss["shapes"])
    screenshot(page, f"loss-axis-{prefix.split()[0].lower()}", full_page=False)
    page_log.assert_clean()


def test_plotly_is_offline_and_its_toolbar_is_out_of_the_tab_order(
    page: Page, live_server: LiveServer, page_log: PageLog
) -> None:
    page.goto(f"{live_server.url}/?{_example('Thesis link')}")
    wait_for_charts(page)
    page.locator("#chart-loss").hover()  # the toolbar shows on hover
    titles = page.locator(".modebar-btn").evaluate_all(
        "(bs) => bs.map((b) => b.getAttribute('data-title') || '')"
    )
    assert titles, "no toolbar drawn"
    assert not [t for t in titles if "Chart Studio" in t or "cloud" in t.lower()], titles
    assert page.locator(".modebar a[href]").count() == 0  # no link out (the Plotly logo)
    focusable = page.locator(".modebar-btn").evaluate_all(
        "(bs) => bs.filter((b) => b.tabIndex >= 0).length"
    )
    assert focusable == 0
    page_log.assert_clean()


def test_target_lines_and_the_worst_case_loss_curve(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    page.goto(f"{live_server.url}/?{_example('Satellite')}")
    wait_for_charts(page)
    names = page.evaluate("() => document.getElementById('chart-loss').data.map((t) => t.name)")
    # N_b not given: the loss curve drawn is the worst case, and says so.
    assert names[0] == "worst case: all 8 flows bottlenecked here", names
    util = _axis_facts(page, "chart-utilization")
    assert any(s["yref"] == "y" and s["y0"] == pytest.approx(0.9) for s in util["shapes"])
    delay = _axis_facts(page, "chart-delay")
    # The delay target defaults to one effective RTT: 600 ms, drawn in ms.
    assert any(s["yref"] == "y" and s["y0"] == pytest.approx(600.0) for s in delay["shapes"])
    page.locator("#charts-title").scroll_into_view_if_needed()
    screenshot(page, "charts-targets-worst-case", full_page=False)
    page_log.assert_clean()


def test_errors_are_in_the_forms_words_with_units_and_counted(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    page.goto(
        f"{live_server.url}/?capacity=-10+Gbit/s&rtt=5&packet=1000+B&flows=x&delay=5&vendor=tc"
    )
    expect(page.locator("#errors-title")).to_have_text("4 inputs need a change")
    expect(page.locator("#field-capacity .error")).to_have_text("Must be at least 1 kbit/s")
    expect(page.locator("#field-rtt .error")).to_contain_text("Add a unit")
    expect(page.locator("#field-delay .error")).to_have_text("Add a unit, e.g. 5 ms")
    expect(page.locator("#field-flows .error")).to_be_visible()
    body = page.locator("body").inner_text()
    for raw in ("capacity_bps", "max_queueing_delay_s", "Input should be"):
        assert raw not in body
    screenshot(page, "errors-in-the-forms-words", full_page=False)
    page_log.error_responses.clear()
    page_log.assert_clean()


def test_inputs_are_echoed_as_read_and_no_api_name_shows(
    page: Page, live_server: LiveServer, page_log: PageLog
) -> None:
    page.goto(
        f"{live_server.url}/?capacity=10+Gbit/s&rtt=20+ms,+80+ms,+250+ms&packet=1500+B"
        "&flows=100&vendor=tc"
    )
    expect(page.locator("#recommendation")).to_be_visible()
    page.locator("#echo summary").click()
    # 3/(1/20 + 1/80 + 1/250) = 3/0.0665 = 45.1 ms, the harmonic mean (004 eqs. 11-12).
    expect(page.locator("#echo")).to_contain_text("45.1 ms (harmonic mean of 20 ms, 80 ms, 250 ms)")
    page.locator("#evidence summary").click()
    text = page.locator("main").inner_text()
    for raw in ("what_if", "max_queueing_delay_s", "bottlenecked_flows", "capacity_bps"):
        assert raw not in text, raw
    expect(page.locator("#what-if")).not_to_be_empty()
    # What the form leaves to the API, it says.
    expect(page.locator("#not-in-form")).to_contain_text("peak rate")
    page_log.assert_clean()


def test_phone_width_with_every_fold_open(
    browser: Browser, live_server: LiveServer, screenshot: Screenshot
) -> None:
    with sized_page(browser, live_server, 390, 844) as (phone, log):
        phone.goto(f"{live_server.url}/?{_example('Datacenter')}&vendor=iosxr")
        wait_for_charts(phone)
        closed = phone.locator("details:not([open]) > summary")
        for _ in range(closed.count()):
            closed.first.click()
        expect(closed).to_have_count(0)
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, width
        expect(phone.locator("#device-snippet")).to_contain_text("random-detect ecn")
        screenshot(phone, "phone-390-all-open")
        log.assert_clean()
    assert PANEL  # the examples come from the README's panel


def test_notebooks_are_served_with_an_index_of_every_one(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="the derivations (notebooks)").click()
    expect(page.locator("h1")).to_have_text("The derivation notebooks")
    sources = sorted(p.stem for p in NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))
    entries = page.locator("ol.notebooks > li")
    expect(entries).to_have_count(len(sources))
    assert len(sources) == 9
    for entry, name in zip(entries.all(), sources, strict=True):
        assert entry.get_attribute("id") == f"nb-{name}"
        assert entry.locator("h2").inner_text().strip()
        assert len(entry.locator("p").first.inner_text()) > 40  # what it derives
    # Every source opens from the index.
    with page.expect_response(lambda r: r.url.endswith("09_shared_buffer.py")) as source:
        page.locator("#nb-09_shared_buffer a", has_text="source").click()
    assert source.value.status == 200
    page.go_back()
    screenshot(page, "notebooks-index", full_page=False)
    page_log.assert_clean()


def test_two_assumptions_side_by_side_each_a_url_of_its_own(
    page: Page, live_server: LiveServer, page_log: PageLog, screenshot: Screenshot
) -> None:
    page.goto(f"{live_server.url}/?{_example('BBR bottleneck')}".replace("cc=bbr", "cc=cubic"))
    expect(page.locator("#recommendation")).to_be_visible()
    page.get_by_role("link", name="CUBIC vs BBR").click()
    expect(page.locator("#compare")).to_be_visible()
    # The only input that differs is the congestion control.
    differs = page.locator("#compare tr.differs")
    expect(differs).to_have_count(1)
    expect(differs.locator("th")).to_have_text("Congestion control")
    scenario = dict(ENGINE_INPUTS["BBR bottleneck"][0])
    for side_name, cc in (("A", "cubic"), ("B", "bbr")):
        answer = api_answer(
            live_server, {"scenario": {**scenario, "congestion_control": cc}, "targets": {}}
        )
        cell = page.locator(f'td.answer[data-side="{side_name}"]')
        assert packets_on_page(cell.inner_text()) == answer["recommended"]["buffer_packets"]
    # 1 Gb/s, 50 ms: BBR's probing queue 0.25·4,166.7 -> 1,042 packets (the README's panel).
    assert packets_on_page(page.locator('td.answer[data-side="B"]').inner_text()) == 1042
    # Each side is a URL of its own: it opens that side's page.
    page.locator("#side-B").click()
    expect(page.get_by_label("Congestion control")).to_have_value("bbr")
    assert packets_on_page(page.locator("#recommendation").inner_text()) == 1042
    page.go_back()
    screenshot(page, "compare-cubic-bbr", full_page=False)
    page_log.assert_clean()


def test_aqm_target_and_interval_by_keyboard_on_a_phone(
    browser: Browser, live_server: LiveServer, screenshot: Screenshot
) -> None:
    # Keyboard only, 390 px wide: the AQM's own target and interval, folded with the AQM
    # choice, reach the answer (the API's for the same inputs), the URL, the echo and the tc
    # command that deploys them.
    with sized_page(browser, live_server, 390, 844) as (phone, log):
        phone.goto(f"{live_server.url}/")
        for _ in range(60):
            phone.keyboard.press("Tab")
            focused = phone.evaluate(
                "() => { const e = document.activeElement;"
                " return e.tagName === 'SUMMARY' ? 'summary' : e.id; }"
            )
            if focused == "summary":
                phone.keyboard.press("Enter")  # open the fold of more inputs
            if focused == "f-aqm":
                break
        assert focused == "f-aqm"
        phone.keyboard.type("c")  # the choice's type-ahead: "CoDel / FQ-CoDel"
        expect(phone.locator("#f-aqm")).to_have_value("codel")
        phone.keyboard.press("Tab")
        expect(phone.locator("#f-aqm_target")).to_be_focused()
        phone.keyboard.type("2 ms")
        phone.keyboard.press("Tab")
        expect(phone.locator("#f-aqm_interval")).to_be_focused()
        phone.keyboard.type("40 ms")
        screenshot(phone, "aqm-times-typed-390", full_page=False)
        phone.keyboard.press("Enter")
        expect(phone.locator("#recommendation")).to_be_visible()
        wait_for_charts(phone)
        assert "aqm_target=2+ms" in phone.url and "aqm_interval=40+ms" in phone.url
        scenario = {
            "capacity_bps": "10 Gbit/s",
            "rtt_s": "100 ms",
            "packet_bytes": "1000 B",
            "flows": 1000,
            "aqm": "codel",
            "aqm_target_s": "2 ms",
            "aqm_interval_s": "40 ms",
        }
        answer = api_answer(live_server, {"scenario": scenario, "targets": {}})
        on_page = packets_on_page(phone.locator("#recommendation").inner_text())
        assert on_page == answer["recommended"]["buffer_packets"]
        expect(phone.locator("#plain-words")).to_contain_text(
            "the AQM keeps its target 2 ms (yours) and interval 40 ms (yours)"
        )
        phone.locator("#echo summary").click()
        expect(phone.locator("#echo")).to_contain_text("AQM target delay")
        expect(phone.locator("#echo")).to_contain_text("40 ms")
        # The active tc command: fq_codel with the target and interval given, in µs.
        expect(phone.locator("#device-snippet")).to_contain_text("root fq_codel limit")
        expect(phone.locator("#device-snippet")).to_contain_text("target 2000us interval 40000us")
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, width
        screenshot(phone, "aqm-times-answer-390")
        log.assert_clean()


def test_aqm_times_without_an_aqm_are_refused_beside_the_input(
    page: Page, live_server: LiveServer, page_log: PageLog
) -> None:
    page.goto(f"{live_server.url}/?capacity=1+Gbit/s&rtt=50+ms&flows=100&aqm=none&aqm_target=2+ms")
    expect(page.locator("#field-aqm_target .error")).to_have_text(
        "Only an AQM has a target and an interval: set active queue management to one of codel, "
        "pie, dualq, or leave AQM target delay out"
    )
    expect(page.locator("details#more-link")).to_have_attribute("open", "")
    page_log.error_responses.clear()
    page_log.assert_clean()
