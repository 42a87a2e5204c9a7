"""The defaults study's verdicts (benchmarks/defaults/verdicts.py) on hand-made results: the
collapse and 8-point rules of issue 18 at and around their thresholds, and the acceptance
numbers the study prints."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

VERDICTS = (pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "defaults"
            / "verdicts.py")


@pytest.fixture(scope="module")
def verdicts():
    spec = importlib.util.spec_from_file_location("defaults_verdicts", VERDICTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("balanced", "reference", "expected"),
    [
        (0.55, 0.70, ["collapse", "gap"]),  # both thresholds are inclusive for a collapse
        (0.5501, 0.70, ["gap"]),  # just above 0.55: a gap, not a collapse
        (0.50, 0.6999, ["gap"]),  # a reference below 0.70 cannot make a collapse
        (0.62, 0.70, []),  # exactly 8 pt below is not "more than 8 pt"
        (0.6199, 0.70, ["gap"]),
        (0.95, 0.90, []),  # above the reference
        (None, 0.90, ["collapse", "gap"]),  # an error fails the pair
        (None, 0.60, ["gap"]),
    ],
)
def test_flags_at_the_thresholds(verdicts, balanced, reference, expected):
    assert verdicts.flags(balanced, reference) == expected


def test_acceptance_counts_a_hand_made_table(verdicts):
    table = [  # (estimator's balanced accuracy, reference's)
        (0.50, 0.90),  # collapse and gap
        (0.80, 0.90),  # gap only
        (0.88, 0.90),  # fine
        (0.40, 0.55),  # a hard problem for both: 15 pt gap, no collapse
        (None, 0.75),  # error
        (0.91, 0.90),  # fine
        (0.70, 0.70),  # fine
        (0.56, 0.70),  # gap (14 pt), not a collapse (above 0.55)
    ]
    results = [{"balanced_accuracy": b, "reference_balanced_accuracy": r} for b, r in table]
    got = verdicts.acceptance(results)
    assert got == {"pairs": 8, "collapses": 2, "gaps": 5, "gap_share": 5 / 8}


def test_merged_results_replace_rows_and_keep_the_first_references():
    """``study.py --merge`` / ``--combine``: the rerun pairs replace the old ones and are judged
    against the first file's reference (LinearSVC varies a little between runs)."""
    import sys

    folder = VERDICTS.parent
    sys.path[:0] = [str(folder), str(folder.parent)]
    try:
        spec = importlib.util.spec_from_file_location("defaults_study", folder / "study.py")
        study = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(study)
    finally:
        del sys.path[:2]

    def row(name, bal, ref):
        return {"estimator": name, "problem": "p", "order": "file", "reference": "SVC",
                "balanced_accuracy": bal, "reference_balanced_accuracy": ref,
                "reference_accuracy": ref, "flags": []}

    refs = {"p": {"SVC": {"balanced_accuracy": 0.90, "accuracy": 0.95}}}
    old = {"results": [row("A", 0.50, 0.90), row("B", 0.85, 0.90)], "references": refs,
           "cpu_s": 1.0}
    new_refs = {"p": {"SVC": {"balanced_accuracy": 0.70, "accuracy": 0.80}}}
    new = {"results": [row("A", 0.60, 0.70)], "references": new_refs, "cpu_s": 1.0}
    out = study.merged(old, new)
    by_name = {r["estimator"]: r for r in out["results"]}
    assert by_name["A"]["balanced_accuracy"] == 0.60
    assert by_name["A"]["reference_balanced_accuracy"] == 0.90  # the first file's reference
    assert by_name["A"]["flags"] == ["gap"]  # 30 pt below 0.90, above 0.55
    assert by_name["B"]["balanced_accuracy"] == 0.85
    assert out["acceptance"] == {"pairs": 2, "collapses": 0, "gaps": 1, "gap_share": 0.5}


def test_distributed_l2svm_is_in_the_study_on_every_problem_without_a_row_cap():
    """Issue 39: DistributedL2SVM runs the whole study like every other estimator (no
    ``max_rows_hint``), within the study's time limit (no error) and without a collapse."""
    import json

    from streamsvm import DistributedL2SVM

    assert getattr(DistributedL2SVM, "max_rows_hint", None) is None
    results = json.loads((VERDICTS.parents[1] / "results" / "defaults.json").read_text())
    rows = [r for r in results["results"] if r["estimator"] == "DistributedL2SVM"]
    problems = {r["problem"] for r in results["results"]}
    assert {(r["problem"], r["order"]) for r in rows} == {
        (p, o) for p in problems for o in ("file", "shuffled")}
    assert all(r["balanced_accuracy"] is not None for r in rows)
    assert not any("collapse" in r["flags"] for r in rows)
