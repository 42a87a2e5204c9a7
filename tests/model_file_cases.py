"""Damaged model files, and how ``streamsvm.load`` answered them.

Used by ``tests/test_persistence_fuzz.py`` (hypothesis draws the mutation parameters) and by
``benchmarks/reliability/model_files.py`` (draws them from a seeded NumPy generator and counts
the outcomes). Every mutation is a plain function of the bytes of a valid file and a few
numbers, so both draw from the same space of damaged files:

- ``random_bytes``: bytes that were never a model file;
- ``flip_bytes`` / ``truncate``: damage anywhere in the file (zip structure, header, arrays);
- ``edit_header``: the JSON header with one entry replaced by a hostile value or removed,
  re-zipped so that the zip checksums are valid;
- ``replace_array``: one array swapped for NaNs, a wrong shape or a wrong dtype, with or
  without the header's declaration (dtype, shape and digest) updated to match (a consistent
  forgery);
- ``edit_array``: values of one array edited in place (an entry made absurdly large, zero or
  negative, the array negated or scaled, its last row or column dropped), with or without
  the header's declaration and digest rewritten to match: the consistently edited files of
  issue 40, which load into a model that works or are refused.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np

import streamsvm
from streamsvm.persistence import array_digest

HEADER = "__streamsvm_header__.npy"

#: values an edited header entry is replaced with
HOSTILE_VALUES = [
    None, True, 0, -1, 7, 1e308, 2**70, "", "x", "os.system", [], [1, 2, 3], {}, {"a": 1},
    {"__array__": "a0"}, {"__array__": "zz"}, {"__float__": "nan"}, {"__float__": "1e999"},
    {"__object__": "streamsvm.persistence.ModelFileError", "state": {}},
    {"__object__": "subprocess.Popen", "state": {}}, {"__tuple__": 5}, {"__dict__": []},
    {"__csr__": [], "shape": [1]}, {"__generator__": {"bit_generator": "PCG64"}},
    {"__generator__": {"bit_generator": "PCG64", "state": {"state": -1, "inc": 3}}},
]

#: kinds of ``random_case`` whose files may legitimately describe another valid model
MAY_DIFFER = ("edit header", "edit array, declared")

OUTCOMES = ("equal", "edited", "refused", "wrong exception", "crash", "silently wrong")


def valid_models():
    """name -> (model, query rows, next chunk X, next chunk y): small models of several
    families, fitted or mid-stream, whose files are mutated."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    words = np.array(["a", "b", "c"])[rng.integers(0, 3, size=40)]
    out = {}
    for name, model, labels, mid in [
        ("perceptron", streamsvm.Perceptron(), y, False),
        ("pegasos_words", streamsvm.Pegasos(alpha=0.01), words, False),
        ("lasvm_midstream", streamsvm.LASVM(C=10.0, random_state=0), y, True),
        ("tvm_midstream", streamsvm.TwinVectorMachine(budget=6), y, True),
        ("streamsvm_rbf", streamsvm.StreamSVM(kernel="rbf", C=10.0), y, False),
        ("blurred_midstream", streamsvm.BlurredBallSVM(epsilon=0.01, lookahead=2), y, True),
        ("incremental_midstream", streamsvm.IncrementalSVM(C=10.0), y, True),
        ("forgetron", streamsvm.Forgetron(budget=6), y, False),
    ]:
        if mid:
            model.partial_fit(X[:30], labels[:30])
        else:
            model.fit(X[:30], labels[:30])
        out[name] = (model, X[:8] + 0.1, X[30:], labels[30:])
    return out


def model_bytes(model, tmp_path) -> bytes:
    path = tmp_path / "valid.npz"
    streamsvm.save(model, path)
    return path.read_bytes()


# ---------------------------------------------------------------------------- mutations
def random_bytes(seed: int, length: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, size=length, dtype=np.uint8).tobytes()


def flip_bytes(data: bytes, positions: list[int], masks: list[int]) -> bytes:
    out = bytearray(data)
    for position, mask in zip(positions, masks, strict=False):
        out[position % len(out)] ^= (mask % 255) + 1
    return bytes(out)


def truncate(data: bytes, keep: int) -> bytes:
    return data[: keep % len(data)]


def zip_members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name) for name in z.namelist()}


def make_zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        for name, raw in members.items():
            z.writestr(name, raw)
    return buffer.getvalue()


def npy_bytes(a: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, a, allow_pickle=False)
    return buffer.getvalue()


