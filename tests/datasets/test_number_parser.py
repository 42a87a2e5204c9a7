"""The readers' number parser against Python's ``float`` (property-based, fixed seed).

The grammar is the one :func:`streamsvm.datasets._core.parse_float` documents::

    number   := sign? (digits ("." digits?)? | "." digits) exponent?
    exponent := ("e" | "E") sign? digits
"""

import math
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from streamsvm.datasets import _core

GRAMMAR = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
NONFINITE = re.compile(r"[+-]?(nan|inf|infinity)", re.IGNORECASE)
SETTINGS = settings(derandomize=True, max_examples=500, deadline=None, database=None)

digits = st.text("0123456789", min_size=1, max_size=30)
sign = st.sampled_from(["", "+", "-"])


@st.composite
def decimals(draw):
    """Strings of the documented grammar, from short integers to 30-digit mantissas."""
    body = draw(st.one_of(
        digits,
        st.builds(lambda a, b: f"{a}.{b}", digits, st.text("0123456789", max_size=30)),
        st.builds(lambda b: f".{b}", digits),
    ))
    exponent = draw(st.one_of(
        st.just(""),
        st.builds(lambda e, s, n: f"{e}{s}{n}", st.sampled_from("eE"), sign,
                  st.integers(0, 330).map(str)),
        st.builds(lambda e, s, n: f"{e}{s}{n}", st.sampled_from("eE"), sign, digits),
    ))
    return draw(sign) + body + exponent


def parse(text, allow_nonfinite=False):
    buf = np.frombuffer(text.encode(), dtype=np.uint8)
    value, end, ok = _core.parse_float(buf, 0, buf.shape[0], allow_nonfinite)
    return value, int(end), bool(ok)


def significant_digits(text):
    mantissa = re.match(r"[+-]?([\d.]*)", text).group(1).replace(".", "").lstrip("0")
    return len(mantissa.rstrip("0"))


@SETTINGS
@given(decimals())
def test_finite_decimals_are_rounded_like_float(text):
    expected = float(text)
    value, end, ok = parse(text)
    if not math.isfinite(expected):
        assert not ok  # too large for a double: refused unless non-finite values are allowed
        value, end, ok = parse(text, allow_nonfinite=True)
        assert ok and end == len(text) and value == expected
        return
    assert ok and end == len(text)
    normal = expected == 0 or abs(expected) >= 2.2250738585072014e-308
    if significant_digits(text) <= 19 and normal:
        assert value == expected and math.copysign(1, value) == math.copysign(1, expected)
    else:  # the documented exceptions: over 19 digits, or subnormal: one unit at most
        assert abs(value - expected) <= math.ulp(expected)


@SETTINGS
@given(st.text("0123456789+-.eE", max_size=12))
def test_a_string_is_read_whole_exactly_when_the_grammar_matches(text):
    value, end, ok = parse(text)
    if GRAMMAR.fullmatch(text) and math.isfinite(float(text)):
        assert ok and end == len(text) and value == float(text)
    else:
        assert not (ok and end == len(text))


@settings(SETTINGS, max_examples=100)
@given(sign, st.sampled_from(["nan", "inf", "infinity"]),
       st.lists(st.booleans(), min_size=8, max_size=8))
def test_nonfinite_spellings_only_when_allowed(sign_text, word, upper):
    text = sign_text + "".join(c.upper() if u else c for c, u in zip(word, upper, strict=False))
    assert not parse(text)[2]
    value, end, ok = parse(text, allow_nonfinite=True)
    expected = float(text)
    assert ok and end == len(text)
    assert (math.isnan(value) and math.isnan(expected)) or value == expected


def test_examples_of_the_grammar_edges():
    for text in ["1e", ".", "+", "e5", "-.e1", "1e+", "nan"]:
        assert not (parse(text)[2] and parse(text)[1] == len(text)), text
    for text in ["7.", ".5", "-0", "+0.0e-0", "1E+05", "0001.2500"]:
        assert parse(text) == (float(text), len(text), True), text
