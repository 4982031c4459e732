"""``similarity`` mode: UiPath's numbers on sane inputs, each of its bugs fixed, alignment."""

from __future__ import annotations

import math
import unicodedata
from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.errors import LimitError, OptionsError
from pytest_structeval.results import HALLUCINATION, MATCH, MISMATCH, OMISSION


def sim(gold: Any, model: Any, **options: Any) -> float:
    return score(gold, model, "similarity", **options).score


# ------------------------------------------------------ upstream numbers (uipath-python tests)


def test_worked_example_scores_68() -> None:
    gold = {
        "user": {"name": "Alice", "age": 30, "address": {"city": "New York", "zip": "10001"}},
        "active": True,
    }
    model = {
        "user": {"name": "Alicia", "age": 28, "address": {"city": "New York", "zip": "10002"}},
        "active": False,
        "extraField": "Ignored",
    }
    result = score(gold, model, "similarity")
    assert result.score == pytest.approx(0.68)
    assert result.metrics["matched_leaves"] == pytest.approx(3.4)
    assert result.metrics["total_leaves"] == 5
    assert result.reason == "Matched leaves: 3.4, Total leaves: 5"
    assert not result.passed
    by_path = {f.path: f.score for f in result.fields}
    assert by_path["answer.user.name"] == pytest.approx(1 - 2 / 6)
    assert by_path["answer.user.age"] == pytest.approx(1 - 2 / 30)
    assert by_path["answer.user.address.zip"] == pytest.approx(0.8)
    assert by_path["answer.active"] == 0.0


def test_list_of_records_scores_82_333() -> None:
    gold = {"users": [{"name": "Alice", "age": 25}, {"name": "Bob", "age": 30}]}
    model = {
        "users": [{"name": "Alice", "age": 24}, {"name": "Robert", "age": 30}],
        "extraField": "Ignored",
    }
    assert sim(gold, model) * 100 == pytest.approx(82.3333333, abs=1e-6)


def test_strict_types_score_33_333() -> None:
    gold = {"name": "Alice", "age": 30, "active": True}
    model = {"name": "Alice", "age": "30", "active": "true"}
    assert sim(gold, model) * 100 == pytest.approx(33.3333333, abs=1e-6)


def test_large_document_scores_43_2498() -> None:
    gold = {
        "user": {
            "name": "Alice Johnson",
            "age": 30,
            "active": True,
            "address": {"street": "123 Main St", "city": "Metropolis", "zip": 90210},
        },
        "preferences": {"newsletter": True, "languages": ["en", "fr", "es"]},
        "metrics": {"visits": 100, "ratio": 0, "growth": 1.0},
        "posts": [
            {"title": "Hello World", "tags": ["intro", "welcome"]},
            {"title": "Deep Dive", "tags": ["advanced", "json", "parsing"]},
        ],
        "permissions": {"admin": False, "editor": True, "viewer": True},
        "notes": None,
        "bio": "Café au lait",
        "scores": [10, 9.5, "N/A", True],
        "settings": {"features": [{"key": "A", "enabled": True}, {"key": "B", "enabled": False}]},
    }
    model = {
        "user": {
            "name": "Alice Johnson",
            "age": "30",
            "active": "true",
            "address": {"street": "123 Main St", "city": "Metropolis", "zip": "90210"},
        },
        "preferences": {"newsletter": "yes", "languages": ["en", "es", "fr", "de"]},
        "metrics": {"visits": 98, "ratio": 1e-11, "growth": 0.9},
        "posts": [
            {"title": "Hello-World", "tags": ["intro"]},
            {"title": "Deep  Dive", "tags": ["advanced", "json"]},
        ],
        "permissions": {"admin": "false", "editor": True},
        "bio": "Cafe au lait",
        "scores": [10, "9.5", "NA", "true"],
        "settings": {
            "features": [{"key": "B", "enabled": "false"}, {"key": "A", "enabled": "true"}]
        },
        "extra": {"debug": True},
    }
    assert sim(gold, model) * 100 == pytest.approx(43.24977043158861, rel=1e-12)


def test_identical_payloads_score_1() -> None:
    gold = {"name": "John Doe", "age": 30, "city": "New York"}
    result = score(gold, dict(gold), "similarity")
    assert result.passed
    assert result.score == 1.0
    assert result.metrics["matched_leaves"] == result.metrics["total_leaves"] == 3


