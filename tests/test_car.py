"""Mode answers (AssetOpsBench's later CAR: clarification, abstain, response) in strict mode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import assert_json_matches, score
from pytest_structeval.cli import main
from pytest_structeval.errors import OptionsError
from pytest_structeval.modes.car import MAX_FORMS, MAX_TERMS, derived_terms, parse_terms
from pytest_structeval.results import HALLUCINATION, MATCH, MISMATCH, OMISSION
from tests.plugin_support import trajectory, write

ASK = {"clarification": 'Which chiller do you mean: "Chiller 6" or "Chiller 9" at CWC04009?'}


def car(gold: Any, model: Any, **options: Any) -> Any:
    """``score`` with mode answers on."""
    return score(gold, model, mode_answers=True, **options)


def labels(text: str) -> list[str]:
    return [term.label for term in derived_terms(text)[0]]


# ------------------------------------------------------------------ opting in


def test_off_by_default_a_response_envelope_is_compared_key_by_key() -> None:
    """Review diff20a #2: on by default, {"response": "Paris"} passed {"response": "London"}."""
    assert not score({"response": "Paris"}, {"response": "London"}).passed
    result = score(ASK, {"clarification": "Chiller 6 or Chiller 9 at CWC04009?"})
    assert not result.passed
    assert "car_score" not in result.metrics
    assert [f.status for f in result.fields] == [MISMATCH]


def test_terms_given_turn_mode_answers_on() -> None:
    result = score(
        {"response": "P-101 tripped"}, {"response": "it tripped"}, required_terms=["tripped"]
    )
    assert result.passed
    assert result.metrics["car_score"] == 1.0


def test_a_gold_mode_key_holding_no_text_is_an_ordinary_object() -> None:
    result = car({"response": {"status": 200}}, {"response": {"status": 200}})
    assert result.passed
    assert "car_score" not in result.metrics


# ------------------------------------------------------------------ the scoring


def test_the_same_mode_stating_every_required_term_passes_in_other_words() -> None:
    result = car(ASK, '{"clarification": "Do you mean chiller 6 or  CHILLER 9 (site cwc04009)?"}')
    assert result.passed
    assert result.score == 1.0
    assert result.metrics["car_score"] == 1.0
    assert result.metrics["mode_match"] == 1.0
    assert result.metrics["mode_expected"] == result.metrics["mode_given"] == "clarification"
    assert result.metrics["required_terms"] == ["Chiller 6", "Chiller 9", "CWC04009"]
    assert result.metrics["missing_terms"] == []
    assert "f1" not in result.metrics  # a mode answer states no values (review diff20a #7)
    assert [(f.path, f.status) for f in result.fields] == [("answer.clarification", MATCH)]
    assert result.reason == "mode answer: clarification, 3 of 3 required terms stated"


def test_a_term_left_out_costs_its_share_and_is_named() -> None:
    result = car(ASK, 'Final Answer: {"clarification": "Which one, Chiller 6?"}')
    assert not result.passed
    assert result.score == pytest.approx(1 / 3)
    assert result.metrics["missing_terms"] == ["Chiller 9", "CWC04009"]
    [field] = result.fields
    assert (field.status, field.score) == (MISMATCH, pytest.approx(1 / 3))
    assert field.reason == "required terms not stated: 'Chiller 9', 'CWC04009'"
    assert result.parse_method == "final-answer+json"


def test_another_mode_scores_nothing_and_reads_as_a_missing_and_an_extra_key() -> None:
    result = car(ASK, {"response": "Chiller 6, Chiller 9 and CWC04009 are fine."})
    assert (result.passed, result.score) == (False, 0.0)
    assert result.reason == "mode answer: expected clarification, got response"
    assert result.metrics["mode_match"] == 0.0
    assert result.metrics["mode_given"] == "response"
    assert result.metrics["missing_keys"] == ["answer.clarification"]
    assert result.metrics["extra_keys"] == ["answer.response"]
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.clarification", OMISSION),
        ("answer.response", HALLUCINATION),
    ]


def test_prose_takes_no_mode_and_an_abstaining_one_is_noted() -> None:
    result = car({"abstain": "There is no data for FC-101."}, "I don't know.")
    assert (result.passed, result.score) == (False, 0.0)
    assert result.metrics["mode_given"] is None
    assert result.metrics["abstained"] is True
    assert result.reason.endswith("mode answer: expected abstain, the model answer takes no mode")
    assert "the model answer has none" in str(result.fields[0].reason)


