import pytest

from app.units import COMMON_UNITS, UnitError, parse_quantity


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("10 Gbit/s", "rate", 10e9),
        ("10Gbps", "rate", 10e9),
        ("5 Mb/s", "rate", 5e6),
        ("1 Gb/s", "rate", 1e9),
        ("100ms", "time", 0.1),
        ("250 ms", "time", 0.25),
        ("1000B", "size", 1000.0),
        ("64 KiB", "size", 65536.0),
        ("90KB", "size", 90_000.0),  # KB as people write it: kilobytes, not kelvin-bytes
        ("1500", "size", 1500.0),
        (0.1, "time", 0.1),
    ],
)
def test_parse_quantity(text: str, kind: str, expected: float) -> None:
    assert parse_quantity("field", text, kind) == pytest.approx(expected)


def test_wrong_dimension_names_field() -> None:
    with pytest.raises(UnitError, match=r"capacity.*not a rate"):
        parse_quantity("capacity", "100 ms", "rate")


def test_unreadable_names_field() -> None:
    with pytest.raises(UnitError, match="rtt: cannot read"):
        parse_quantity("rtt", "fast", "time")


def test_parse_packets_counts_or_sizes() -> None:
    from app.units import parse_packets

    assert parse_packets("--max-window", "64", 1000.0) == 64.0
    assert parse_packets("--max-window", "64KiB", 1024.0) == 64.0
    with pytest.raises(UnitError, match=r"--max-window must be finite"):
        parse_packets("--max-window", "inf", 1000.0)
    with pytest.raises(UnitError, match=r"--max-window: .* is not a size"):
        parse_packets("--max-window", "100 ms", 1000.0)


@pytest.mark.parametrize("unit", sorted(COMMON_UNITS))
def test_common_units_read_as_pint_reads_them(unit: str) -> None:
    # The units read without pint give exactly what pint gives (the same float), for numbers
    # with and without fractions and exponents, spaced or not.
    from app.units import TARGET_UNITS, registry

    kind = COMMON_UNITS[unit][0]
    for number in ("1", "10", "250", "0.3", "33.3", "1.5e3", "2.5E-1", ".07", "1000000"):
        for text in (f"{number} {unit}", f"{number}{unit}"):
            by_pint = float(registry().Quantity(text).to(TARGET_UNITS[kind]).magnitude)
            assert parse_quantity("field", text, kind) == by_pint, text


def test_common_units_need_no_pint() -> None:
    # The command line's usual quantities are read without importing pint (its import and
    # registry are most of the start-up of `bufsize recommend`); other units still use it.
    import subprocess
    import sys

    code = (
        "import sys; from app.units import parse_quantity as q; "
        "assert q('c', '10 Gbit/s', 'rate') == 1e10; assert q('r', '100ms', 'time') == 0.1; "
        "assert q('p', '1500', 'size') == 1500.0; assert 'pint' not in sys.modules; "
        "assert q('r', '2 min', 'time') == 120.0; assert 'pint' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_common_unit_of_the_wrong_kind_names_field() -> None:
    with pytest.raises(UnitError, match=r"--rtt: '10 Gbit/s' is not a time"):
        parse_quantity("--rtt", "10 Gbit/s", "time")
