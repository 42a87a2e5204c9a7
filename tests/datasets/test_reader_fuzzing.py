"""Fuzzing the svmlight and CSV readers (hypothesis, fixed seed, bounded examples).

Random bytes and damaged copies of valid files (also compressed) are read by the real
readers and by a slow reference reading of the documented formats
(:mod:`streamsvm.datasets.hostile`): the only outcomes allowed are the reference's result
or a :class:`DataFileError` whose message is ``file:line: problem`` where the reference
refuses too.
"""

import re
import tempfile

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from streamsvm.datasets import DataFileError, load_csv, load_svmlight
from streamsvm.datasets.hostile import ReaderCase, make_reader_case, run_case

SETTINGS = settings(derandomize=True, deadline=None, database=None)


def checked_readers():
    """The readers, checking that every ValueError is a DataFileError of the documented form."""

    def wrap(reader):
        def read(path):
            try:
                return reader(path)
            except ValueError as exc:
                assert isinstance(exc, DataFileError), repr(exc)
                assert re.match(re.escape(path) + r":[1-9]\d*: \S", str(exc)), str(exc)
                raise

        return read

    return {"svmlight": wrap(load_svmlight), "csv": wrap(load_csv)}


def assert_clean(case):
    with tempfile.TemporaryDirectory() as folder:
        outcome, detail = run_case(case, folder, checked_readers())
    assert outcome in ("correct", "refused"), (outcome, detail, case)


@settings(SETTINGS, max_examples=1000)
@given(st.integers(0, 2**64 - 1))
def test_damaged_files_are_read_correctly_or_refused(seed):
    assert_clean(make_reader_case(np.random.default_rng(seed)))


@settings(SETTINGS, max_examples=300)
@given(st.binary(max_size=200), st.sampled_from(["svmlight", "csv"]),
       st.sampled_from(["", "", ".gz", ".bz2", ".xz"]))
def test_random_bytes_are_read_correctly_or_refused(data, fmt, suffix):
    assert_clean(ReaderCase("random bytes", fmt, suffix, data))


@settings(SETTINGS, max_examples=300)
@given(st.lists(st.sampled_from(["1", "-2.5", "nan", "inf", ":", "3:", "2:1", "0:1", "#",
                                 " ", "\t", "\r", "\n", ",", "qid:1", "e", ".", "+", "\x00",
                                 "99999999999:1", "é"]), max_size=30),
       st.sampled_from(["svmlight", "csv"]))
def test_token_soup_is_read_correctly_or_refused(tokens, fmt):
    assert_clean(ReaderCase("token soup", fmt, "", "".join(tokens).encode()))


def test_the_generator_covers_every_kind_of_case():
    """The seeds above reach valid, mutated, random and each kind of compressed file."""
    rng = np.random.default_rng(0)
    kinds = {make_reader_case(rng).kind.split(" .")[0] for _ in range(300)}
    assert kinds == {"valid", "mutated", "random bytes", "compressed", "truncated", "corrupt",
                     "not really"}
