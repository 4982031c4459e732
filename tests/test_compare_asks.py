"""What users asked of strict and similarity scoring (audit 10): extras reported in
similarity mode, empty model containers as omissions, key alignment of quoted ids,
``pytest.approx``-style tolerances, and failure tables that never show a miss as 1.00."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.api import render_failure
from pytest_structeval.results import HALLUCINATION, MATCH, MISMATCH, OMISSION, ScoreResult


def statuses(result: ScoreResult) -> list[tuple[str, str]]:
    return [(f.path, f.status) for f in result.fields]


# ------------------------------------------- similarity: extras are reported, not counted

UIPATH_GOLD = {"name": "Alice", "age": 30, "city": "New York", "zip": "10001", "active": True}
UIPATH_MODEL = {**UIPATH_GOLD, "name": "Alicia", "age": 28, "zip": "10002", "active": False}


def test_similarity_reports_an_extra_key_without_counting_it() -> None:
    result = score({"a": 1}, {"a": 1, "x": 2}, "similarity")
    assert result.passed
    assert result.score == 1.0
    assert statuses(result) == [("answer.a", MATCH), ("answer.x", HALLUCINATION)]
    assert result.fields[1].reason == "key not in gold (not counted: penalize_extra is off)"
    assert result.metrics["extra_leaves"] == 1
    assert result.metrics["total_leaves"] == 1
    assert result.metrics["ignore_extra"] is True
    assert result.to_dict()["details"][1]["gold_value"] == "NOT_IN_GOLD"


def test_similarity_reports_extra_list_elements_and_nested_extras() -> None:
    """Each uncounted extra subtree is one field: walking a large debug payload leaf by leaf
    made similarity mode 12x slower and listed hundreds of fields (review 10)."""
    result = score({"a": [1]}, {"a": [1, 2], "b": {"c": [3], "d": 4}}, "similarity")
    assert result.score == 1.0
    assert statuses(result) == [
        ("answer.a[0]", MATCH),
        ("answer.a[-1]", HALLUCINATION),
        ("answer.b", HALLUCINATION),
    ]
    assert result.fields[1].reason == (
        "extra element (model index 1) (not counted: penalize_extra is off)"
    )
    assert result.fields[2].model == {"c": [3], "d": 4}
    assert result.failing_fields == []  # reported, not counted: not failing either
    counted = score(
        {"a": [1]}, {"a": [1, 2], "b": {"c": [3], "d": 4}}, "similarity", penalize_extra=True
    )
    assert [path for path, _ in statuses(counted)][1:] == [
        "answer.a[-1]",
        "answer.b.c[0]",
        "answer.b.d",
    ]


def test_similarity_scores_stay_uipaths_and_penalize_extra_counts_extras() -> None:
    model = {**UIPATH_MODEL, "extraField": 1}
    plain = score(UIPATH_GOLD, model, "similarity")
    assert round(plain.score, 4) == 0.68  # UiPath's documented example, extra key ignored
    assert plain.reason == "Matched leaves: 3.4, Total leaves: 5"
    assert [f.path for f in plain.fields if f.status == HALLUCINATION] == ["answer.extraField"]
    counted = score(UIPATH_GOLD, model, "similarity", penalize_extra=True)
    assert counted.reason == "Matched leaves: 3.4, Total leaves: 6"
    assert counted.fields[-1].reason == "key not in gold"
    assert "ignore_extra" not in counted.metrics


def test_the_failure_table_leaves_uncounted_extras_out() -> None:
    """400 uncounted extras filled the table's rows and hid the one field that cost score
    (review 10); they are in ``fields`` and the per-run details, not among the failures."""
    model = {"a": 2, **{f"x{i}": i for i in range(400)}}
    for mode, options in (("similarity", {}), ("strict", {"ignore_extra": True})):
        result = score({"a": 1}, model, mode, **options)
        text = render_failure(result)
        assert "answer.a" in text
        assert "answer.x" not in text
        assert [f.path for f in result.failing_fields] == ["answer.a"]
        assert "failing=1 (answer.a)" in repr(result)


def test_an_extra_nested_past_max_depth_is_refused_as_its_text_is() -> None:
    """An uncounted extra past ``max_depth`` was one field when given parsed, while the same
    answer as text was an error (maintainer29 #2): the bound is the answer's, in both."""
    deep: Any = 1
    for _ in range(300):
        deep = [deep]
    for model in ({"a": 1, "b": deep}, json.dumps({"a": 1, "b": deep})):
        for mode, options in [("similarity", {}), ("strict", {"ignore_extra": True})]:
            result = score({"a": 1}, model, mode, **options)
            assert result.score == 0.0
            assert "nests deeper than max_depth=200" in (result.error or "")


json_scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
json_values = st.recursive(
    json_scalars,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=2), c, max_size=3),
    max_leaves=8,
)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.sampled_from("abc"), json_values, min_size=1, max_size=3),
    st.dictionaries(st.sampled_from("abc"), json_values, max_size=3),
    st.dictionaries(st.sampled_from("xyz"), json_values, min_size=1, max_size=2),
)
def test_extra_keys_never_change_the_unpenalized_similarity_score(
    gold: dict[str, Any], model: dict[str, Any], extra: dict[str, Any]
) -> None:
    base = score(gold, model, "similarity")
    more = score(gold, {**model, **extra}, "similarity")
    assert more.score == base.score
    assert more.metrics["total_leaves"] == base.metrics["total_leaves"]


