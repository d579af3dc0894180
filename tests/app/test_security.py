"""The service before a network: allowed hosts, origin check, relative redirects, Retry-After on
every 429, security headers, and the trace form's fields read like the JSON API's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.jobs.lifespan import trace_runner
from app.main import create_app
from app.security import inline_script_hashes
from app.settings import Settings, get_settings
from tests.app import trace_runners

TRACE = b"time_s,flow,size_bytes,dropped\n0.0,0,1500,0\n0.001,1,1500,0\n"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        max_pending_jobs=1,
        dask_scheduler=None,
        allowed_hosts="127.0.0.1,localhost,testserver,*.example.net",  # type: ignore[arg-type]
    )
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    with TestClient(app) as test_client:
        yield test_client


def test_a_foreign_host_is_refused(client: TestClient) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name: the Host header gives it away.
    answer = client.get("/healthz", headers={"Host": "attacker.test"})
    assert answer.status_code == 400
    assert "attacker.test" in answer.json()["detail"]
    assert "BUFSIZE_ALLOWED_HOSTS" in answer.json()["detail"]
    assert client.get("/healthz", headers={"Host": "localhost:8000"}).status_code == 200
    assert client.get("/healthz", headers={"Host": "api.example.net"}).status_code == 200
    assert client.get("/healthz", headers={"Host": "example.net.attacker.test"}).status_code == 400


def test_allowed_hosts_setting_is_checked() -> None:
    with pytest.raises(ValueError, match="allowed_hosts"):
        Settings(allowed_hosts="http://example.net/")  # type: ignore[arg-type]
    assert Settings(allowed_hosts=" A.example ,b ").allowed_hosts == ("a.example", "b")  # type: ignore[arg-type]


def test_a_cross_origin_form_post_is_refused(client: TestClient) -> None:
    # What a browser sends when any web page posts a form to the service.
    answer = client.post(
        "/v1/traces",
        files={"file": ("t.csv", TRACE, "text/csv")},
        data={"capacity_bps": "9**9**9 bit/s"},
        headers={"Origin": "https://attacker.test"},
    )
    assert answer.status_code == 403
    assert "https://attacker.test" in answer.json()["detail"]
    # The service's own pages (same origin) and clients that send no Origin are served.
    same = client.delete("/v1/simulations/" + "0" * 32, headers={"Origin": "http://testserver"})
    assert same.status_code == 404


def test_the_power_expression_is_refused_at_once(client: TestClient) -> None:
    started = time.perf_counter()
    answer = client.post(
        "/v1/traces",
        files={"file": ("t.csv", TRACE, "text/csv")},
        data={"capacity_bps": "9**9**9 bit/s"},
    )
    elapsed = time.perf_counter() - started
    assert answer.status_code == 422, answer.text
    assert "capacity_bps" in answer.text
    # Not a speed target: 9**9**9 evaluated takes hours, so any answer at all shows it was not.
    assert elapsed < 60


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("capacity_bps", "nan"),
        ("capacity_bps", "inf bit/s"),
        ("capacity_bps", "0"),
        ("capacity_bps", "0 Mbit/s"),
        ("capacity_bps", "1e999 bit/s"),
        ("warmup_s", "nan s"),
        ("warmup_s", "inf"),
        ("buffer_packets", "nan"),
        ("buffer_packets", "0"),
        ("max_loss", "nan"),
    ],
)
def test_the_trace_form_refuses_what_the_json_api_refuses(
    client: TestClient, field: str, value: str
) -> None:
    data = {"capacity_bps": "10 Mbit/s", field: value}
    answer = client.post("/v1/traces", files={"file": ("t.csv", TRACE, "text/csv")}, data=data)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["loc"] == ["body", field]


def test_redirects_and_locations_never_take_the_host_from_the_request(
    client: TestClient,
) -> None:
    answer = client.get("/v1/simulations/", follow_redirects=False, headers={"Host": "localhost"})
    assert answer.status_code in (307, 308)
    assert answer.headers["location"].startswith("/v1/simulations")
    created = client.post(
        "/v1/traces",
        files={"file": ("t.csv", TRACE, "text/csv")},
        headers={"Host": "localhost"},
    )
    assert created.status_code == 202, created.text
    assert created.headers["location"] == f"/v1/traces/{created.json()['id']}"


def test_every_429_says_when_to_retry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One pending trace job at most: the second upload while the first waits gets 429. The
    # first job's process is held (tests/app/trace_runners.py) until the uploads are answered
    # (on a quiet machine a real reading of this small trace ended before the next upload,
    # and nothing was refused).
    release = tmp_path / "release"
    monkeypatch.setenv(trace_runners.RELEASE, str(release))
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        max_pending_jobs=1,
        dask_scheduler=None,
    )
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    app.dependency_overrides[trace_runner] = lambda: trace_runners.held
    with TestClient(app) as client:
        try:
            answers = [
                client.post("/v1/traces", files={"file": ("t.csv", TRACE * 2000, "text/csv")})
                for _ in range(4)
            ]
        finally:
            release.touch()
    assert [a.status_code for a in answers] == [202, 429, 429, 429]
    for answer in answers[1:]:
        assert int(answer.headers["retry-after"]) > 0


@pytest.mark.parametrize("path", ["/healthz", "/openapi.json", "/", "/docs", "/redoc"])
def test_every_answer_carries_the_security_headers(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["x-frame-options"] == "DENY"
    policy = answer.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy
    if answer.headers["content-type"].startswith("text/html"):
        assert "object-src 'none'" in policy
        assert "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";")[0]
        for digest in inline_script_hashes(answer.content):
            assert digest in policy
    else:
        assert policy.startswith("default-src 'none'")


def test_inline_script_hashes_skip_data_blocks_and_external_scripts() -> None:
    page = (
        b'<script src="/static/form.js"></script><script type="application/json">{}</script>'
        b"<script>alert(1)</script><script type='text/javascript'>alert(1)</script>"
    )
    # sha256("alert(1)"), base64 (computed independently: printf 'alert(1)' | openssl sha256).
    assert inline_script_hashes(page) == ["'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"]
