"""/v1/traces: upload a trace (multipart, streamed to disk), poll the job, errors and limits."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.jobs.lifespan import simulation_runner, trace_runner
from app.jobs.worker import Runner
from app.main import create_app
from app.services.names import OPTION_OF, FieldError, api_word, option_word
from app.services.trace import TRACE_REPLICATIONS, trace_options
from app.settings import Settings, get_settings
from app.trace_child import TraceRunner, read_trace
from app.trace_form import TRACE_FORM_FIELDS
from tests.app import trace_runners
from tests.app.trace_links import write_congested_trace


@contextmanager
def trace_service(
    tmp_path: Path,
    runner: TraceRunner | None = None,
    simulations: Runner | None = None,
    **limits: Any,
) -> Iterator[TestClient]:
    """The app with its job database in ``tmp_path``, one worker, four pending jobs, these
    settings (``max_trace_bytes``, ...), trace jobs run by ``runner`` and simulation jobs by
    ``simulations`` (None: the real ones)."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        workers=1,
        max_pending_jobs=4,
        dask_scheduler=None,
        **limits,
    )
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    if runner is not None:
        app.dependency_overrides[trace_runner] = lambda: runner
    if simulations is not None:
        app.dependency_overrides[simulation_runner] = lambda: simulations
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with trace_service(tmp_path, max_trace_bytes=64 * 1024, max_body_bytes=2048) as test_client:
        yield test_client


def _csv(rows: int) -> bytes:
    """Two flows taking turns at 1 ms spacing, a drop every 50 packets."""
    lines = ["time_s,flow,size_bytes,dropped"]
    for i in range(rows):
        lines.append(f"{i * 0.001:.6f},{i % 2},1500,{int(i % 50 == 49)}")
    return ("\n".join(lines) + "\n").encode()


def _wait(client: TestClient, location: str) -> dict[str, Any]:
    for _ in range(600):
        body: dict[str, Any] = client.get(location).json()
        if body["status"] in ("succeeded", "failed"):
            return body
        time.sleep(0.05)
    raise AssertionError("the trace job did not finish in 30 s")


def test_upload_is_read_in_a_job(client: TestClient) -> None:
    response = client.post(
        "/v1/traces",
        files={"file": ("link.csv", _csv(2000), "text/csv")},
        data={"capacity_bps": "12 Mbit/s", "warmup_s": "0.2s"},
    )
    assert response.status_code == 202, response.text
    body = _wait(client, response.headers["location"])
    assert body["status"] == "succeeded", body
    estimates = body["result"]["estimates"]
    assert estimates["packets"] == 2000
    assert estimates["flows"] == 2
    assert estimates["capacity_bps"] == 12e6
    # 36 of the 1,800 rows after the 0.2 s warm-up are drops (rows 249, 299, ..., 1999).
    assert estimates["loss_rate"]["value"] == pytest.approx(36 / 1800, rel=1e-12)
    assert body["progress"] == 1.0
    assert body["result"]["file"] == "link.csv"
    # two flows taking turns at a fixed spacing: no rate reductions, so no LBP flow
    assert body["message"] == (
        "2,000 packets of 2 flows read; no BSCL size (the trace shows no flow bottlenecked "
        "at this link (N_b = 0) or no RTT sample: BSCL needs both)"
    )


