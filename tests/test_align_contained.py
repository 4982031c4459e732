"""``align={"method": "contained", "count": n}``: the answer takes n distinct elements out of
the gold's (AssetOpsBench's later ``set_contained``), in every mode."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.align import AlignSpec, align, parse_align
from pytest_structeval.errors import OptionsError, SchemaError
from pytest_structeval.results import HALLUCINATION, MATCH, OMISSION, SKIPPED

POOL = {"assets": ["Pump 1", "Pump 2", "Chiller 6", "AHU 3", "Fan 9"]}
PICK3 = {"answer.assets": {"method": "contained", "count": 3}}


def statuses(result: Any) -> list[tuple[str, str]]:
    return [(f.path, f.status) for f in result.fields]


def test_any_n_distinct_elements_of_the_gold_in_any_order_pass() -> None:
    result = score(POOL, {"assets": ["fan 9", "pump 2", "CHILLER 6"]}, align=PICK3)
    assert result.passed
    assert result.score == 1.0
    assert statuses(result) == [
        ("answer.assets[0]", SKIPPED),
        ("answer.assets[1]", MATCH),
        ("answer.assets[2]", MATCH),
        ("answer.assets[3]", SKIPPED),
        ("answer.assets[4]", MATCH),
    ]
    assert result.fields[0].reason == "not chosen (3 of the gold's elements asked for)"
    assert result.metrics["total_gold_keys"] == 3
    assert result.metrics["notes"] == []


def test_too_few_leaves_as_many_gold_elements_missing_as_it_lacks() -> None:
    result = score(POOL, {"assets": ["Pump 2"]}, align=PICK3)
    assert not result.passed
    assert result.metrics["total_gold_keys"] == 3
    assert result.metrics["missing_keys"] == ["answer.assets[0]", "answer.assets[2]"]
    assert result.fields[0].reason == (
        "the answer takes fewer than the 3 of the gold's elements asked for"
    )
    assert result.metrics["notes"] == [
        "answer.assets: the answer lists 1 distinct element; 3 are asked for"
    ]


def test_a_foreign_a_repeated_and_one_past_the_count_are_extra_each_saying_why() -> None:
    model = {"assets": ["Pump 2", "Boiler", "pump 2", "AHU 3", "Fan 9", "Pump 1"]}
    result = score(POOL, model, align=PICK3)
    assert not result.passed
    extra = {f.model: f.reason for f in result.fields if f.status == HALLUCINATION}
    assert extra == {
        "Boiler": "extra element (model index 1): not one of the gold's elements",
        "pump 2": "extra element (model index 2): listed again",
        "Pump 1": "extra element (model index 5): past the 3 elements asked for",
    }
    assert result.metrics["exact_value_matches"] == 3
    assert result.metrics["notes"] == [
        "answer.assets: the answer lists 5 distinct elements; 3 are asked for"
    ]


def test_records_are_picked_whole_and_compared_as_the_mode_normalises_them() -> None:
    gold = {"rows": [{"id": "A", "n": 1}, {"id": "B", "n": 2}, {"id": "C", "n": 3}]}
    pick = {"answer.rows": {"method": "contained", "count": 2}}
    assert score(gold, {"rows": [{"n": 3, "id": "c"}, {"id": "a", "n": 1}]}, align=pick).passed
    wrong = score(gold, {"rows": [{"id": "C", "n": 4}, {"id": "A", "n": 1}]}, align=pick)
    assert not wrong.passed  # a changed record is not one of the gold's
    similar = score(
        gold, {"rows": [{"id": "C", "n": 3}, {"id": "A", "n": 1}]}, "similarity", align=pick
    )
    assert similar.passed


def test_a_pool_smaller_than_the_count_says_so_and_its_repeats_are_never_lacking() -> None:
    """Review diff20b #4: a pool's repeated element was charged as missing: no answer passed."""
    three = {"answer.a": {"method": "contained", "count": 3}}
    result = score({"a": ["x", "x", "y"]}, {"a": ["x", "y"]}, align=three)
    assert result.passed
    assert result.metrics["notes"] == [
        "answer.a: the answer lists 2 distinct elements; 3 are asked for",
        "answer.a: the gold holds 2 distinct elements, fewer than count 3",
    ]
    assert score({"a": ["x", "y"]}, {"a": ["x", "y"]}, align=three).passed


