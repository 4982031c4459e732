"""Similarity's ``line_by_line``: UiPath's line-by-line evaluator, each line an answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import AnswerParseError, LimitError, OptionsError, score


def statuses(result: Any) -> list[tuple[str, str]]:
    return [(f.path, f.status) for f in result.fields]


def test_the_score_is_the_mean_of_the_line_scores() -> None:
    """UiPath averages the lines: one line of three at 0.8 is 0.9333, not a leaf sum."""
    gold = "line1\nline2\nline3"
    result = score(gold, "line1\nlinE2\nline3", "similarity", line_by_line=True)
    assert round(result.score, 4) == 0.9333
    assert result.metrics["line_scores"] == [1.0, 0.8, 1.0]
    assert result.metrics["lines"] == 3
    assert result.reason == "Lines: 3, mean line score 0.9333; Matched leaves: 2.8, Total leaves: 3"
    assert not result.passed
    assert score(gold, gold, "similarity", line_by_line=True).passed


def test_a_missing_line_scores_zero_and_an_extra_one_where_extras_count() -> None:
    gold = "a\nb\nc"
    short = score(gold, "a\nb", "similarity", line_by_line=True)
    assert (round(short.score, 4), statuses(short)[-1]) == (0.6667, ("answer[2]", "omission"))
    strict_short = score(gold, "a\nb", "similarity", line_by_line=True, strict_parse=False)
    assert strict_short.metrics["line_scores"] == [1.0, 1.0, 0.0]
    long = score(gold, "a\nb\nc\nd", "similarity", line_by_line=True)
    assert (long.score, long.metrics["line_scores"]) == (1.0, [1.0, 1.0, 1.0, None])
    assert statuses(long)[-1] == ("answer[-1]", "hallucination")  # reported, not counted
    counted = score(gold, "a\nb\nc\nd", "similarity", line_by_line=True, penalize_extra=True)
    assert counted.metrics["line_scores"] == [1.0, 1.0, 1.0, 0.0]  # as UiPath: "" against "d"
    assert [f.path for f in counted.failing_fields] == ["answer[-1]"]


def test_json_lines_are_records_and_blank_and_fence_lines_are_not_lines() -> None:
    gold = '{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}'
    model = '<think>draft</think>\n```jsonl\n{"id": 1, "v": "a"}\n\n{"id": 2, "v": "bb"}\n```'
    result = score(gold, model, "similarity", line_by_line=True)
    assert result.parsed_model == [{"id": 1, "v": "a"}, {"id": 2, "v": "bb"}]
    assert result.metrics["line_scores"] == [1.0, 0.75]
    assert statuses(result)[-1] == ("answer[1].v", "mismatch")


def test_a_delimiter_and_a_target_output_key() -> None:
    gold = {"result": "a|b|c", "log": "x"}
    result = score(
        gold, {"result": "a|b|z"}, "similarity", line_by_line="|", target_output_key="result"
    )
    assert statuses(result) == [
        ("answer.result[0]", "match"),
        ("answer.result[1]", "match"),
        ("answer.result[2]", "mismatch"),
    ]
    assert round(result.score, 4) == 0.6667
    keyed = score(
        {"a": "x\ny", "b": "p\nq"},
        {"a": "x\ny", "b": "p"},
        "similarity",
        line_by_line=True,
        target_output_key=["a", "b"],
    )
    assert keyed.metrics["line_scores"] == [1.0, 1.0, 1.0, 0.0]
    missing = score({"a": "x"}, {"b": "x"}, "similarity", line_by_line=True, target_output_key="a")
    assert "not found in the model answer" in (missing.error or "")


def test_each_line_is_read_as_an_answer_of_its_own() -> None:
    """A count in prose against a numeric gold line, a list's elements as lines."""
    result = score(
        [3, "Chiller 6"], "There are 3 pumps\nChiller 6", "similarity", line_by_line=True
    )
    assert (result.passed, result.parsed_model) == (True, [3, "Chiller 6"])