# ---------------------------------------- strict: an empty model container is an omission


def test_an_empty_model_object_is_an_omission_not_an_extra_key() -> None:
    result = score({"a": 1}, {})
    assert result.metrics["missing_keys"] == ["answer.a"]
    assert result.metrics["extra_keys"] == []
    assert result.reason.endswith("0 mismatched, 1 missing, 0 extra")


def test_an_empty_model_list_omits_the_gold_elements() -> None:
    result = score({"a": [1, 2], "b": 2}, {"a": [], "b": 2})
    metrics = result.metrics
    assert metrics["extra_keys"] == []
    assert metrics["missing_keys"] == ["answer.a[0]", "answer.a[1]"]
    assert metrics["precision"] == 1.0  # the one key the model gave is right
    assert metrics["recall"] == pytest.approx(1 / 3)
    assert result.fields[0].reason == "expected array of 2, got empty array"
    nested = score({"a": {"x": 1}, "b": 2}, {"a": {}, "b": 2}, "static_json")
    assert nested.metrics["extra_keys"] == []
    assert nested.metrics["missing_keys"] == ["answer.a.x"]


def test_an_empty_model_container_never_counts_as_extra() -> None:
    # an extra key holding nothing, and content of another kind: only gold leaves count
    assert statuses(score({"a": 1}, {"a": 1, "b": []})) == [("answer.a", MATCH)]
    wrong_kind = score({"a": [1]}, {"a": {}})
    assert statuses(wrong_kind) == [("answer.a[0]", OMISSION)]
    assert wrong_kind.fields[0].reason == "type mismatch: expected array of 1, got empty object"
    # compared with a gold leaf it is a value like any other
    assert score({"a": []}, {"a": []}).passed
    assert statuses(score({"a": 5}, {"a": []})) == [("answer.a", MISMATCH)]


def test_an_empty_gold_container_is_a_claim_that_content_contradicts() -> None:
    """The symmetric case: gold says "none", the model lists some. The gold leaf is missed
    and the model's elements are extra, in strict mode even under subset matching."""
    result = score({"errors": []}, {"errors": ["disk full", "fan"]})
    assert statuses(result) == [
        ("answer.errors", OMISSION),
        ("answer.errors[0]", HALLUCINATION),
        ("answer.errors[1]", HALLUCINATION),
    ]
    assert result.fields[0].reason == "expected empty array, got array of 2"
    assert not score({"errors": []}, {"errors": ["disk full"]}, ignore_extra=True).passed
    similar = score({"errors": []}, {"errors": ["disk full"]}, "similarity")
    assert similar.score == 0.0
    assert statuses(similar) == [("answer.errors", MISMATCH), ("answer.errors[0]", HALLUCINATION)]


def test_hungarian_pairs_an_empty_model_record_as_well_as_order_does() -> None:
    # Found by the Hungarian-never-below-ordered property once empty records omit.
    gold, model = [0, 0, {"id": 0}], [0, 0, {}]
    assert score(gold, model, align="hungarian").score == score(gold, model).score == 0.8


# ----------------------------------------------- key alignment honours numeric strings

ROWS = [{"id": 1, "v": 5}, {"id": 2, "v": 6}]
QUOTED = [{"id": "2", "v": 6}, {"id": "1", "v": 5}]


