"""Test-wide set-up: the job store of any app a test starts lives in a temporary directory."""

import os
import tempfile
from pathlib import Path

# Set before the app reads its settings, so no test writes ./bufsize.sqlite3 in the work tree.
_store = Path(tempfile.mkdtemp(prefix="bufsize-tests-")) / "jobs.sqlite3"
os.environ.setdefault("BUFSIZE_DATABASE_URL", f"sqlite:///{_store}")
