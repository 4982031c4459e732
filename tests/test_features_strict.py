"""Subset matching in strict mode: ``ignore_extra=True`` (gold ⊆ model)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import assert_json_matches, score
from pytest_structeval.errors import OptionsError
from pytest_structeval.results import HALLUCINATION

GOLD = {"id": 7, "status": "ok", "items": [{"sku": "A", "qty": 2}]}
MODEL = {
    "id": 7,
    "status": "OK",
    "items": [{"sku": "A", "qty": 2, "note": "gift"}, {"sku": "B", "qty": 1}],
    "confidence": 0.9,
}


def test_extra_keys_and_elements_do_not_count() -> None:
    result = score(GOLD, MODEL, ignore_extra=True)
    assert result.passed
    assert result.score == 1.0
    metrics = result.metrics
    assert metrics["precision"] == metrics["recall"] == metrics["f1"] == 1.0
    assert metrics["strict_exact_match_accuracy"] == 1.0
    assert metrics["total_model_keys"] == metrics["total_gold_keys"] == 4
    assert metrics["extra_keys"] == [
        "answer.items[0].note",
        "answer.items[-1].sku",
        "answer.items[-1].qty",
        "answer.confidence",
    ]
    assert metrics["ignore_extra"] is True
    assert result.reason == "strict structured match, 4 extra (not counted)"
    extras = [f for f in result.fields if f.status == HALLUCINATION]
    assert len(extras) == 4  # still reported, with their status
    assert all(f.reason and f.reason.endswith("(not counted: ignore_extra)") for f in extras)


def test_without_the_option_extras_fail_as_before() -> None:
    result = score(GOLD, MODEL)
    assert not result.passed
    assert result.metrics["precision"] == 0.5
    assert "ignore_extra" not in result.metrics
    assert result.reason.endswith("0 mismatched, 0 missing, 4 extra")


def test_missing_and_wrong_gold_keys_still_fail() -> None:
    result = score(GOLD, {"id": 8, "extra": 1}, ignore_extra=True)
    assert not result.passed
    metrics = result.metrics
    assert metrics["missing_keys"] == [
        "answer.status",
        "answer.items[0].sku",
        "answer.items[0].qty",
    ]
    assert metrics["total_model_keys"] == 1  # the wrong id; the extra key is not counted
    assert metrics["precision"] == 0.0
    assert result.reason == (
        "structured answer differs from ground truth: "
        "1 mismatched, 3 missing, 1 extra (not counted)"
    )


def test_threshold_uses_the_subset_f1() -> None:
    model = {"id": 7, "status": "ok", "items": [{"sku": "A", "qty": 3}], "x": 1, "y": 2}
    assert score(GOLD, model, ignore_extra=True, threshold=0.7).passed  # f1 = 0.75
    assert not score(GOLD, model, threshold=0.7).passed  # f1 = 0.6 with the extras


def test_failure_message_leaves_uncounted_extras_out() -> None:
    """The message names what failed; the extras are in the headline's count and in the
    result's fields (marked as not counted), not rows of the table."""
    with pytest.raises(AssertionError) as info:
        assert_json_matches(GOLD, {**MODEL, "id": 8}, ignore_extra=True)
    text = str(info.value)
    assert "answer.id" in text
    assert "4 extra (not counted)" in text
    assert "key not in gold" not in text
    result = score(GOLD, {**MODEL, "id": 8}, ignore_extra=True)
    assert all(
        (f.reason or "").endswith("(not counted: ignore_extra)")
        for f in result.fields
        if f.status == "hallucination"
    )


def test_works_with_text_answers_and_scenario_options() -> None:
    answer = "Final Answer: ```json\n" + '{"id": 7, "status": "ok", "debug": true}' + "\n```"
    assert score({"id": 7, "status": "ok"}, answer, "static_json", ignore_extra=True).passed


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_ignore_extra_must_be_a_bool(value: Any) -> None:
    with pytest.raises(OptionsError, match="ignore_extra must be true or false"):
        score(GOLD, GOLD, ignore_extra=value)


def test_an_empty_gold_container_still_means_empty() -> None:
    """``{}``/``[]`` in the gold is a value ("no errors"), not a key to fill in."""
    assert not score({"errors": []}, {"errors": ["disk full"]}, ignore_extra=True).passed
    assert not score({"meta": {}}, {"meta": {"a": 1}}, ignore_extra=True).passed
    assert score({"errors": []}, {"errors": [], "x": 1}, ignore_extra=True).passed


json_leaf = st.one_of(st.integers(-5, 5), st.text(max_size=3), st.booleans(), st.none())
key = st.text("abc", min_size=1, max_size=2)


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(key, json_leaf, min_size=1, max_size=4),
    st.dictionaries(key, json_leaf, max_size=4),
)
def test_any_superset_of_the_gold_passes(gold: dict[str, Any], extra: dict[str, Any]) -> None:
    model = {**extra, **gold}  # gold keys keep their gold values
    result = score(gold, model, ignore_extra=True)
    assert result.passed
    assert result.score == 1.0
    assert len(result.metrics["extra_keys"]) == len(model.keys() - gold.keys())


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("Yes", "Final Answer: Yes."),
        ("Chiller 6", "Final Answer: Chiller 6."),
        ("Approve", "Approve."),
        ("The pump tripped.", "The pump tripped"),
        ("是", "是。"),
        ("Yes", "Final Answer: Yes ."),  # (diff32b #5: after a space too)
        ("No", "No\u00a0."),
    ],
)
def test_a_text_answer_is_compared_without_its_final_full_stop(gold: str, answer: str) -> None:
    """realdata32 #1: ``Final Answer: Yes.`` failed the gold ``Yes`` (similarity 0.75), while
    ``C.`` answers ``C`` and ``34.`` answers ``34``: a sentence's full stop says nothing of
    its value."""
    result = score(gold, answer)
    assert (result.passed, result.score) == (True, 1.0)


def test_only_a_final_full_stop_of_a_whole_text_answer_is_left_out() -> None:
    assert not score("Yes", "Yes...").passed  # an ellipsis is no full stop
    assert not score("Yes", "No.").passed
    assert not score({"a": "Yes"}, {"a": "Yes."}).passed  # a value inside a structure: as written
    assert score("Yes", "Yes.").parsed_model == "Yes."  # the answer as read
    assert not score(".", "").passed  # (diff32a #5: a full stop alone is the text itself)