def test_a_line_that_cannot_be_read_names_its_number() -> None:
    gold = '{"a": 1}\n{"a": 2}\n{"a": 3}'
    strict = dict(line_by_line=True, strict_parse=True)
    paired = score(gold, '{"a": 1}\noops', "similarity", **strict)
    assert (paired.error or "").startswith("line 2 of the model answer: no structured answer found")
    extra = score('{"a": 1}', '{"a": 1}\noops', "similarity", **strict)
    assert (extra.error or "").startswith("line 2 of the model answer: no structured answer found")
    too_big = score("a\nb", "x" * 11_000_000, "similarity", line_by_line=True)
    assert too_big.error == "model answer: answer is 11,000,000 bytes, over max_bytes=10,000,000"
    too_many = score("a\nb", "a\n" * 2_001, "similarity", line_by_line=True)
    assert too_many.error == "model answer: answer has more than 2,000 lines"
    with pytest.raises(LimitError, match="answer has more than 2,000 lines"):
        score(["a"] * 2_001, "a", "similarity", line_by_line=True)
    with pytest.raises(AnswerParseError, match=r"^line 2 of the gold answer: no structured"):
        score('{"a": 1}\nhello', '{"a": 1}', "similarity", line_by_line=True, strict_parse=True)


@pytest.mark.parametrize("option", [0, "", 1.5, ["\n"]])
def test_bad_options_and_a_gold_without_lines_raise(option: Any) -> None:
    with pytest.raises(OptionsError, match="line_by_line must be true"):
        score("a", "a", "similarity", line_by_line=option)
    with pytest.raises(AnswerParseError, match="the gold answer has no lines"):
        score("```\n\n```", "a", "similarity", line_by_line=True)


@pytest.mark.parametrize("word", ["yes", "no", "On", "off", "TRUE", "false", "y", "n"])
def test_a_yaml_1_1_boolean_word_is_no_delimiter(word: str) -> None:
    """equiv31 #6: ``line_by_line: yes`` in a YAML config is the text ``yes`` (YAML 1.2),
    and split the lines on that word in silence; ``case_sensitive: yes`` is refused."""
    with pytest.raises(OptionsError, match=f"line_by_line '{word}' would split on that word"):
        score("a\nb", "a\nb", "similarity", line_by_line=word)
    assert score("a|b", "a|b", "similarity", line_by_line="|").score == 1.0


def test_false_or_none_is_off_and_lines_align_as_any_list() -> None:
    assert score("a\nb", "a\nb", "similarity", line_by_line=False).reason.startswith("Matched")
    inserted = score(
        "a\nb\nc",
        "x\na\nb\nc",
        "similarity",
        line_by_line=True,
        align="sequence",
        penalize_extra=True,
    )
    assert inserted.metrics["line_scores"] == [1.0, 1.0, 1.0, 0.0]


def test_weights_weigh_inside_each_line() -> None:
    gold = '{"n": "a", "v": 1}\n{"n": "b", "v": 2}'
    model = '{"n": "a", "v": 9}\n{"n": "b", "v": 2}'
    result = score(gold, model, "similarity", line_by_line=True, weights={"answer[*].n": 3})
    assert result.metrics["line_scores"][0] == pytest.approx(0.75)
    assert "mean weighted line score" in result.reason
    # the score is reported as weighted_score, as without line_by_line, for its gate
    # (review modes28 #2: `weighted_score>=0.5` failed a perfect run for want of it)
    assert result.metrics["weighted_score"] == result.score == pytest.approx(0.875)


def test_a_weight_on_a_whole_line_weighs_it_in_the_mean() -> None:
    """`answer[0]: 3` counts the first line three times (it weighed every field of that line
    alike, which left its ratio, and so the score, unchanged: review modes28 #2); a weight
    on every line changes nothing."""
    gold = '{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}'
    model = '{"id": 1, "v": "x"}\n{"id": 2, "v": "b"}'
    plain = score(gold, model, "similarity", line_by_line=True)
    assert plain.score == 0.75
    first = score(gold, model, "similarity", line_by_line=True, weights={"answer[0]": 3})
    assert first.metrics["line_scores"] == [0.5, 1.0]
    assert first.score == first.metrics["weighted_score"] == 0.625  # (3 * 0.5 + 1) / 4
    second = score(gold, model, "similarity", line_by_line=True, weights={"answer[1]": 3})
    assert second.score == 0.875
    every = score(gold, model, "similarity", line_by_line=True, weights={"**": 2, "answer": 5})
    assert every.score == 0.75
    assert every.passed is plain.passed


@given(
    st.lists(
        st.dictionaries(st.text("abc", min_size=1, max_size=3), st.integers()),
        min_size=1,
        max_size=5,
    )
)
def test_an_answer_scores_one_against_itself_line_by_line(records: list[dict[str, int]]) -> None:
    text = "\n".join(json.dumps(r) for r in records)
    result = score(text, text, "similarity", line_by_line=True)
    assert (result.score, result.metrics["lines"]) == (1.0, len(records))


# -- review diff18b ---------------------------------------------------------------------------


