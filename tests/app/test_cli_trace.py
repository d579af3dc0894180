"""``bufsize trace FILE``: estimates, the BSCL size, --json, and errors naming what and where."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from app.cli import main


def _csv(path: Path, rows: int = 3000) -> Path:
    lines = ["time_s,flow,size_bytes,dropped"]
    for i in range(rows):
        lines.append(f"{i * 0.001:.6f},{i % 3},1500,{int(i % 40 == 39)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_json_has_estimates_and_bscl(tmp_path: Path) -> None:
    path = _csv(tmp_path / "t.csv")
    result = CliRunner().invoke(
        main, ["trace", str(path), "--capacity", "12 Mbit/s", "--json", "--flows"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    est = doc["estimates"]
    assert est["packets"] == 3000 and est["flows"] == 3
    # 75 drops (rows 39, 79, ..., 2999) among 3000 rows, no warm-up.
    assert est["loss_rate"]["value"] == 75 / 3000
    assert len(est["flow_table"]) == 3
    assert "bscl" in doc


def test_table_output(tmp_path: Path) -> None:
    path = _csv(tmp_path / "t.csv")
    result = CliRunner().invoke(main, ["trace", str(path), "--capacity", "12 Mbit/s"])
    assert result.exit_code == 0, result.output
    assert "N_b (LBP flows)" in result.output and "Loss rate" in result.output


def test_errors_name_the_option_or_the_place(tmp_path: Path) -> None:
    runner = CliRunner()
    path = _csv(tmp_path / "t.csv")
    result = runner.invoke(main, ["trace", str(path), "--max-loss", "150%"])
    assert result.exit_code == 2 and "--max-loss" in result.output
    result = runner.invoke(main, ["trace", str(path), "--buffer", "100"])
    assert result.exit_code == 2 and "--buffer needs --capacity" in result.output
    bad = tmp_path / "bad.csv"
    bad.write_text("time_s,flow,size_bytes,dropped\n0.1,1,1500,0\n0.2,1,1500,7\n")
    result = runner.invoke(main, ["trace", str(bad)])
    assert result.exit_code == 1
    assert "line 3" in result.output and "dropped must be 0 or 1" in result.output
    result = runner.invoke(main, ["trace", str(tmp_path / "missing.pcap")])
    assert result.exit_code == 2 and "does not exist" in result.output