def test_docs_examples() -> None:
    nested = {"user": {"name": "Alice", "profile": {"age": 25, "location": "Paris"}}, "s": "on"}
    assert sim(nested, nested) == 1.0
    two_of_three = sim(
        {"items": ["apple", "banana", "grape"]}, {"items": ["apple", "banana", "orange"]}
    )
    assert two_of_three == pytest.approx((2 + 0.5) / 3)  # "grape"/"orange": 1 - 3/6
    typo = sim({"status": "completed sucessfully"}, {"status": "completed successfully"})
    assert 0.9 <= typo < 1.0
    numeric = sim({"temperature": 20.3, "humidity": 65}, {"temperature": 20.5, "humidity": 65})
    assert numeric == pytest.approx((1 - 0.2 / 20.3 + 1) / 2)
    assert sim({"name": "Bob", "age": 30}, {"name": "Bob", "age": 30, "extra_field": "x"}) == 1.0
    target = score(
        {"result": {"score": 95, "passed": True}},
        {"result": {"score": 95, "passed": True}, "metadata": {"timestamp": "2024-01-01"}},
        "similarity",
        target_output_key="result",
    )
    assert target.score == 1.0
    assert [f.path for f in target.fields] == ["answer.result.score", "answer.result.passed"]


def test_numeric_credit_is_relative_to_gold() -> None:
    assert sim({"v": 1}, {"v": 1.5}) == pytest.approx(0.5)
    assert sim({"v": 1.5}, {"v": 1}) == pytest.approx(1 - 0.5 / 1.5)
    assert sim({"v": -10}, {"v": -9}) == pytest.approx(0.9)
    assert sim({"v": 10}, {"v": -10}) == 0.0
    assert sim({"v": 0}, {"v": 1e-13}) == 1.0
    assert sim({"v": 0}, {"v": 1e-9}) == 0.0
    assert sim({"v": 1}, {"v": 1.0}) == 1.0


def test_strings_by_levenshtein_over_the_longer_length() -> None:
    assert sim({"s": "abcd"}, {"s": "abdc"}) == pytest.approx(0.5)
    assert sim({"s": ""}, {"s": "abc"}) == 0.0
    assert sim({"s": ""}, {"s": ""}) == 1.0
    assert sim("hello world", "hello word") == pytest.approx(1 - 1 / 11)
    assert sim({"s": "Hello"}, {"s": "hello"}) == pytest.approx(0.8)  # case-sensitive by default
    assert sim({"s": "Hello"}, {"s": "hello"}, case_sensitive=False) == 1.0


def test_type_mismatch_scores_zero_for_every_gold_leaf() -> None:
    assert sim({"a": 30}, {"a": "30"}) == 0.0
    assert sim({"a": True}, {"a": 1}) == 0.0
    assert sim({"a": None}, {"a": 0}) == 0.0
    result = score({"a": {"x": 1, "y": 2}, "b": 1}, {"a": [1, 2], "b": 1}, "similarity")
    assert result.score == pytest.approx(1 / 3)
    assert [(f.path, f.status, f.model) for f in result.fields[:2]] == [  # (the model holds
        ("answer.a.x", OMISSION, None),  # none of them: realdata32 #4)
        ("answer.a.y", OMISSION, None),
    ]
    assert "type mismatch" in (result.fields[0].reason or "")


def test_missing_subtree_scores_zero_for_each_leaf() -> None:
    result = score({"a": {"x": 1, "y": [1, 2]}, "b": 1}, {"b": 1}, "similarity")
    assert result.score == pytest.approx(1 / 4)
    assert result.metrics["missing_leaves"] == 3


def test_inputs_of_any_json_type_and_text() -> None:
    assert sim([1, 2, 3], [1, 2, 3]) == 1.0
    assert sim("42", "The answer is 42.") == 1.0
    assert sim('{"a": 1}', '```json\n{"a": 1}\n```') == 1.0  # string outputs are parsed
    assert sim(None, None) == 1.0
    assert sim(True, False) == 0.0


# ------------------------------------------------------------------ UiPath bugs, fixed


