"""A score of 1.0 means every counted part was right, in every mode and aggregation.

A near miss earns at most 0.9999999999999999, and float sums round: 1.0 + 0.9999999999999999
is exactly 2.0, the mean of 1.0 and 0.9999999999999999 is 1.0, and an exact weighted F1 of
1 - 1e-30 is the float 1.0. Each such sum is held under 1 (``compare.short_of_one``).
"""

from __future__ import annotations

import math

import pytest

from pytest_structeval import score
from pytest_structeval.compare import mean_score, short_of_one
from pytest_structeval.registry import default_registry
from pytest_structeval.schema import ComparatorResult

BELOW_ONE = math.nextafter(1.0, 0.0)
ID_GOLD = {"tweet_id": 1790000000000000001, "lang": "en"}
ID_OFF_BY_ONE = {"tweet_id": 1790000000000000000, "lang": "en"}


def test_an_off_by_one_id_beside_an_exact_leaf_fails_similarity() -> None:
    result = score(ID_GOLD, ID_OFF_BY_ONE, "similarity")
    assert not result.passed
    assert result.score == BELOW_ONE
    assert [f.status for f in result.fields] == ["mismatch", "match"]


def test_the_same_with_weights() -> None:
    result = score(ID_GOLD, ID_OFF_BY_ONE, "similarity", weights={"answer.tweet_id": 1})
    assert not result.passed
    assert result.score == BELOW_ONE


def test_a_line_by_line_mean_with_one_near_miss_stays_under_one() -> None:
    gold = '{"id": 1790000000000000001}\n{"id": 7}'
    result = score(gold, '{"id": 1790000000000000000}\n{"id": 7}', "similarity", line_by_line=True)
    assert result.metrics["line_scores"] == [BELOW_ONE, 1.0]
    assert not result.passed
    assert result.score == BELOW_ONE


@pytest.mark.parametrize("mode", ["strict", "schema"])
def test_a_weighted_f1_a_hair_under_one_fails_a_threshold_of_one(mode: str) -> None:
    """Exactly 1 / (1 + 1e-30): the float 1.0 before, and a threshold of 1.0 let it pass."""
    result = score(
        {"a": 1, "b": 2}, {"a": 1, "b": 3}, mode, weights={"answer.b": 1e-30}, threshold=1.0
    )
    assert not result.passed
    assert result.score == BELOW_ONE


def test_a_schema_record_with_a_near_miss_from_a_comparator_stays_under_one() -> None:
    registry = default_registry().copy()
    registry.register_comparator(
        "nearly", lambda gold, extracted, params: ComparatorResult(BELOW_ONE, "nearly")
    )
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-eval-compare": "nearly"},
            "b": {"type": "string"},
        },
    }
    result = score(
        {"a": "x", "b": "y"}, {"a": "x", "b": "y"}, "schema", schema=schema, registry=registry
    )
    assert not result.passed
    assert result.score == BELOW_ONE
    assert [f.status for f in result.fields] == ["mismatch", "match"]


def test_short_of_one_and_mean_score() -> None:
    assert short_of_one(1.0, full=True) == 1.0
    assert short_of_one(1.0, full=False) == BELOW_ONE
    assert short_of_one(0.5, full=False) == 0.5
    assert mean_score([1.0, BELOW_ONE]) == BELOW_ONE
    assert mean_score([1.0, 1.0]) == 1.0
    assert mean_score([0.5, 0.25]) == 0.375
    assert mean_score([]) == 1.0
