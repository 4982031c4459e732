"""Fixed examples for behaviour that only a lucky property run, or nothing, held before:
each test here fails on a one-line change to the package that review mutation26 found
surviving every test file (its id in each docstring)."""

from __future__ import annotations

from typing import Any

from pytest_structeval import parse_answer, score
from pytest_structeval.baseline import Baseline, compare, new_failures, regression_failures
from pytest_structeval.report import Aggregate, RunRecord


def statuses(result: Any) -> list[tuple[str, str]]:
    return [(f.path, f.status) for f in result.fields]


def test_a_bool_in_an_array_of_scalars_is_no_number() -> None:
    """W07: the frame-free walk of scalar arrays compared ``True == 1``."""
    for mode in ("strict", "similarity"):
        result = score({"xs": [True, 1, 0.0]}, {"xs": [1, True, False]}, mode)
        assert result.score == 0.0
        assert [s for _, s in statuses(result)] == ["mismatch"] * 3


def test_an_ignored_element_of_an_array_of_scalars_is_skipped() -> None:
    """W09: the scalar-array fast path ran while paths were ignored."""
    result = score({"tags": ["a", "b"]}, {"tags": ["x", "b"]}, ignore_paths=["tags[0]"])
    assert (result.passed, result.score) == (True, 1.0)
    assert statuses(result) == [("answer.tags[0]", "skipped"), ("answer.tags[1]", "match")]


def test_weighted_similarity_counts_extras_with_penalize_extra() -> None:
    """SI03: extra keys stopped counting when weights were given."""
    gold, model = {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3, "d": 4}
    result = score(gold, model, "similarity", penalize_extra=True, weights={"a": 2})
    assert result.score == 0.6
    assert result.metrics["weighted_score"] == 0.6
    assert score(gold, model, "similarity", weights={"a": 2}).score == 1.0


def test_weighted_similarity_with_every_field_ignored_is_vacuously_exact() -> None:
    """SI06: the weighted path scored 0 where the unweighted one scores 1."""
    result = score({"a": 1}, {"a": 2}, "similarity", ignore_paths=["a"], weights={"a": 2})
    assert (result.passed, result.score) == (True, 1.0)


def test_a_pair_at_the_similarity_floor_is_paired() -> None:
    """W03, W04: only pairs *below* ``min_similarity`` are unpaired (README, alignment)."""
    gold, model = {"xs": [{"a": 1, "b": "xx"}]}, {"xs": [{"a": 1, "b": "yy"}]}  # mean 0.5
    for method in ("hungarian", "sequence", "unordered"):
        align = {"answer.xs": {"method": method, "min_similarity": 0.5}}
        result = score(gold, model, align=align)
        assert statuses(result) == [("answer.xs[0].a", "match"), ("answer.xs[0].b", "mismatch")]
        assert result.score == 0.5


def test_an_abs_tolerance_holds_its_bound_despite_float_noise() -> None:
    """C01: 1.1 - 1.0 is 0.10000000000000009 in floats; ``abs: 0.1`` must accept it."""
    result = score({"a": 1.0}, {"a": 1.1}, numeric_tolerance={"abs": 0.1})
    assert (result.passed, result.score) == (True, 1.0)
    assert not score({"a": 1.0}, {"a": 1.11}, numeric_tolerance={"abs": 0.1}).passed


def test_a_thinking_block_anywhere_is_a_draft() -> None:
    """P04: ``<thinking>`` after the first line was read as the answer."""
    assert parse_answer('Result {"a": 2} <thinking>check {"a": 1}</thinking>') == {"a": 2}
    assert parse_answer('Sure. <thinking>draft {"a": 1}</thinking> ok') == "Sure.  ok"


def test_a_template_of_many_placeholders_is_never_the_answer() -> None:
    """P03: a format echoed after the answer, with four placeholders, was scored."""
    text = (
        '{"a": "1", "b": "2", "c": "3", "d": "4"}\nThe format was '
        '{"a": "<the value>", "b": "<the other value>", "c": "<x y>", "d": "<p q>"}'
    )
    assert parse_answer(text) == {"a": "1", "b": "2", "c": "3", "d": "4"}


def test_a_failing_reason_says_under_the_threshold() -> None:
    """S06: the reason said ``>=`` on a failing result."""
    result = score({"a": 1, "b": 2}, {"a": 1, "b": 3}, threshold=0.9)
    assert result.reason.endswith("(f1 0.500 < threshold 0.9)")
    assert score({"a": 1}, {"a": 1}, threshold=0.9).reason.endswith("(f1 1.000 >= threshold 0.9)")


def test_options_given_as_false_are_not_called_unused_for_a_mode_answer() -> None:
    """S10: ``case_sensitive=False`` was noted as an option a mode answer ignores."""
    result = score(
        {"response": "Pump P-101 is running"},
        {"response": "P-101 running"},
        mode_answers=True,
        normalize_whitespace=False,
        case_sensitive=False,
    )
    assert not any("not used for a mode answer" in note for note in result.metrics["notes"])