def read_header(data: bytes) -> dict:
    raw = np.load(io.BytesIO(zip_members(data)[HEADER]), allow_pickle=False)
    return json.loads(raw.tobytes())


def with_header(members: dict[str, bytes], header: dict) -> bytes:
    blob = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    return make_zip({**members, HEADER: npy_bytes(blob)})


def _entries(node, path=()):
    """Every (path, value) in a JSON tree, the root excluded."""
    if isinstance(node, dict):
        items = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return
    for key, value in items:
        yield (*path, key), value
        yield from _entries(value, (*path, key))


def edit_header(data: bytes, entry: int, value: int) -> bytes:
    """Replace header entry number ``entry`` (in a walk of the tree) with
    ``HOSTILE_VALUES[value]``, or remove it when ``value`` is past the end of that list."""
    members = zip_members(data)
    header = read_header(data)
    entries = list(_entries(header))
    path, _ = entries[entry % len(entries)]
    parent = header
    for key in path[:-1]:
        parent = parent[key]
    value %= len(HOSTILE_VALUES) + 1
    if value == len(HOSTILE_VALUES):
        del parent[path[-1]]
    else:
        parent[path[-1]] = HOSTILE_VALUES[value]
    return with_header(members, header)


def pick_array(data: bytes, which: int):
    """``(members, name, array)`` of array number ``which`` (modulo their count) of a model
    file; ``name`` is None in a file without arrays."""
    members = zip_members(data)
    names = sorted(name for name in members if name != HEADER)
    if not names:
        return members, None, None
    name = names[which % len(names)]
    return members, name, np.load(io.BytesIO(members[name]), allow_pickle=False)


def replace_array(data: bytes, which: int, how: int, declare: bool) -> bytes:
    """Swap array number ``which`` for a damaged one (``how``: NaNs, one row fewer, one column
    more, float32, int64, empty, a scalar); ``declare`` also updates the header's declaration."""
    members, name, a = pick_array(data, which)
    if name is None:
        return data
    how %= 7
    if how == 0:
        b = np.full(a.shape, np.nan) if a.dtype.kind == "f" else np.full(a.shape, -(2**40))
    elif how == 1:
        b = a[:-1] if a.ndim and a.shape[0] else np.zeros(3)
    elif how == 2:
        b = np.concatenate([a, a[..., :1]], axis=-1) if a.ndim else np.zeros((2, 2))
    elif how == 3:
        b = a.astype(np.float32) if a.dtype.kind in "fiu" else a[:0]
    elif how == 4:
        b = a.astype(np.int64) if a.dtype.kind in "fb" else np.ones(a.shape)
    elif how == 5:
        b = a[:0]
    else:
        b = np.float64(3.0)
    return _with_array(data, members, name, np.asarray(b), declare)


def declaration(a: np.ndarray) -> dict:
    """What a header of today's format declares for array ``a``."""
    return {"dtype": a.dtype.str, "shape": list(a.shape), "sha256": array_digest(a)}


def _with_array(data: bytes, members: dict, name: str, b: np.ndarray, declare: bool) -> bytes:
    """``members`` with member ``name`` holding ``b``; ``declare``: the header's declaration
    of it rewritten to match (dtype, shape and, in formats that have one, digest)."""
    members[name] = npy_bytes(b)
    header = read_header(data)
    if declare and "arrays" in header:
        spec = header["arrays"][name[:-4]]
        header["arrays"][name[:-4]] = {k: v for k, v in declaration(b).items()
                                       if k in spec or k != "sha256"}
    return with_header(members, header)


#: how ``edit_array`` edits values (each keeps the array's dtype)
EDITS = ("huge entry", "negative huge entry", "zero entry", "minus one entry", "negated",
         "scaled by 1e6", "last row dropped", "last column dropped", "entry plus one")


