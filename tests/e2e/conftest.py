"""Browser tests: Debian's headless Chromium driven by Playwright, against a live service.

Fixtures
--------
``browser``
    One Chromium per test session (per xdist worker), ``/usr/bin/chromium``; Playwright's own
    browser download is never used.
``live_server``
    The service (``uvicorn app.main:app``) in a subprocess on a loopback port chosen by the
    kernel, with its job store in a temporary directory; its base URL, e.g.
    ``http://127.0.0.1:41234``.
``page``
    A fresh page (1366×768) whose console errors, uncaught exceptions and requests to any host
    other than the live server are recorded; such a request is also aborted, so nothing leaves
    the machine; answers of status 400 or more are recorded too (a test that expects one
    clears ``page_log.error_responses``). The test fails at teardown if any was recorded; a
    test may call ``page_log.assert_clean()`` earlier to fail at the point of interest.
``screenshot``
    ``screenshot(page, "name")`` saves ``name.png`` under the test's output directory:
    ``--e2e-artifacts DIR/<test name>/`` when that option is given, else the test's ``tmp_path``.

Every test under ``tests/e2e`` is put in the xdist group ``browser`` so that under
``pytest -n 2 --dist loadgroup`` they share one worker, one browser and one server.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Page,
    Playwright,
    Request,
    Response,
    Route,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError

CHROMIUM = Path("/usr/bin/chromium")
E2E_DIR = Path(__file__).resolve().parent
REPO_ROOT = E2E_DIR.parents[1]
#: The group every browser test joins (``--dist loadgroup``).
XDIST_GROUP = "browser"
#: Seconds the service may take to answer /healthz after it is started.
SERVER_START_TIMEOUT_S = 60.0
DESKTOP_VIEWPORT = {"width": 1366, "height": 768}

# Schemes that never reach the network: the page's own inline data and local files.
_LOCAL_SCHEMES = frozenset({"data", "blob", "about", "file"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.xdist_group(XDIST_GROUP))


# ----- the browser -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright_driver: Playwright) -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); "
            "the browser tests never download a browser of their own"
        )
    chromium = playwright_driver.chromium.launch(executable_path=str(CHROMIUM), headless=True)
    yield chromium
    chromium.close()


# ----- the service -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveServer:
    """A running service: its base URL and the subprocess."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def netloc(self) -> str:
        return urlsplit(self.url).netloc

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _wait_healthy(server: LiveServer, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the service exited at start-up:\n{server.log()}")
        try:
            if httpx.get(f"{server.url}/healthz", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the service did not answer /healthz in {timeout_s} s:\n{server.log()}")


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """``uvicorn app.main:app`` on a loopback socket bound here (no race for the port)."""
    workdir = tmp_path_factory.mktemp("live-server")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    env = {
        **os.environ,
        "BUFSIZE_DATABASE_URL": f"sqlite:///{workdir / 'jobs.sqlite3'}",
        "BUFSIZE_WORKERS": "1",  # the machine is shared; one simulation at a time is enough
        "BUFSIZE_MAX_PENDING_JOBS": "4",
    }
    log_path = workdir / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--fd", str(sock.fileno())],
            cwd=REPO_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=(sock.fileno(),),
        )
    sock.close()  # the child holds its own copy of the listening socket
    server = LiveServer(url=f"http://127.0.0.1:{port}", process=process, log_path=log_path)
    try:
        _wait_healthy(server, SERVER_START_TIMEOUT_S)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# ----- pages -------------------------------------------------------------------------------------


@dataclass
class PageLog:
    """What a page did that a person would call broken, or that would leave the machine."""

    allowed_netlocs: set[str]
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    error_responses: list[str] = field(default_factory=list)

    def is_local(self, url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme in _LOCAL_SCHEMES or parts.netloc in self.allowed_netlocs

    def problems(self) -> list[str]:
        return (
            [f"console error: {m}" for m in self.console_errors]
            + [f"uncaught exception: {m}" for m in self.page_errors]
            + [f"request outside the service: {u}" for u in self.outside_requests]
            + [f"request failed: {u}" for u in self.failed_requests]
            + [f"error response: {u}" for u in self.error_responses]
        )

    def assert_clean(self) -> None:
        problems = self.problems()
        assert not problems, "the page misbehaved:\n" + "\n".join(problems)


def _record(page: Page, log: PageLog) -> None:
    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            log.console_errors.append(f"{message.text} ({message.location.get('url', '')})")

    def on_route(route: Route) -> None:
        url = route.request.url
        if log.is_local(url):
            route.continue_()
        else:
            log.outside_requests.append(url)
            route.abort("blockedbyclient")

    def on_failed(request: Request) -> None:
        # ERR_ABORTED: the page was left (a form sent) while this was loading; not a fault.
        if log.is_local(request.url) and request.failure != "net::ERR_ABORTED":
            log.failed_requests.append(f"{request.url} ({request.failure})")

    def on_response(response: Response) -> None:
        if response.status >= 400:
            log.error_responses.append(f"{response.status} {response.url}")

    page.on("console", on_console)
    page.on("response", on_response)
    page.on("pageerror", lambda exc: log.page_errors.append(str(exc)))
    page.on("requestfailed", on_failed)
    page.route(re.compile(r".*"), on_route)


@pytest.fixture
def page_log(request: pytest.FixtureRequest) -> PageLog:
    """Local files are allowed; the live server too when the test uses it."""
    allowed: set[str] = set()
    if "live_server" in request.fixturenames:
        allowed.add(request.getfixturevalue("live_server").netloc)
    return PageLog(allowed_netlocs=allowed)


@pytest.fixture
def page(browser: Browser, page_log: PageLog) -> Iterator[Page]:
    """A 1366×768 page that records console errors and any request off the live server."""
    context = browser.new_context(viewport=DESKTOP_VIEWPORT, service_workers="block")
    new_page = context.new_page()
    _record(new_page, page_log)
    yield new_page
    try:
        context.close()
    except PlaywrightError:
        pass
    page_log.assert_clean()


@contextmanager
def sized_page(
    browser: Browser, live_server: LiveServer, width: int, height: int, *, clipboard: bool = False
) -> Iterator[tuple[Page, PageLog]]:
    """A page of its own viewport (a phone's, 390 px wide), recording as ``page`` does; with
    ``clipboard``, allowed to write and read the clipboard (Chromium asks for both)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    if clipboard:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    log = PageLog(allowed_netlocs={live_server.netloc})
    try:
        new_page = context.new_page()
        _record(new_page, log)
        yield new_page, log
    finally:
        context.close()


# ----- artifacts ---------------------------------------------------------------------------------


@pytest.fixture
def artifacts_dir(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Where this test's screenshots go."""
    root = request.config.getoption("--e2e-artifacts", default=None)
    if not root:
        return tmp_path
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    out = Path(root) / safe
    out.mkdir(parents=True, exist_ok=True)
    return out


Screenshot = Callable[..., Path]


@pytest.fixture
def screenshot(artifacts_dir: Path) -> Screenshot:
    """``screenshot(page, "name", full_page=True)`` -> the saved ``name.png``."""

    def save(target: Page, name: str, *, full_page: bool = True) -> Path:
        path = artifacts_dir / f"{name}.png"
        target.screenshot(path=str(path), full_page=full_page)
        return path

    return save
