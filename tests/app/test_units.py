import pytest

from app.units import UnitError, parse_quantity


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
