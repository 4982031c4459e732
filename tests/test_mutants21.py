"""Mode answers, evaluation_metadata and ``contained`` behaviour that a mutation review
(mutants21) showed untested: each test fails on the mutants named in its docstring."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.align import AlignSpec, align
from pytest_structeval.errors import OptionsError
from pytest_structeval.metadata import with_metadata
from pytest_structeval.modes.car import derived_terms
from pytest_structeval.results import HALLUCINATION, MATCH, MISMATCH, OMISSION, SKIPPED

CONTAINED_ONE = {"method": "contained", "count": 1}


def labels(text: str) -> list[str]:
    return [term.label for term in derived_terms(text)[0]]


def car(gold: str, said: Any, **options: Any) -> Any:
    return score({"response": gold}, {"response": said}, mode_answers=True, **options)


def stated(said: str, term: str) -> bool:
    return score({"response": "x"}, {"response": said}, required_terms=[term]).passed


def shown(result: Any) -> list[tuple[str, str, str | None]]:
    return [(f.path, f.status, f.reason) for f in result.fields]


# ------------------------------------------------------------------ terms read from a gold


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Which line: "A" or "B"?', ["A", "B"]),  # C2: one-character quoted phrases
        ("Check the .FC1 file and FC-2", ["FC-2"]),  # C4: .FC1 is a file name
        ("Pumps FC-101- and FC-102", ["FC-102"]),  # C5: an id a hyphen continues is none
        ('Say "..." to "P-101"', ["P-101"]),  # C29: punctuation alone is no term
    ],
)
def test_terms_read_from_a_gold(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


def test_a_quoted_phrase_of_punctuation_is_not_always_stated() -> None:
    """C29: an empty term was "stated" by any answer."""
    assert car('Say "..." to "P-101"', "nothing").score == 0.0


@pytest.mark.parametrize(
    ("gold", "said", "expected"),
    [
        ("Yes", "No", 0.0),  # C7: a bare "Yes" is a stance
        ("Yes \u2014 P-101 tripped", "No, P-101 tripped", 0.0),  # C9: an em dash ends it
        ("Yes, P-101 tripped.", "P-101 tripped, yes", 0.5),  # C11: a later yes is none
        ("No, P-101 is fine.", "Yes, P-101 is fine.", 0.0),  # C55: the reverse of yes/no
    ],
)
def test_stances(gold: str, said: str, expected: float) -> None:
    assert car(gold, said).score == expected


@pytest.mark.parametrize(("phrases", "note"), [(200, False), (201, True)])
def test_the_note_on_terms_left_out_starts_past_200(phrases: int, note: bool) -> None:
    """C28, C31: the bound exactly (phrases of letters: a word with a digit is an id too)."""
    names = [chr(97 + i // 26) + chr(97 + i % 26) for i in range(phrases)]
    result = car(" ".join(f'"{name}"' for name in names), "aa")
    assert len(result.metrics["required_terms"]) == 200
    assert bool(result.metrics["notes"]) is note


# ------------------------------------------------------------------ terms given


def test_200_synonyms_and_a_200_character_term_are_accepted() -> None:
    """C20, C22: the bounds are inclusive."""
    synonyms = [{"any_of": [f"t{i}" for i in range(200)]}]
    assert score({"response": "x"}, {"response": "t0"}, required_terms=synonyms).score == 1.0
    assert stated("a" * 200, "a" * 200)


def test_a_term_mapping_with_keys_besides_any_of_is_refused() -> None:
    """C25: an ``all_of`` beside ``any_of`` was silently dropped."""
    with pytest.raises(OptionsError, match="is not a term"):
        score(
            {"response": "x"},
            {"response": "pump"},
            required_terms=[{"any_of": ["pump"], "all_of": ["valve"]}],
        )


@pytest.mark.parametrize(
    ("said", "term", "expected"),
    [
        ("A-P-101 pump", "P-101 pump", False),  # C69: the first word's id edge
        ("pump AHU-1B-2", "pump AHU-1B", False),  # C70: the last word's id edge
        ("issue#5", "#5", True),  # C72: a term opening with punctuation
        ("C++11 code", "C++", True),  # C78: a term ending with punctuation
    ],
)
def test_term_edges(said: str, term: str, expected: bool) -> None:
    assert stated(said, term) is expected


# ------------------------------------------------------------------ scoring a mode answer


def test_a_two_key_gold_with_a_mode_key_is_compared_key_by_key() -> None:
    """C14."""
    result = score(
        {"response": "P-101", "site": "A"},
        {"response": "it was P-101", "site": "A"},
        mode_answers=True,
    )
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.response", MISMATCH),
        ("answer.site", MATCH),
    ]


def test_the_mode_key_in_another_letter_case_matches_the_mode() -> None:
    """C46: mode_match, not only car_score."""
    result = score({"response": "P-101"}, {"Response": "P-101"}, mode_answers=True)
    assert result.metrics["mode_match"] == 1.0


@pytest.mark.parametrize(("threshold", "passed"), [(None, False), (0.5, True), (0.6, False)])
def test_passed_at_partial_credit(threshold: float | None, passed: bool) -> None:
    """C49, C50: half the terms is 0.5; it passes a threshold of 0.5 and nothing stricter."""
    result = score(
        {"response": "x"},
        {"response": "pump"},
        required_terms=["pump", "valve"],
        threshold=threshold,
    )
    assert (result.score, result.passed) == (0.5, passed)


def test_reasons_naming_the_model_answers_keys() -> None:
    """C56, C57: none at all, and at most five keys shown."""
    empty = score({"response": "x"}, {}, mode_answers=True)
    assert empty.fields[0].reason == (
        "expected one key naming the mode (clarification, abstain, response); "
        "the model answer has none"
    )
    five = {"response": "P-101", "a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
    reason = score({"response": "P-101"}, five, mode_answers=True).fields[0].reason
    assert reason == "a mode answer is one key; the model answer also has 'a', 'b', 'c', 'd', 'e'"
    six = score({"response": "P-101"}, {**five, "f": 6}, mode_answers=True).fields[0].reason
    assert six.endswith("'e', ...")


def test_the_model_values_depth_bound_is_exact() -> None:
    """C58, C59: max_depth containers are refused, tuples too; fewer are read."""
    terms = {"required_terms": ["x"]}
    assert score({"response": "x"}, {"response": ["x"]}, max_depth=2, **terms).score == 1.0
    deep = score({"response": "x"}, {"response": [["x"]]}, max_depth=2, **terms)
    assert deep.error == "model answer: value nests deeper than max_depth=2 at answer.response[0]"
    nested = ((((("x",),),),),)
    assert score({"response": "x"}, {"response": nested}, max_depth=3, **terms).error is not None


def test_a_non_text_mode_value_is_read_through_its_keys() -> None:
    """C60."""
    assert (
        score({"response": "x"}, {"response": {"asset": "P-101"}}, required_terms=["asset"]).score
        == 1.0
    )


# ------------------------------------------------------------------ evaluation_metadata


@pytest.mark.parametrize(
    ("metadata", "options"),
    [
        ({"required_terms": []}, {"required_terms": []}),  # M3: an empty list is kept
        (
            {"keys": {True: {"mode": "measure"}}},
            {"options": {"answer.true": {"numeric_tolerance": {"abs": 1}}}},
        ),  # M7
        (
            {"keys": {"t": {"mode": "timestamp", "tolerance_s": 0}}},
            {"options": {"answer.t": {"timestamp_tolerance": 0}}},
        ),  # M11
        ({"required_terms": "P-101"}, {"required_terms": "P-101"}),  # M30: the scorer refuses it
    ],
)
def test_metadata_values_pass_on_as_given(metadata: Any, options: dict[str, Any]) -> None:
    assert with_metadata({}, metadata) == (options, [])


@pytest.mark.parametrize(
    ("metadata", "messages"),
    [
        ({"bogus": 1, "keys": [1]}, ["unknown key 'bogus'", "keys must be a mapping"]),  # M6
        ({"keys": {"t": {"mode": "set_contained", "n": 0}}}, ["needs n"]),  # M14
        ({"keys": {"t": {"mode": "set_contained", "n": True}}}, ["needs n"]),  # M15
        ({"keys": {"x": {"mode": ["measure"]}}}, ["unknown mode ['measure']"]),  # M24
    ],
)
def test_metadata_errors(metadata: Any, messages: list[str]) -> None:
    _, errors = with_metadata({}, metadata)
    assert len(errors) == len(messages)
    for error, message in zip(errors, messages, strict=True):
        assert message in error


def test_a_scenarios_own_option_it_cannot_read_is_left_for_the_scorer() -> None:
    """M18, M20: a bad ``options`` or ``align`` of the scenario's own is kept for the scorer
    to name, never replaced or blamed on the metadata."""
    measure = {"keys": {"x": {"mode": "measure"}}}
    assert with_metadata({"options": "bad"}, measure) == ({"options": "bad"}, [])
    unordered = {"keys": {"x": {"mode": "set_match"}}}
    assert with_metadata({"align": {"answer.y": "bogus"}}, unordered) == (
        {"align": {"answer.x": "unordered", "answer.y": "bogus"}},
        [],
    )


# ------------------------------------------------------------------ contained


def test_contained_takes_the_first_of_equal_gold_elements() -> None:
    """A7."""
    result = score(
        {"xs": ["a", "b", "a"]}, {"xs": ["a"]}, align={"method": "contained", "count": 2}
    )
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.xs[0]", MATCH),
        ("answer.xs[1]", OMISSION),
        ("answer.xs[2]", SKIPPED),
    ]


def test_contained_pairs_are_sorted_by_gold_index() -> None:
    """A20."""
    assert align(["a", "b"], ["b", "a"], AlignSpec("contained", count=2)).pairs == ((0, 1), (1, 0))


@pytest.mark.parametrize(
    ("gold", "model", "expected"),
    [
        ([{"a": 1, "b": 2}, {"a": 3, "b": 4}], [{"b": 4, "a": 3}], 1.0),  # W16: key order
        ([["a", "b"], ["c"]], [("c",)], 1.0),  # W18: a tuple is an array
        ([{"a": 1, "b": {}}], [{"a": 1}], 0.0),  # W15: an empty object is a value
    ],
)
def test_contained_records_pair_alike_on_both_paths(gold: Any, model: Any, expected: float) -> None:
    """W15, W16, W18: the per-leaf pairing key (any ignore or per-path option) agrees with the
    plain one."""
    for extra in ({}, {"ignore_paths": ["answer.zz"]}):
        result = score({"xs": gold}, {"xs": model}, align=CONTAINED_ONE, **extra)
        assert result.score == expected, extra


def test_contained_reasons_keep_the_notes_above_them() -> None:
    """W21, W22, W23: the lacking and unchosen elements keep the reason of the node above."""
    lacking = score({"xs": ["a", "b", "c"]}, {}, align={"method": "contained", "count": 2})
    assert lacking.fields[0].reason == (
        "the answer takes fewer than the 2 of the gold's elements asked for; "
        "expected object with 1 key, got empty object"
    )
    gold = {"rs": [{"id": 1, "xs": ["a", "b"]}, {"id": 1, "xs": ["c"]}]}
    spec = {"answer.rs": {"key": "id"}, "answer.rs[*].xs": CONTAINED_ONE}
    keyed = score(gold, {"rs": [{"id": 1, "xs": ["a"]}]}, align=spec)
    assert (
        "answer.rs[0].xs[1]",
        SKIPPED,
        "not chosen (1 of the gold's elements asked for); "
        "duplicate key 1 for field 'id': paired in order of appearance (model index 0)",
    ) in shown(keyed)
    mismatch = score({"xs": ["a", "b", "c"]}, {"xs": "a"}, align=CONTAINED_ONE)
    assert (
        "answer.xs[1]",
        SKIPPED,
        "not chosen (1 of the gold's elements asked for); type "
        "mismatch: expected array of 3, got string",
    ) in shown(mismatch)


def test_in_similarity_a_lacking_element_under_a_type_mismatch_is_a_zero_omission() -> None:
    """W26: the type-mismatch zero of similarity mode, as elsewhere. The model holds no
    element there (realdata32 #4: it was a mismatch beside the model's whole value, which
    read as equal values failing: ``answer.Volatility  31.6  31.6  0.00``)."""
    result = score({"xs": ["a", "b", "c"]}, {"xs": "a"}, "similarity", align=CONTAINED_ONE)
    assert [f.status for f in result.fields] == [OMISSION, SKIPPED, SKIPPED, HALLUCINATION]
    assert (result.fields[0].model, result.score) == (None, 0.0)
