"""``strict`` mode: AssetOpsBench's metrics and rules, without its bugs."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.errors import AnswerParseError, LimitError, OptionsError
from pytest_structeval.paths import GlobMatcher
from pytest_structeval.results import HALLUCINATION, MATCH, MISMATCH, OMISSION, SKIPPED

ENERGY = {"energy": 14, "material": 48}
ENERGY_TEXT = '{"energy": 14, "material": 48}'


def statuses(result: Any) -> dict[str, str]:
    return {f.path: f.status for f in result.fields}


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


# ------------------------------------------------------------- the reference's examples


@pytest.mark.parametrize(
    "answer",
    [
        ENERGY_TEXT,
        f"```json\n{ENERGY_TEXT}\n```",
        f"I counted the work orders.\nFinal Answer: {ENERGY_TEXT}",
        "<think>draft: {'energy': 1}</think>\nThe counts are {'energy': 14, 'material': 48}.",
        ENERGY,
    ],
)
def test_energy_example_passes_in_every_wrapping(answer: Any) -> None:
    result = score(ENERGY_TEXT, answer, "strict")
    assert result.passed
    assert result.score == 1.0
    assert result.reason == "strict structured match"
    assert result.metrics["strict_exact_match_accuracy"] == 1.0
    assert result.metrics["total_gold_keys"] == result.metrics["exact_value_matches"] == 2
    assert result.parsed_model == ENERGY


def test_parse_method_of_the_model_is_recorded() -> None:
    assert score(ENERGY_TEXT, f"```json\n{ENERGY_TEXT}\n```").parse_method == "fence:json+json"
    assert score(ENERGY, ENERGY).parse_method == "value"


def test_every_metric_for_one_wrong_value() -> None:
    result = score(ENERGY, {"energy": 14, "material": 47}, "strict")
    m = result.metrics
    assert not result.passed
    assert m["strict_exact_match_accuracy"] == 0.0
    assert m["partial_exact_match_accuracy"] == m["recall"] == 0.5
    assert m["precision"] == 0.5
    assert m["f1"] == result.score == 0.5
    assert m["partial_similarity_score"] == pytest.approx((1 + (1 - 1 / 48)) / 2)
    assert (m["total_gold_keys"], m["total_model_keys"]) == (2, 2)
    assert (m["matched_keys"], m["exact_value_matches"]) == (2, 1)
    assert m["missing_keys"] == m["extra_keys"] == []
    assert result.reason == (
        "structured answer differs from ground truth: 1 mismatched, 0 missing, 0 extra"
    )


@pytest.mark.parametrize(
    ("answer", "head"),
    [
        ("", "model answer is empty"),
        (" \n", "model answer is empty"),
        ("I could not find the work order.", "model answer has no structure"),
        # realdata31 #3: a quoted sentence is one string too, as its unquoted twin
        ('Final Answer: "T-015 is healthy."', "model answer has no structure"),
        ('""', "model answer has no structure"),  # a string it wrote: not empty (diff31a #5)
        ('$\\boxed{"No readings for T-020."}$', "model answer has no structure"),
        ('{"a": 2}', "structured answer differs from ground truth"),
        ({"a": 2}, "structured answer differs from ground truth"),
    ],
)
def test_a_failing_reason_says_when_the_answer_had_no_structure(answer: Any, head: str) -> None:
    """Empty, prose and quoted answers were "structured answer differs" (audit 9 and
    realdata31 #3, real data)."""
    result = score({"a": 1}, answer)
    assert result.reason.startswith(f"{head}: ")
    text_gold = score("yes", "no")  # gold and answer both text: the reference's words
    assert text_gold.reason.startswith("structured answer differs from ground truth: ")


@pytest.mark.parametrize("mode", ["strict", "similarity"])
@pytest.mark.parametrize("answer", ["", " \n", "<think>draft</think>"])
def test_an_empty_answer_misses_every_gold_key_and_adds_none(mode: str, answer: str) -> None:
    """realdata31 #4: an empty answer was "model answer is empty: ... 1 extra", the empty
    string counted as a key the model added (31 real runs in the worst fields as ``answer``).
    It states nothing: a gold leaf is still a mismatch, as v1 has it."""
    ignored = score({"a": 1, "b": 1}, answer, mode=mode, ignore_paths=["answer.a"]).fields
    assert ignored[0].reason == "ignored (ignore_paths)"  # (diff31b #4: why it is skipped)
    result = score({"a": 1, "b": [2]}, answer, mode=mode)
    assert {f.path for f in result.fields} == {"answer.a", "answer.b[0]"}
    assert {f.reason for f in result.fields} == {"the model answer is empty"}  # (diff31a #5)
    assert result.score == 0.0
    if mode == "strict":
        assert result.reason == "model answer is empty: 0 mismatched, 2 missing, 0 extra"
        assert result.metrics["extra_keys"] == []
        assert result.metrics["total_model_keys"] == 0
    leaf = score("yes", answer, mode=mode).fields
    assert [(f.status, f.reason) for f in leaf] == [(MISMATCH, "text differs (similarity 0.00)")]
    (number,) = score(5, answer, mode=mode).fields  # (a gold leaf keeps its comparison)
    assert "number vs string" in (number.reason or "")
    if mode == "strict":  # a list gold has structure too (mutation31 D2)
        assert score([1, 2], answer).reason.startswith("model answer is empty: ")
        assert score([1, 2], "hello there").reason.startswith("model answer has no structure")


def test_missing_and_extra_keys() -> None:
    result = score({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 9, "d": 4})
    m = result.metrics
    assert m["missing_keys"] == ["answer.c"]
    assert m["extra_keys"] == ["answer.d"]
    assert (m["total_gold_keys"], m["total_model_keys"], m["matched_keys"]) == (3, 3, 2)
    assert m["exact_value_matches"] == 1
    assert m["precision"] == m["recall"] == pytest.approx(1 / 3)
    assert m["partial_similarity_score"] == pytest.approx((1 + 0.0) / 3)  # 9 vs 2: >100% off
    assert "1 mismatched, 1 missing, 1 extra" in result.reason


def test_an_extra_list_element_lowers_only_precision() -> None:
    result = score([1, 2], [1, 2, 3])
    m = result.metrics
    assert m["recall"] == 1.0
    assert m["precision"] == pytest.approx(2 / 3)
    assert m["extra_keys"] == ["answer[-1]"]
    assert not result.passed


def test_tuple_list_gold_matches_json_lists() -> None:
    gold = '[("Engines & motors", 5), ("Lines & drives", 2)]'
    assert score(gold, '[["engines & motors", 5], ["Lines & drives", 2]]').passed
    assert not score(gold, '[["Engines & motors", 5], ["Lines & drives", 3]]').passed


def test_equipment_group_rows_by_position_and_by_key() -> None:
    gold = [
        {"equipment_group": "Chillers", "count": 21},
        {"equipment_group": "Pumps", "count": 7},
    ]
    model = list(reversed(gold))
    assert score(gold, gold).passed
    assert not score(gold, model).passed
    assert score(gold, model, align={"key": "equipment_group"}).passed
    assert score(gold, model, align="hungarian").passed


@pytest.mark.parametrize("answer", ["34", "The answer is 34.", "Final Answer: 34", 34, 34.0])
def test_counts(answer: Any) -> None:
    assert score("34", answer).passed


@pytest.mark.parametrize(
    ("gold", "answer"), [("\u22125", "-5"), ("-5", "\u22125"), (-5, "\u22125")]
)
def test_a_count_with_the_typeset_minus_is_the_number_either_side(gold: Any, answer: Any) -> None:
    result = score(gold, answer)
    assert result.passed, result.reason
    assert not score(gold, "5").passed


def test_wrong_count_fails() -> None:
    result = score("34", "Final Answer: 35")
    assert not result.passed
    assert result.metrics["partial_similarity_score"] == pytest.approx(1 - 1 / 34)


def test_repair_replace_counts_and_zero_gold() -> None:
    gold = {"repair": 13, "replace": 0}
    assert score(gold, {"repair": 13, "replace": 0.0}).passed
    result = score(gold, {"repair": 13, "replace": 1})
    assert not result.passed
    assert result.metrics["partial_similarity_score"] == 0.5  # gold 0: all or nothing


# ------------------------------------------------------------- reference bugs not repeated


def test_single_number_answers_do_not_collapse() -> None:
    result = score('{"count": 5}', '{"total": 5}')
    assert not result.passed
    assert result.score == 0.0
    assert result.metrics["missing_keys"] == ["answer.count"]
    assert result.metrics["extra_keys"] == ["answer.total"]
    assert not score('{"ok": true, "n": 1}', '{"ok": false, "total": 1}').passed
    assert not score("[5]", "5").passed
    assert not score('{"count": 5}', "5").passed


@pytest.mark.parametrize(
    ("gold", "model"),
    [("FC101", "XX101"), ("Chiller 6", "Pump 6"), ("COMP-01", "FAN-01")],
)
def test_identifiers_are_not_numbers(gold: str, model: str) -> None:
    assert not score({"id": gold}, {"id": model}).passed


@pytest.mark.parametrize(
    ("gold", "model"),
    [
        ("on", "no"),
        ("normal", "lamron"),
        ("2020-06-26T11:14:36", "2020-06-26T11:41:36"),
    ],
)
def test_anagrams_are_not_exact(gold: str, model: str) -> None:
    result = score({"v": gold}, {"v": model})
    assert not result.passed
    assert result.metrics["exact_value_matches"] == 0
    assert result.score == 0.0
    assert 0.0 <= result.metrics["partial_similarity_score"] < 1.0


def test_empty_containers_are_leaves() -> None:
    assert not score({}, []).passed
    assert score({}, []).score == 0.0
    result = score({}, {})
    assert result.passed
    assert result.score == 1.0  # the reference: passed with score 0
    assert not score({"a": []}, {"a": {}}).passed
    assert not score({"a": []}, {}).passed


def test_dotted_keys_do_not_collide_with_nesting() -> None:
    result = score({"a.b": 1}, {"a": {"b": 1}})
    assert not result.passed
    assert result.metrics["missing_keys"] == ['answer["a.b"]']
    assert result.metrics["extra_keys"] == ["answer.a.b"]


def test_keys_are_case_sensitive_values_are_not() -> None:
    result = score({"Repair": 13}, {"repair": 13})
    assert not result.passed
    assert result.metrics["missing_keys"] == ["answer.Repair"]
    assert score({"s": "Repair"}, {"s": " repair "}).passed
    assert not score({"s": "Repair"}, {"s": "repair"}, case_sensitive=True).passed


def test_inner_whitespace_counts_unless_normalised() -> None:
    gold, model = {"s": "air conditioner"}, {"s": "air  conditioner"}
    assert not score(gold, model).passed
    assert score(gold, model, normalize_whitespace=True).passed


def test_value_normalisation() -> None:
    assert score({"id": "2876"}, {"id": 2876}).passed  # numeric strings are numbers
    assert score({"n": 3}, {"n": 3.0}).passed
    assert score('{"a": null}', "{'a': None}").passed
    assert not score({"a": True}, {"a": 1}).passed
    assert not score({"zip": "01234"}, {"zip": 1234}).passed  # leading zero: an identifier


def test_type_mismatch_splits_into_missing_and_extra() -> None:
    result = score({"a": 5}, {"a": {"b": 5}})
    assert result.metrics["missing_keys"] == ["answer.a"]
    assert result.metrics["extra_keys"] == ["answer.a.b"]
    assert result.metrics["matched_keys"] == 0
    assert "type mismatch" in (result.fields[0].reason or "")


def test_partial_similarity_is_continuous() -> None:
    result = score({"v": 100}, {"v": 99})
    assert result.metrics["partial_similarity_score"] == pytest.approx(0.99)
    result = score({"v": "abcd"}, {"v": "abce"})
    assert result.metrics["partial_similarity_score"] == pytest.approx(0.75)


def test_nan_never_earns_credit_and_equal_infinities_match() -> None:
    nan = float("nan")
    result = score({"v": nan}, {"v": nan})
    assert not result.passed
    assert result.metrics["partial_similarity_score"] == 0.0
    assert not score({"v": 5.0}, {"v": nan}).passed
    assert score({"v": math.inf}, {"v": math.inf}).passed
    assert not score({"v": math.inf}, {"v": -math.inf}).passed


# ------------------------------------------------------------------------------- options


def test_numeric_tolerance_decides_exactness() -> None:
    gold, model = {"v": 100}, {"v": 101}
    assert not score(gold, model).passed
    assert score(gold, model, numeric_tolerance={"rel": 0.01}).passed
    assert score(gold, model, numeric_tolerance=0.01).passed
    assert not score(gold, model, numeric_tolerance={"abs": 0.5}).passed
    assert score(gold, model, numeric_tolerance={"rel": 0.05, "abs": 0.5}).passed  # either bound
    assert not score(gold, model, numeric_tolerance={"rel": 0.005, "abs": 0.5}).passed
    assert score({"v": 0}, {"v": 0.001}, numeric_tolerance={"abs": 0.01}).passed


def test_per_path_options_override_the_defaults() -> None:
    gold = {"price": 100, "qty": 100, "name": "Pump"}
    model = {"price": 104, "qty": 104, "name": "pump"}
    result = score(
        gold,
        model,
        options={
            "answer.price": {"numeric_tolerance": {"rel": 0.05}},
            "answer.name": {"case_sensitive": True},
        },
    )
    assert statuses(result) == {
        "answer.price": MATCH,
        "answer.qty": MISMATCH,
        "answer.name": MISMATCH,
    }


def test_ignore_paths_give_skipped_fields_that_do_not_count() -> None:
    gold = {"a": 1, "meta": {"ts": "x", "id": 7}, "rows": [{"id": 1, "v": 2}, {"id": 2, "v": 3}]}
    model = {"a": 1, "meta": {"ts": "y"}, "rows": [{"id": 9, "v": 2}, {"id": 8, "v": 3}]}
    result = score(gold, model, ignore_paths=["answer.meta", "answer.rows[*].id"])
    assert result.passed
    assert result.metrics["total_gold_keys"] == 3
    skipped = [f.path for f in result.fields if f.status == SKIPPED]
    assert skipped == ["answer.meta", "answer.rows[0].id", "answer.rows[1].id"]


def test_everything_ignored_is_vacuously_exact() -> None:
    result = score({"a": 1}, {"a": 2}, ignore_paths="answer")
    assert result.passed
    assert result.score == 1.0
    assert result.metrics["total_gold_keys"] == 0


def test_threshold_turns_f1_into_the_verdict() -> None:
    result = score(ENERGY, {"energy": 14, "material": 47}, threshold=0.5)
    assert result.passed
    assert result.threshold == 0.5
    assert "f1 0.500 >= threshold 0.5" in result.reason
    assert not score(ENERGY, {"energy": 14, "material": 47}, threshold=0.6).passed


@pytest.mark.parametrize(
    "options",
    [
        {"nope": 1},
        {"threshold": 1.5},
        {"threshold": True},
        {"numeric_tolerance": -1},
        {"case_sensitive": "yes"},
        {"align": "sideways"},
        {"align": {"answer.rows": {"key": ""}}},
        {"ignore_paths": ["answer..x"]},
        {"options": {"answer.a": {"tolerance": 1}}},
        {"max_depth": 0},
        {"max_bytes": "big"},
        {"strict_parse": 1},
    ],
)
def test_bad_options_raise_options_error(options: dict[str, Any]) -> None:
    with pytest.raises(OptionsError):
        score(ENERGY, ENERGY, "strict", **options)


# ------------------------------------------------------------------------- error handling


def test_model_side_problems_are_error_results() -> None:
    too_big = score(ENERGY, "x" * 2_000, max_bytes=1_000)
    assert not too_big.passed
    assert too_big.score == 0.0
    assert too_big.error is not None
    assert "max_bytes" in too_big.error
    assert too_big.parsed_gold == ENERGY
    unparseable = score(ENERGY, "no structure here", strict_parse=True)
    assert unparseable.error is not None
    assert unparseable.reason.startswith("error: model answer")
    assert score(ENERGY, "{[1]: 2}").error is not None  # unhashable literal key


def test_deep_model_values_are_errors_not_crashes() -> None:
    result = score({"a": 1}, nested(5_000))
    assert result.error is not None
    assert "max_depth" in result.error
    assert score({"a": 1}, "[" * 5_000 + "]" * 5_000).error is not None


def test_gold_side_problems_raise() -> None:
    with pytest.raises(LimitError):
        score("x" * 2_000, ENERGY, max_bytes=1_000)
    with pytest.raises(LimitError):
        score(nested(300), {"a": 1})
    with pytest.raises(AnswerParseError):
        score("no structure", ENERGY, strict_parse=True)
    with pytest.raises(AnswerParseError):
        score("   ", ENERGY)


def test_depth_limit_is_configurable() -> None:
    assert score(nested(10), nested(10), max_depth=10).passed
    assert score(nested(10), nested(11), max_depth=10).error is not None


def test_alias_and_details_layout() -> None:
    result = score({"a": 1, "b": 2}, {"a": 1, "c": 3}, "static_json")
    assert result.mode == "strict"
    data = result.to_dict()
    assert data["missing_keys"] == ["answer.b"]
    details = {d["key"]: d for d in data["details"]}
    assert details["answer.a"]["match_type"] == "exact"
    assert details["answer.b"]["model_value"] == "MISSING"
    assert details["answer.c"]["gold_value"] == "NOT_IN_GOLD"
    assert [f.status for f in result.fields] == [MATCH, OMISSION, HALLUCINATION]


# ------------------------------------------------------------------- alignment notes

DUPLICATE_ROWS = (
    {"rows": [{"id": 1, "v": 1}, {"id": 1, "v": 2}, {"id": 2, "v": 3}]},
    {"rows": [{"id": 1, "v": 2}, {"id": 1, "v": 1}, {"id": 2, "v": 4}]},
)
DUPLICATE_NOTE = (
    "answer.rows: duplicate key 1 for field 'id' (gold at [0, 1], model at [0, 1]): "
    "paired in order of appearance"
)


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_duplicate_keys_that_all_pair_are_still_reported(mode: str) -> None:
    gold, model = DUPLICATE_ROWS
    result = score(gold, model, mode, align={"answer.rows": {"key": "id"}})
    assert result.metrics["notes"] == [DUPLICATE_NOTE]
    reasons = {f.path: f.reason for f in result.fields}
    # The pairs made by order of appearance say so, next to the mismatch they explain ...
    assert reasons["answer.rows[0].v"] == (
        "2 vs expected 1 (100% off); duplicate key 1 for field 'id': "
        "paired in order of appearance (model index 0)"
    )
    assert reasons["answer.rows[1].v"] == (
        "1 vs expected 2 (50% off); duplicate key 1 for field 'id': "
        "paired in order of appearance (model index 1)"
    )
    # ... and a pair with a unique key, or a match, carries no note.
    assert reasons["answer.rows[2].v"] == "4 vs expected 3 (33% off)"
    assert reasons["answer.rows[0].id"] is None
    data = result.to_dict()
    assert data["notes"] == [DUPLICATE_NOTE]
    json.dumps(data, allow_nan=False)


def test_each_unpaired_element_gets_its_own_reason_and_the_result_all_notes() -> None:
    gold = {"rows": [{"id": 1, "v": 1}, {"id": 1, "v": 2}, {"v": 9}, 3]}
    model = {"rows": [{"id": 1, "v": 1}, {"id": 2}, {"id": 2}]}
    result = score(gold, model, align={"answer.rows": {"key": "id"}})
    reasons = {f.path: f.reason for f in result.fields}
    assert reasons["answer.rows[1].v"] == (
        "no unpaired model element with id = 1; "
        "duplicate key 1 for field 'id': left over after pairing in order of appearance"
    )
    assert reasons["answer.rows[2].v"] == "element has no key field 'id'"
    assert reasons["answer.rows[3]"] == "element is not an object; it cannot be paired by key 'id'"
    assert reasons["answer.rows[-1].id"] == (
        "extra element (model index 1); no unpaired gold element with id = 2; "
        "duplicate key 2 for field 'id': left over after pairing in order of appearance"
    )
    assert result.metrics["notes"] == [
        "answer.rows: gold elements at [3] are not objects; they cannot be paired by key 'id'",
        "answer.rows: gold elements at [2] have no key field 'id'; they cannot be paired",
        "answer.rows: duplicate key 1 for field 'id' (gold at [0, 1], model at [0]): "
        "paired in order of appearance",
        "answer.rows: duplicate key 2 for field 'id' (gold at [], model at [1, 2]): "
        "paired in order of appearance",
    ]


def test_nested_arrays_report_notes_under_their_own_path() -> None:
    rows = [{"id": 1}, {"id": 1}]
    result = score(
        {"a": [{"rows": rows}]}, {"a": [{"rows": rows}]}, align={"answer.a[*].rows": {"key": "id"}}
    )
    assert result.passed
    assert result.metrics["notes"] == [
        "answer.a[0].rows: duplicate key 1 for field 'id' (gold at [0, 1], model at [0, 1]): "
        "paired in order of appearance"
    ]


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_results_without_alignment_notes_have_an_empty_list(mode: str) -> None:
    rows = {"rows": [{"id": 1, "v": 1}, {"id": 2, "v": 2}]}
    assert score(rows, rows, mode).metrics["notes"] == []
    assert score(rows, rows, mode, align={"key": "id"}).metrics["notes"] == []
    assert score(ENERGY, ENERGY, mode).to_dict()["notes"] == []


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_path_patterns_that_match_nothing_are_noted(mode: str) -> None:
    gold = {"price": 100, "items": [{"sku": "A", "id": 1}], "tags": [], "debug": {"t": 1}}
    model = {"price": 104, "items": [{"sku": "a", "id": 2}], "tags": [], "debug": {"t": 2}}
    result = score(
        gold,
        model,
        mode,
        options={
            "answer.price": {"numeric_tolerance": 0.05},  # used
            "answer.prcie": {"numeric_tolerance": 0.05},  # a typo
            "items[*].sku": {"case_sensitive": True},  # relative to the root: used
            "tags[*].name": {"case_sensitive": True},  # the array is empty on both sides
        },
        ignore_paths=["debug", "items[*].id", "answer.dbug"],
        align={"answer.items": "hungarian", "answer.itms": "unordered"},
    )
    assert result.metrics["notes"] == [
        "options pattern 'answer.prcie' matched no field",
        "options pattern 'tags[*].name' matched no field",
        "ignore_paths pattern 'answer.dbug' matched no field",
        "align pattern 'answer.itms' matched no field",
    ]
    # The notes are information: the typo changes nothing in the score.
    assert (
        score(gold, model, mode, options={"answer.prcie": {}}).score
        == score(gold, model, mode).score
    )
    # A model-only key is a field in both modes (similarity reports it, uncounted).
    only_model = score({"a": 1}, {"a": 1, "b": 2}, mode, ignore_paths=["b"])
    assert only_model.metrics["notes"] == []


@pytest.mark.parametrize("mode", ["strict", "similarity"])
@pytest.mark.parametrize(
    ("gold", "model", "skipped"),
    [
        ({"a": "x"}, {}, [("answer.a", "x", None)]),
        ({"n": {"a": "x"}}, {"n": {}}, [("answer.n.a", "x", None)]),
        ({"a": "x", "b": 1}, {"b": 1}, [("answer.a", "x", None)]),
    ],
)
def test_an_object_whose_keys_are_all_ignored_equals_an_empty_one(
    mode: str, gold: Any, model: Any, skipped: list[Any]
) -> None:
    result = score(gold, model, mode, ignore_paths=["a", "n.a"])
    assert result.passed
    assert result.score == 1.0
    assert [(f.path, f.gold, f.model) for f in result.fields if f.status == SKIPPED] == skipped
    assert all(f.status in (SKIPPED, MATCH) for f in result.fields)
    # Without the ignore, the empty object is a leaf of its own, as in key flattening.
    assert not score(gold, model, mode).passed


def test_double_star_globs_on_a_deep_answer_give_their_notes() -> None:
    """Ten ``**.meta.**.x<i>`` globs against a 199-deep answer: each path is one automaton
    step from its parent's state (as one backtracking regex this took 37-81 s)."""
    deep: Any = 1
    for _ in range(199):
        deep = {"meta": deep}
    model = {"b": 2, **{f"k{j}": deep for j in range(10)}}
    patterns = [f"**.meta.**.x{i}" for i in range(10)]
    result = score({"b": 2}, model, ignore_paths=patterns)
    assert result.metrics["notes"] == [
        f"ignore_paths pattern '{p}' matched no field" for p in patterns
    ]
    assert len(result.metrics["extra_keys"]) == 10
    kept = score({"b": 2}, model, ignore_paths=["**.meta.**.meta"])
    assert kept.metrics["extra_keys"] == []  # every deep leaf lies under a match


@pytest.mark.parametrize("pattern", ["x.y", "**.y", "**.x.**.y"])
def test_globs_never_fail_on_a_key_python_cannot_read_back(pattern: str) -> None:
    """A literal key (inf, 2) cannot be split back out of its path: the glob automaton
    raised OptionsError for it (second review); such a path goes by regex. A scored answer
    names the key by its text (as JSON would), so its path is a plain one there."""
    matcher = GlobMatcher((f"answer.{pattern}",), subtree=True)
    assert (matcher("answer.x[<(inf, 2)>]"), matcher("answer.x.y")) == (False, True)
    answer = {"x": {(math.inf, 2): 1, "y": 2}}  # (1e999 in a text is 10**999, written out)
    result = score({"x": {"y": 2}}, answer, ignore_paths=[pattern])
    assert result.error is None
    assert result.metrics["extra_keys"] == ['answer.x["(inf, 2)"]']


def test_ignore_paths_skip_elements_paired_by_alignment() -> None:
    """An ignored element is skipped after unordered or key alignment too, as a whole, not
    compared or split into its fields (review mutants16-core k11)."""
    unordered = score(
        {"x": [1, 2, 3]}, {"x": [1, 2, 4]}, align="unordered", ignore_paths=["answer.x[2]"]
    )
    assert unordered.passed is True
    assert unordered.score == 1.0
    assert [(f.path, f.status) for f in unordered.fields] == [
        ("answer.x[0]", MATCH),
        ("answer.x[1]", MATCH),
        ("answer.x[2]", SKIPPED),
    ]
    keyed = score(
        {"x": [{"id": 1, "v": 1}, {"id": 2, "v": 5}]},
        {"x": [{"id": 2, "v": 9}, {"id": 1, "v": 1}]},
        align={"key": "id"},
        ignore_paths=["answer.x[1]"],
    )
    assert keyed.passed is True
    assert [(f.path, f.status, f.reason) for f in keyed.fields] == [
        ("answer.x[0].id", MATCH, None),
        ("answer.x[0].v", MATCH, None),
        ("answer.x[1]", SKIPPED, "ignored (ignore_paths)"),
    ]


@pytest.mark.parametrize(
    ("mode", "extra"), [("similarity", {}), ("strict", {"ignore_extra": True}), ("strict", {})]
)
def test_an_object_whose_keys_are_all_ignored_is_an_empty_object(
    mode: str, extra: dict[str, Any]
) -> None:
    """Review property29b #1: it dropped out, so whatever the model put there was an extra,
    uncounted in similarity and with ignore_extra: a scalar there passed with 1.0, and at the
    root any answer did (UiPath's bug §7.4)."""
    gold = {"n": 3, "result": {"debug": 1}}
    ignored = score(gold, {"n": 3, "result": "garbage"}, mode, ignore_paths=["**.debug"], **extra)
    deleted = score({"n": 3, "result": {}}, {"n": 3, "result": "garbage"}, mode, **extra)
    assert (ignored.passed, ignored.score) == (deleted.passed, deleted.score) == (False, 0.5)
    assert [(f.path, f.status) for f in ignored.fields] == [
        ("answer.n", "match"),
        ("answer.result.debug", "skipped"),
        ("answer.result", "mismatch"),
    ]
    for model in (None, "I don't know", 42, [1, 2], {"x": 1}):
        assert not score({"debug": {"t": 1}}, model, mode, ignore_paths=["answer.debug"]).passed
    for model in ({}, {"debug": 5}):  # an object of ignored keys alone equals it
        assert score({"debug": {"t": 1}}, model, mode, ignore_paths=["answer.debug"]).passed


@pytest.mark.parametrize("mode", ["similarity", "strict"])
@pytest.mark.parametrize("align", ["ordered", "unordered", "hungarian", {"method": "sequence"}])
def test_an_all_ignored_gold_object_is_an_empty_object_wherever_it_stands(
    mode: str, align: Any
) -> None:
    """diff29b #2, #4: the rule held only where the object was paired with a model value: a
    missing key, an unpaired element or an object of ignored keys alone on both sides still
    scored otherwise than deleting the ignored keys from both sides."""
    cases = [
        (True, {"debug": {"t": 1}}),  # a model object of ignored keys alone is {} (diff29c #5)
        ({"x": 1, "y": 5}, {"x": 1, "y": {"debug": 2}}),
        ({"result": {"debug": {"t": 1}}}, None),
        ({"result": {"debug": {"t": 1}}}, {}),
        ({"n": 3, "result": {"debug": 1}}, {"n": 3}),
        ({"a": 1, "meta": {"debug": 5}}, {"a": 2, "meta": {"debug": 6}}),
        ({"l": [{"debug": 1}, {"debug": 2}]}, {"l": [7, 8]}),
        ({"l": [{"debug": 1}, {"debug": 2}, 5]}, {"l": [{"debug": 1}]}),
    ]
    for gold, model in cases:
        ignored = score(gold, model, mode, ignore_paths=["**.debug"], align=align)
        deleted = score(_without_debug(gold), _without_debug(model), mode, align=align)
        assert (ignored.passed, ignored.score) == (deleted.passed, deleted.score), (gold, model)
        paths = [f.path for f in ignored.fields]
        assert len(paths) == len(set(paths)), paths  # each skipped once


def _without_debug(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_debug(v) for k, v in value.items() if k != "debug"}
    if isinstance(value, list):
        return [_without_debug(v) for v in value]
    return value


@pytest.mark.parametrize("mode", ["similarity", "strict"])
def test_ignoring_keys_under_absent_values_and_contained_alignment_equals_deleting_them(
    mode: str,
) -> None:
    """diff29c #1, #2: with absent_values an empty object is no value, so an object of ignored
    keys alone is none either; a contained element of ignored keys alone equals {}."""
    absent = {"absent_values": [None]}
    cases = [
        ({"x": 1, "meta": {"debug": 5}}, {"x": 1}, absent),
        ({"x": 1, "meta": {"debug": 5}}, {"x": 2, "meta": {"debug": 6}}, absent),
        ([{"debug": 1}, "x"], [{}, "x"], {"align": {"method": "contained", "count": 2}}),
    ]
    for gold, model, options in cases:
        ignored = score(gold, model, mode, ignore_paths=["**.debug"], **options)
        deleted = score(_without_debug(gold), _without_debug(model), mode, **options)
        assert (ignored.passed, ignored.score) == (deleted.passed, deleted.score), (gold, model)