def test_other_keys_besides_the_mode_fail_unless_ignore_extra_and_are_reported_as_extra() -> None:
    """Review diff20a #6: the key the model has was reported missing, its keys not at all."""
    model = {"clarification": "Chiller 6 or Chiller 9 at CWC04009?", "confidence": 0.9}
    result = car(ASK, model)
    assert (result.passed, result.score) == (False, 0.0)
    assert result.metrics["mode_match"] == 1.0
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.clarification", MISMATCH),
        ("answer.confidence", HALLUCINATION),
    ]
    assert result.fields[0].reason == (
        "a mode answer is one key; the model answer also has 'confidence'"
    )
    assert result.metrics["missing_keys"] == []
    assert result.metrics["extra_keys"] == ["answer.confidence"]
    subset = car(ASK, model, ignore_extra=True)
    assert subset.passed
    assert subset.metrics["ignore_extra"] is True
    assert subset.fields[1].reason == "not part of a mode answer (not counted: ignore_extra)"
    assert subset.metrics["notes"] == []  # ignore_extra is used, not noted as unused


def test_an_object_naming_two_modes_or_none_takes_no_mode() -> None:
    two = car(ASK, {"clarification": "Chiller 6 or 9?", "response": "Chiller 6"})
    assert two.fields[0].reason == "the model answer names 2 modes: 'clarification', 'response'"
    none = car(ASK, {"question": "Chiller 6 or Chiller 9 at CWC04009?", "id": 3})
    assert none.fields[0].reason == (
        "expected one key naming the mode; the model answer has 'question', 'id'"
    )
    assert [f.status for f in none.fields] == [OMISSION, HALLUCINATION, HALLUCINATION]


def test_mode_names_are_read_in_any_letter_case_and_the_field_is_the_golds_key() -> None:
    result = car({"Response": "P-101 tripped."}, {"RESPONSE": "p-101 tripped at noon"})
    assert result.passed
    assert result.metrics["mode_expected"] == "response"
    assert [f.path for f in result.fields] == ["answer.Response"]  # review diff20a #11


def test_given_terms_with_synonyms_replace_the_derived_ones_and_optional_ones_never_count() -> None:
    gold = {"response": "Yes, pump P-101 tripped."}
    model = {"response": "Yes: the feed pump (pump 101) tripped at 02:00."}
    result = score(
        gold,
        model,
        required_terms=["tripped", {"any_of": ["P-101", "pump 101"]}],
        optional_terms=["02:00", "overload"],
    )
    assert result.passed
    assert result.metrics["required_terms"] == ["tripped", "P-101"]
    assert result.metrics["optional_terms"] == ["02:00", "overload"]
    assert result.metrics["optional_terms_stated"] == ["02:00"]
    assert not score(gold, model, required_terms=["overload"]).passed


def test_a_threshold_passes_on_car_score() -> None:
    model = {"clarification": "Chiller 6 or Chiller 9?"}
    result = car(ASK, model, threshold=0.6)
    assert (result.passed, result.score) == (True, pytest.approx(2 / 3))
    assert result.reason.endswith("(car_score 0.667 >= threshold 0.6)")
    assert not car(ASK, model, threshold=0.7).passed


@pytest.mark.parametrize(
    ("said", "stated"),
    [
        ("P-101 tripped", True),
        ("p-101, tripped", True),
        ("it was P-101.", True),
        ("(P-101) tripped", True),
        ("P-1011 tripped", False),  # a longer id
        ("XP-101 tripped", False),
        ("P-101tripped", False),
        ("P- 101 tripped", False),
        ("P-101-B tripped", False),  # review diff20a #4: a sibling asset
        ("P-101.2 tripped", False),
        ("A-P-101 tripped", False),
    ],
)
def test_terms_are_whole_words_and_ids_are_whole_ids(said: str, stated: bool) -> None:
    assert car({"response": "P-101 tripped"}, {"response": said}).passed is stated


def test_a_term_that_ends_in_punctuation_needs_no_word_edge_there() -> None:
    assert score({"response": "x"}, {"response": "we use C++ here"}, required_terms=["C++"]).passed
    assert not score({"response": "x"}, {"response": "we use aC++"}, required_terms=["C++"]).passed


def test_terms_read_through_unicode_normalisation_and_case_folding() -> None:
    gold = {"response": 'The site is "Straße Süd".'}
    assert car(gold, {"response": "STRASSE SU\u0308D it is"}).passed