def edit_array(data: bytes, which: int, how: int, position: int, declare: bool = True) -> bytes:
    """Edit the values of array number ``which`` (``how``: one of :data:`EDITS`, at entry
    ``position`` modulo its size), keeping its dtype; ``declare`` rewrites the header's
    declaration and digest to match (a consistent edit, as a user's script would make)."""
    members, name, a = pick_array(data, which)
    if name is None:
        return data
    edit = EDITS[how % len(EDITS)]
    b = np.array(a, copy=True)
    if a.dtype.kind == "U" or (a.size == 0 and edit not in ("last row dropped",
                                                            "last column dropped")):
        b = a[:0] if a.ndim else a.reshape(1)
    elif edit == "last row dropped":
        b = a[:-1] if a.ndim and a.shape[0] else np.zeros((1,) + a.shape[1:], a.dtype)
    elif edit == "last column dropped":
        b = a[..., :-1] if a.ndim >= 2 and a.shape[-1] else a[:0] if a.ndim else a.reshape(1)
    else:
        flat = b.reshape(-1)
        k = position % flat.size
        kind = a.dtype.kind
        if edit in ("huge entry", "negative huge entry"):
            sign = 1 if edit == "huge entry" else -1
            huge = (min(1e300, float(np.finfo(a.dtype).max) / 2) if kind == "f"
                    else np.iinfo(a.dtype).max // 2 if kind in "iu" else 1)
            flat[k] = 0 if kind == "u" and sign < 0 else sign * huge if kind != "b" else huge
        elif edit == "zero entry":
            flat[k] = 0
        elif edit == "minus one entry":
            flat[k] = -1 if kind in "fi" else 0
        elif edit == "negated":
            flat[:] = -flat if kind in "fi" else ~flat if kind == "b" else flat
        elif edit == "scaled by 1e6":
            flat[:] = flat * 1e6 if kind == "f" else flat
        else:
            flat[k] = flat[k] + 1 if kind in "fiu" else ~flat[k]
    return _with_array(data, members, name, b, declare)


def random_case(rng: np.random.Generator, data: bytes) -> tuple[str, bytes]:
    """One damaged file drawn from ``rng``: (kind of mutation, bytes)."""
    kind = ["random bytes", "flip bytes", "truncate", "edit header", "replace array",
            "edit array"][int(rng.integers(6))]
    if kind == "random bytes":
        return kind, random_bytes(int(rng.integers(2**31)), int(rng.integers(0, 2000)))
    if kind == "flip bytes":
        n = int(rng.integers(1, 4))
        return kind, flip_bytes(data, rng.integers(0, len(data), n).tolist(),
                                rng.integers(0, 255, n).tolist())
    if kind == "truncate":
        return kind, truncate(data, int(rng.integers(0, len(data))))
    if kind == "edit header":
        return kind, edit_header(data, int(rng.integers(10**6)), int(rng.integers(10**6)))
    if kind == "edit array":
        declare = bool(rng.integers(2))
        return ("edit array, declared" if declare else kind), edit_array(
            data, int(rng.integers(10**6)), int(rng.integers(len(EDITS))),
            int(rng.integers(10**6)), declare)
    return kind, replace_array(data, int(rng.integers(10**6)), int(rng.integers(7)),
                               bool(rng.integers(2)))


# ---------------------------------------------------------------------------- outcomes
def outcome(path, original, query, X_next, y_next, *, may_differ: bool) -> tuple[str, str]:
    """How ``streamsvm.load(path)`` answered a damaged copy of ``original``'s file:
    (one of ``OUTCOMES``, detail). ``may_differ``: the mutation can legitimately describe
    another valid model (an edited header value), so a usable different model is "edited"."""
    try:
        loaded = streamsvm.load(path)
    except streamsvm.persistence.ModelFileError as exc:
        return "refused", str(exc)[-120:]
    except Exception as exc:  # noqa: BLE001 - counting what escapes
        return "wrong exception", f"{type(exc).__name__}: {str(exc)[:120]}"
    proba = hasattr(loaded, "predict_proba")
    try:
        scores = np.asarray(loaded.decision_function(query), dtype=float)
        expected = original.decision_function(query)
        labels, expected_labels = loaded.predict(query), original.predict(query)
        p = loaded.predict_proba(query) if proba else np.zeros(1)
        loaded.score(X_next, y_next)
        loaded.partial_fit(X_next, y_next)
        after = np.asarray(loaded.decision_function(query), dtype=float)
        p_after = loaded.predict_proba(query) if proba else np.zeros(1)
    except Exception as exc:  # noqa: BLE001 - loaded, then failed when used
        return "crash", f"failed when used: {type(exc).__name__}: {str(exc)[:120]}"
    if not all(np.isfinite(v).all() for v in (scores, after, p, p_after)):
        return "silently wrong", "non-finite decisions or probabilities"
    same = (
        scores.shape == expected.shape
        and np.array_equal(scores, expected)
        and labels.dtype == expected_labels.dtype
        and np.array_equal(labels, expected_labels)
    )
    if same:
        return "equal", ""
    if may_differ:
        return "edited", "a usable model with other values"
    return "silently wrong", "decisions differ from the saved model's"