def test_nan_and_infinities_never_earn_credit() -> None:
    nan, inf = float("nan"), math.inf
    assert sim({"v": 5.0}, {"v": nan}) == 0.0
    assert sim({"v": nan}, {"v": 5.0}) == 0.0
    assert sim({"v": nan}, {"v": nan}) == 0.0
    assert sim({"v": inf}, {"v": 5.0}) == 0.0
    assert sim({"v": 5.0}, {"v": inf}) == 0.0
    assert sim({"v": inf}, {"v": inf}) == 1.0


def test_empty_gold_containers_are_leaves() -> None:
    assert sim({}, "total garbage") == 0.0
    assert sim({"a": {}}, {"a": 5}) == 0.0
    assert sim({"a": []}, {"a": [1, 2]}) == 0.0
    assert sim({"a": {}}, {"a": {}}) == 1.0
    assert sim([], []) == 1.0


def test_unicode_is_nfc_normalised() -> None:
    nfd = unicodedata.normalize("NFD", "café")
    assert sim({"s": "café"}, {"s": nfd}) == 1.0


def test_huge_ints_and_deep_nesting_are_handled() -> None:
    big = 10**400
    assert sim({"x": 1}, {"x": 1, "junk": big}) == 1.0
    assert sim({"x": big}, {"x": big}) == 1.0
    assert sim({"x": big}, {"x": big + 1}) < 1.0
    deep: Any = 1
    for _ in range(150):
        deep = {"a": deep}
    assert sim(deep, deep) == 1.0


def test_errors_are_errors_not_silent_zeros() -> None:
    deep: Any = 1
    for _ in range(1_000):
        deep = [deep]
    text = score({"a": 1}, '{"a": ' + "[" * 1_000 + "]" * 1_000 + "}", "similarity")
    assert text.error is not None
    assert "max_depth" in text.error
    value = score({"a": 1}, {"a": 1, "b": deep}, "similarity", penalize_extra=True)
    assert value.error is not None
    assert value.score == 0.0
    assert not value.passed
    assert "max_depth" in value.error
    # uncounted, the part is still the answer's, bounded as its text is (maintainer29 #2)
    assert "max_depth" in (score({"a": 1}, {"a": 1, "b": deep}, "similarity").error or "")
    with pytest.raises(LimitError):
        score({"a": deep}, {"a": 1}, "similarity")


def test_longer_model_list_is_reported_and_counted_only_with_penalize_extra() -> None:
    gold, model = {"a": [1]}, {"a": [1, 2, 3]}
    plain = score(gold, model, "similarity")
    assert plain.score == 1.0  # reported, not counted
    assert plain.metrics["extra_leaves"] == 2
    assert [f.reason for f in plain.fields if f.status == HALLUCINATION] == [
        "extra element (model index 1) (not counted: penalize_extra is off)",
        "extra element (model index 2) (not counted: penalize_extra is off)",
    ]
    penalized = score(gold, model, "similarity", penalize_extra=True)
    assert penalized.score == pytest.approx(1 / 3)
    extras = [f for f in penalized.fields if f.status == HALLUCINATION]
    assert [f.path for f in extras] == ["answer.a[-1]", "answer.a[-2]"]
    assert extras[0].reason == "extra element (model index 1)"


def test_penalize_extra_counts_hallucinated_keys() -> None:
    result = score({"a": 1}, {"a": 1, "b": {"c": 2, "d": 3}}, "similarity", penalize_extra=True)
    assert result.score == pytest.approx(1 / 3)
    assert result.reason == "Matched leaves: 1.0, Total leaves: 3"


def test_missing_target_key_is_an_error_never_a_perfect_score() -> None:
    gold, model = {"result": {"v": 1}}, {"other": 1}
    result = score(gold, model, "similarity", target_output_key="result")
    assert result.error is not None
    assert "model answer" in result.error
    assert result.score == 0.0
    assert not result.passed
    missing_in_gold = score({"other": 1}, {"result": 1}, "similarity", target_output_key="result")
    assert missing_in_gold.error is not None
    assert "gold answer" in missing_in_gold.error