@pytest.mark.parametrize(
    ("gold", "expected"),
    [
        ("Yes, P-101 tripped.", ["stance: yes", "P-101"]),
        ("No.", ["stance: no"]),
        ("no - it ran all night", ["stance: no"]),
        ("No data for FC-101.", ["FC-101"]),  # "No" opens a sentence, not a stance
        ("No-one knows, FC-101", ["FC-101"]),  # review diff20a #9
        ("Yesterday at 2020-06-26T11:14:36 the AHU1B alarm", ["AHU1B"]),
        (
            'Say "Main  Plant" or \u201cEast Yard\u201d; x_1, 2nd, 1A',
            ["Main Plant", "East Yard", "x_1"],
        ),
        ("Which asset do you mean?", []),
        ("FC-101 and fc-101 again", ["FC-101"]),
        ("Sensor PT-3.2 or AHU-1.SAT, not v2.0", ["PT-3.2", "AHU-1.SAT", "v2.0"]),  # #4
        ('Replace the 6" valve at "Main Plant".', ["Main Plant"]),  # review diff20a #5: inch
        ('Which "Chiller 6" reading: the 12" or 8" line?', ["Chiller 6"]),
        ('Did you mean "Chiller 6," or "Chiller 9."?', ["Chiller 6", "Chiller 9"]),
    ],
)
def test_terms_derived_from_the_gold_text(gold: str, expected: list[str]) -> None:
    assert labels(gold) == expected


def test_a_stance_is_the_answers_first_word_and_the_other_one_fails_the_answer() -> None:
    gold = {"response": 'Yes, CO2 in zone "B-2" exceeded 1000 ppm.'}
    assert car(gold, {"response": "Yes. CO2 in B-2 exceeded it."}).passed
    other = car(gold, {"response": "No, CO2 in zone B-2 stayed below 1000 ppm."}, threshold=0.4)
    assert (other.passed, other.score) == (False, 0.0)  # review diff20a #9: was 0.667
    assert other.fields[0].reason == (
        "the answer opens with the other stance (stance: yes not stated)"
    )
    silent = car(gold, {"response": "CO2 in zone B-2 exceeded the limit."})
    assert silent.score == pytest.approx(2 / 3)  # no stance: one term missing, not the opposite


def test_no_terms_is_scored_on_the_mode_and_says_why() -> None:
    result = car({"clarification": "Which asset do you mean?"}, {"clarification": "Which?"})
    assert result.passed
    assert result.metrics["notes"] == [
        "no required terms in the gold text (none given): scored on the mode"
    ]
    empty = score({"response": "P-101 tripped."}, {"response": "ok"}, required_terms=[])
    assert empty.metrics["notes"] == ["required_terms is empty: scored on the mode"]  # #10


def test_a_non_text_mode_value_is_searched_through_its_keys_and_json_values() -> None:
    model: dict[str, Any] = {"response": {"asset": "P-101", "state": ["tripped", None, True]}}
    assert car({"response": "P-101"}, model).passed
    assert not car({"response": "P-102"}, model).passed
    terms = ["null", "true"]
    assert score({"response": "x"}, model, required_terms=terms).passed  # review diff20a #12
    assert not score({"response": "x"}, model, required_terms=["None"]).passed


def test_a_model_value_deeper_than_max_depth_or_looping_is_an_error_result() -> None:
    """Review diff20a #1: the value reached the report as is (a hang, or INTERNALERROR)."""
    looped: list[Any] = ["P-101"]
    looped.append(looped)
    result = car({"response": "P-101"}, {"response": looped})
    assert result.error is not None
    assert result.error.startswith("model answer: value nests deeper than max_depth=200 at ")
    json.dumps(result.to_dict())  # the report can be written
    deep: Any = "P-101"
    for _ in range(11):
        deep = [deep]
    assert car({"response": "P-101"}, {"response": deep}, max_depth=10).error is not None
    assert car({"response": "P-101"}, {"response": deep}, max_depth=12).passed


def test_key_options_given_for_a_mode_answer_are_noted_as_unused() -> None:
    result = car(ASK, ASK, ignore_paths=["answer.x"], numeric_tolerance=0.1)
    assert result.passed
    assert result.metrics["notes"] == [
        "numeric_tolerance, ignore_paths: not used for a mode answer (its text is looked for terms)"
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"required_terms": "P-101"}, "required_terms must be a list of terms"),
        ({"required_terms": [""]}, "required_terms[0]: '' is not a term"),
        ({"required_terms": ["a", 5]}, "required_terms[1]: 5 is not a term"),
        ({"optional_terms": [{"any_of": []}]}, "optional_terms[0]: any_of must be a non-empty"),
        ({"optional_terms": [{"any_of": "x"}]}, "optional_terms[0]: any_of must be a non-empty"),
        ({"required_terms": ["x"] * (MAX_FORMS + 1)}, f"at most {MAX_FORMS} texts"),
        ({"required_terms": [{"any_of": ["x"] * (MAX_FORMS + 1)}]}, f"at most {MAX_FORMS} texts"),
        ({"mode_answers": "yes"}, "mode_answers must be true or false"),
        ({"mode_answers": False, "required_terms": ["x"]}, "mode_answers is false"),
    ],
)
def test_bad_term_options_are_usage_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message.replace("[", r"\[").replace("]", r"\]")):
        score(ASK, ASK, **options)