def test_key_alignment_pairs_quoted_ids_when_numeric_strings_coerce() -> None:
    result = score({"rows": ROWS}, {"rows": QUOTED}, align={"rows": {"key": "id"}})
    assert result.passed
    assert result.metrics["notes"] == []
    assert score({"rows": ROWS}, {"rows": QUOTED}, align={"rows": {"key": "id"}}).score == 1.0
    decimal = [{"id": "1.0", "v": 5}, {"id": "2e0", "v": 6}]
    assert score(ROWS, decimal, align={"key": "id"}).passed
    # "01" is an identifier, not a number: it never equals 1, so it never pairs with it
    assert not score([{"id": 1}], [{"id": "01"}], align={"key": "id"}).passed


def test_key_alignment_follows_the_coercion_option_of_the_key_field() -> None:
    # similarity mode does not coerce by default (UiPath): "1" is not 1 there ...
    plain = score(ROWS, QUOTED, "similarity", align={"key": "id"})
    assert plain.score == 0.0
    coerced = score(
        ROWS,
        QUOTED,
        "similarity",
        align={"key": "id"},
        options={"answer[*].id": {"coerce_numeric_strings": True}},
    )
    assert coerced.score == 1.0
    assert coerced.fields[0].reason is None  # "1" equals 1 under coercion: a match
    off = score(
        ROWS, QUOTED, align={"key": "id"}, options={"answer": {"coerce_numeric_strings": False}}
    )
    assert off.score == 0.0


def test_a_note_says_when_key_alignment_paired_nothing() -> None:
    result = score(ROWS, QUOTED, "similarity", align={"key": "id"})
    assert result.metrics["notes"] == [
        "answer: no element paired by key 'id' (gold values 1, 2; model values '2', '1')"
    ]
    assert "note: answer: no element paired by key 'id'" in render_failure(result)
    many = score(
        [{"id": i} for i in range(5)], [{"id": f"A{i}"} for i in range(5)], align={"key": "id"}
    )
    assert many.metrics["notes"] == [
        "answer: no element paired by key 'id' "
        "(gold values 0, 1, 2, ...; model values 'A0', 'A1', 'A2', ...)"
    ]
    # one pair is enough: no note
    assert (
        score(ROWS, [{"id": 1, "v": 5}, {"id": 9, "v": 6}], align={"key": "id"}).metrics["notes"]
        == []
    )


# ------------------------------------------- tolerances: within rel or abs (pytest.approx)


def test_rel_and_abs_accept_a_number_within_either_bound() -> None:
    tol = {"rel": 0.01, "abs": 1e-6}
    for gold, model in [(100, 100.5), (0.5, 0.504), (0, 1e-7)]:
        assert model == pytest.approx(gold, rel=0.01, abs=1e-6)
        assert score({"v": gold}, {"v": model}, numeric_tolerance=tol).passed
        assert score({"v": gold}, {"v": model}, "similarity", numeric_tolerance=tol).score == 1.0


def test_schema_mode_numeric_comparator_keeps_both_bounds() -> None:
    """struct_extract_eval's ``numeric`` comparator requires both bounds; schema mode keeps
    that for compatibility (the README lists the difference)."""
    schema = {
        "type": "object",
        "properties": {
            "v": {
                "type": "number",
                "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01, "abs": 1e-6}}},
            }
        },
    }
    assert not score({"v": 100}, {"v": 100.5}, mode="schema", schema=schema).passed


@settings(max_examples=200, deadline=None)
@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.none() | st.floats(0, 0.5),
    st.none() | st.floats(0, 10),
)
def test_exactness_is_pytest_approx_relative_to_gold(
    gold: float, model: float, rel: float | None, abs_: float | None
) -> None:
    assume(rel is not None or abs_ is not None)
    diff = abs(gold - model)
    bound = max(rel * abs(gold) if rel is not None else 0.0, abs_ or 0.0)
    # away from the inclusive edge (a 1e-9 slack) and from float noise (1e-12 relative)
    assume(abs(diff - bound) > 1e-6 * max(bound, 1e-3))
    assume(diff > 1e-9 * max(abs(gold), 1.0))
    tolerance = {k: v for k, v in (("rel", rel), ("abs", abs_)) if v is not None}
    within = score({"v": gold}, {"v": model}, numeric_tolerance=tolerance).passed
    assert within == (model == pytest.approx(gold, rel=rel or 0.0, abs=abs_ or 0.0))


