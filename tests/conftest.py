"""Test-wide set-up: the job store of any app a test starts lives in a temporary directory."""

import os
import tempfile
from pathlib import Path

# Set before the app reads its settings, so no test writes ./bufsize.sqlite3 in the work tree.
_store = Path(tempfile.mkdtemp(prefix="bufsize-tests-")) / "jobs.sqlite3"
os.environ.setdefault("BUFSIZE_DATABASE_URL", f"sqlite:///{_store}")


def pytest_addoption(parser):  # type: ignore[no-untyped-def]
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
