"""What the papers measured, as CSV with provenance.

Each ``<name>.csv`` in this folder is one dataset; ``provenance.toml`` says, for each, which seed
file, section, table or figure it comes from, the scenario as the paper states it, what the
harness had to assume, how the comparison range of each row was read, and how (and why) a
scenario may be scaled down. Every row has the columns of :data:`COMMON_COLUMNS`.
"""

from __future__ import annotations

import csv
import math
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

#: Columns every dataset row has.
COMMON_COLUMNS = ("row", "quantity", "paper", "low", "high", "source", "quote")
#: Keys every dataset's provenance entry has.
PROVENANCE_KEYS = (
    "seed",
    "section",
    "title",
    "columns",
    "parameters",
    "assumed",
    "tolerance",
    "scaling",
)


@dataclass(frozen=True)
class Row:
    """One published value (or statement) and the range it allows.

    Attributes
    ----------
    dataset : the CSV file's name without ``.csv``.
    row : the row's name, unique in its dataset.
    quantity : what is compared (``utilization``, ``loss_rate``, ...).
    paper : the value the paper prints or states; NaN when the statement has no number.
    low, high : the range the statement allows, in the unit of ``quantity``.
    source : seed file and section, table or figure.
    quote : the sentence or table cell the row is taken from.
    params : the dataset's own scenario columns, as strings.
    """

    dataset: str
    row: str
    quantity: str
    paper: float
    low: float
    high: float
    source: str
    quote: str
    params: dict[str, str]

    def number(self, column: str) -> float:
        """A scenario column as a float."""
        return float(self.params[column])

    def flag(self, column: str) -> bool:
        """A scenario column holding ``true`` or ``false``."""
        value = self.params[column].strip().lower()
        if value not in ("true", "false"):
            raise ValueError(f"{self.dataset}/{self.row}: {column} must be true or false")
        return value == "true"


def names() -> list[str]:
    """The datasets in this folder, sorted."""
    folder = resources.files(__name__)
    return sorted(
        entry.name.removesuffix(".csv") for entry in folder.iterdir() if entry.name.endswith(".csv")
    )


@cache
def provenance() -> dict[str, dict[str, Any]]:
    """The provenance file, one entry per dataset."""
    text = resources.files(__name__).joinpath("provenance.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _float(text: str) -> float:
    return math.nan if text.strip() == "" else float(text)


@cache
def load(name: str) -> tuple[Row, ...]:
    """The rows of dataset ``name``.

    Raises
    ------
    ValueError
        When the file lacks a common column, names a row twice, has a row whose range is empty,
        or has no provenance entry.
    """
    if name not in provenance():
        raise ValueError(f"dataset {name!r} has no entry in provenance.toml")
    columns = set(provenance()[name]["columns"])
    text = resources.files(__name__).joinpath(f"{name}.csv").read_text(encoding="utf-8")
    reader = csv.DictReader(text.splitlines())
    header = set(reader.fieldnames or ())
    missing = (set(COMMON_COLUMNS) | columns) - header
    if missing:
        raise ValueError(f"{name}.csv lacks columns {sorted(missing)}")
    rows: list[Row] = []
    seen: set[str] = set()
    for record in reader:
        key = record["row"]
        if key in seen:
            raise ValueError(f"{name}.csv names row {key!r} twice")
        seen.add(key)
        row = Row(
            dataset=name,
            row=key,
            quantity=record["quantity"],
            paper=_float(record["paper"]),
            low=_float(record["low"]),
            high=_float(record["high"]),
            source=record["source"],
            quote=record["quote"],
            params={c: record[c] for c in header - set(COMMON_COLUMNS)},
        )
        if not row.low <= row.high:
            raise ValueError(f"{name}/{key}: low {row.low} is not <= high {row.high}")
        rows.append(row)
    return tuple(rows)


def row(name: str, key: str) -> Row:
    """One row of a dataset by its name."""
    for item in load(name):
        if item.row == key:
            return item
    raise KeyError(f"{name} has no row {key!r}")