def test_second_reading_shows_in_the_message_while_progress_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow link with no capacity given is read twice (``estimate_trace``): the job's
    progress (the file read once) stays at 1 and does not go back, and the message says
    that the second reading runs and how far it got. The job's process (``trace_runners.held``)
    reports so and waits until the test has polled it, then reads the trace for real: what
    the process reports reaches GET through the job store."""
    release = tmp_path / "release"
    monkeypatch.setenv(trace_runners.RELEASE, str(release))
    limits = {"max_trace_bytes": 64 * 1024, "max_body_bytes": 2048}
    with trace_service(tmp_path, trace_runners.held, **limits) as client:
        response = client.post(
            "/v1/traces",
            files={"file": ("link.csv", _csv(2000), "text/csv")},
            data={"capacity_bps": "12 Mbit/s", "warmup_s": "0.2s"},
        )
        assert response.status_code == 202, response.text
        location = response.headers["location"]
        for _ in range(1200):
            body = client.get(location).json()
            if body["message"]:
                break
            time.sleep(0.05)
        release.touch()
        assert body["status"] == "running"
        assert body["progress"] == 1.0
        assert body["message"] == trace_runners.HELD_MESSAGE
        done = _wait(client, location)
    assert done["status"] == "succeeded"
    # the finished job says what it did, not the last reading's progress
    assert done["message"].startswith("2,000 packets of 2 flows read; no BSCL size")


def test_reading_for_this_link_s_queue_shows_in_the_message_while_progress_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """004 §VII's mix on a 10 Mbit/s link (4 LBP flows, 80 %, 60 s, seed 1) read with C and B
    by the trace job's runner: an LBP flow's first-round spacing has no drop lag, so the
    estimator reads the file once more for this link's queue as the RBP flows' paced arrivals
    show it (``validation.traces.paced_queue``). While it does, the runner's progress stays at
    1 and its message says which reading runs and how far it got (before, the job sat at
    100 % with an empty message). The runner is called here as the job's process calls it,
    its reports collected; the second reading reports 40 % once."""
    from tests.validation.mix_traces import SLOW_CAPACITY_BPS, slow_mix_csv
    from validation.traces import paced_queue

    sc, buffer, _, path = slow_mix_csv(4, 0.8, seed=1, tmp_path=tmp_path)
    real = paced_queue.paced_waits

    def reports_40(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("progress") is not None:
            kwargs["progress"](0.4)
        return real(*args, **kwargs)

    monkeypatch.setattr(paced_queue, "paced_waits", reports_40)
    options = trace_options(
        {
            "capacity_bps": f"{SLOW_CAPACITY_BPS:g}",
            "buffer_packets": f"{buffer * sc.wire_bytes} B",
            "warmup_s": f"{sc.warmup_s}s",
        },
        api_word,
    )
    sent: list[tuple[str, Any]] = []
    doc = read_trace(path, options, 1, sent.append)
    progress = [value for kind, value in sent if kind == "progress"]
    assert progress == sorted(progress) and progress[-1] == 1.0
    messages = [value for kind, value in sent if kind == "message"]
    assert "second reading for this link's queue: 40% of the file" in messages
    # every message comes after the file was read once
    first_message = next(i for i, (kind, _) in enumerate(sent) if kind == "message")
    assert ("progress", 1.0) in sent[:first_message]
    assert any("paced arrivals" in note for note in doc["estimates"]["notes"])


def test_bad_file_fails_the_job_and_names_the_line(client: TestClient) -> None:
    content = _csv(10) + b"0.5,1,oops,0\n"
    response = client.post("/v1/traces", files={"file": ("bad.csv", content, "text/csv")})
    assert response.status_code == 202
    body = _wait(client, response.headers["location"])
    assert body["status"] == "failed"
    assert "line 12" in body["message"] and "size_bytes" in body["message"]
    assert "bad.csv" in body["message"]
    assert client.get("/healthz").json() == {"status": "ok"}  # the service stays up


def test_upload_over_the_limit_gets_413_before_it_is_read(client: TestClient) -> None:
    big = _csv(5000)
    assert len(big) > 64 * 1024
    response = client.post("/v1/traces", files={"file": ("big.csv", big, "text/csv")})
    assert response.status_code == 413
    assert "max_trace_bytes" in response.json()["detail"]


def test_upload_without_a_declared_length_is_stopped_at_the_limit(client: TestClient) -> None:
    boundary = "b0undary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.csv"\r\n'
        "Content-Type: text/csv\r\n\r\n"
    ).encode()

    def body() -> Iterator[bytes]:  # a generator: sent chunked, no Content-Length
        yield head
        for _ in range(100):
            yield b"0.1,1,1500,0\n" * 100

    response = client.post(
        "/v1/traces",
        content=body(),
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )
    assert response.status_code == 413


def test_field_errors_name_the_field(client: TestClient) -> None:
    files = {"file": ("t.csv", _csv(10), "text/csv")}
    response = client.post("/v1/traces", files=files, data={"capacity_bps": "fast"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "capacity_bps"]
    response = client.post("/v1/traces", data={"capacity_bps": "1 Mbit/s"}, files={"x": ("a", b"")})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "file"]
    response = client.post("/v1/traces", content=b"{}", headers={"content-type": "text/json"})
    assert response.status_code == 415
    response = client.post("/v1/traces", files=files, data={"replications": "1"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "replications"]


def test_unknown_job_is_404(client: TestClient) -> None:
    assert client.get("/v1/traces/" + "0" * 32).status_code == 404


def test_verify_checks_the_bscl_size_with_the_recommendation_check(tmp_path: Path) -> None:
    # A simulated 10 Mbit/s link (8 persistent flows, 10% background), as bufsize trace reads it.
    path = tmp_path / "link.csv"
    write_congested_trace(path)
    with trace_service(tmp_path, max_trace_bytes=8 * 1024 * 1024) as client:
        response = client.post(
            "/v1/traces",
            files={"file": ("link.csv", path.read_bytes(), "text/csv")},
            data={
                "capacity_bps": "10 Mbit/s",
                "warmup_s": "4s",
                "verify": "true",
                "replications": "2",
                "seed": "7",
            },
        )
        assert response.status_code == 202, response.text
        for _ in range(1200):  # the check's simulator runs take longer than a reading
            body = client.get(response.headers["location"]).json()
            if body["status"] in ("succeeded", "failed"):
                break
            time.sleep(0.25)
    assert body["status"] == "succeeded", body
    result = body["result"]
    bscl_packets = math.ceil(result["bscl"]["buffer_packets"])
    check = result["verification"]
    assert check["rule"] == "bscl" and check["replications"] == 2 and check["seed"] == 7
    assert [s["buffer_packets"] for s in check["sizes"]] == [
        max(bscl_packets // 2, 1),
        bscl_packets,
        2 * bscl_packets,
    ]
    assert all(s["verdict"] in ("met", "missed", "undecided") for s in check["sizes"])
    # Three sizes (half, the BSCL size, double) at both ends of the assumed access rate, two
    # replications each at least (more where an extra batch decided a target).
    labels = [s["label"] for s in check["sizes"] + check["slow_sizes"]]
    assert len(labels) == 6
    runs = sum(s["replications"] for s in check["sizes"] + check["slow_sizes"])
    assert runs >= 12
    assert body["message"] == (
        f"{result['estimates']['packets']:,} packets of {result['estimates']['flows']:,} "
        f"flows read; the BSCL size checked in {runs} simulator runs"
    )


def test_blank_fields_are_not_given_and_others_must_match_their_pattern(
    client: TestClient,
) -> None:
    # A browser sends an empty input as an empty field: it is the default, not an error.
    files = {"file": ("t.csv", _csv(10), "text/csv")}
    blank = dict.fromkeys(("capacity_bps", "buffer_packets", "warmup_s", "max_loss"), "")
    blank.update(verify="", replications=" ", seed="")
    assert client.post("/v1/traces", files=files, data=blank).status_code == 202
    # What the OpenAPI pattern refuses the service refuses, naming the field: int() would
    # have read "+5", "1_0" and " 07 ", and the old check lower-cased "TRUE".
    for name, text in [
        ("seed", "+5"),
        ("seed", "1_0"),
        ("replications", "07"),
        ("verify", "TRUE"),
        ("max_loss", "1 %%"),
        ("capacity_bps", " " * 49),
    ]:
        response = client.post("/v1/traces", files=files, data={name: text})
        assert response.status_code == 422, (name, text, response.text)
        assert response.json()["detail"][0]["loc"] == ["body", name]


def test_the_replications_pattern_takes_exactly_the_services_range() -> None:
    low, high = TRACE_REPLICATIONS
    pattern = TRACE_FORM_FIELDS["replications"]["pattern"]
    taken = {n for n in range(100) if re.fullmatch(pattern, str(n))}
    assert taken == set(range(low, high + 1))


@pytest.mark.parametrize(
    ("texts", "name"), [({"replications": "21"}, "replications"), ({"seed": "-1"}, "seed")]
)
def test_limits_are_written_once_in_each_edges_words(texts: dict[str, str], name: str) -> None:
    # One check (the service's), each edge's word for the field in its message.
    with pytest.raises(FieldError) as api:
        trace_options(texts, api_word)
    with pytest.raises(FieldError) as cli:
        trace_options(texts, option_word)
    assert api.value.field == cli.value.field == (name,)
    assert str(api.value).startswith(f"{name} must be")
    assert str(cli.value).startswith(f"{OPTION_OF[name]} must be")
