"""Feature names (scikit-learn's ``feature_names_in_``): a model fitted on a table records its
column names, and a table whose columns are not those, in that order, is refused before
anything changes, instead of being read by position."""

import warnings

import numpy as np
import pytest

import streamsvm
from streamsvm.base import StreamClassifier
from streamsvm.registry import available_estimators

pd = pytest.importorskip("pandas")

ESTIMATORS = {name: cls for name, cls in available_estimators().items()
              if issubclass(cls, StreamClassifier)}


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, 3)), columns=["age", "income", "score"])
    y = np.where(df["income"] - 0.5 * df["score"] > 0, 1, -1)
    return df, y


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_scikit_learns_column_name_check(name):
    """scikit-learn's own check: names recorded, a reordered, renamed or shorter table
    refused by every prediction method and by partial_fit, with its messages."""
    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency

    check_dataframe_column_names_consistency(name, ESTIMATORS[name]())


def test_a_reordered_table_is_refused_and_leaves_the_model_as_it_was():
    df, y = _table()
    model = streamsvm.Pegasos().fit(df, y)
    np.testing.assert_array_equal(model.feature_names_in_, ["age", "income", "score"])
    assert model.feature_names_in_.dtype == object
    before = model.decision_function(df)
    reordered = df[["score", "age", "income"]]
    with pytest.raises(ValueError, match="same order as they were in fit"):
        model.predict(reordered)
    with pytest.raises(ValueError, match="same order as they were in fit"):
        model.partial_fit(reordered, y)
    np.testing.assert_array_equal(model.decision_function(df), before)
    assert model.n_seen_ == len(y)
    renamed = df.rename(columns={"age": "years"})
    with pytest.raises(ValueError, match="unseen at fit time:\n- years\n"):
        model.predict(renamed)


def test_arrays_after_a_table_warn_and_a_new_fit_forgets_the_names():
    df, y = _table()
    model = streamsvm.Perceptron().fit(df, y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        labels = model.predict(df.to_numpy())
    np.testing.assert_array_equal(labels, model.predict(df))
    model.fit(df.to_numpy(), y)
    assert not hasattr(model, "feature_names_in_")
    with pytest.warns(UserWarning, match="X has feature names, but Perceptron was fitted "
                                         "without"):
        model.predict(df)


def test_names_survive_save_and_load(tmp_path):
    df, y = _table()
    model = streamsvm.LASVM().fit(df, y)
    streamsvm.save(model, tmp_path / "m.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # loading checks the model quietly
        loaded = streamsvm.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(loaded.feature_names_in_, model.feature_names_in_)
    np.testing.assert_array_equal(loaded.decision_function(df), model.decision_function(df))
    with pytest.raises(ValueError, match="same order"):
        loaded.partial_fit(df[["income", "age", "score"]], y)


def test_a_model_learnt_from_dicts_reads_a_table_by_its_keys():
    """River: the keys of the dicts, in the model's column order, are the names a table
    must have; a table in another order is refused rather than read by position."""
    rng = np.random.default_rng(0)
    model = streamsvm.Pegasos()
    for _ in range(300):
        a, b = rng.normal(size=2)
        model.learn_one({"b": b, "a": a}, int(b > 0))
    order = list(model._vocabulary.keys)
    x = {"a": 0.0, "b": 1.0}
    table = pd.DataFrame({k: [x[k]] for k in order})
    assert model.predict(table)[0] == model.predict_one(x)
    with pytest.raises(ValueError, match="same order"):
        model.predict(table[order[::-1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # dicts and arrays: no names to check
        model.predict_one(x)
        model.predict(table.to_numpy())


def test_column_names_of_mixed_types_are_refused():
    df, y = _table()
    df.columns = ["age", 1, "score"]
    with pytest.raises(TypeError, match="all are strings"):
        streamsvm.Perceptron().fit(df, y)