def test_target_output_key_paths_and_lists() -> None:
    gold = {"items": [{"name": "a", "price": 10}], "meta": {"id": 1}, "note": "x"}
    model = {"items": [{"name": "a", "price": 12}], "meta": {"id": 2}, "note": "x"}
    one = score(gold, model, "similarity", target_output_key="items[0].price")
    assert one.score == pytest.approx(0.8)
    assert [f.path for f in one.fields] == ["answer.items[0].price"]
    assert one.parsed_gold == 10
    both = score(gold, model, "similarity", target_output_key=["answer.note", "meta.id"])
    assert both.score == pytest.approx((1 + 0.0) / 2)
    assert both.parsed_gold == {"answer.note": "x", "meta.id": 1}
    assert [f.path for f in both.fields] == ["answer.note", "answer.meta.id"]
    assert score(gold, model, "similarity", target_output_key="*").score < 1.0
    with pytest.raises(OptionsError):
        score(gold, model, "similarity", target_output_key=[])
    with pytest.raises(OptionsError, match=r"^target_output_key 'items\[': "):
        score(gold, model, "similarity", target_output_key="items[")
    with pytest.raises(OptionsError, match=r"^target_output_key '': empty path"):
        score(gold, model, "similarity", target_output_key="")


def test_threshold_and_alias() -> None:
    gold, model = {"a": "abcd", "b": 1}, {"a": "abce", "b": 1}
    assert not score(gold, model, "json_similarity").passed
    result = score(gold, model, "json_similarity", threshold=0.85)
    assert result.passed
    assert result.mode == "similarity"
    assert result.threshold == 0.85
    with pytest.raises(OptionsError):
        score(gold, model, "similarity", penalize_extra="yes")
    with pytest.raises(OptionsError):
        score(gold, model, "similarity", unknown_option=1)


def test_numeric_tolerance_gives_full_credit_within_bounds() -> None:
    gold, model = {"t": 20.3}, {"t": 20.5}
    assert sim(gold, model) < 1.0
    assert sim(gold, model, numeric_tolerance={"rel": 0.01}) == 1.0
    assert sim(gold, model, options={"answer.t": {"numeric_tolerance": {"abs": 0.1}}}) < 1.0


def test_ignore_paths_in_similarity() -> None:
    result = score({"a": 1, "b": 2}, {"a": 1, "b": 3}, "similarity", ignore_paths=["b"])
    assert result.score == 1.0
    assert result.metrics["total_leaves"] == 1


# ----------------------------------------------------------------------- alignment


def test_swapped_records_score_1_under_key_and_hungarian() -> None:
    gold = [{"id": 1, "n": "x"}, {"id": 2, "n": "y"}]
    model = list(reversed(gold))
    assert sim(gold, model) == pytest.approx(0.125)  # by position, as the reference scores it
    assert sim(gold, model, align={"key": "id"}) == 1.0
    assert sim(gold, model, align="hungarian") == 1.0


def test_reordered_scalars_score_1_unordered() -> None:
    assert sim(["ab", "cd"], ["cd", "ab"]) == 0.0
    assert sim(["ab", "cd"], ["cd", "ab"], align="unordered") == 1.0
    # multisets: duplicates count
    assert sim(["a", "a", "b"], ["b", "a"], align="unordered") == pytest.approx(2 / 3)


def test_unordered_pairs_near_misses_by_similarity() -> None:
    result = score(["alpha", "beta"], ["betta", "alpha"], "similarity", align="unordered")
    assert result.score == pytest.approx((1 + (1 - 1 / 5)) / 2)
    assert [f.status for f in result.fields] == [MATCH, MISMATCH]


def test_per_path_alignment_specs() -> None:
    gold = {"rows": [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}], "tags": ["x", "y"]}
    model = {"rows": [{"id": 2, "v": "b"}, {"id": 1, "v": "a"}], "tags": ["y", "x"]}
    assert sim(gold, model) < 0.5
    assert sim(gold, model, align={"answer.rows": {"key": "id"}}) == pytest.approx(4 / 6)
    assert sim(gold, model, align={"rows": {"key": "id"}, "answer.tags": "unordered"}) == 1.0
    assert sim(gold, model, align={"**": "hungarian"}) == 1.0