def test_terms_for_a_gold_that_is_no_mode_answer_are_a_usage_error() -> None:
    with pytest.raises(OptionsError, match="apply to mode answers only"):
        score({"count": 3}, {"count": 3}, required_terms=["x"])
    assert car({"count": 3}, {"count": 3}).passed  # mode_answers alone: nothing to read


def test_a_gold_text_yielding_too_many_terms_counts_the_first_and_notes_it() -> None:
    gold = {"response": " ".join(f"ID{i}" for i in range(MAX_TERMS + 50))}
    result = car(gold, {"response": "ID0 ID1"})
    assert len(result.metrics["required_terms"]) == MAX_TERMS
    assert f"the first {MAX_TERMS} count" in result.metrics["notes"][0]


def test_a_failure_shows_the_mode_figures_first() -> None:
    with pytest.raises(AssertionError) as failed:
        assert_json_matches(ASK, {"clarification": "Chiller 6?"}, mode_answers=True)
    headline = str(failed.value).splitlines()[1]
    assert headline.startswith("car_score=0.3333  mode_match=1")


_WORD = st.text(st.sampled_from("abcxyz019-_ ÄßΣ"), min_size=1, max_size=8).filter(str.strip)


@given(terms=st.lists(_WORD, min_size=1, max_size=6), drop=st.integers(0, 5))
def test_an_answer_listing_the_terms_states_them_and_one_left_out_is_missing(
    terms: list[str], drop: int
) -> None:
    gold = {"response": "anything"}
    said = " ; ".join(terms)
    assert score(gold, {"response": said}, required_terms=terms).score == 1.0
    dropped = terms[drop % len(terms)].strip()  # ("0 " is the term "0", which "0-" states)
    rest = " ; ".join(t for t in terms if t.strip() not in dropped and dropped not in t)
    result = score(gold, {"response": rest}, required_terms=[dropped])
    assert result.metrics["missing_terms"] == [dropped]


def test_scenario_options_and_the_aggregate_carry_the_car_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "scenarios" / "scenario_1"
    write(scenario / "groundtruth.json", json.dumps(ASK))
    write(scenario / "scenario.yaml", "options:\n  mode_answers: true\n  optional_terms: [site]\n")
    write(tmp_path / "scenarios" / "scenario_2" / "groundtruth.json", '{"n": 1}')
    answers = {
        "a": ("1", {"clarification": "Chiller 6 or Chiller 9 at CWC04009?"}),
        "b": ("1", {"clarification": "Chiller 6?"}),
        "c": ("2", {"n": 1}),
    }
    for run, (sid, answer) in answers.items():
        record = trajectory(run, json.dumps(answer), sid)
        write(tmp_path / "runs" / f"{run}.json", json.dumps(record))
    out = tmp_path / "out"
    code = main(
        [
            "evaluate",
            "--scenarios", str(tmp_path / "scenarios"),
            "--trajectories", str(tmp_path / "runs"),
            "--reports-dir", str(out),
            "--gate", "car_score>=0.6",
            "--gate", "f1>=1",
        ]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed  # car_score_avg 0.667, f1_avg over the ordinary run only
    summary = json.loads((out / "_aggregate.json").read_text())["score_summary"]
    assert summary["car_score_avg"] == pytest.approx((1 + 1 / 3) / 2, abs=1e-4)
    assert summary["mode_match_avg"] == 1.0
    assert summary["f1_avg"] == 1.0
    details = json.loads((out / "b.json").read_text())["score"]["details"]
    assert details["missing_terms"] == ["Chiller 9", "CWC04009"]
    assert details["optional_terms"] == ["site"]


@pytest.mark.parametrize(
    ("said", "term"),
    [
        ("Did you mean P-101/P-102?", "P-101"),
        ("The pump tripped/stopped", "tripped"),
        ("Status: on/off", "off"),
        ("a high-priority alarm", "high"),
        ("CO2/O2 ratio high", "CO2"),
    ],
)
def test_a_slash_or_a_hyphen_after_a_plain_word_separates_terms(said: str, term: str) -> None:
    """Review diff20b #6: the id edges of f471c62 hid every term next to '/' or '-'."""
    assert score({"response": "x"}, {"response": said}, required_terms=[term]).passed


def test_two_modes_give_one_row_per_key() -> None:
    """Review diff20b #9: the model's mode key was listed as missing and as extra."""
    result = car(ASK, {"clarification": "Chiller 6 or 9?", "response": "x"})
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.clarification", MISMATCH),
        ("answer.response", HALLUCINATION),
    ]
    assert result.fields[0].reason == "the model answer names 2 modes: 'clarification', 'response'"
    assert result.score == 0.0