def test_schema_mode_takes_it_as_x_eval_align_with_the_items_transforms() -> None:
    schema = {
        "type": "object",
        "properties": {
            "assets": {
                "type": "array",
                "x-eval-align": {"method": "contained", "count": 2},
                "items": {"type": "string", "x-eval-transform": ["strip", "lowercase"]},
            }
        },
    }
    result = score(POOL, {"assets": [" AHU 3", "pump 1 "]}, "schema", schema=schema)
    assert result.passed
    assert [f.status for f in result.fields].count(SKIPPED) == 3
    short = score(POOL, {"assets": ["AHU 3", "Boiler"]}, "schema", schema=schema)
    assert [f.status for f in short.fields].count(OMISSION) == 1
    assert [f.status for f in short.fields].count(HALLUCINATION) == 1
    with pytest.raises(SchemaError, match="needs count"):
        score(POOL, POOL, "schema", schema={**schema, "properties": {"assets": {
            **schema["properties"]["assets"], "x-eval-align": "contained"}}})  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("contained", "needs count"),
        ({"method": "contained"}, "needs count"),
        ({"method": "contained", "count": 0}, "needs count"),
        ({"method": "contained", "count": True}, "needs count"),
        ({"method": "unordered", "count": 2}, "count 2 only applies to method 'contained'"),
        ({"method": "contained", "count": 2, "min_similarity": 0.5}, "min_similarity only"),
    ],
)
def test_bad_specs_are_usage_errors(spec: Any, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        parse_align(spec)


@given(
    pool=st.lists(st.integers(0, 30), min_size=1, max_size=12, unique=True),
    data=st.data(),
)
def test_every_pick_of_count_distinct_pool_elements_passes_and_pairs_each(
    pool: list[int], data: st.DataObject
) -> None:
    count = data.draw(st.integers(1, len(pool)))
    picked = data.draw(st.permutations(pool).map(lambda p: p[:count]))
    found = align(pool, picked, AlignSpec("contained", count=count))
    assert sorted(j for _, j in found.pairs) == list(range(count))
    assert all(pool[i] == picked[j] for i, j in found.pairs)
    assert (found.unmatched_gold, found.unmatched_model, found.notes) == ((), (), ())
    assert len(found.unchosen_gold) == len(pool) - count
    assert score(
        {"a": pool}, {"a": picked}, align={"answer.a": {"method": "contained", "count": count}}
    ).passed


@given(
    pool=st.lists(st.integers(0, 9), min_size=1, max_size=8, unique=True),
    model=st.lists(st.integers(0, 12), max_size=10),
    count=st.integers(1, 8),
)
def test_every_gold_element_is_paired_missing_or_unchosen_and_the_missing_fill_the_count(
    pool: list[int], model: list[int], count: int
) -> None:
    found = align(pool, model, AlignSpec("contained", count=count))
    paired = [i for i, _ in found.pairs]
    assert sorted(paired + list(found.unmatched_gold) + list(found.unchosen_gold)) == list(
        range(len(pool))
    )
    assert len(found.pairs) <= count
    assert len(found.pairs) + len(found.unmatched_gold) == min(count, len(pool))
    assert sorted([j for _, j in found.pairs] + list(found.unmatched_model)) == list(
        range(len(model))
    )


ROWS = {"rows": [{"id": "A", "n": "x"}, {"id": "B", "n": "y"}, {"id": "C", "n": "z"}]}
PICK2 = {"answer.rows": {"method": "contained", "count": 2}}


def test_records_pair_by_their_leaves_own_options_whatever_other_paths_have() -> None:
    """Review diff20b #1: any per-path option made records pair only when byte-equal."""
    model = {"rows": [{"id": "a", "n": "X"}, {"id": "c", "n": "Z"}]}
    assert score(ROWS, model, align=PICK2).score == 1.0
    elsewhere = {"answer.other": {"case_sensitive": True}}
    assert score(ROWS, model, align=PICK2, options=elsewhere).score == 1.0
    inside = {"answer.rows[*].n": {"case_sensitive": True}}
    assert score(ROWS, model, align=PICK2, options=inside).score == 0.0  # n is compared as cased


def test_ignored_fields_do_not_keep_records_apart() -> None:
    """Review diff20b #2."""
    gold = {"rows": [{"id": "A", "ts": 1}, {"id": "B", "ts": 2}, {"id": "C", "ts": 3}]}
    model = {"rows": [{"id": "A", "ts": 9}, {"id": "C", "ts": 8}]}
    assert score(gold, model, align=PICK2, ignore_paths=["answer.rows[*].ts"]).passed
    assert not score(gold, model, align=PICK2).passed


@pytest.mark.parametrize("mode", ["strict", "similarity"])
@pytest.mark.parametrize("picks", [[], None, ["Z"]])
def test_an_empty_missing_or_wrong_answer_lacks_count_elements_not_the_pool(
    mode: str, picks: list[str] | None
) -> None:
    """Review diff20b #3: an empty answer counted all 20 pool elements missing."""
    gold = {"site": "MAIN", "picks": [f"A{i}" for i in range(20)]}
    model: dict[str, Any] = {"site": "MAIN"} if picks is None else {"site": "MAIN", "picks": picks}
    result = score(gold, model, mode, align={"answer.picks": {"method": "contained", "count": 3}})
    statuses = [f.status for f in result.fields if f.path.startswith("answer.picks[")]
    assert statuses.count(OMISSION) == 3
    assert statuses.count(SKIPPED) == 17


def test_an_ignored_pool_element_never_takes_the_shortage() -> None:
    """Review diff20b #5: the missing slot fell on an ignored index and the answer passed."""
    result = score(
        {"a": ["x", "y", "z"]},
        {"a": ["y"]},
        align={"answer.a": {"method": "contained", "count": 2}},
        ignore_paths=["answer.a[0]"],
    )
    assert not result.passed
    assert [(f.path, f.status) for f in result.fields if f.status == OMISSION] == [
        ("answer.a[2]", OMISSION)
    ]


def test_one_contained_spec_for_every_array() -> None:
    """Review diff20b #7: a global spec was read as per-path and refused."""
    assert score(
        {"t": ["x", "y", "z"]}, {"t": ["z"]}, align={"method": "contained", "count": 1}
    ).passed


@pytest.mark.parametrize(
    "answer", [{"site": "M"}, {"site": "M", "a": None}, {"site": "M", "a": []}]
)
def test_schema_mode_a_missing_or_null_array_lacks_count_elements_too(answer: Any) -> None:
    """Review diff20c #1: a missing or null array counted the whole pool missing."""
    schema = {
        "type": "object",
        "properties": {
            "site": {"type": "string"},
            "a": {
                "type": "array",
                "x-eval-align": {"method": "contained", "count": 2},
                "items": {"type": "string"},
            },
        },
    }
    result = score({"site": "M", "a": ["x", "y", "z", "w"]}, answer, "schema", schema=schema)
    statuses = [f.status for f in result.fields if f.path.startswith("answer.a[")]
    assert (statuses.count(OMISSION), statuses.count(SKIPPED)) == (2, 2)


def test_ignored_pool_elements_are_out_of_the_pool_and_a_copy_stands_in() -> None:
    """Review diff20c #2: said so in a note only when the rest was ignored; a model element
    equal to an ignored first copy paired with it rather than with the copy that counts."""
    two = {"answer.a": {"method": "contained", "count": 2}}
    out = score(
        {"a": ["x", "y", "z"]}, {"a": ["y"]}, align=two, ignore_paths=["answer.a[0]", "answer.a[2]"]
    )
    assert out.metrics["notes"][-1] == (
        "answer.a: the gold holds 1 distinct element not ignored, fewer than count 2"
    )
    copy = score({"a": ["x", "x", "y"]}, {"a": ["x"]}, align=two, ignore_paths=["answer.a[0]"])
    assert [(f.path, f.status) for f in copy.fields] == [
        ("answer.a[0]", SKIPPED),
        ("answer.a[1]", MATCH),
        ("answer.a[2]", OMISSION),
    ]


@pytest.mark.parametrize("model", [{"a": []}, {}])
def test_an_empty_or_missing_array_keeps_the_alignment_notes(model: Any) -> None:
    """Review diff20c #3."""
    result = score(
        {"a": ["x", "y"]}, model, align={"answer.a": {"method": "contained", "count": 3}}
    )
    assert result.metrics["notes"] == [
        "answer.a: the answer lists 0 distinct elements; 3 are asked for",
        "answer.a: the gold holds 2 distinct elements, fewer than count 3",
    ]


_POOL_OF = {
    "type": "array",
    "x-eval-align": {"method": "contained", "count": 2},
    "items": {"type": "string"},
}


@pytest.mark.parametrize(
    "answer", [{"site": "M"}, {"site": "M", "o": None}, {"site": "M", "o": {}}]
)
def test_schema_mode_a_missing_parent_lacks_count_elements_too(answer: Any) -> None:
    """Review diff20d #3: under a missing or null parent the whole pool was missing."""
    schema = {
        "type": "object",
        "properties": {
            "site": {"type": "string"},
            "o": {"type": "object", "properties": {"a": _POOL_OF}},
        },
    }
    result = score({"site": "M", "o": {"a": ["x", "y", "z", "w"]}}, answer, "schema", schema=schema)
    statuses = [f.status for f in result.fields if f.path.startswith("answer.o.a[")]
    assert (statuses.count(OMISSION), statuses.count(SKIPPED)) == (2, 2)


def test_schema_mode_edge_cases_of_a_missing_contained_array() -> None:
    """Review diff20d #2, #3 (a tuple gold) and #4 (an empty gold)."""
    unit = {"type": "array", "x-eval-align": {"method": "contained", "count": 2}}  # no items
    schema = {"type": "object", "properties": {"site": {"type": "string"}, "a": unit}}
    crashed = score({"site": "M", "a": ["x", "y", "z"]}, {"site": "M"}, "schema", schema=schema)
    assert [f.status for f in crashed.fields if f.path == "answer.a"] == [OMISSION]
    schema = {"type": "object", "properties": {"site": {"type": "string"}, "a": _POOL_OF}}
    pool = ("x", "y", "z", "w")
    as_tuple = score({"site": "M", "a": pool}, {"site": "M"}, "schema", schema=schema)
    assert [f.status for f in as_tuple.fields].count(OMISSION) == 2
    empty = score({"site": "M", "a": []}, {"site": "M"}, "schema", schema=schema)
    assert [(f.path, f.status) for f in empty.fields if f.path == "answer.a"] == [
        ("answer.a", OMISSION)
    ]


def test_an_ignored_element_not_taken_says_it_is_ignored() -> None:
    """Review diff20e #1: it said 'not chosen'."""
    one = {"answer.a": {"method": "contained", "count": 1}}
    result = score({"a": ["x", "y", "z"]}, {"a": ["y"]}, align=one, ignore_paths=["answer.a[0]"])
    assert result.fields[0].reason == "ignored (ignore_paths)"


def test_an_ignored_element_of_a_pool_left_out_says_it_is_ignored_too() -> None:
    one = {"answer.a": {"method": "contained", "count": 1}}
    result = score({"a": ["x", "y", "z"]}, {}, align=one, ignore_paths=["answer.a[2]"])
    assert [f.reason for f in result.fields][2] == "ignored (ignore_paths)"