def test_a_missed_tolerance_says_which_bound_missed() -> None:
    result = score({"v": 100}, {"v": 103}, numeric_tolerance={"rel": 0.01, "abs": 2})
    assert result.fields[0].reason == "103 vs expected 100 (3% off; outside rel 0.01 and abs 2)"
    rel_only = score({"v": 100}, {"v": 103}, numeric_tolerance=0.01)
    assert rel_only.fields[0].reason == "103 vs expected 100 (3% off; outside rel 0.01)"
    untouched = score({"v": 100}, {"v": 103})
    assert untouched.fields[0].reason == "103 vs expected 100 (3% off)"


def test_rel_at_gold_zero_says_it_does_not_apply() -> None:
    rel = score({"t": 0}, {"t": 1e-9}, numeric_tolerance=0.01)
    assert not rel.passed
    assert (
        rel.fields[0].reason == "1e-09 vs expected 0 (rel 0.01 does not apply at gold 0; add abs)"
    )
    both = score({"t": 0}, {"t": 1e-5}, numeric_tolerance={"rel": 0.01, "abs": 1e-6})
    assert both.fields[0].reason == (
        "1e-05 vs expected 0 (outside abs 1e-06; rel does not apply at gold 0)"
    )
    assert score({"t": 0}, {"t": 1e-7}, numeric_tolerance={"rel": 0.01, "abs": 1e-6}).passed
    coerced = score({"t": "0"}, {"t": 1e-9}, numeric_tolerance=0.01)
    assert "rel 0.01 does not apply at gold 0" in (coerced.fields[0].reason or "")


# --------------------------------------------------- a miss never reads as a perfect 1.00


def test_a_near_miss_never_shows_as_one_in_the_failure_table() -> None:
    result = score({"zip": "75001", "n": 1}, {"zip": 75002, "n": 1})
    assert 0.99 < result.fields[0].score < 1.0
    text = render_failure(result)
    row = next(line for line in text.splitlines() if line.startswith("answer.zip"))
    assert ">0.99" in row
    assert "1.00" not in row
    assert "partial_similarity_score>0.9999" in text


