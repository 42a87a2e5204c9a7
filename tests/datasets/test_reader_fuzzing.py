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
        def read(path, **options):
            try:
                return reader(path, **options)
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
    cases = [make_reader_case(rng) for _ in range(300)]
    assert {case.kind.split(" .")[0] for case in cases} == {
        "valid", "mutated", "random bytes", "compressed", "truncated", "corrupt", "not really"}
    assert {case.allow_nan for case in cases} == {False, True}


@settings(SETTINGS, max_examples=300)
@given(st.integers(0, 2**64 - 1), st.sampled_from([1, 7, 64]))
def test_block_size_changes_nothing(seed, block_size):
    """Reading in tiny blocks (lines split across reads) gives the same result or error.

    Damaged compressed data is refused either way, but not always at the same line nor for
    the same reason (garbage decoded before the damage is found may be refused first): where
    a corrupt stream fails depends on how much is asked of the decompressor at a time."""
    case = make_reader_case(np.random.default_rng(seed))
    read = load_svmlight if case.fmt == "svmlight" else load_csv
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/case{case.suffix}"
        with open(path, "wb") as f:
            f.write(case.data)
        results = []
        for size in (block_size, 1 << 20):
            try:
                results.append(read(path, block_size=size, allow_nan=case.allow_nan))
            except DataFileError as exc:
                results.append(str(exc))
    small, large = results
    if any(isinstance(r, str) and "compressed data" in r for r in results):
        assert isinstance(small, str) and isinstance(large, str)
    elif isinstance(large, str):
        assert small == large
    else:
        assert not isinstance(small, str), small
        for a, b in zip(small, large, strict=True):
            if hasattr(a, "nnz"):  # CSR: compare the arrays, never a dense copy
                assert a.shape == b.shape and np.array_equal(a.indptr, b.indptr)
                assert np.array_equal(a.indices, b.indices)
                a, b = a.data, b.data
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def test_the_oracle_tells_wrong_results_and_exceptions_apart():
    """run_case itself: a reader that drops a row, or raises EOFError, is caught."""
    rng = np.random.default_rng(3)
    case = make_reader_case(rng)
    while case.kind != "valid" or case.fmt != "csv":
        case = make_reader_case(rng)

    def drops_a_row(path, **options):
        X, y = load_csv(path, **options)
        return X[1:], y[1:]

    def raises_eof(path, **options):
        raise EOFError("Compressed file ended")

    def refuses_without_the_file(path, **options):
        raise ValueError("line 1: bad")

    with tempfile.TemporaryDirectory() as folder:
        assert run_case(case, folder, {"csv": load_csv})[0] == "correct"
        assert run_case(case, folder, {"csv": drops_a_row})[0] == "silently_wrong"
        assert run_case(case, folder, {"csv": raises_eof})[0] == "wrong_exception"
        assert run_case(case, folder, {"csv": refuses_without_the_file})[0] == "wrong_exception"
        broken = ReaderCase("mutated", "csv", "", case.data + b"1,2,3,4,5,6,7\n")
        assert run_case(broken, folder, {"csv": load_csv})[0] == "refused"
        assert run_case(broken, folder, {"csv": lambda path, **options: (np.zeros((1, 1)),
                                                                         np.zeros(1))}
                        )[0] == "silently_wrong"