def test_bytes_are_split_as_text() -> None:
    gold, model = b'{"id": 1}\n{"id": 2}', b'{"id": 9}\n{"id": 2}'
    as_bytes = score(gold, model, "similarity", line_by_line=True)
    as_text = score(gold.decode(), model.decode(), "similarity", line_by_line=True)
    assert (as_bytes.score, as_bytes.metrics["lines"]) == (as_text.score, 2) == (0.5, 2)


def test_strict_parse_reads_only_the_lines_there_are() -> None:
    gold = '{"a": 1}\n{"a": 2}\n{"a": 3}'
    result = score(gold, '{"a": 1}\n{"a": 2}', "similarity", line_by_line=True, strict_parse=True)
    assert (result.error, round(result.score, 4)) == (None, 0.6667)


@pytest.mark.parametrize(
    ("answer", "method", "abstained"),
    [
        ("I don't know.", "lines+text", True),
        ("", "empty", None),
        ("I cannot answer that.\nNothing more.", "lines+text", True),
        ("Chiller 6\nChiller 7", "lines+text", None),
        ('{"id": 1}\nnot a record', "lines", None),
    ],
)
def test_prose_is_a_text_fallback_and_an_abstention_is_noted(
    answer: str, method: str, abstained: bool | None
) -> None:
    result = score('{"id": 1}\n{"id": 2}', answer, "similarity", line_by_line=True)
    assert (result.parse_method, result.metrics.get("abstained")) == (method, abstained)


def test_an_ignored_line_is_left_out_of_the_mean() -> None:
    gold = '{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}'
    model = '{"id": 9, "v": "z"}\n{"id": 2, "v": "b"}'
    result = score(gold, model, "similarity", line_by_line=True, ignore_paths=["answer[1]"])
    assert (result.score, result.metrics["line_scores"], result.metrics["lines"]) == (
        0.0,
        [0.0, None],
        1,
    )
    every = score(gold, model, "similarity", line_by_line=True, ignore_paths=["answer[*]"])
    assert (every.score, every.metrics["lines"]) == (1.0, 0)  # nothing compared: vacuous


def test_overlapping_target_paths_keep_their_lines_apart() -> None:
    result = score(
        {"a": ["p\nq", "r"]},
        {"a": ["p\nz", "r"]},
        "similarity",
        line_by_line=True,
        target_output_key=["a", "a[0]"],
    )
    assert result.metrics["lines"] == 4
    assert result.metrics["line_scores"][2:] == [1.0, 0.0]


def test_a_fence_with_attributes_is_no_line() -> None:
    gold = '{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}'
    model = '```json title="x"\n' + gold + "\n```"
    assert score(gold, model, "similarity", line_by_line=True).metrics["line_scores"] == [1.0, 1.0]


# -- review diff18c ---------------------------------------------------------------------------


def test_an_ignored_extra_line_and_an_ignored_target_count_nothing() -> None:
    gold = '{"id": 1}\n{"id": 2}'
    model = gold + '\n{"ts": 5}'
    opts: dict[str, Any] = {"line_by_line": True, "penalize_extra": True}
    extra = score(gold, model, "similarity", ignore_paths=["answer[*].ts"], **opts)
    assert (extra.score, extra.metrics["line_scores"]) == (1.0, [1.0, 1.0, None])
    for ignored in (["answer"], ["**"]):  # one skipped field for the whole answer
        whole = score(gold, model, "similarity", ignore_paths=ignored, **opts)
        assert (whole.score, whole.metrics["lines"]) == (1.0, 0)


def test_a_record_on_the_fence_line_is_a_line() -> None:
    gold = '{"id": 1}\n{"id": 2}'
    model = '```jsonl {"id": 1}\n{"id": 2}\n```'
    assert score(gold, model, "similarity", line_by_line=True).metrics["line_scores"] == [1.0, 1.0]


def test_with_a_target_key_the_method_is_the_answers_own() -> None:
    gold = {"a": "x\ny"}
    result = score(gold, '{"a": "x\\ny"}', "similarity", line_by_line=True, target_output_key="a")
    assert (result.parse_method, result.score) == ("json+lines", 1.0)


@pytest.mark.parametrize(
    "answer", [b"I don't know.", ["I don't know."], bytearray(b"I don't know.")]
)
def test_an_abstention_in_bytes_or_a_list_is_noted(answer: Any) -> None:
    result = score('{"id": 1}\n{"id": 2}', answer, "similarity", line_by_line=True)
    assert (result.parse_method, result.metrics.get("abstained")) == ("lines+text", True)