def test_a_terms_repeated_synonyms_are_looked_for_once() -> None:
    """Review diff20b #15: 200 copies of one form were each searched for."""
    [term] = parse_terms([{"any_of": ["P-101", " p-101", "P-101"]}], "required_terms")
    assert term.forms == ("p-101",)


@pytest.mark.parametrize(
    ("said", "term", "stated"),
    [
        ("Zone 3 high-priority", "Zone 3 high", True),
        ("Chiller 6 offline-mode since 10:00", "Chiller 6 offline", True),
        ("the top-3 pumps", "3 pumps", False),  # a number joined to a word, as P-101's 101
        ("in 2019-2020", "2020", True),
        ("pump P-101-B", "pump P-101", False),
        ("v2.0.1", "v2.0", False),
    ],
)
def test_the_id_edge_is_the_terms_own_first_or_last_word(
    said: str, term: str, stated: bool
) -> None:
    """Review diff20c #7: a digit anywhere in the term made both edges id edges."""
    assert score({"response": "x"}, {"response": said}, required_terms=[term]).passed is stated


@pytest.mark.parametrize(
    ("said", "term", "stated"),
    [
        ("Pump 101-B tripped", "Pump 101", False),
        ("Chiller 6.1 is down", "Chiller 6", False),
        ("pump P-101 ok", "101", False),
        ("version 2.1 installed", "version 2", False),
        ("XP-101 and more", "101 and", False),
        ("6-7 pumps", "6", True),  # a range
        ("it is 6.", "6", True),
    ],
)
def test_a_term_ending_in_a_number_is_not_stated_by_a_sibling_or_a_decimal(
    said: str, term: str, stated: bool
) -> None:
    """Review diff20d #1: b185ec3 dropped the edge for a name ending in a bare number."""
    assert score({"response": "x"}, {"response": said}, required_terms=[term]).passed is stated


def test_the_readme_gold_tells_sibling_chillers_apart() -> None:
    gold = {"clarification": 'Which chiller: "Chiller 6" or "Chiller 9" at site CWC04009?'}
    for siblings in ("Chiller 6-B or Chiller 9-B at CWC04009?", "Chiller 6.1 or 9.2 at CWC04009?"):
        assert car(gold, {"clarification": siblings}).score == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("said", "term"),
    [
        ("Chiller 6\u2011B", "Chiller 6"),  # a non-breaking hyphen, as LLMs write
        ("P-101\u2010B", "P-101"),
        ("Chiller 6\u2013B", "Chiller 6"),
        ("1,500 pumps", "500 pumps"),
    ],
)
def test_look_alike_hyphens_and_thousands_groups_join_too(said: str, term: str) -> None:
    """Review diff20e #3."""
    assert not score({"response": "x"}, {"response": said}, required_terms=[term]).passed


def stated(said: str, term: str) -> bool:
    return score({"response": "x"}, {"response": said}, required_terms=[term]).passed


