"""The named datasets: registry, data folder, missing files, and (when present) the files."""

import gzip

import numpy as np
import pytest
import scipy.sparse as sp

from streamsvm.datasets import (
    DATA_ENV,
    DatasetInfo,
    DatasetNotFoundError,
    data_home,
    dataset_available,
    describe_dataset,
    iter_dataset,
    list_datasets,
    load_csv,
    load_dataset,
    load_waveform_file,
)

PAPER_TASKS = [
    "mnist-0v1", "mnist-8v9", "mnist-8vrest", "mnist", "adult", "ijcnn1", "w3a",
    "reuters-moneyfx", "usps", "usps-0vrest", "usps-round", "letter", "letter-am-vs-nz",
    "letter-a-vs-rest", "pendigits", "pendigits-round", "satimage-4vrest", "shuttle-1vrest",
    "abalone-7", "waveform", "waveform-0vrest", "banana", "optdigits",
]


# --------------------------------------------------------------------------- without data
def test_registry_holds_the_papers_tasks():
    names = list_datasets()
    assert names == sorted(names)
    assert set(PAPER_TASKS) <= set(names)
    for name in names:
        info = describe_dataset(name)
        assert isinstance(info, DatasetInfo) and info.name == name
        assert info.files and info.n_train > 0 and info.n_test > 0 and info.n_features > 0
        assert info.task in ("binary", "multiclass") and info.split and info.description
        assert (info.task == "binary") == bool(info.positive) == (info.n_classes == 2)
    assert describe_dataset("w3a").files[0] == "w3a.t.bz2"  # the papers train on w3a.t
    assert describe_dataset("mnist").n_classes == 10
    assert "seed 0" in describe_dataset("banana").split


def test_unknown_names_and_subsets():
    with pytest.raises(ValueError, match="unknown dataset 'nope'; choose one of: abalone-7"):
        describe_dataset("nope")
    with pytest.raises(ValueError, match="unknown dataset 'nope'"):
        iter_dataset("nope")
    with pytest.raises(ValueError, match="subset must be one of train, test, all; got 'dev'"):
        iter_dataset("adult", subset="dev")


def test_missing_file_names_file_folder_and_variable(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    with pytest.raises(DatasetNotFoundError) as caught:
        load_dataset("adult")
    message = str(caught.value)
    assert "'adult.trn.bz2'" in message and str(tmp_path) in message and DATA_ENV in message
    assert isinstance(caught.value, FileNotFoundError)
    assert caught.value.path == str(tmp_path / "adult.trn.bz2")
    with pytest.raises(DatasetNotFoundError, match="mnist/train-images.idx3-ubyte.gz"):
        iter_dataset("mnist-0v1", subset="test")  # raised at the call, not at the first chunk
    assert not dataset_available("adult")


def test_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert data_home() == tmp_path
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "absent"))
    with pytest.raises(DatasetNotFoundError, match=f"{DATA_ENV}=.*absent is not a folder"):
        data_home()
    monkeypatch.delenv(DATA_ENV)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    with pytest.raises(DatasetNotFoundError, match=f"{DATA_ENV} is not set"):
        data_home()
    assert not dataset_available("banana")
    (tmp_path / "shared" / "data").mkdir(parents=True)
    assert data_home() == (tmp_path / "shared" / "data").resolve()


def test_datasets_from_a_folder_of_small_files(tmp_path, monkeypatch):
    """The recipes on tiny stand-in files: published and seeded splits, binary labels."""
    rows = 43510
    classes = np.array(["Rad.Flow", "High", "Bypass"])[np.arange(rows) % 3]
    with gzip.open(tmp_path / "shuttle.csv.gz", "wt") as f:
        f.write("V1,V2,V3,V4,V5,V6,V7,V8,V9,Class\n")
        for i in range(rows):
            f.write(",".join([str(i)] * 9) + f",{classes[i]}\n")
    with gzip.open(tmp_path / "banana.dat.gz", "wt") as f:
        for i in range(5300):
            f.write(f"{i},{-i},{1.0 if i % 4 else -1.0}\n")
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert dataset_available("shuttle-1vrest") and dataset_available("banana")
    assert not dataset_available("adult")

    X, y = load_dataset("shuttle-1vrest")  # published split: the first 43500 rows
    np.testing.assert_array_equal(X[:, 0], np.arange(43500))
    np.testing.assert_array_equal(y, np.where(classes[:43500] == "Rad.Flow", 1, -1))
    assert y.dtype == np.int64
    X, y = load_dataset("shuttle", subset="test")
    np.testing.assert_array_equal(X[:, 0], np.arange(43500, rows))
    assert y.tolist() == classes[43500:].tolist()

    train, test = load_dataset("banana"), load_dataset("banana", subset="test")
    assert train[0].shape == (4000, 2) and test[0].shape == (1300, 2)
    ids = np.concatenate([train[0][:, 0], test[0][:, 0]])
    assert sorted(ids.tolist()) == list(range(5300))  # a partition of the rows
    assert (np.diff(train[0][:, 0]) > 0).all()  # file order kept within a part
    np.testing.assert_array_equal(train[1], np.where(train[0][:, 0] % 4, 1, -1))
    all_X, _ = load_dataset("banana", subset="all")
    np.testing.assert_array_equal(all_X, np.vstack([train[0], test[0]]))
    again = load_dataset("banana")[0]  # the seeded split is fixed
    np.testing.assert_array_equal(again, train[0])
    chunks = list(iter_dataset("banana", subset="test", chunk_size=500))
    assert [X.shape[0] for X, _ in chunks] == [500, 500, 300]