def test_a_failing_score_just_under_one_never_shows_as_one() -> None:
    gold = {"v": 100_000}
    result = score(gold, {"v": 100_001}, "similarity")
    assert not result.passed
    assert result.score > 0.99995
    head = render_failure(result, detailed=False)
    assert head.startswith("similarity: score 0.99999 (not passed, threshold 1)")
    assert "1.0000" not in head
    # true ones and ordinary scores print as before
    assert render_failure(score(gold, gold, "similarity")).startswith("similarity: score 1.0000")
    half = render_failure(score({"a": 1, "b": 2}, {"a": 1, "b": 3}))
    assert half.startswith("strict: score 0.5000")
    assert math.isclose(score({"a": 1, "b": 2}, {"a": 1, "b": 3}).score, 0.5)


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_a_global_key_spec_leaves_arrays_without_objects_in_order(mode: str) -> None:
    rows = [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": ["c"]}]
    same = score({"rows": rows}, {"rows": rows[::-1]}, mode, align={"key": "id"})
    assert same.passed
    assert same.score == 1.0
    listed_id = [{"id": [1], "v": 1}]  # a list-valued key: the id list itself is by position
    assert score(listed_id, listed_id, mode, align={"key": "id"}).passed
    tags = score({"tags": ["a", "b"]}, {"tags": ["b", "a"]}, mode, align={"key": "id"})
    assert [f.status for f in tags.fields] == ["mismatch", "mismatch"]  # positions, no key


@pytest.mark.parametrize("method", ["hungarian", "unordered"])
def test_alignment_under_penalize_extra_pairs_the_leftovers(method: str) -> None:
    """A model element left unpaired counts all its leaves: a pair sharing no credit is
    cheaper, so the leftovers pair (positional order scored 0.5, alignment 0.333)."""
    ordered = score(["a", "abc"], ["a", "xyz"], "similarity", penalize_extra=True)
    aligned = score(["a", "abc"], ["a", "xyz"], "similarity", penalize_extra=True, align=method)
    assert aligned.score == ordered.score == 0.5
    records = score(
        ["b", 2, {"k": 3}, 10],
        [True, 3, {"v": "b", "w": "abc", "k": "xyz"}],
        "similarity",
        penalize_extra=True,
        align=method,
    )
    assert records.score >= 0.5 / 6  # positional order's


def test_alignment_under_penalize_extra_obeys_a_floor() -> None:
    spec = {"method": "hungarian", "min_similarity": 0.5}
    floored = score(["a", "abc"], ["a", "xyz"], "similarity", penalize_extra=True, align=spec)
    assert [f.status for f in floored.fields] == ["match", "omission", "hallucination"]


@pytest.mark.parametrize("method", ["hungarian", "unordered"])
def test_alignment_under_ignore_extra_prefers_fewer_mismatched_leaves(method: str) -> None:
    gold = [{"k": 10}, {"w": "ab", "k": "b", "v": "b"}]
    model = [{"k": "b"}, {"v": "b"}, {"k": "a", "w": "a", "v": "b"}]
    ordered = score(gold, model, ignore_extra=True)
    aligned = score(gold, model, ignore_extra=True, align=method)
    assert round(ordered.score, 4) == 0.3333
    assert aligned.score == 0.4  # gold 1 takes {"v": "b"}: 1 exact leaf, 0 mismatched


@pytest.mark.parametrize(
    ("gold_id", "model_id", "options", "paired"),
    [
        (True, "true", None, True),  # strict: a bool equals its text
        (True, "TRUE", None, True),
        (True, 1, None, False),  # a bool never equals a number
        (1, "1", None, True),  # coerced to the number
        (10**16, 1e16, None, True),  # numbers by value
        (True, "true", {"strict_types": True}, False),
    ],
)
def test_key_alignment_pairs_ids_the_leaves_call_exact(
    gold_id: Any, model_id: Any, options: dict[str, Any] | None, paired: bool
) -> None:
    per_path = {"answer[*].id": options} if options else None
    result = score(
        [{"id": gold_id, "v": 1}], [{"id": model_id, "v": 1}], align={"key": "id"}, options=per_path
    )
    assert result.passed is paired


def test_key_alignment_of_huge_integer_ids_pairs_them_by_value() -> None:
    big = 10**5000  # past Python's digit limit for str(): given already parsed
    options = {"answer[*].id": {"strict_types": False, "coerce_numeric_strings": False}}
    gold = [{"id": big, "v": 1}, {"id": big + 1, "v": 2}]
    result = score(gold, gold[::-1], align={"key": "id"}, options=options)
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("gold", "model", "equal"),
    [
        (0.1 + 0.2, 0.3, True),
        (0.3, "0.30000000000000004", True),
        (1.1 * 1.1, 1.21, True),
        (sum([0.1] * 100), 10.0, True),
        (12.3 - 12.2, 0.1, True),
        (1 / 3, "0.333333333333333", True),  # printed to 15 digits
        (6.9, "6.89999999999999", True),  # (as in the DeepSynth decompositions)
        (123456.789, 123456.78900001, True),
        (1717171717171.0, 1717171717172, False),  # a timestamp in ms, off by one
        (1e12, 1000000000001.0, False),
        (1000000000001.0, 1e12, False),
        (2.0**52 - 1, 2**52 - 2, False),
        (1717171717172, 1717171717170.5, False),  # further off than a whole unit
        (1717171717172, 1717171717171.6, True),  # under half a unit: rounding
        (8.03e15, 8.03 * 1e15, True),  # past 2**52 every float is whole
        (4.02e15, 4.02 * 1e15, True),  # from 2**51 a float's step is half a unit
        (4.02e15, 4.02e15 + 1, False),
        (8.03e15, "8.02999999999999e15", True),
        (1e20, 10**20 + 1, True),
        # parity30 #1: a gold written as an integer past 2**52 is exact, bar its own rounding
        (1717171717171717171, "1.717171717171e18", False),  # 717,107 ns off
        (1717171717171717171, "1.7171717171717172e18", True),  # the gold as a float
        (10**16, "1.0000000000001e16", False),
        (2**52, "4503599627370497.0", False),  # an id off by one, as below 2**52
        (2**53 + 1, "9007199254740992.0", True),  # no float holds the gold: its rounding
        (2**53, "9007199254740994.0", False),
        (1717171717171717171, "1.7171717171717174e18", False),  # the next float: +205
        (1717171717171717171, "1.7171717171717169e18", False),  # the one before: -307
    ],
)
@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_float_noise_is_a_few_units_in_the_last_place(
    gold: float, model: float | str, equal: bool, mode: str
) -> None:
    """Rounding noise is equal; two whole numbers that differ are not (they were, within a
    relative 1e-12: selfscore23 #3; a 4-ulp bound instead failed ordinary arithmetic: diff23b)."""
    answer = f'{{"v": {model}}}' if isinstance(model, str) else {"v": model}
    assert score({"v": gold}, answer, mode).passed is equal