def _results(*entries: tuple[str, bool, float, str]) -> dict[str, Any]:
    return {
        "results": [
            {
                "scenario_id": s,
                "run_id": "r1",
                "passed": p,
                "score": v,
                "runner": "react",
                "model": m,
            }
            for s, p, v, m in entries
        ]
    }


def test_a_second_model_in_the_current_run_is_not_pooled_with_the_baseline_one() -> None:
    """B04: with one model in the baseline and two now, the runs were pooled: a regression
    of the item, and the new model's failing run no longer named."""
    base = _results(("s1", True, 1.0, "gpt"))
    current = _results(("s1", True, 1.0, "gpt"), ("s1", False, 0.0, "claude"))
    section = compare(Baseline("base.json", base), current)
    assert section["regressed"] == []
    assert [(i["scenario_id"], i.get("runner_model")) for i in section["new"]] == [
        ("s1", "react / claude")
    ]
    current["baseline"] = section
    assert new_failures(current, flag="F") == [
        "structeval: 1 failing run is not in baseline base.json, so F cannot excuse it: s1[r1]"
    ]


def test_regressions_are_listed_worst_pass_rate_drop_first() -> None:
    """B05, B12: a run that went from passed to failed leads; three regressions name all
    three, with no "(+0 more)"."""
    base = _results(*[(s, True, 1.0, "gpt") for s in ("s2", "s3", "s4")])
    current = _results(
        ("s2", False, 0.9, "gpt"), ("s3", True, 0.5, "gpt"), ("s4", True, 0.6, "gpt")
    )
    section = compare(Baseline("base.json", base), current)
    assert [i["scenario_id"] for i in section["regressed"]] == ["s2", "s3", "s4"]
    current["baseline"] = section
    (message,) = regression_failures(current, flag="F")
    assert message.endswith(
        ": s2[r1] 1.0000 -> 0.9000, s3[r1] 1.0000 -> 0.5000, s4[r1] 1.0000 -> 0.6000"
    )  # (no "... (+0 more)")


def test_a_failing_run_without_passed_is_not_excused() -> None:
    """B10: an entry in the reference's layout (``score`` a mapping without ``passed``)."""
    current: dict[str, Any] = {
        "results": [{"scenario_id": "x", "run_id": "r1", "score": {"score": 0.0}}]
    }
    current["baseline"] = compare(Baseline("base.json", _results(("s", True, 1.0, "gpt"))), current)
    assert new_failures(current, flag="F") == [
        "structeval: 1 failing run is not in baseline base.json, so F cannot excuse it: x[r1]"
    ]


def test_a_baseline_without_complete_counts_as_complete() -> None:
    """B09: a reference (or older) aggregate has no ``complete`` key."""
    section = compare(Baseline("base.json", _results(("s", True, 1.0, "gpt"))), _results())
    assert section["baseline_complete"] is True


def test_field_improvements_within_the_tolerance_are_not_listed() -> None:
    """B17: the improved side of the field comparison ignored the tolerance."""
    results = [{"scenario_id": "s", "run_id": "r", "passed": True, "score": 0.9}]
    base = {
        "results": results,
        "field_scores": {"answer.a": {"count": 1, "mean_score": 0.80, "failing": 1}},
    }
    current = {
        "results": results,
        "field_scores": {"answer.a": {"count": 1, "mean_score": 0.85, "failing": 1}},
    }
    section = compare(Baseline("b", base), current, tolerance=0.1)
    assert section["fields"]["improved_count"] == 0
    assert compare(Baseline("b", base), current)["fields"]["improved_count"] == 1


def test_threshold_is_no_metric_of_the_aggregate() -> None:
    """R08: a run's ``threshold`` was averaged like a metric (``threshold_avg``)."""
    aggregate = Aggregate.empty()
    for i, (gold, model) in enumerate([({"a": 1, "b": 2}, {"a": 1, "b": 3}), ({"a": 1}, {"a": 1})]):
        result = score(gold, model, threshold=0.5)
        aggregate.add(
            RunRecord.from_result(result, scorer="strict", run_id=f"r{i}", scenario_id=f"s{i}")
        )
    report = aggregate.report(generated_at="T")
    assert not [k for k in report["score_summary"] if "threshold" in k]
    assert not [k for k in report["by_scenario_type"]["unknown"] if "threshold" in k]


def test_only_a_true_abstained_counts() -> None:
    """R07: a custom scorer's ``"abstained": "no"`` was counted."""
    aggregate = Aggregate.empty()
    details = {"abstained": "no", "parse_method": "json"}
    aggregate.add(
        {
            "scenario_id": "s",
            "run_id": "r",
            "score": {"passed": False, "score": 0.0, "details": details},
            "ops": {},
        }
    )
    assert aggregate.report(generated_at="T")["parse"]["abstained"] == 0