def test_key_alignment_reports_duplicates() -> None:
    gold = [{"id": "a", "v": 1}, {"id": "b", "v": 2}, {"id": "a", "v": 3}]
    model = [{"id": "A", "v": 1}, {"id": "b", "v": 2}]
    result = score(gold, model, "similarity", align={"key": "id"}, case_sensitive=False)
    assert result.score == pytest.approx(4 / 6)
    missing = [f for f in result.fields if f.status == OMISSION]
    assert [f.path for f in missing] == ["answer[2].id", "answer[2].v"]
    assert "duplicate key" in (missing[0].reason or "")


def test_hungarian_min_similarity_floor() -> None:
    gold = [{"name": "pump", "unit": "kW"}]
    model = [{"name": "fan", "unit": "kW"}]
    paired = score(gold, model, "similarity", align="hungarian")
    assert paired.score == pytest.approx(0.5)
    floored = score(
        gold, model, "similarity", align={"method": "hungarian", "min_similarity": 0.75}
    )
    assert floored.score == 0.0
    assert [f.status for f in floored.fields] == [OMISSION, OMISSION, HALLUCINATION]  # one element
    assert "similarity floor 0.75" in (floored.fields[0].reason or "")


def test_hungarian_on_nested_elements_uses_the_walk() -> None:
    gold = [{"a": {"b": [1, 2]}, "c": "x"}, {"a": {"b": [3]}, "c": "y"}]
    model = [{"a": {"b": [3]}, "c": "y"}, {"a": {"b": [1, 2]}, "c": "x"}]
    assert sim(gold, model, align="hungarian") == 1.0


def test_hungarian_200_records_shuffled_is_optimal() -> None:
    import random

    rng = random.Random(7)
    gold = [{"name": f"sensor {i}", "value": float(i + 1), "unit": "kW"} for i in range(200)]
    model = [dict(r) for r in gold]
    rng.shuffle(model)
    result = score(gold, model, "similarity", align="hungarian")
    assert result.score == 1.0
    assert all(f.status == MATCH for f in result.fields)


def test_empty_model_container_means_missing_content() -> None:
    result = score({"a": {"x": 1, "y": 2}}, {"a": {}}, "similarity")
    assert result.score == 0.0
    assert [f.status for f in result.fields] == [OMISSION, OMISSION]
    assert result.fields[0].reason == "expected object with 2 keys, got empty object"
    wrong = score({"a": {}}, {"a": {"x": 1}}, "similarity")
    assert [f.status for f in wrong.fields] == [MISMATCH, HALLUCINATION]  # the extra: reported
    assert wrong.fields[0].reason == "expected empty object, got object with 1 key"


def test_glob_alignment_spec_for_nested_arrays() -> None:
    gold = {"items": [{"sku": "a", "tags": ["x", "y", "z"]}, {"sku": "b", "tags": ["p"]}]}
    model = {"items": [{"sku": "a", "tags": ["z", "x", "y"]}, {"sku": "b", "tags": ["p"]}]}
    assert sim(gold, model) < 1.0
    assert sim(gold, model, align={"answer.items[*].tags": "unordered"}) == 1.0
    assert sim(gold, model, align={"items[1].tags": "unordered"}) < 1.0


def test_notes_about_uncounted_model_elements_stay_in_the_result() -> None:
    # Without penalize_extra the model's keyless element is reported but not counted; its
    # note is in the result's notes and in its field's reason.
    gold = [{"id": 1, "v": 1}]
    model = [{"id": 1, "v": 1}, {"v": 2}]
    result = score(gold, model, "similarity", align={"key": "id"})
    assert result.score == 1.0
    assert [f.path for f in result.fields] == ["answer[0].id", "answer[0].v", "answer[-1]"]
    assert result.metrics["notes"] == [
        "answer: model elements at [1] have no key field 'id'; they cannot be paired"
    ]
    counted = score(gold, model, "similarity", align={"key": "id"}, penalize_extra=True)
    assert (
        counted.fields[-1].reason == "extra element (model index 1); element has no key field 'id'"
    )


@pytest.mark.parametrize("model", [{"x": 1}, {"result": {"x": 1}}, {"x": 1, "answers": {"x": 1}}])
def test_a_leading_answer_is_read_on_the_model_as_on_the_gold(model: dict[str, Any]) -> None:
    """The gold has the key "answer": a model without it misses the target (UiPath's
    KeyError), rather than having its root compared with the gold's key."""
    result = score({"answer": {"x": 1}}, model, "similarity", target_output_key="answer")
    assert result.passed is False
    assert result.error is not None
    assert "not found in the model answer" in result.error


