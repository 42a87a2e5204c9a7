"""Damaged and hostile data files: each is refused with ``file:line: problem``.

Covers compressed files that are truncated, corrupt or not compressed at all, feature
indices and widths beyond ``max_features``, and the reproducers of the hardening issue.
"""

import bz2
import gzip
import lzma
import re
import zlib

import numpy as np
import pytest

from streamsvm.datasets import DataFileError, iter_csv, iter_svmlight, load_csv, load_svmlight

COMPRESSORS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
DECOMPRESSORS = {".gz": lambda: zlib.decompressobj(wbits=31), ".bz2": bz2.BZ2Decompressor,
                 ".xz": lzma.LZMADecompressor}


def svmlight_text(n_rows):
    return "".join(f"{(-1) ** i:+d} 1:{i} 3:0.5\n" for i in range(n_rows)).encode()


def csv_text(n_rows):
    return "".join(f"{i},0.5,{i % 2}\n" for i in range(n_rows)).encode()


def read_all(path, fmt, **kwargs):
    reader = iter_svmlight if fmt == "svmlight" else iter_csv
    return list(reader(path, **kwargs))


@pytest.mark.parametrize("suffix", list(COMPRESSORS))
@pytest.mark.parametrize("fmt", ["svmlight", "csv"])
def test_truncated_compressed_file_names_the_line(tmp_path, suffix, fmt):
    text = svmlight_text(150_000) if fmt == "svmlight" else csv_text(150_000)
    packed = COMPRESSORS[suffix](text)
    path = tmp_path / f"cut{suffix}"
    cut = packed[: len(packed) * 3 // 4]
    path.write_bytes(cut)
    readable = DECOMPRESSORS[suffix]().decompress(cut)  # what survives the cut
    first_damaged_line = readable.count(b"\n") + 1
    kwargs = {"n_features": 3, "zero_based": False} if fmt == "svmlight" else {}
    with pytest.raises(DataFileError, match="ends too early") as info:
        read_all(path, fmt, chunk_size=10_000, block_size=1 << 16, **kwargs)
    error = info.value
    assert error.path == str(path) and str(error).startswith(f"{path}:{error.line}: ")
    # every line before the damage was read (bzip2 blocks hold 900 kB of text)
    assert 1 < error.line == first_damaged_line < 150_000


@pytest.mark.parametrize("suffix", list(COMPRESSORS))
def test_corrupt_compressed_file_is_refused(tmp_path, suffix):
    packed = bytearray(COMPRESSORS[suffix](svmlight_text(30_000)))
    for i in range(len(packed) // 2, len(packed) // 2 + 64):
        packed[i] ^= 0x5A
    path = tmp_path / f"bad.svm{suffix}"
    path.write_bytes(bytes(packed))
    # the damage may surface in the decompressor or as garbage text: both name file and line
    with pytest.raises(DataFileError, match=re.escape(str(path)) + r":\d+: "):
        load_svmlight(path, block_size=4096)


@pytest.mark.parametrize("suffix, fmt_name", [(".gz", "gzip"), (".bz2", "bzip2"), (".xz", "xz")])
def test_name_claiming_a_compression_the_file_lacks(tmp_path, suffix, fmt_name):
    path = tmp_path / f"plain.svm{suffix}"
    path.write_bytes(svmlight_text(3))
    with pytest.raises(DataFileError, match=re.escape(
            f"{path}:1: not a {fmt_name} file, though its name says so (it starts with")):
        load_svmlight(path)
    csv_path = tmp_path / f"plain.csv{suffix}"
    csv_path.write_bytes(b"")
    with pytest.raises(DataFileError, match=f"the file is empty, but its name says it is "
                                            f"{fmt_name}"):
        load_csv(csv_path)


def test_xz_files_are_read(tmp_path):
    path = tmp_path / "d.svm.xz"
    path.write_bytes(lzma.compress(svmlight_text(5)))
    X, y = load_svmlight(path)
    assert X.shape == (5, 3) and y.tolist() == [1, -1, 1, -1, 1]
    np.testing.assert_array_equal(X.toarray()[:, 0], np.arange(5))


def test_hostile_index_is_refused_before_any_allocation(tmp_path):
    """Reproducer: index 99999999999 declared a CSR of 1e11 columns (745 GiB in fit)."""
    path = tmp_path / "wide.svm"
    path.write_text("1 1:1 3:2\n-1 2:1\n1 99999999999:1\n")
    with pytest.raises(DataFileError, match=re.escape(
            f"{path}:3: feature index 99999999999 is beyond max_features=16777216")):
        load_svmlight(path)
    with pytest.raises(DataFileError, match=r"wide.svm:3: feature index 99999999999 is beyond "
                                            r"max_features=1000"):
        load_svmlight(path, max_features=1000)
    X, _ = load_svmlight(path, max_features=10**11)  # a declared width is only a number
    assert X.shape == (3, 99999999999) and X.nnz == 4


@pytest.mark.parametrize("zero_based, width", [(False, 8), (True, 9)])
def test_max_features_bounds_the_width_exactly(tmp_path, zero_based, width):
    path = tmp_path / "edge.svm"
    path.write_text("1 0:1 8:1\n" if zero_based else "1 1:1 8:1\n")
    X, _ = load_svmlight(path, max_features=width)
    assert X.shape == (1, width)
    with pytest.raises(DataFileError, match=f"edge.svm:1: feature index 8 is beyond "
                                            f"max_features={width - 1}"):
        load_svmlight(path, max_features=width - 1)


def test_given_n_features_overrides_max_features(tmp_path):
    path = tmp_path / "n.svm"
    path.write_text("1 1:1 50:1\n")
    X, _ = load_svmlight(path, n_features=60, max_features=10, zero_based=False)
    assert X.shape == (1, 60)


def test_csv_wider_than_max_features(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("1,2,3,4,0\n")
    with pytest.raises(DataFileError, match=r"wide.csv:1: 4 feature columns, more than "
                                            r"max_features=3"):
        load_csv(path, max_features=3)
    assert load_csv(path, max_features=4)[0].shape == (1, 4)


def test_wide_csv_line_allocates_rows_as_they_are_read(tmp_path):
    """One line of 300,000 fields with chunk_size=100,000 used to ask for 240 GB at once."""
    path = tmp_path / "wide.csv"
    path.write_bytes(",".join(["1"] * 300_000).encode() + b",0\n")
    X, y = load_csv(path, chunk_size=100_000)
    assert X.shape == (1, 300_000) and y.tolist() == [0]



# mtime=0: the gzip header holds its time, and pytest-xdist's workers must collect equal ids
@pytest.mark.parametrize("name, content, problem", [
    ("cut.svm.gz", gzip.compress(svmlight_text(50_000), mtime=0)[:40_000], "ends too early"),
    ("plain.svm.gz", svmlight_text(10), "not a gzip file"),
    ("wide.svm", b"1 1:1\n-1 99999999999:1\n", "beyond max_features"),
    ("nan.csv", b"1,nan,0\n2,3,1\n", "is not finite"),
])
def test_cli_reports_a_damaged_file_as_one_error(tmp_path, name, content, problem):
    """Exit 1 with ``error: file:line: problem``, no traceback, no "Aborted!".

    (That the message is not wrapped over several lines is the CLI's own test.)
    """
    from click.testing import CliRunner

    from streamsvm.cli import EXIT_DATA, main

    path = tmp_path / name
    path.write_bytes(content)
    result = CliRunner().invoke(main, ["train", "Perceptron", "--file", str(path), "--quiet"])
    assert result.exit_code == EXIT_DATA
    assert result.output.startswith("error: ") and result.output.count("error:") == 1
    unwrapped = " ".join(result.output.split())
    assert re.search(re.escape(name) + r":\d+: ", unwrapped), result.output
    assert problem in unwrapped
    assert "Traceback" not in result.output and "Aborted" not in result.output