@pytest.mark.parametrize("hyphen", ["\u2010", "\u2011"])
def test_a_look_alike_hyphen_inside_an_id_is_a_hyphen(hyphen: str) -> None:
    """Review mutants21 #1: U+2010/U+2011 counted as hyphens at a term's edges only, so the
    model's P‑101 did not state P-101, and a gold FC‑101 yielded no term (any answer passed)."""
    assert stated(f"P{hyphen}101 tripped", "P-101")
    assert stated("P-101 tripped", f"P{hyphen}101")
    assert not stated(f"Chiller 6{hyphen}B", "Chiller 6")
    gold = {"clarification": f"Do you mean FC{hyphen}101 or FC{hyphen}102?"}
    assert labels(gold["clarification"]) == [f"FC{hyphen}101", f"FC{hyphen}102"]
    assert car(gold, {"clarification": "Which one?"}).score == 0.0
    assert car(gold, {"clarification": "FC-101 or FC-102?"}).score == 1.0


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("Yes: P-101 tripped at 10:00.", 1.0),
        ("**Yes**, P-101 tripped at 10:00.", 1.0),
        ("No doubt: P-101 tripped at 10:00.", 0.5),  # was 0: "the other stance"
        ("No-one reset it; P-101 tripped at 10:00.", 0.5),  # was 0
        ("P-101 tripped at 10:00.", 0.5),
        ("No, P-101 tripped at 10:00.", 0.0),
        ("**No**. P-101 tripped at 10:00.", 0.0),
        # review diff21b #1: a stance alone on its line (whitespace is folded after it is read)
        ("No\n\nP-101 did not trip.", 0.0),
        ("**Yes**\n\nP-101 tripped at 10:00.", 1.0),
        ("Yes\r\nP-101 tripped at 10:00.", 1.0),
        ("'Yes', P-101 tripped at 10:00.", 1.0),
        ("\u201cNo\u201d, P-101 did not trip.", 0.0),
        ("Yes it did, P-101 tripped at 10:00.", 0.5),  # no stop after the word
        # review diff21c: look-alike hyphens and other emphasis around the word
        ("Yes \u2011 P-101 tripped at 10:00.", 1.0),
        ("No \u2010 P-101 did not trip.", 0.0),
        ("_Yes_, P-101 tripped at 10:00.", 1.0),
        ("__No__, P-101 did not trip.", 0.0),
        ("`No`. P-101 did not trip.", 0.0),
        ("\u00abYes\u00bb, P-101 tripped at 10:00.", 1.0),
        # review diff21d: the number sign is no stance; a numbered list marker is markup
        ("No.2 boiler is fine, P-101 tripped at 10:00.", 0.5),
        ("1. No, P-101 did not trip.", 0.0),
        ("NO. P-101 did not trip.", 0.0),
        # review diff21e: "No." before a sentence opening with a number is a stance
        ("No. 3 of the 5 pumps tripped.", 0.0),
        ("No: 3 pumps tripped.", 0.0),
        ("1. \u2705 Yes, P-101 tripped at 10:00.", 1.0),
        ("1. - No, P-101 did not trip.", 0.0),
        ("YE\u017f, P-101 tripped at 10:00.", 1.0),  # the long s folds to s
    ],
)
def test_the_answers_stance_is_read_by_the_golds_rule(said: str, expected: float) -> None:
    """Review mutants21 #2: the answer's stance was its first word, so an answer agreeing
    with the gold but opening "No doubt" scored 0 with a reason claiming the opposite."""
    result = car({"response": "Yes, P-101 tripped at 10:00."}, {"response": said})
    assert result.score == expected
    if expected == 0.0:
        assert "opens with the other stance" in result.fields[0].reason


def test_a_number_term_does_not_end_inside_a_thousands_group() -> None:
    """Review mutants21 #3: 1,500 stated 1, while 1,500 did not state 500."""
    assert not stated("we have 1,500 pumps", "1")
    assert not stated("Chiller 1,500 is down", "Chiller 1")
    assert not stated("1,500 pumps", "500 pumps")
    assert stated("pump 1, then pump 2", "pump 1")


def test_a_golds_stance_alone_on_its_line_is_derived() -> None:
    """Review diff21b #1: a gold "**Yes**" on a line of its own derived no stance, so any
    "No, ..." passed."""
    gold = "**Yes**\n\nP-101 tripped at 10:00."
    assert labels(gold) == ["stance: yes", "P-101"]
    assert car({"response": gold}, {"response": "No, P-101 tripped."}).score == 0.0
    for gold in ("No \u2011 P-101 is running normally.", "_No_, P-101 is running normally."):
        assert labels(gold) == ["stance: no", "P-101"], gold  # review diff21c
    for gold in (
        "No.5 pump P-101 is down.",
        "No.1 pump P-101 is down.",
        "No. of alarms: 3 on P-101",
    ):
        assert "stance: no" not in labels(gold), gold  # review diff21d: the number sign
    assert labels("1. No, P-101 is running.")[0] == "stance: no"
    assert labels("No. Of course P-101 is running.")[0] == "stance: no"


def test_reading_a_stance_is_linear_in_the_text() -> None:
    """A list marker followed by a long run of blanks took quadratic time (10,000 blanks:
    3 s; a 10 MB answer would never end): its blanks and the markup after them overlapped.
    Run in a subprocess with a generous timeout, so a regression fails instead of hanging."""
    code = (
        "from pytest_structeval.modes.car import stance\n"
        "for text in ('1.' + ' ' * 200_000 + 'x', '1. ' + '*' * 200_000 + 'x'):\n"
        "    assert stance(text) is None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "opening",
    ["Yes\uff0c", "Yes\u3002", "Yes\uff01", "Yes\uff1a", "Yes\u3001", "\uff39\uff45\uff53,"],
)
def test_a_stance_before_full_width_punctuation_is_read_on_both_sides(opening: str) -> None:
    """``Yes，``, ``Yes。``, ``Ｙｅｓ`` open with a stance as ``Yes,`` does (review unicode32
    #6): in the gold, and in the answer, where the other one fails it."""
    gold = {"response": f"{opening} pump P-101 tripped."}
    assert labels(gold["response"]) == ["stance: yes", "P-101"]
    other = car(gold, {"response": "No, pump P-101 did not trip."})
    assert (other.passed, other.score) == (False, 0.0)
    wide_no = opening.replace("Yes", "No").replace("\uff39\uff45\uff53", "\uff2e\uff4f")
    answer = car({"response": "Yes, pump P-101 tripped."}, {"response": f"{wide_no} P-101."})
    assert (answer.passed, answer.score) == (False, 0.0)
    assert car(gold, {"response": f"{opening} P-101 tripped."}).passed