# --------------------------------------------------------------------------- with the data
@pytest.mark.parametrize("name", [n for n in PAPER_TASKS if n not in ("mnist", "mnist-8vrest")])
def test_sizes_match_the_readme(name, need_dataset):
    need_dataset(name)
    info = describe_dataset(name)
    for subset, n_rows in (("train", info.n_train), ("test", info.n_test)):
        X, y = load_dataset(name, subset=subset)
        assert X.shape == (n_rows, info.n_features)
        assert y.shape == (n_rows,)
        assert X.dtype == np.float64 and np.isfinite(X.data if sp.issparse(X) else X).all()
        if info.task == "binary":
            assert y.dtype == np.int64 and set(np.unique(y)) == {-1, 1}
        else:
            assert len(np.unique(y)) == info.n_classes


def test_mnist_streams_in_chunks(need_dataset):
    need_dataset("mnist")
    sizes, positives = [], 0
    for X, y in iter_dataset("mnist-8vrest", subset="train", chunk_size=25_000, dtype=np.float32):
        assert X.dtype == np.float32 and X.shape[1] == 784 and 0 <= X.min() and X.max() <= 1
        sizes.append(X.shape[0])
        positives += int((y == 1).sum())
    assert sizes == [25_000, 25_000, 10_000]
    assert positives == 5851  # the number of 8s among MNIST's training digits
    X, y = next(iter_dataset("mnist", subset="test", chunk_size=3))
    assert y.tolist() == [7, 2, 1]  # the first test digits of MNIST
    assert X.max() == 1.0 and (X * 255 == np.round(X * 255)).all()
    chunks = list(iter_dataset("mnist-0v1", subset="test", chunk_size=1000))
    assert [X.shape[0] for X, _ in chunks] == [1000, 1000, 115]  # regrouped after filtering
    assert sum(int((y == 1).sum()) for _, y in chunks) == 980  # zeros in the test set


def test_binary_tasks_select_the_named_classes(need_dataset):
    need_dataset("shuttle-1vrest")
    _, y = load_dataset("shuttle-1vrest")
    _, y_test = load_dataset("shuttle-1vrest", subset="test")
    assert (y == 1).sum() == 34108 and (y_test == 1).sum() == 11478  # UCI's Rad.Flow counts
    need_dataset("letter-a-vs-rest")
    _, letters = load_dataset("letter", subset="all")
    _, y = load_dataset("letter-am-vs-nz", subset="all")  # the same 16000 / 4000 split
    np.testing.assert_array_equal(y == 1, letters <= "M")
    _, y = load_dataset("letter-a-vs-rest", subset="all")  # an 18000 / 2000 split
    assert (y == 1).sum() == (letters == "A").sum() == 789  # UCI's count of A
    _, digits = load_dataset("pendigits", subset="train")
    _, y = load_dataset("pendigits-round", subset="train")
    np.testing.assert_array_equal(y == 1, np.isin(digits, [0, 3, 6, 8, 9]))


def test_optdigits_split_is_uci_split(need_dataset):
    need_dataset("optdigits")
    from sklearn.datasets import load_digits  # a copy of UCI's optdigits test part

    digits = load_digits()
    X, y = load_dataset("optdigits", subset="test")
    np.testing.assert_array_equal(X, digits.data)
    np.testing.assert_array_equal(y, digits.target)


def test_waveform_loader_repairs_the_stray_tab(data_file):
    path = data_file("waveform.data")
    X, y = load_waveform_file(path)
    assert X.shape == (5000, 21) and sorted(np.unique(y).tolist()) == [0, 1, 2]
    assert X[42, 20] == 0.68  # line 43: "0.6<TAB>8"
    text = path.read_text().splitlines()
    clean = np.array([[float(v) for v in line.split(",")[:-1]] for line in text[:42]])
    np.testing.assert_array_equal(X[:42], clean)


def test_seeded_parts_partition_the_file(need_dataset, data_file):
    need_dataset("satimage-4vrest")
    X_file, y_file = load_csv(data_file("satimage.dat.gz"))
    X_all, y_all = load_dataset("satimage", subset="all")
    order_file = np.lexsort(np.column_stack([X_file, y_file]).T)
    order_all = np.lexsort(np.column_stack([X_all, y_all]).T)
    np.testing.assert_array_equal(X_file[order_file], X_all[order_all])
    np.testing.assert_array_equal(y_file[order_file], y_all[order_all])
