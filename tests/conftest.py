"""Test-wide set-up: the job store of any app a test starts lives in a temporary directory."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# Set before the app reads its settings, so no test writes ./bufsize.sqlite3 in the work tree.
# One store per process: pytest-xdist's workers inherit the controller's environment, and two
# workers creating the tables of one SQLite file at once collide ("table already exists").
# A store the user named (BUFSIZE_DATABASE_URL set before the tests) is left as it is.
_OURS = "BUFSIZE_TESTS_OWN_STORE"
if "BUFSIZE_DATABASE_URL" not in os.environ or os.environ.get(_OURS) == "1":
    _store = Path(tempfile.mkdtemp(prefix="bufsize-tests-")) / "jobs.sqlite3"
    os.environ["BUFSIZE_DATABASE_URL"] = f"sqlite:///{_store}"
    os.environ[_OURS] = "1"

# Starlette's TestClient sends "Host: testserver"; the service answers only the hosts it is
# told to (BUFSIZE_ALLOWED_HOSTS), so the tests name it along with the defaults.
os.environ.setdefault("BUFSIZE_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")


def pytest_addoption(parser: pytest.Parser) -> None:
    # Declared here, in the first conftest pytest reads, so the option is known whichever
    # tests are selected; used by tests/e2e/conftest.py.
    parser.addoption(
        "--e2e-artifacts",
        default=None,
        help="directory for the browser tests' screenshots (default: each test's tmp_path)",
    )


# Property tests assert behaviour, never speed: the machine is shared, and a single example taking
# longer than Hypothesis' default 200 ms deadline says nothing about the code under test.
from hypothesis import settings  # noqa: E402

settings.register_profile("bufsize", deadline=None)
settings.load_profile("bufsize")


@dataclass
class RenderedNotebooks:
    """Notebooks executed and written as HTML once per test session, on first request.

    The notebook tests (tests/notebooks) and the browser tests of their HTML (tests/e2e) share
    one instance when they run in the same process (both are in the xdist group ``browser``),
    so each notebook is executed once.
    """

    build_dir: Path
    executed: dict[str, object] = field(default_factory=dict)
    html: dict[str, Path] = field(default_factory=dict)

    def notebook(self, path: Path) -> object:
        """The executed notebook (``nbformat.NotebookNode``); raises if a cell fails."""
        from notebooks.render import execute_notebook

        if path.stem not in self.executed:
            self.executed[path.stem] = execute_notebook(path)
        return self.executed[path.stem]

    def html_path(self, path: Path) -> Path:
        """The notebook's HTML page, with its MathJax copy beside it."""
        from notebooks.render import write_html

        if path.stem not in self.html:
            self.html[path.stem] = write_html(self.notebook(path), path.stem, self.build_dir)  # type: ignore[arg-type]
        return self.html[path.stem]


@pytest.fixture(scope="session")
def rendered_notebooks(tmp_path_factory: pytest.TempPathFactory) -> RenderedNotebooks:
    return RenderedNotebooks(build_dir=tmp_path_factory.mktemp("notebooks-html"))