@pytest.mark.parametrize(
    ("gold", "expected"),
    [
        (
            "Welcher K\u00fchler: \u201eK\u00fchler 6\u201c oder \u201eK\u00fchler 9\u201c?",
            ["K\u00fchler 6", "K\u00fchler 9"],
        ),
        (
            "Kt\u00f3ry: \u201eChiller 6\u201d czy \u201eChiller 9\u201d?",
            ["Chiller 6", "Chiller 9"],
        ),
        ("Welcher: \u201aChiller 6\u2018 oder \u201aChiller 9\u2018?", ["Chiller 6", "Chiller 9"]),
        (
            "Quel refroidisseur : \u00ab Chiller 6 \u00bb ou \u00ab\u202fChiller 9\u202f\u00bb ?",
            ["Chiller 6", "Chiller 9"],
        ),
        ("Welcher: \u00bbChiller 6\u00ab oder \u203aChiller 9\u2039?", ["Chiller 6", "Chiller 9"]),
        ("Lequel : \u2039Chiller 6\u203a ?", ["Chiller 6"]),
        (
            "\u3069\u306e\u30c1\u30e9\u30fc\u3067\u3059\u304b\uff1a\u300cChiller 6\u300d"
            "\u307e\u305f\u306f\u300eChiller 9\u300f\uff1f",
            ["Chiller 6", "Chiller 9"],
        ),
        (
            "Which chiller: \uff02Chiller 6\uff02 or \uff02Chiller 9\uff02?",
            ["Chiller 6", "Chiller 9"],
        ),
        # a quote inside another is part of its phrase, with its marks
        ("Welcher: \u201eK\u00fchler \u201a6\u2018\u201c?", ["K\u00fchler \u201a6\u2018"]),
        ('Which: \u00abChiller "6"\u00bb?', ['Chiller "6"']),
        # curly single quotes are apostrophes too: not read
        ("Which chiller: \u2018Chiller 6\u2019 or Tom\u2019s?", []),
    ],
)
def test_quotation_marks_of_other_languages_quote_terms(gold: str, expected: list[str]) -> None:
    """Review unicode32 #5: a German, French or Japanese gold lost every quoted term, so any
    clarification passed."""
    assert labels(gold) == expected
    if expected:
        result = car({"clarification": gold}, {"clarification": "Which pump do you mean?"})
        assert (result.passed, result.metrics["missing_terms"]) == (False, expected)


@pytest.mark.parametrize(
    ("gold", "said", "passed"),
    [
        # the gold repeated word for word
        ('Do you mean \u201cthe "hot" standby pump\u201d?', None, True),
        ('Do you mean \u201cReplace the 6" valve\u201d?', None, True),
        ("Welcher: \u201eK\u00fchler \u201a6\u2018\u201c?", None, True),
        ("Do you mean \u201cthe \u2018A\u2019 train\u201d?", None, True),
        # the phrase with other marks or none
        ('Do you mean \u201cthe "hot" standby pump\u201d?', "The hot standby pump?", True),
        ("Do you mean \u201cthe \u2018A\u2019 train\u201d?", "Do you mean the A train?", True),
        ("Do you mean \u201cthe \u2018A\u2019 train\u201d?", "The 'A' train?", True),
        ("Do you mean \u201cTom\u2019s pump\u201d?", "Tom's pump?", True),
        ("Welcher: \u201eK\u00fchler \u201a6\u2018\u201c?", "K\u00fchler \u201e6\u201c?", True),
        # still its words, whole
        ('Do you mean \u201cthe "hot" standby pump\u201d?', "The standby pump?", False),
        ("Welcher: \u201eK\u00fchler \u201a6\u2018\u201c?", "K\u00fchler 61?", False),
        # diff32b #6: in CJK, written without spaces, marks are no spaces
        (
            "\u662f\u6307\u300e\u300c\u4e3b\u300d\u6cf5\u300f\u5417\uff1f",
            "\u662f\u6307\u4e3b\u6cf5\u5417\uff1f",
            True,
        ),
        ("\u662f\u6307\u300e\u300c\u4e3b\u300d\u6cf5\u300f\u5417\uff1f", None, True),
        (
            "\u662f\u6307\u300e\u300c\u4e3b\u300d\u6cf5\u300f\u5417\uff1f",
            "\u662f\u6307\u5907\u6cf5\u5417\uff1f",
            False,
        ),
        # diff32c #3: beside a Latin letter or a digit too
        (
            "\u662f\u6307\u300e\u300cP-101\u300d\u6cf5\u300f\u5417\uff1f",
            "\u662f\u6307P-101\u6cf5\u5417\uff1f",
            True,
        ),
        (
            "\u662f\u6307\u300e\u300c\u4e3b\u300dP-101\u300f\u5417\uff1f",
            "\u662f\u6307\u4e3bP-101\u5417",
            True,
        ),
    ],
)
def test_a_quote_inside_a_quoted_term_is_stated_with_or_without_its_marks(
    gold: str, said: str | None, passed: bool
) -> None:
    """Review prose32 #1: the marks of an inner quote were left out of the term but not of
    the answer, so an answer repeating the gold word for word failed."""
    answer = gold if said is None else said
    result = car({"clarification": gold}, {"clarification": answer})
    assert result.passed is passed, result.metrics["missing_terms"]