def test_a_leading_answer_names_the_root_on_both_sides_when_the_gold_has_no_such_key() -> None:
    result = score({"x": 1}, {"answer": {"x": 1}}, "similarity", target_output_key="answer")
    assert result.error is None
    assert result.passed is False
    both = {"answer": {"x": 1}}
    same = score(both, both, "similarity", target_output_key="answer")
    assert same.passed is True
    assert [f.path for f in same.fields] == ["answer.answer.x"]


def test_a_no_pairing_note_says_when_it_shows_only_some_values() -> None:
    gold = {"x": [{"id": i} for i in range(1, 6)]}
    model = {"x": [{"id": f"A-{i}"} for i in range(1, 6)]}
    assert score(gold, model, align={"key": "id"}).metrics["notes"] == [
        "answer.x: no element paired by key 'id' "
        "(gold values 1, 2, 3, ...; model values 'A-1', 'A-2', 'A-3', ...)"
    ]


def test_key_alignment_keeps_true_and_the_text_true_apart_under_strict_types() -> None:
    """Bools pair with their text only where types are not strict (strict mode's leaves would
    call True and "true" equal; similarity's would not, so they must not pair either)."""
    gold = {"items": [{"id": True, "v": 1}, {"id": False, "v": 2}]}
    model = {"items": [{"id": False, "v": 2}, {"id": "true", "v": 1}]}
    result = score(gold, model, "similarity", align={"key": "id"})
    assert result.score == 0.5
    statuses = {f.path: f.status for f in result.fields}
    assert statuses["answer.items[0].id"] == "omission"
    assert statuses["answer.items[-1]"] == "hallucination"
    assert score(gold, model, "strict", align={"key": "id"}).score == 1.0  # loose types pair


def test_a_repeated_target_output_key_counts_once() -> None:
    """A path named twice in target_output_key must not weigh its part twice and flip the
    verdict (review mutants16-core i5)."""
    result = score(
        {"a": 1, "b": 2},
        {"a": 1, "b": 3},
        "similarity",
        target_output_key=["a", "b", "a"],
        threshold=0.8,
    )
    assert result.passed is False
    assert result.score == 0.75
    assert result.reason == "Matched leaves: 1.5, Total leaves: 2"
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.a", MATCH),
        ("answer.b", MISMATCH),
    ]


def test_a_key_spec_says_why_model_scalars_are_not_paired() -> None:
    """Gold objects against model scalars under a key spec: the note names the model elements
    that cannot be paired by key, not a positional type mismatch (review mutants16-core k9)."""
    result = score(
        {"x": [{"id": 1, "v": 1}, {"id": 2, "v": 2}]},
        {"x": [1, 2]},
        "similarity",
        align={"key": "id"},
        threshold=0,
    )
    assert result.score == 0.0
    assert result.metrics["notes"] == [
        "answer.x: model elements at [0, 1] are not objects; they cannot be paired by key 'id'"
    ]
    assert [(f.path, f.status, f.reason) for f in result.fields[:4]] == [
        ("answer.x[0].id", OMISSION, "no unpaired model element with id = 1"),
        ("answer.x[0].v", OMISSION, "no unpaired model element with id = 1"),
        ("answer.x[1].id", OMISSION, "no unpaired model element with id = 2"),
        ("answer.x[1].v", OMISSION, "no unpaired model element with id = 2"),
    ]


def test_hungarian_leaves_elements_with_nothing_in_common_unpaired() -> None:
    """Leftover pairing needs a positive saving: two objects sharing no key are a missing
    and an extra element, not one element with wrong keys (review mutants16-core k14)."""
    result = score(
        [{"a": 1}],
        [{"c": 3}],
        "similarity",
        align="hungarian",
        penalize_extra=True,
        threshold=0,
    )
    assert result.score == 0.0
    assert [(f.path, f.status, f.reason) for f in result.fields] == [
        ("answer[0].a", OMISSION, "no model element paired"),
        ("answer[-1].c", HALLUCINATION, "extra element (model index 0)"),
    ]
