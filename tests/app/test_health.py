from fastapi.testclient import TestClient

from app.main import app


def test_healthz_and_openapi() -> None:
    client = TestClient(app)
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/openapi.json").json()["info"]["title"] == "bufsize"
    assert client.get("/docs").status_code == 200
