"""struct_extract_eval habits a switching team brings (review switcher21): its post-processor
recipes, judges that fail softly while elements are paired, compound comparators unit-tested
with hand-built items, and post_process named in a scenario config."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.errors import OptionsError
from pytest_structeval.registry import default_registry
from pytest_structeval.schema import (
    ComparatorResult,
    CompoundComparator,
    NullHandling,
    evaluate,
    propagate_batch_errors,
    reclassify_nulls,
)
from pytest_structeval.schema.batch import BatchItem
from pytest_structeval.schema.results import FieldResult

SCHEMA = {
    "type": "object",
    "properties": {
        "a": {"type": "string", "x-eval-compare": "exact"},
        "b": {"type": "string", "x-eval-compare": "exact"},
    },
}


def statuses(post_process: Any) -> tuple[list[tuple[str, str]], float]:
    run = evaluate([{"a": "x", "b": "y"}], [{"a": "x", "b": ""}], SCHEMA, post_process=post_process)
    record = run.records[0]
    return [(f.path, f.status) for f in record.fields], record.f1


def test_the_references_in_place_recipe_works() -> None:
    """The reference's post-processors change the list in place; its documented recipe calls
    them without using what they return. Here they returned new lists, so the recipe
    silently did nothing (F1 0.5 where the reference gives 0.6667)."""

    def recipe(fields: list[FieldResult]) -> list[FieldResult]:
        propagate_batch_errors(fields)
        reclassify_nulls(fields, NullHandling(absent_values=[None, ""]))
        return fields

    assert statuses(recipe) == ([("a", "match"), ("b", "omission")], pytest.approx(2 / 3))


def test_a_post_processor_may_change_the_list_and_return_none() -> None:
    def in_place(fields: list[FieldResult]) -> None:
        reclassify_nulls(fields, NullHandling(absent_values=[""]))

    assert statuses(in_place)[0] == [("a", "match"), ("b", "omission")]
    assert statuses(lambda fields: list(reversed(fields)))[0] == [("b", "mismatch"), ("a", "match")]


def test_a_post_processor_returning_no_list_is_named() -> None:
    def count(fields: list[FieldResult]) -> int:
        return len(fields)

    with pytest.raises(TypeError, match="post_process count returned int: return the field"):
        statuses(count)


def test_a_post_process_a_scenario_config_could_hold_is_a_usage_error() -> None:
    """A scenario's run said "scorer 'schema' failed: TypeError"; a usage error names the
    scenario's options and the way to do it."""
    with pytest.raises(OptionsError, match=r"got str \(a scenario config holds none: register"):
        score({"a": "x"}, {"a": "x"}, "schema", post_process="reclassify_nulls")


@pytest.mark.parametrize(
    ("failure", "note"),
    [
        ("short", "returned 0 verdicts for 4 candidate values: exact equality paired them"),
        ("none", "gave an unusable verdict on the candidate pairs (invalid score None)"),
        ("out of range", "gave an unusable verdict on the candidate pairs (invalid score 7.0)"),
        ("raise", "raised TimeoutError('rate limited') on the candidate pairs"),
    ],
)
def test_a_judge_failing_on_the_candidate_pairs_is_a_failed_call(failure: str, note: str) -> None:
    """A short list, None entries or bad scores read as "different", so the model was charged
    with its right elements as missing and extra, without a note: such a call failed, as one
    that raises does (exact equality pairs the elements, and a note says so)."""
    calls = []

    def judge(items: list[BatchItem]) -> Any:
        calls.append(len(items))
        good = [float(i.gold_compared.lower() == i.extracted_compared.lower()) for i in items]
        if len(calls) > 1:
            return good
        if failure == "short":
            return []
        if failure == "none":
            return [None] * len(items)
        if failure == "out of range":
            return [ComparatorResult(7.0, "judge")] * len(items)
        raise TimeoutError("rate limited")

    judge.is_batch = True  # type: ignore[attr-defined]
    registry = default_registry().copy()
    registry.register_comparator("judge", judge)
    item = {"type": "object", "properties": {"n": {"type": "string", "x-eval-compare": "judge"}}}
    schema = {
        "type": "object",
        "properties": {"a": {"type": "array", "x-eval-align": "hungarian", "items": item}},
    }
    gold, model = {"a": [{"n": "Anneal"}, {"n": "Cool"}]}, {"a": [{"n": "cool"}, {"n": "anneal"}]}
    record = evaluate([gold], [model], schema, registry=registry).records[0]
    (only,) = record.notes
    assert only.startswith(f"a: batch comparator 'judge' {note}")
    assert only.endswith(": exact equality paired them")


class _Names(CompoundComparator):
    def __init__(self) -> None:
        super().__init__(["surname", "name"], "surname", "names")

    def compare(self, gold: dict[str, Any], extracted: dict[str, Any]) -> float:
        return float({k: str(v).lower() for k, v in gold.items()} == extracted)


def test_a_compound_groups_hand_built_items_by_their_paths() -> None:
    """Items built as the reference's BatchItem is (a path, no name) scored 0 with "this
    value has no property name": the name is read off the path, as the reference groups."""
    items = [
        BatchItem("people[0].surname", "Smith", "smith", "Smith", "smith"),
        BatchItem("people[0].name", "John", "john", "John", "john"),
        BatchItem("people[1].name", "Ann", "ann", "Ann", "ann"),
        BatchItem("people[2]", "x", "x", "x", "x"),
    ]
    results = _Names()(items)
    assert [(r.score, r.reason, r.skip) for r in results[:3]] == [
        (1.0, "compound", False),
        (0.0, "compound with people[0].surname", True),
        (0.0, "incomplete compound (missing ['surname'])", False),
    ]
    assert "has no property name" in results[3].reason