@pytest.mark.parametrize(
    ("gold", "expected"),
    [
        ("\u00ab" + "x" * 201 + "\u00bb et \u00abB-1\u00bb", ["B-1"]),
        ("Press \u00bb Settings \u00bb Pumps and \u00ab Back", []),
        ("Press \u203a Settings \u203a Pumps and \u2039 Back", []),
        ("Welcher: \u00bbChiller 6\u00ab oder \u00bbKühler 9\u00ab?", ["Chiller 6", "Kühler 9"]),
    ],
)
def test_reversed_guillemets_quote_only_a_phrase_written_inside_them(
    gold: str, expected: list[str]
) -> None:
    """Review prose32 minor: ``» et «`` between two quotes, or a breadcrumb, was a term."""
    assert labels(gold) == expected


def test_a_term_of_quote_marks_alone_is_no_term() -> None:
    with pytest.raises(OptionsError):
        parse_terms(['""'], "required_terms")
    assert labels('Say \u201c"\u201d or \u201cP-101\u201d.') == ["P-101"]


@pytest.mark.parametrize(
    ("term", "said", "stated"),
    [
        ("\u4e3b\u6cf5", "\u4e3b\u6cf5\u5df2\u8df3\u95f8\u3002", True),  # 主泵 in 主泵已跳闸。
        (
            "\u4e3b\u6cf5",
            "\u60a8\u662f\u6307\u4e3b\u6cf5\u8fd8\u662f\u5907\u7528\u6cf5\uff1f",
            True,
        ),
        ("P-101", "P-101\u3067\u3059\u304b\uff1f", True),  # P-101ですか？
        ("P-101", "\u6cf5P-101\u5df2\u8df3\u95f8", True),  # 泵P-101已跳闸
        ("P-101", "P-101\uc774 \uba48\ucdc4\ub2e4", True),  # P-101이 멈췄다: a particle
        ("FC101", "FC101\u53f7\u673a\u7ec4", True),  # FC101号机组
        ("\uc8fc\ud38c\ud504", "\uc8fc\ud38c\ud504\uac00 \uba48\ucdc4\ub2e4", True),  # 주펌프가
        ("\uc8fc\ud38c\ud504", "\ubcf4\uc870\uc8fc\ud38c\ud504\uac00", False),  # 보조주펌프가
        # Latin as before
        ("FC101", "FC1012 failed", False),
        ("P-101", "XP-101", False),
        ("P-101", "P-101-B", False),
        ("101", "P-101", False),
        ("pump", "pumps", False),
        ("Chiller 6", "Chiller 6-B", False),
    ],
)
def test_terms_next_to_cjk_letters_are_whole_words(term: str, said: str, stated: bool) -> None:
    """Review unicode32 #4: Han, kana and Hangul letters counted as part of the word, so a
    term in Chinese or Japanese text (written without spaces) was never stated."""
    result = score({"response": "x"}, {"response": said}, required_terms=[term])
    assert result.passed is stated


def test_ids_joined_to_cjk_text_are_derived_from_the_gold() -> None:
    assert labels("\u8bf7\u786e\u8ba4P-101\u7684\u72b6\u6001") == ["P-101"]  # 请确认P-101的状态
    assert labels("FC101\u53f7\u673a\u7ec4\u548cAHU1B") == ["FC101", "AHU1B"]
    assert labels("P-101\uc774 \uba48\ucdc4\ub2e4") == ["P-101"]
    assert labels("2020-06-26\u53f7") == []  # a date is no id, CJK beside it or not
