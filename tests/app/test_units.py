import re
import subprocess
import sys

import pytest

from app.units import PATTERNS, SIZE_UNITS, TIME_UNITS, UnitError, parse_fraction, parse_quantity


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


def _pint_spelling(unit: str) -> str:
    # The spelling pint reads as this module does: a lower-case b after a symbol prefix is a
    # bit (pint: barn), a capital K is kilo (pint: kelvin).
    match = re.fullmatch(r"([kKMGTPE]i?)?(b|B|bit)", unit)
    if match is None:
        return unit
    prefix = match[1] or ""
    if prefix == "K":
        prefix = "k"
    return prefix + ("bit" if match[2] == "b" else match[2])


@pytest.fixture(scope="module")
def ureg():  # type: ignore[no-untyped-def]
    import pint

    return pint.UnitRegistry()


@pytest.mark.parametrize(
    ("units", "kind", "target"),
    [(SIZE_UNITS, "size", "byte"), (TIME_UNITS, "time", "second")],
)
def test_every_unit_reads_as_pint_reads_it(
    units: dict[str, float], kind: str, target: str, ureg
) -> None:  # type: ignore[no-untyped-def]
    # Each spelling of the grammar gives the factor pint gives the same unit (pint is only an
    # oracle here; the service never imports it). 1e-12 relative: a product of two factors.
    for unit in units:
        for number in ("1", "0.3", "1.5e3", ".07"):
            expected = float(ureg.Quantity(f"{number} {_pint_spelling(unit)}").to(target).magnitude)
            for text in (f"{number} {unit}", f"{number}{unit}"):
                assert parse_quantity("field", text, kind) == pytest.approx(expected, rel=1e-12), (
                    text
                )
                assert re.fullmatch(PATTERNS[kind], text), text


@pytest.mark.parametrize(
    ("text", "pint_text"),
    [
        ("10 Gbit/s", "10 Gbit/s"),
        ("10 Gbps", "10 Gbit/s"),
        ("5 Mb/s", "5 Mbit/s"),
        ("3 MBps", "3 MB/s"),
        ("250 kbps", "250 kbit/s"),
        ("1 KiB/s", "1 KiB/s"),
        ("10 kilobits per second", "10 kilobit/second"),
        ("2 GB / ms", "2 GB/ms"),
        ("1 gibibyte/hour", "1 gibibyte/hour"),
        ("7 Mbit/sec", "7 Mbit/s"),
    ],
)
def test_rates_read_as_pint_reads_them(text: str, pint_text: str, ureg) -> None:  # type: ignore[no-untyped-def]
    expected = float(ureg.Quantity(pint_text).to("bit/s").magnitude)
    assert parse_quantity("field", text, "rate") == pytest.approx(expected, rel=1e-12)
    assert re.fullmatch(PATTERNS["rate"], text)


@pytest.mark.parametrize(
    "text",
    [
        "9**9**9 bit/s",
        "10**10**7 bit/s",
        "2**64 B",
        "1e1000 s",
        "1e300 s",
        "10 Gbit/s**2",
        "10 Gbit*s/s",
        "(10) s",
        "10 furlong",
        "10 m",  # a metre, not a time
        "nan s",
        "inf",
        "1e999",
        "10 ms ms",
        "x" * 49,
    ],
)
def test_the_grammar_refuses_expressions_and_unknown_units(text: str) -> None:
    # Nothing outside number-and-unit is evaluated: powers, products, exponents over two
    # digits, unknown names, non-finite numbers. Refused at once, naming the field, and none
    # matches the OpenAPI pattern.
    kind = "rate" if "bit" in text else "time"
    with pytest.raises(UnitError, match=r"^capacity_bps[: ]"):
        parse_quantity("capacity_bps", text, kind)
    assert not re.fullmatch(PATTERNS[kind], text)


def test_the_service_never_imports_pint() -> None:
    # The grammar needs no unit library: reading any quantity leaves pint unimported.
    code = (
        "import sys; from app.units import parse_quantity as q; "
        "assert q('c', '10 Gbit/s', 'rate') == 1e10; assert q('r', '100ms', 'time') == 0.1; "
        "assert q('p', '1500', 'size') == 1500.0; assert q('r', '2 min', 'time') == 120.0; "
        "assert q('r', '3 milliseconds', 'time') == 0.003; assert 'pint' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_common_unit_of_the_wrong_kind_names_field() -> None:
    with pytest.raises(UnitError, match=r"--rtt: '10 Gbit/s' is not a time"):
        parse_quantity("--rtt", "10 Gbit/s", "time")


def test_percentages_parse_exactly() -> None:
    # Issue 27: "99.9%" parsed as 0.9990000000000001 (99.9 / 100 in binary). The percentage is
    # divided in decimal and rounded once: the float nearest 0.999, which is the literal 0.999.
    assert parse_fraction("--min-utilization", "99.9%") == 0.999
    assert parse_fraction("--max-loss", "0.1 %") == 0.001
    assert parse_fraction("--max-loss", "1%") == 0.01
    assert parse_fraction("--max-loss", 0.02) == 0.02
    for bad in ("nan%", "inf%", "ten%"):
        with pytest.raises(UnitError, match="--max-loss: cannot read"):
            parse_fraction("--max-loss", bad)
