"""Per-field weights: the weighted score of each mode, the threshold read against it, the
reference metrics left as counts, and bad options."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.errors import OptionsError

GOLD = {"id": "A1", "name": "Pump", "notes": "x", "n": 5}
MODEL = {"id": "A1", "name": "Pmp", "notes": "y", "n": 5}
WEIGHTS = {"answer.id": 5, "answer.notes": 0.5}


def test_strict_weighted_f1() -> None:
    plain = score(GOLD, MODEL, "strict")
    weighted = score(GOLD, MODEL, "strict", weights=WEIGHTS)
    # E = 5 + 1 (id, n), G = M = 5 + 1 + 0.5 + 1: precision = recall = 0.8.
    assert weighted.score == pytest.approx(0.8)
    assert weighted.metrics["weighted_score"] == weighted.score
    assert {k: v for k, v in weighted.metrics.items() if k != "weighted_score"} == plain.metrics
    assert not weighted.passed  # without a threshold, strict still needs every key exact
    at = score(GOLD, MODEL, "strict", threshold=0.8, weights=WEIGHTS)
    assert at.passed
    assert at.reason.endswith("(weighted f1 0.800 >= threshold 0.8)")
    assert not score(GOLD, MODEL, "strict", threshold=0.8).passed


def test_similarity_weighted_mean_of_leaves() -> None:
    weighted = score(GOLD, MODEL, "similarity", weights=WEIGHTS)
    name = score("Pump", "Pmp", "similarity").score
    notes = score("x", "y", "similarity").score
    expected = (5 + name + 0.5 * notes + 1) / 7.5
    assert weighted.score == pytest.approx(expected)
    assert weighted.reason.endswith(f"weighted score {expected:.4f}")
    assert weighted.metrics["total_leaves"] == 4  # the reference's counts stay counts


def test_schema_weighted_f1_and_reason() -> None:
    weighted = score(GOLD, MODEL, "schema", weights=WEIGHTS)
    assert weighted.score == pytest.approx(0.8)
    assert weighted.metrics["f1"] == 0.5
    assert weighted.reason.startswith("weighted F1 0.800 below threshold 1: 2 mismatches")


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_a_glob_weighs_everything_below_it(mode: str) -> None:
    gold = {"address": {"city": "Oslo", "zip": "0150"}, "phone": "1"}
    model = {"address": {"city": "Oslo", "zip": "0150"}, "phone": "2"}
    light = score(gold, model, mode, weights={"answer.address": 4}).score
    heavy = score(gold, model, mode, weights={"answer.phone": 4}).score
    assert light > score(gold, model, mode).score > heavy


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_missing_and_extra_keys_count_their_weight(mode: str) -> None:
    gold = {"a": 1, "b": 2}
    heavy_missing = score(gold, {"a": 1}, mode, weights={"answer.b": 9}).score
    light_missing = score(gold, {"a": 1}, mode, weights={"answer.b": 0.1}).score
    assert heavy_missing < light_missing


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["answer.a"], "weights must map path globs to numbers"),
        ({"answer.a": 0}, "must be a finite number above 0, got 0 (to leave a field out"),
        ({"answer.a": True}, "must be a finite number above 0, got True"),
        ({"answer.a": float("inf")}, "must be a finite number above 0, got inf"),
        ({"": 2}, "a path glob must be a non-empty string"),
    ],
)
def test_bad_weights(option: Any, message: str) -> None:
    for mode in ("strict", "similarity", "schema"):
        with pytest.raises(OptionsError, match=message.replace("(", r"\(")):
            score({"a": 1}, {"a": 1}, mode, weights=option)


LEAVES = st.dictionaries(
    st.sampled_from(["a", "b", "c", "d"]), st.sampled_from([1, 2, "x", "y"]), max_size=4
)


@given(LEAVES, LEAVES, st.sampled_from([0.1, 0.3, 0.7, 3.3, 7, 1e308, 10**400]))
def test_equal_weights_change_nothing(gold: Any, model: Any, weight: float) -> None:
    for mode in ("strict", "similarity", "schema"):
        plain = score(gold, model, mode)
        weighted = score(gold, model, mode, weights={"**": weight})
        assert weighted.score == pytest.approx(plain.score, rel=1e-12, abs=0)
        at = plain.score  # a score that is the threshold passes it, weighted or not
        assert score(gold, model, mode, threshold=at, weights={"**": weight}).passed


def test_a_container_given_as_something_else_weighs_what_its_fields_weigh() -> None:
    gold = {"crit": {"p": 1, "q": 2}, "x": 1, "y": 2, "z": 3}
    weights = {"answer.crit.p": 10, "answer.crit.q": 10}
    wrong = score(gold, {**gold, "crit": {"p": 9, "q": 9}}, "schema", weights=weights)
    for lost in ("oops", [1], {}):
        garbage = score(gold, {**gold, "crit": lost}, "schema", weights=weights, threshold=0.5)
        assert not garbage.passed
        assert garbage.score < 0.5
    assert wrong.score == pytest.approx(3 / 23)


def test_weights_as_written_meet_their_threshold() -> None:
    gold, model = {"id": "A1", "name": "Pump"}, {"id": "A1", "name": "zzzzzzzz"}
    result = score(
        gold, model, "similarity", weights={"answer.id": 0.3, "answer.name": 0.1}, threshold=0.75
    )
    assert (result.passed, result.score) == (True, 0.75)


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_a_glob_that_weighs_nothing_is_noted(mode: str) -> None:
    result = score({"id": "A", "n": 1}, {"id": "B", "n": 1}, mode, weights={"answer.idd": 5})
    assert "weights pattern 'answer.idd' matched no field" in result.metrics["notes"]


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_a_tiny_share_of_wrong_answer_still_misses_a_threshold_of_one(mode: str) -> None:
    gold, model = {"big": 1, "small": "x"}, {"big": 1, "small": "y"}
    result = score(gold, model, mode, weights={"answer.big": 10**13}, threshold=1.0)
    assert result.score < 1.0
    assert not result.passed


# -- surviving mutants (mutants15) --------------------------------------------------------------


def test_the_most_specific_glob_decides() -> None:
    gold, model = {"a": {"b": 1, "c": 1}, "d": 1}, {"a": {"b": 0, "c": 1}, "d": 1}
    for broad in ("answer.a", "answer.a.*"):
        result = score(gold, model, "strict", weights={broad: 2, "answer.a.b": 10})
        assert result.score == pytest.approx(3 / 13)


def test_a_doublestar_glob_weighs_the_fields_it_names_over_their_parent() -> None:
    """api25 #1: ``**.price`` weighed 2 under ``answer.items``, not the 10 it says."""
    gold, model = {"items": [{"price": 100, "q": 10}]}, {"items": [{"price": 1, "q": 10}]}
    result = score(gold, model, "strict", weights={"answer.items": 2, "**.price": 10})
    assert result.score == pytest.approx(2 / 12)  # q alone (2 of 12) is right