# -- review diff18d ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fence", ["```{json}", "``` {.json}", "~~~ {.jsonl}", '```json {title="x"}']
)
def test_a_fence_with_pandoc_attributes_is_no_line(fence: str) -> None:
    gold = '{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}'
    model = f"{fence}\n{gold}\n{fence[:3]}"
    assert score(gold, model, "similarity", line_by_line=True).metrics["line_scores"] == [1.0, 1.0]


def test_an_ignored_target_keeps_its_lines_places() -> None:
    result = score(
        {"a": "x\ny", "b": "p\nq"},
        {"a": "x\nz", "b": "p\nz"},
        "similarity",
        line_by_line=True,
        target_output_key=["a", "b"],
        ignore_paths=["answer.a"],
    )
    assert result.metrics["line_scores"] == [None, None, 1.0, 0.0]


@pytest.mark.parametrize(
    ("fence", "lines"),
    [
        ("~~~ json `x`", [1.0, 1.0]),  # a tilde fence's info string may hold backticks
        ("```python hl_lines=[8]", [1.0, 1.0]),
        ('```jsonl {id: 1, v: "a"}', [1.0, 1.0]),  # records on the fence line are lines
    ],
)
def test_fence_lines_and_records_on_them(fence: str, lines: list[float]) -> None:
    gold = '{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}'
    rest = '{"id": 2, "v": "b"}' if "id: 1" in fence else gold
    model = f"{fence}\n{rest}\n{fence[:3]}"
    assert score(gold, model, "similarity", line_by_line=True).metrics["line_scores"] == lines


def test_a_whole_ignored_target_keeps_its_extra_lines_places_too() -> None:
    """As ``answer.a[*]`` lists them, so two spellings of one rule give one list."""
    opts: dict[str, Any] = {"line_by_line": True, "target_output_key": ["a", "b"]}
    gold, model = {"a": "x\ny", "b": "p"}, {"a": "x\ny\nz", "b": "p"}
    whole = score(gold, model, "similarity", ignore_paths=["answer.a"], **opts)
    lines = score(gold, model, "similarity", ignore_paths=["answer.a[*]"], **opts)
    assert whole.metrics["line_scores"] == lines.metrics["line_scores"] == [None, None, None, 1.0]


@pytest.mark.parametrize("fence", ["```jsx {1,4-6,11}", "```json {1,3}"])
def test_a_fence_with_line_highlights_is_no_line(fence: str) -> None:
    """Docusaurus' highlighted lines are attributes, not a record (review diff18f)."""
    gold = '{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}'
    model = f"{fence}\n{gold}\n```"
    assert score(gold, model, "similarity", line_by_line=True).metrics["line_scores"] == [1.0, 1.0]


# -- review mutants19 ---------------------------------------------------------------------------


def test_a_line_with_one_ignored_field_keeps_its_place_in_the_mean() -> None:
    gold = '{"id": 1, "v": "alpha"}\n{"id": 2, "v": "beta"}'
    model = '{"id": 9, "v": "alpha"}\n{"id": 2, "v": "gamma"}'
    result = score(gold, model, "similarity", line_by_line=True, ignore_paths=["answer[*].id"])
    assert result.metrics["line_scores"] == pytest.approx([1.0, 0.2])
    assert result.score == pytest.approx(0.6)


def test_a_delimiter_of_several_characters_cuts_whole() -> None:
    result = score(["a", "b", "c"], "a||b||c", "similarity", line_by_line="||")
    assert result.parsed_model == ["a", "b", "c"]
    assert result.passed


def test_a_tuples_elements_are_lines() -> None:
    result = score(["a", "b"], ("a", "c"), "similarity", line_by_line=True)
    assert result.metrics["line_scores"] == [1.0, 0.0]


def test_inline_code_and_two_marks_are_lines_not_fences() -> None:
    inline = score("yes\nno", "```yes```\nno", "similarity", line_by_line=True)
    assert inline.parsed_model == ["```yes```", "no"]
    for marks in ("``", "~~"):
        assert score(
            "yes\nno", f"yes\n{marks}\nno", "similarity", line_by_line=True
        ).parsed_model == [
            "yes",
            marks,
            "no",
        ]


def test_the_line_bound_admits_exactly_two_thousand_lines() -> None:
    lines = [f"l{i}" for i in range(2000)]
    for side in ("\n".join(lines), lines):
        assert score(side, side, "similarity", line_by_line=True).score == 1.0
    for side in ("\n".join([*lines, "one more"]), [*lines, "one more"]):
        with pytest.raises(LimitError, match="more than 2,000 lines"):
            score(side, side, "similarity", line_by_line=True)