def test_an_outranked_glob_is_noted_as_deciding_nothing_not_as_a_typo() -> None:
    """``answer.items`` covers the price but ``**.price`` decides it: "matched no field"
    sent the user looking for a typo (diff25a #4)."""
    gold = {"items": [{"price": 1}]}
    result = score(gold, gold, "strict", weights={"answer.items": 2, "**.price": 3, "x.y": 1})
    assert result.metrics["notes"] == [
        "weights pattern 'answer.items' decided no field (a more specific pattern decides "
        "each it covers)",
        "weights pattern 'x.y' matched no field",
    ]


def test_schema_partial_credit_is_weighted() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "x-eval-compare": "similarity", "x-eval-threshold": 0.95},
            "city": {"type": "string"},
        },
    }
    gold = {"name": "Jonathan Smith", "city": "Paris"}
    model = {"name": "Jon Smithers", "city": "Paris"}
    plain = score(gold, model, "schema", schema=schema)
    equal = score(gold, model, "schema", schema=schema, weights={"answer.zzz": 1})
    assert equal.score == pytest.approx(plain.metrics["f1"])
    name = next(f.score for f in plain.fields if f.path == "answer.name")
    heavy = score(gold, model, "schema", schema=schema, weights={"answer.name": 3})
    assert heavy.score == pytest.approx((3 * name + 1) / 4)


@pytest.mark.parametrize("mode", ["similarity", "schema"])
def test_a_threshold_at_the_unweighted_score_is_met_with_equal_weights(mode: str) -> None:
    gold = {"k0": "delt", "k1": "omegaa", "k2": "alpha", "k3": "xyz", "k4": "betta"}
    model = {"k0": "x", "k1": "beta", "k2": "omega", "k3": "omegaa", "k4": "beta"}
    at = score(gold, model, mode).score
    assert score(gold, model, mode, threshold=at).passed
    assert score(gold, model, mode, threshold=at, weights={"answer.*": 2}).passed


def test_an_extra_object_weighs_what_the_model_put_in_it() -> None:
    model = {"a": 1, "b": 2, "extra": {"x": 1, "y": 2}}
    result = score({"a": 1, "b": 2}, model, "schema", weights={"answer.extra.x": 9})
    assert result.score == pytest.approx(4 / 9)  # the extra weighs mean(9, 1) = 5


def test_a_lost_object_weighs_the_mean_of_its_leaves() -> None:
    gold, model = {"a": {"x": 1, "y": 2}, "b": 1}, {"a": "flat", "b": 1}
    result = score(gold, model, "schema", weights={"answer.a.x": 3})
    assert result.score == pytest.approx(1 / 3)  # a weighs (3 + 1) / 2 = 2 of 3


def test_strict_weights_leave_uncounted_extras_out() -> None:
    result = score(
        {"a": 1, "b": 2},
        {"a": 1, "b": 2, "c": 3},
        "strict",
        ignore_extra=True,
        weights={"answer.a": 2},
        threshold=1.0,
    )
    assert (result.passed, result.score, result.metrics["f1"]) == (True, 1.0, 1.0)


def test_strict_weights_with_nothing_counted_score_one() -> None:
    result = score(
        {"a": 1},
        {"a": 2},
        "strict",
        ignore_paths=["answer.a"],
        weights={"answer.c": 2},
        threshold=0.5,
    )
    assert (result.passed, result.score, result.metrics["f1"]) == (True, 1.0, 1.0)
