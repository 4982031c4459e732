"""Answer kinds read out of prose: a multiple-choice option against a letter gold
(``choice-in-text``), and abstentions ("I don't know") told apart from wrong answers."""

from __future__ import annotations

import json
from collections import Counter
from string import ascii_uppercase
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.gates import parse_gate
from pytest_structeval.markdown import render_markdown
from pytest_structeval.modes import abstention, chosen_option, note_prose, prose
from pytest_structeval.report import Aggregate, RunRecord, render_summary
from pytest_structeval.results import ScoreResult
from pytest_structeval.scenarios import plan, score_run
from tests.plugin_support import gate_failures
from tests.realdata import require_data

MODES = ("strict", "similarity", "schema")

# --------------------------------------------------------------------------- choices


@pytest.mark.parametrize(
    ("answer", "method"),
    [
        ("C", "choice-in-text"),
        ("(C)", "choice-in-text"),
        ("C)", "choice-in-text"),
        ("C.", "choice-in-text"),
        ("**C**", "choice-in-text"),
        ("[C]", "choice-in-text"),
        ("Final Answer: C", "final-answer+choice-in-text"),
        ("Final Answer: **C**", "final-answer+choice-in-text"),
        ("The correct option is C.", "choice-in-text"),
        ("Let me compare the options.\n\nC", "choice-in-text"),
        ("I first thought the answer is B.\n\n**Answer:** (C)", "answer+choice-in-text"),
        ("the best answer is (C) because the winding is hot", "choice-in-text"),
        ("Option A is wrong. Option C is correct.", "choice-in-text"),
        ("C is the right answer: the oil is hot.", "choice-in-text"),
        ("I would pick option C because it fits.", "choice-in-text"),
        ("The answer is **C**, not B.", "choice-in-text"),
        ("Answer: (C) Chiller 6 failed", "answer+choice-in-text"),
        ("Answer: C) Chiller 6", "answer+choice-in-text"),
        ("Answer: C. Chiller 6", "answer+choice-in-text"),
        ("- C) fan overheating", "choice-in-text"),
        ("Final Answer: C\n\nExplanation: the winding is hot.", "final-answer+choice-in-text"),
        ("Answer: (C)\n(B) was close", "answer+choice-in-text"),  # the marked line concludes
        ("$\\boxed{C}$", "boxed+choice-in-text"),
        # fixprose35 #3: a list's only item or a table's only row ending the answer
        ("Let me compare the options.\n\n- **C**", "choice-in-text"),
        ("1. C", "choice-in-text"),
        ("| C |", "choice-in-text"),
        ("| Answer |\n|---|\n| **C** |", "choice-in-text"),
        ("Options:\n- A\n- B\n\nAnswer:\n- C", "answer+choice-in-text"),
        ("- **C**\n\nHope this helps!", "choice-in-text"),
        # fixprose37 #3: a table row whose label cell ends in a colon (was text)
        ("| Answer: | C |", "choice-in-text"),
        ("| **Answer:** | **C** |", "choice-in-text"),
        ("| Final Answer : | (C) |", "choice-in-text"),
        ("| \u7b54\u6848\uff1a | C |", "choice-in-text"),  # | 答案： | C |
        ("The options were weighed.\n\n| Answer: | C |", "choice-in-text"),
        # prosegaps38 #5: a table's one row under a header naming the answer (was text)
        ("| Answer | Explanation |\n|---|---|\n| C | because the motor is hot |", "choice-in-text"),
        ("| Question | Answer |\n|---|---|\n| Which part? | C |", "choice-in-text"),
        (
            "Weighed.\n\n| Final Answer | Why |\n|:---|---|\n| **C** | not the pump |",
            "choice-in-text",
        ),
        ("| Answer | Why |\n| :-- | --: |\n| C | hot |", "choice-in-text"),  # (a short rule)
        ("| Correct option | Why |\n|---|---|\n| (C) | hot |", "choice-in-text"),
        (
            "| \u7b54\u6848 | \u89e3\u6790 |\n|---|---|\n| C | \u56e0\u4e3a |",
            "choice-in-text",
        ),  # | 答案 | 解析 |
        # and a cell that concludes as its line would ("Answer: C (Motor)")
        ("| Answer | C (Motor) |", "choice-in-text"),
        ("| Answer | Explanation |\n|---|---|\n| C (Motor) | hot |", "choice-in-text"),
    ],
)
def test_an_option_stated_in_prose_is_that_letter(answer: str, method: str) -> None:
    for mode in MODES:
        result = score("C", answer, mode=mode)
        assert (result.parse_method, result.parsed_model, result.passed) == (method, "C", True)


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("The correct option is C because it is cheapest.", "C"),
        ("The answer is C since the pump tripped.", "C"),
        ("The best choice is C as it costs less.", "C"),
        ("The answer is C due to the load.", "C"),
        ("The answer is B since the table has no option E.", "B"),  # a negated one is none
        ("The correct option is C (Motor).", "C"),  # prose30 #9
        # review 13: a rejected option, then the choice (prose30 #9: "I'd go with" concludes)
        ("Option C is not suitable because the chiller is offline. I'd go with D.", "D"),
        ("I choose C.", "C"),
        ("Which option fits? Option C.", "C"),  # (the question is another sentence)
        ("My first thought was D but I'll go with C.", "C"),
        ("**C**\n\nLet me know if you need anything else.", "C"),  # prose30 #8: alone on a line
        ("C\n\nHope this helps!", "C"),
        # prose30b: a condition or a doubt in another clause leaves the conclusion standing
        ("Even if the load is high, the answer is C.", "C"),
        ("Unless I'm mistaken, the answer is C.", "C"),
        ("Not sure, but the answer is C.", "C"),
    ],
)
def test_a_conclusion_followed_by_its_reason_is_that_letter(answer: str, letter: str) -> None:
    """docs30 #2: a reason straight after the letter ("C because ...") made it no choice,
    though the README contrasts this very sentence with the reference's reading; prose30 #8
    and #9: other plain statements of a choice."""
    result = score("C", answer)
    assert (result.parse_method, result.parsed_model) == ("choice-in-text", letter)
    assert score("C", "The answer is A as well as B.").parse_method == "text"


@pytest.mark.parametrize(
    "answer",
    [
        "A pump failed",  # the article
        "I think so",  # the pronoun
        "The answer is A pump.",
        "the option I chose was the cheaper one",
        "Vitamin A is the correct supplement",
        "A) pump\nB) motor\nC) fan",  # the options listed, none chosen
        "(A) and (B) are both possible",
        "Final Answer: C\n\nOn reflection the answer is B.",  # two conclusions
        "(C) Load current (A) is high",  # a unit in brackets is one more letter
        "The answer is B. Wait, actually the answer is C.",  # two conclusions
        "I. Overview of the fleet",  # a heading, unmarked
        "C. Smith inspected the unit",  # idem: only a marked region opens with "C."
        "option c",  # capitals only
        "The U.S. grid",
        # review 13: a rejected option, a correction, several options, a question, numerals
        "We can eliminate option C immediately. The correct answer is the fourth one.",
        "The answer is C.\n\nWait. Chiller 6 is offline, so the answer is actually D.",
        "C is correct.\nActually, D is correct.",
        "Answer: C\nCorrection: D",
        # a correction that is no conclusion of its own form: the first one no longer stands
        "The answer is C. Actually, it is D.",
        "The answer is C. Wait, it's D.",
        "The answer is C. No, I think it should be option D.",
        "Option C is the answer. On second thought, that is D.",
        "The answer is C. Actually, D.",  # review 14
        "The answer is C. Hmm, it's D.",
        "The answer is C. Actually, it's D, I think.",  # the pronoun is no option
        "The answer is C, I and J.",  # but options listed are
        "The answer is A, C and D.",
        "The answer is C?",
        "(I) and (III) are correct.",
        # prose30 #6: a conclusion made a condition or a doubt, an option called a trap
        "I cannot tell whether the answer is C.",
        "I don't know if the answer is C.",
        "Final Answer: I cannot tell whether the answer is C.",
        "It's unclear whether option C applies; I don't know.",
        "If the answer is C, then the pump failed.",
        "Option C is a trap.",
        "A\nB\nC\nWhich one?",  # options alone on their lines, listed
        "The answer is B.\n\nC\n\nThanks",  # two, one concluded, one alone
        # prose30b: a parenthesis that hedges, an option alone in code or in an echo
        "The answer is C (or D).",
        "The answer is C (no D).",  # review 15: a negation is no correction, never D
        "The answer is C (I'm not sure).",
        "```\nC\n```\nI cannot answer.",
        "Which option?\nA\nC\nI cannot answer.",
        "Steps:\nI) Replace the transformer\nII) Inspect the bushings",
        # fixprose35 #3: the options listed in a list or a table ("* C" last read as C)
        "Options:\n- A\n- B\n- C",
        "Options:\n* A\n* B\n* C",
        "1. A\n2. B\n3. C",
        "- A: the pump\n  overheats\n- C",
        "| Option |\n|---|\n| A |\n| B |\n| C |",
        "| Answer: | C or D |",  # (a label's colon reads, the value must still be one letter)
        "| Answer:: | C |",
        # prosegaps38 #5: a header that names no answer, several rows, two answers
        "| Option | Verdict |\n|---|---|\n| C | wrong |",
        "| Part | Note |\n|---|---|\n| C | hot |",
        "| Answer | Why |\n|---|---|\n| C | hot |\n| D | cold |",
        "| Answer | Answer |\n|---|---|\n| C | D |",
        "| Answer | Why |\n|---|---|\n| C or D | either |",
        "| Answer | Why |\n|---|---|\n| If C, then D | unsure |",
        # prosegaps38 #6: two options offered with "or" (or listed), as "C or D" is none
        "C) Motor or D) Pump",
        "C) Motor, D) Pump",
        "C) Motor and D) Pump",
        "C) Motor or maybe D) Pump",
        "Answer: C) Motor or D) Pump",
        "The answer is C) Motor or D) Pump",
        "The answer is C (Motor) or D (Pump)",
        "The answer is **C** (Motor) or **D** (Pump)",
        "The answer is C (Motor) or (D)",
        "The answer is C (Motor) or D.",
        "The answer is C, or D.",
        "The answer is C, or maybe D.",
        "The answer is C (Motor); or D (Pump) if the load is low.",
        "I'd go with C (Motor) or perhaps D (Pump).",
        "| Answer | C (Motor) or D (Pump) |",
        # prosegaps38: a mention in a sentence that asks, as "The answer is C?" is none
        "Is it option C?",
        "Option C?",
        "(C) Motor?",
        "Could the answer be option C? I cannot tell.",
    ],
)
def test_prose_without_one_stated_option_is_no_choice(answer: str) -> None:
    result = score("C", answer)
    assert result.parse_method in ("text", "answer+text", "final-answer+text")
    assert isinstance(result.parsed_model, str)


@pytest.mark.parametrize(
    "answer",
    [
        "Actually, it is C.",  # a correction alone states the option
        "The answer is C. No, it is C.",  # a correction that confirms
        "The answer is C. Actually, it is a D-rated pump.",  # no option set off
        "The answer is C. No, D is wrong.",  # a ruling-out, no correction
        "The answer is C. Wait, A pump failed first.",
        "The answer is C, because there is no D.",  # review 15
        "The answer is C, I believe.",
        # prosegaps38 #6: "or" that offers no other option
        "The answer is C since phase A or B is loaded.",
        "The answer is C since phase A or B.",  # (a bare letter only right after the choice)
        "The answer is C, not A or B.",
        "The answer is C (Motor), not A (Pump) or B (Fan).",
        "The answer is C because the motor or the pump failed.",
        "The answer is C (Motor), or I think so.",
        "The answer is C) Motor. D) is wrong.",
    ],
)
def test_a_correction_that_names_no_other_option_keeps_the_choice(answer: str) -> None:
    result = score("C", answer)
    assert (result.parse_method, result.parsed_model, result.passed) == (
        "choice-in-text",
        "C",
        True,
    )


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ('The answer is "C".', "C"),
        ("The answer is 'C'.", "C"),
        ("The answer is \u201cC\u201d.", "C"),  # “C”
        ("The answer is \u2018C\u2019.", "C"),  # ‘C’
        ("The answer is \u00abC\u00bb.", "C"),  # «C»
        ("The answer is \u300cC\u300d.", "C"),  # 「C」
        ("The answer is \uff02C\uff02\u3002", "C"),  # full-width quotes, ideographic stop
        ('The answer is "C."', "C"),  # the full stop inside the marks
        ('The answer is "C" because the oil is hot.', "C"),
        ('"C" is correct.', "C"),
        ('I recommend option "C".', "C"),
        ("\u7b54\u6848\u662f\u300cC\u300d\u3002", "C"),  # 答案是「C」。
        ("\u6b63\u89e3\u306f\u300cC\u300d\u3067\u3059\u3002", "C"),  # 正解は「C」です。
        # a quoted option ruled out beside the one concluded on
        ('Option "C" is wrong; the answer is B', "B"),
        ('The answer is "C", not "B".', "C"),
    ],
)
def test_an_option_in_quotes_is_that_letter(answer: str, letter: str) -> None:
    """fixprose33 #1: the letter in quote marks read as nothing (``text``), so
    ``The answer is "C".`` failed where ``The answer is C.`` passed."""
    result = score("C", answer)
    assert (result.parse_method, result.parsed_model) == ("choice-in-text", letter)


@pytest.mark.parametrize(
    "answer",
    [
        'The answer is "C" or "D".',
        'The answer is "C", "D" and "E".',  # a list of quoted options
        'The answer is C, "D" and "E".',  # (the bare C was read before the quoted list)
        'The answer is "C" and "D".',
        'The answer is "C-rated".',  # a quoted word, not a letter
        'The answer is "Chiller 6".',
        'The answer is "C"?',
        'If the answer is "C", then the pump failed.',
        'Option "C" is wrong.',
        # 正解は「C」ではありません。 (is not C)
        "\u6b63\u89e3\u306f\u300cC\u300d\u3067\u306f\u3042\u308a\u307e\u305b\u3093\u3002",
        "'C' is too short",  # a validator's message
        "Additional properties are not allowed ('C' was unexpected)",
    ],
)
def test_a_quoted_letter_that_states_no_one_option_is_no_choice(answer: str) -> None:
    result = score("C", answer)
    assert (result.parse_method, result.parsed_model) == ("text", answer)


def test_a_wrong_option_fails_and_a_bare_letter_is_only_read_against_a_letter_gold() -> None:
    result = score("C", "The correct option is B.")
    assert (result.parse_method, result.parsed_model, result.passed) == (
        "choice-in-text",
        "B",
        False,
    )
    for gold in ("Chiller 6", "CC", "(C)", "c", 3, {"answer": "C"}):
        assert score(gold, "The correct option is C.").parse_method == "text"
    # A structured answer is never re-read.
    assert score("C", '"C"').parse_method == "json"
    assert score("C", '{"answer": "C"}').parse_method == "json"


def test_a_final_line_outranks_earlier_conclusions() -> None:
    assert chosen_option("The answer is B?\n\nC") == "C"
    assert chosen_option("Final answer: B. Then again the answer is (C).") is None
    assert chosen_option("C. Chiller 6", marked=True) == "C"
    assert chosen_option("C. Chiller 6") is None


_FILLER = "The readings were reviewed one by one.\n" * 100


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        ("The correct option is C.\n" + _FILLER, "C"),  # stated first
        ("Option A looks plausible.\n" + _FILLER + "So the answer is C.", "C"),
        ("The answer is B.\n" + _FILLER + "The answer is C, as the oil shows.", None),
        ("The answer is B.\n" + _FILLER + "The answer is C.", "C"),  # the final line
        (_FILLER + "The answer is C.\n" + _FILLER, None),  # only the ends are read
        ("the answer is" + " " * 20_000 + "x", None),  # no quadratic backtracking
        ("Answer" + " " * 20_000 + "x", None),
        ("\n" + "*" * 100_000 + "x", None),
    ],
)
def test_a_long_answer_is_read_at_its_ends(text: str, letter: str | None) -> None:
    assert chosen_option(text) == letter


_FINAL_LINES = (
    "{}",
    "({})",
    "{})",
    "{}.",
    "**{}**",
    "[{}]",
    "Answer: {}",
    "Final answer: ({})",
    "The correct option is {}.",
    "Option {}",
    "**Answer:** `{}`",
)


@settings(max_examples=200, deadline=None)
@given(
    prose=st.text(max_size=200),
    letter=st.sampled_from(ascii_uppercase),
    form=st.sampled_from(_FINAL_LINES),
)
def test_an_option_alone_on_the_final_line_is_found(prose: str, letter: str, form: str) -> None:
    assert chosen_option(f"{prose}\n\n{form.format(letter)}") == letter


@settings(deadline=None)
@given(
    prose=st.text(max_size=100),
    letter=st.sampled_from(ascii_uppercase),
    header=st.sampled_from(("Answer", "Final Answer", "**Answer**", "Correct option")),
    why=st.text(  # (a cell: no line break, "\x85" and "\u2028" too)
        alphabet=st.characters(blacklist_characters="|", blacklist_categories=("Cc", "Zl", "Zp")),
        max_size=60,
    ),
    answer_first=st.booleans(),
)
def test_a_table_s_one_row_under_an_answer_header_is_its_option(
    prose: str, letter: str, header: str, why: str, answer_first: bool
) -> None:
    """prosegaps38 #5: whatever the other column says, the answer column decides."""
    cells = [(header, letter), ("Explanation", why)][:: 1 if answer_first else -1]
    header_row, row = ("| " + " | ".join(pair[i] for pair in cells) + " |" for i in (0, 1))
    table = f"{header_row}\n|---|---|\n{row}"
    assert chosen_option(f"{prose}\n\n{table}") == letter


_WORDS = ("A", "I", "B", "C", "pump", "failed", "think", "so", "the", "motor", "is", "was", "on")


@settings(max_examples=200, deadline=None)
@given(
    sentences=st.lists(
        st.lists(st.sampled_from(_WORDS), min_size=2, max_size=8).map(" ".join),
        min_size=1,
        max_size=4,
    ),
    joint=st.sampled_from((". ", ".\n", ", ")),
)
def test_capitals_in_sentences_are_never_a_choice(sentences: list[str], joint: str) -> None:
    """Without "option", "answer", brackets or a line of its own, "A" and "I" are words."""
    text = joint.join(sentences) + "."
    assert chosen_option(text) is None
    assert score("A", text).parse_method == "text"


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    chosen_option(text)
    chosen_option(text, marked=True)
    abstention(text)
    for gold in ("C", "Chiller 6"):
        for mode in MODES:
            assert 0.0 <= score(gold, text, mode=mode).score <= 1.0


# --------------------------------------------------------------------------- abstention


ABSTAINING = (
    "I don't know.",
    "I don\u2019t know.",
    "I do not know which asset failed.",
    "The root cause cannot be determined from the data.",
    "Insufficient information.",
    "There is not enough data to answer.",
    "I'm unable to answer that question.",
    "I cannot provide an answer without sensor readings for T-014.",  # an id is no value
    "I don't have enough information to answer.",
    "There isn't enough data to determine the fault.",
    "There are no readings for T-005. Therefore, it is not possible to determine the peak.",
    # realdata31 #2: the same decline with another verb
    "There are no readings for T-005. Therefore, it is not possible to detect anomalies.",
    "It seems there are no readings. In this case, we cannot perform anomaly detection.",
    "The anomaly detection cannot be performed because there is no data to analyze.",
    "The function was unable to produce results because there were no readings.",
)


@pytest.mark.parametrize("answer", ABSTAINING)
def test_an_abstention_is_flagged_in_every_mode(answer: str) -> None:
    for mode in MODES:
        result = score({"asset": "Chiller 6"}, answer, mode=mode)
        assert result.metrics["abstained"] is True
        assert result.to_dict()["abstained"] is True  # details["abstained"] in a report
        assert result.reason.startswith('model abstained: "')
        assert not result.passed


def test_the_abstaining_sentence_is_quoted_as_written() -> None:
    """unicode32 minor: the curly apostrophe the rule reads as ``'`` was quoted as ``'``."""
    assert score(34, "I don\u2019t  know.").reason.startswith(
        'model abstained: "I don\u2019t know."'
    )


def test_the_reason_quotes_the_abstaining_sentence_and_keeps_the_mode_reason() -> None:
    result = score(
        {"asset": "Chiller 6"},
        "There are no readings for T-005. Therefore, it is not possible to determine the peak.",
    )
    assert result.reason == (
        'model abstained: "Therefore, it is not possible to determine the peak."; '
        "model answer has no structure: 0 mismatched, 1 missing, 1 extra"
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("gold", [{"asset": "Chiller 6"}, "Chiller 6", "C", 34])
def test_an_abstention_changes_no_score(
    mode: str, gold: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    flagged = score(gold, "Insufficient information to say.", mode=mode)
    monkeypatch.setattr(prose, "abstention", lambda text: None)
    plain = score(gold, "Insufficient information to say.", mode=mode)
    assert flagged.metrics["abstained"] is True
    assert "abstained" not in plain.metrics
    assert (flagged.score, flagged.passed, flagged.fields) == (
        plain.score,
        plain.passed,
        plain.fields,
    )
    assert {k: v for k, v in flagged.metrics.items() if k != "abstained"} == plain.metrics
    assert flagged.reason == f'model abstained: "Insufficient information to say."; {plain.reason}'


def test_an_abstention_the_gold_expects_still_passes_and_is_still_noted() -> None:
    result = score("Cannot be determined.", "Cannot be determined.")
    assert result.passed
    assert result.metrics["abstained"] is True


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know the exact date, but it is 34",  # states a value
        "I don't know the exact date; it was 2024-01-06.",
        "I cannot determine the cause; probably the pump.",  # a guess
        "I can't be sure. I think it is Chiller 6.",
        "Since no readings were found, we can't determine if it deviated more than 3%.",
        "The pump failed, however the cause cannot be determined.",  # a partial answer
        "Chiller 6",
        "A pump failed.",
        "The transformer cannot safely operate for 180 days.",  # "cannot", but an answer
        "It is possible to determine the trend: it rises.",
        "It cannot be determined. " + "The readings were reviewed in detail. " * 12,  # long
        # review 13: an answer first, then a detail declined
        "The root cause is bearing wear. The exact date of onset cannot be determined.",
        "Chiller Six. (The exact timestamp cannot be determined.)",
        "We could not determine the exact cause; the most probable fault is arcing at T-020.",
        # diff31a #6: declining to detect or perform states a finding or a constraint here
        "I could not detect any anomalies in the readings; the transformer is operating normally.",
        "The sensor was unable to detect any partial discharge.",
        "Nothing abnormal: the model could not detect a fault.",
        "Maintenance cannot be performed while the transformer is energized; plan an outage.",
        "Dissolved gas analysis cannot be performed on dry-type transformers such as T-ABC.",
        # diff31b #3: a finding of absence is no missing input
        "We could not detect anomalies, as all readings stayed within normal limits.",
        "Anomaly detection could not detect anomalies because nothing exceeded the limits.",
        "No anomalies were detected, so we cannot perform root-cause analysis.",
        "T-003 is not overloaded. The sensor could not detect abnormal vibration.",
        "The transformer is not due for service. An outage cannot be performed before June.",
    ],
)
def test_an_answer_that_answers_is_no_abstention(answer: str) -> None:
    assert abstention(answer) is None
    assert "abstained" not in score("Chiller 6", answer).metrics


def test_only_prose_abstains() -> None:
    assert "abstained" not in score({"a": 1}, '{"a": "I don\'t know"}').metrics  # structured
    assert "abstained" not in score({"a": 1}, "").metrics  # empty: says nothing
    empty = score({"a": 1}, "<think>I don't know</think>")
    assert (empty.parse_method, "abstained" in empty.metrics) == ("empty", False)
    # Against a number or a letter, a stated value is read first and is no abstention.
    assert score(34, "I don't know, but there are 34.").parse_method == "count-in-text"
    assert score("C", "I don't know. Option C.").parse_method == "choice-in-text"


@settings(max_examples=100, deadline=None)
@given(
    answer=st.sampled_from(ABSTAINING),
    number=st.integers(min_value=-(10**6), max_value=10**6),
    where=st.sampled_from(("{a} It is {n}.", "{n} units. {a}", "{a} ({n}%)")),
)
def test_an_abstention_that_states_a_number_is_none(answer: str, number: int, where: str) -> None:
    assert abstention(answer) is not None
    assert abstention(where.format(a=answer, n=number)) is None


# --------------------------------------------------------------------------- reports


def _record(result: Any, run_id: str) -> dict[str, Any]:
    return RunRecord.from_result(result, scorer="strict", run_id=run_id, scenario_id="1").to_dict()


def test_the_aggregate_counts_abstentions_and_the_summary_says_so() -> None:
    agg = Aggregate.empty()
    agg.add(_record(score({"a": 1}, '{"a": 1}'), "r1"))
    agg.add(_record(score({"a": 1}, "I don't know."), "r2"))
    agg.add(_record(score({"a": 1}, "Insufficient data.", mode="schema"), "r3"))
    agg.add(_record(score({"a": 1}, "The value is two."), "r4"))
    report = agg.report()
    assert report["parse"]["abstained"] == 2
    assert report["parse"]["text"] == 3  # abstentions are still text fallbacks
    (line,) = [x for x in render_summary(report) if x.startswith("parse rate")]
    assert line.endswith("| 2 abstained")
    quiet = Aggregate.empty()
    quiet.add(_record(score({"a": 1}, "The value is two."), "r1"))
    assert quiet.report()["parse"]["abstained"] == 0
    assert not any("abstained" in x for x in render_summary(quiet.report()))
    assert "0 could not be parsed; 2 declined to answer." in render_markdown(report)
    assert "declined" not in render_markdown(quiet.report())
    # a gate can hold the count: abstained<=1 fails this run, abstained<=2 holds
    (missed,) = gate_failures(report, gates=[parse_gate("abstained<=1")])
    assert missed == "structeval: abstained 2 misses --structeval-gate abstained<=1"
    assert gate_failures(report, gates=[parse_gate("abstained<=2")]) == []


# --------------------------------------------------------------------------- real data


@pytest.mark.realdata
def test_real_smartgrid_answers_abstain_rarely_and_state_no_choices() -> None:
    """The 1,247 hpml_smartgrid answers: 11 distinct ones abstain (checked by eye; 5 before
    realdata31 #2 added the verbs detect, perform and produce results), none states an
    option, and the serial and the split-and-merged (pytest-xdist) aggregates agree."""
    base = require_data("assetops", "hpml_smartgrid")
    joined = plan([base / "scenarios"], [base / "trajectories"])
    assert len(joined.runs) == 1247
    records = [score_run(r.scenario, r.trajectory).to_dict() for r in joined.runs]
    serial, interleaved = Aggregate.empty(), Aggregate.empty()
    for record in records:
        serial.add(record)
    for record in [*records[1::2], *records[::2]]:  # as two workers' records may arrive
        interleaved.add(json.loads(json.dumps(record)))
    assert interleaved.report("T") == serial.report("T")

    by_answer = {str(r["answer"]).strip(): r["score"] for r in records}
    flagged = [s for s in by_answer.values() if s["details"].get("abstained") is True]
    assert 9 <= len(flagged) <= 13
    assert serial.report("T")["parse"]["abstained"] == sum(
        r["score"]["details"].get("abstained") is True for r in records
    )
    date = by_answer["The user query could not be answered because of errors in the date format."]
    assert date["rationale"].startswith(
        'model abstained: "The user query could not be answered because of errors in the date'
    )
    assert date["passed"] is False
    assert date["score"] == 0.0
    no_readings = next(a for a in by_answer if a.startswith("In this case, we cannot determine"))
    assert by_answer[no_readings]["details"]["abstained"] is True
    for verb in ("not possible to detect anomalies.", "we cannot perform anomaly detection."):
        declined = next(a for a in by_answer if a.endswith(verb))
        assert by_answer[declined]["details"]["abstained"] is True
    # Declines with a threshold restated ("3%"), or long answers declining one detail: kept.
    restated = next(a for a in by_answer if a.startswith("Since no readings were found for"))
    assert "3%" in restated
    assert "abstained" not in by_answer[restated]["details"]
    partial = [a for a in by_answer if "cannot be determined due to errors" in a]
    assert partial
    assert all("abstained" not in by_answer[a]["details"] for a in partial)

    kinds = Counter(
        score("C", t.answer).parse_method
        for t in (r.trajectory for r in joined.runs)
        if isinstance(t.answer, str)
    )
    assert not [m for m in kinds if m.endswith("choice-in-text")]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("answer", "method"),
    [
        ("C (Motor)", "choice-in-text"),
        ("C (Motor).", "choice-in-text"),
        ("**C** (Motor)", "choice-in-text"),
        ("C (2 kW)", "choice-in-text"),
        ("C (Motor)\n\nHope this helps!", "choice-in-text"),
        ("- C (Motor)", "choice-in-text"),
        ("Final Answer: C (Motor)", "final-answer+choice-in-text"),
        ("Final Answer: **C** (Motor)\n\nThe winding is hot.", "final-answer+choice-in-text"),
        ("Answer: C (Motor) because it hums", "answer+choice-in-text"),
    ],
)
def test_an_option_with_its_text_in_brackets_is_that_letter(answer: str, method: str) -> None:
    """The README lists "C (Motor)" among the ways an answer states option C, as it lists
    "C) Motor" and, after a marker, "C. Chiller 6"; only "The answer is C (Motor)." was
    read, while "C (Motor)" alone and "Final Answer: C (Motor)" were text that failed a gold
    "C" (claims37)."""
    for mode in MODES:
        result = score("C", answer, mode=mode)
        assert (result.parse_method, result.parsed_model, result.passed) == (method, "C", True)


@pytest.mark.parametrize(
    "answer",
    [
        "C (or D)",
        "C (Motor) or D (Pump)",  # two options named
        "A (Motor)\nB (Pump)\nC (Fan)",  # the options listed
        "C (Motor) is not suitable",  # ruled out
        "Final Answer: C (I'm not sure)",
        "I (Ian) checked the pumps",  # the pronoun
    ],
)
def test_an_option_with_its_text_in_brackets_names_no_choice_beside_others(answer: str) -> None:
    result = score("C", answer)
    assert result.parse_method in ("text", "answer+text", "final-answer+text"), result
    assert isinstance(result.parsed_model, str)


def test_a_unit_in_brackets_does_not_cancel_a_stated_option() -> None:
    result = score("B", "Load current (A): 45. The answer is option B.")
    assert (result.parse_method, result.parsed_model) == ("choice-in-text", "B")
    assert score("C", "The answer is C, as the oil shows.").parsed_model == "C"
    assert score("C", "The answer is **C**, not B.").parsed_model == "C"


def test_a_clock_time_is_not_the_stated_count() -> None:
    # The parser read "…at 10:30." as the count 30 for a moment (review 13); against a
    # numeric gold the one lone number stated is the count.
    assert score(7, "The answer is 7, observed at 10:30.").parsed_model == 7
    assert score(4, "The result was 4 alarms between 08:00 and 10:30").passed


def test_an_abstention_of_exactly_400_characters_is_read() -> None:
    text = "I don't know. " + "x" * 386
    assert len(text) == 400
    assert abstention(text) == "I don't know."


def test_an_abstaining_sentence_of_100_characters_is_quoted_whole() -> None:
    text = "The value cannot be determined " + "x" * 68 + "."
    assert len(text) == 100
    assert abstention(text) == text


def test_an_abstention_note_without_a_reason_has_no_dangling_separator() -> None:
    result = ScoreResult(
        passed=False, score=0.0, mode="judge", reason="", parsed_model="I don't know."
    )
    assert note_prose(result, "I don't know.").reason == 'model abstained: "I don\'t know."'


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_prose_stating_several_numbers_says_why_none_was_read(mode: str) -> None:
    """Review newuser28 #3: a real agent answer naming the count and a year failed with only
    'compared as text'; the note names the numbers and the way out."""
    prose = "I queried the work order tool.\n\nThere are 34 corrective work orders in 2024."
    result = score(34, prose, mode)
    assert (result.passed, result.parse_method) == (False, "text")
    assert result.metrics["notes"][-1] == (
        "several numbers stated (34, 2024): none read as the answer; a 'Final Answer: N' "
        "line picks one"
    )
    many = score(34, "34 orders in 2024, 12 open and 3 closed.", mode).metrics["notes"]
    assert many[-1].startswith("several numbers stated (34, 2024, 12, ...):")
    assert score(34, prose + "\nFinal Answer: 34", mode).passed
    assert score("Chiller 6", "Chiller 6 ran 34 hours in 2024.", mode).metrics["notes"] == []
    assert score(34, "There are 34 orders.", mode).metrics["notes"] == []
    # a number opening a marked region's line is stated, not a list item (diff28a #3)
    marked = score(5, "Final Answer: 5. There were also 7 failures.", mode)
    assert marked.metrics["notes"][-1].startswith("several numbers stated (5, 7):")


def test_declining_the_task_needs_its_reason_in_a_clause_of_its_own_sentence() -> None:
    """mutation31 PR4/PR6/PR7: a word of absence after the verb counts only in a clause
    that gives the reason (because, since, as, due to), and in the same sentence."""
    assert (
        abstention("Maintenance cannot be performed while energized, not before the outage.")
        is None
    )
    assert (
        abstention("Maintenance cannot be performed because of safety rules. Nothing else.") is None
    )
    for text in (
        "Anomaly detection cannot be performed since no readings were given.",
        "Anomaly detection cannot be performed as no readings were given.",
        "Anomaly detection cannot be performed due to missing readings.",
    ):
        assert abstention(text) == text


@pytest.mark.parametrize(
    ("answer", "declines"),
    [  # diff31c #8: no input said in other words, and findings worded with "no readings"
        ("The tool returned no results, so anomaly detection cannot be performed.", True),
        ("The query returned nothing, so I cannot perform anomaly detection.", True),
        ("There is no telemetry for T-5, so anomaly detection cannot be performed.", True),
        ("The sensor hasn't reported anything, so I can't detect anomalies.", True),
        ("No history is available for T-5, so anomaly detection cannot be performed.", True),
        ("The readings could not be retrieved, so anomaly detection cannot be performed.", True),
        ("We could not detect anomalies as no readings exceeded the alarm limit.", False),
        ("The data shows no abnormal readings, so we could not detect anomalies.", False),
        ("There were no missing values, and the detector could not detect anomalies.", False),
        (
            "The scan found no faults in the data. Diagnostics cannot be performed until June.",
            False,
        ),
        (
            "The insulation test cannot be performed as the transformer has no input isolation.",
            False,
        ),
        # diff31d #4
        ("The sensor reported nothing abnormal, so we could not detect anomalies.", False),
        ("The query returned nothing out of the ordinary; we could not detect anomalies.", False),
        ("Abnormal readings could not be found, so we could not detect anomalies.", False),
        ("No readings exceed the limit, so anomaly detection could not detect anomalies.", False),
        ("No unexpected readings appeared, so we could not detect anomalies.", False),
        ("There are no oil temperature sensor readings, so detection cannot be performed.", True),
        ("There are no instrument readings, so anomaly detection cannot be performed.", True),
        # diff31e #1
        ("Anomaly detection cannot be performed due to a lack of data.", True),
        ("The unit lacks the sensor readings, so anomaly detection cannot be performed.", True),
        ("The record is missing the sensor data, so anomaly detection cannot be performed.", True),
        ("Without the readings, anomaly detection cannot be performed.", True),
        ("The readings could not be found, so anomaly detection cannot be performed.", True),
        ("There are no in-service readings, so anomaly detection cannot be performed.", True),
        ("The job ran without saving any additional data; we could not detect anomalies.", False),
    ],
)
def test_a_decline_needs_no_input_not_a_finding_of_absence(answer: str, declines: bool) -> None:
    assert (abstention(answer) is not None) == declines


@pytest.mark.parametrize(
    ("answer", "method"),
    [
        ("Answer: C\u3002", "answer+choice-in-text"),  # Answer: C。
        ("Final Answer: C\u3002", "final-answer+choice-in-text"),
        ("The answer is C\u3002", "choice-in-text"),
        ("\u7b54\u6848\u662fC\u3002", "choice-in-text"),  # 答案是C。
        ("\u6b63\u786e\u7b54\u6848\u662f C\u3002", "choice-in-text"),  # 正确答案是 C。
        ("\u7b54\u6848\uff1aC", "choice-in-text"),  # 答案：C
        ("\u7b54\u6848\u662fC\uff0c\u56e0\u4e3a\u6cb9\u6e29\u9ad8\u3002", "choice-in-text"),
        ("\u6b63\u89e3\u306fC\u3067\u3059\u3002", "choice-in-text"),  # 正解はCです。
        ("\uc815\ub2f5\uc740 C\uc785\ub2c8\ub2e4.", "choice-in-text"),  # 정답은 C입니다.
        ("\uff08C\uff09", "choice-in-text"),  # （C）
        ("\uff23", "choice-in-text"),  # Ｃ
        ("Final answer: **\uff23**", "final-answer+choice-in-text"),
        ("C\uff0e", "choice-in-text"),  # C．
        (
            "\u7b54\u6848\u662fC\u56e0\u4e3a\u6cb9\u6e29\u9ad8",
            "choice-in-text",
        ),  # 答案是C因为油温高
        ("\u7b54\u6848\u662fC\u9009\u9879\u3002", "choice-in-text"),  # 答案是C选项。
        ("\u6b63\u89e3\u306fC\u3060\u3002", "choice-in-text"),  # 正解はCだ。
        ("\uc815\ub2f5\uc740 C\ubc88\uc785\ub2c8\ub2e4.", "choice-in-text"),  # 정답은 C번입니다.
        # prosegaps38: 选 (choose), as "I choose C"
        ("\u9009C", "choice-in-text"),  # 选C
        ("\u5e94\u9009C\u3002", "choice-in-text"),  # 应选C。
        ("\u6545\u9009C\u3002", "choice-in-text"),  # 故选C。
        ("\u9009\u62e9C\uff0c\u56e0\u4e3a\u7535\u673a\u8fc7\u70ed\u3002", "choice-in-text"),
    ],
)
def test_an_option_in_cjk_text_or_full_width_forms_is_read(answer: str, method: str) -> None:
    """Review unicode32 #7: ``C。``, ``（C）``, ``Ｃ`` and ``答案是C`` stated no option."""
    result = score("C", answer)
    assert (result.parse_method, result.parsed_model, result.passed) == (method, "C", True)


@pytest.mark.parametrize(
    "answer",
    [
        "\u7b54\u6848\u662f**C\u9879**\u3002",  # 答案是**C项**。
        "\u7b54\u6848\u662f**C\u9009\u9879**\u3002",  # 答案是**C选项**。
        "\u7b54\u6848\u662fC\u9879\uff1a\u56e0\u4e3a\u2026",  # 答案是C项：因为…
        "\u7b54\u6848\u662fC\u9879\uff08\u56e0\u4e3a\u2026\uff09",  # 答案是C项（因为…）
        "\u7b54\u6848\u662fC\u9879\r\n\u89e3\u6790",  # 答案是C项, CRLF
        "\u7b54\u6848\u662fC\u9879\u2026\u2026",  # 答案是C项……
        "\u6b63\u89e3\u306fC\u3060\u3063\u305f\u3002",  # 正解はCだった。 (was C)
        # diff32d #1: だと思います (I think) states it; a reason after a bracket or colon
        "\u6b63\u89e3\u306fC\u3060\u3068\u601d\u3044\u307e\u3059\u3002",  # だと思います
        "\u6b63\u89e3\u306fC\u3060\u3063\u305f\u3068\u601d\u3044\u307e\u3059",  # だったと思います
        "\u7b54\u6848\u662fC\u9879\uff1a\n\u89e3\u6790\u5982\u4e0b",  # C项：\n解析如下
    ],
)
def test_an_option_after_its_cjk_answer_word_is_read_past_emphasis_and_punctuation(
    answer: str,
) -> None:
    """diff32c #1: the whitelist after 项 took too few characters: emphasis, a colon, a
    bracket or a line break after it made a stated option text."""
    assert score("C", answer).passed


@pytest.mark.parametrize(
    "answer",
    [
        # a conclusion: "C项正确" as "C is correct"
        "C\u9879\u6b63\u786e",  # C项正确
        "C\u9879\u6b63\u786e\u3002",  # C项正确。
        "C\u9009\u9879\u6b63\u786e",  # C选项正确
        "\u9009\u9879C\u6b63\u786e\u3002",  # 选项C正确。
        "C\u9879\u662f\u6b63\u786e\u7684\u3002",  # C项是正确的。
        "C\u6b63\u786e\u3002",  # C正确。 (opening its clause)
        # 所以C项正确，因为电机过热。
        "\u6240\u4ee5C\u9879\u6b63\u786e\uff0c\u56e0\u4e3a\u7535\u673a\u8fc7\u70ed\u3002",
        # A项错误，B项错误，C项正确。
        "A\u9879\u9519\u8bef\uff0cB\u9879\u9519\u8bef\uff0cC\u9879\u6b63\u786e\u3002",
        # alone on a line, as "Option C"
        "C\u9879",  # C项
        "C\u9879\u3002",  # C项。
        "**C\u9879**",
        "\u9009\u9879C",  # 选项C
        "\u9009\u9879\uff1aC",  # 选项：C
        # a mention, as "option C" or a line opening "C (Motor)"
        "C\u9879\uff08\u7535\u673a\uff09",  # C项（电机）
        # C项（电机）。因为电机过热。
        "C\u9879\uff08\u7535\u673a\uff09\u3002\u56e0\u4e3a\u7535\u673a\u8fc7\u70ed\u3002",
        "\u7b54\u6848\u662fC\u9879\uff08\u7535\u673a\uff09",  # 答案是C项（电机）
        "C\u9879\uff1a\u7535\u673a",  # C项：电机
        "\u6211\u8ba4\u4e3aC\u9879\u6700\u5408\u9002\u3002",  # 我认为C项最合适。
    ],
)
def test_a_chinese_answer_opening_with_its_option_states_it(answer: str) -> None:
    """prosegaps38 #7: "C项（电机）" and "C项正确" (option C; C is correct), how Chinese
    answers to a choice often open, were text without an answer phrase (答案是)."""
    result = score("C", answer)
    assert (result.parse_method, result.parsed_model, result.passed) == (
        "choice-in-text",
        "C",
        True,
    )


@pytest.mark.parametrize(
    "answer",
    [
        "\u7b54\u6848\u662fC\u8fd8\u662fD\uff1f",  # 答案是C还是D？ asks
        "\u5982\u679c\u7b54\u6848\u662fC\uff0c\u90a3\u4e48\u6cf5\u5df2\u8df3\u95f8\u3002",  # 如果…
        "\u6211\u4e0d\u786e\u5b9a\u7b54\u6848\u662fC",  # 我不确定答案是C: a doubt
        "\u7b54\u6848\u662fC\u3002\u4e0d\u5bf9\uff0c\u7b54\u6848\u662fD\u3002",  # two
        "A\u6cf5\u6545\u969c\u4e86\u3002",  # A泵故障了: pump A, no option
        "\u7b54\u6848\u4e0d\u662fC",  # 答案不是C: not C
        # review prose32 #2: a conjunction, a negation or "other than" after the letter
        "\u7b54\u6848\u662fC\u6216D\u3002",  # 答案是C或D。 C or D
        "\u7b54\u6848\u662fC\u548cD\u3002",  # 答案是C和D。 C and D
        "\u7b54\u6848\u662fC\u9009\u9879\u6216D\u9009\u9879",  # 答案是C选项或D选项
        "\u6b63\u89e3\u306fC\u3068D\u3067\u3059\u3002",  # 正解はCとDです。
        "\u6b63\u89e3\u306fC\u3067\u306f\u3042\u308a\u307e\u305b\u3093\u3002",  # not C
        "\uc815\ub2f5\uc740 C\uac00 \uc544\ub2d9\ub2c8\ub2e4.",  # 정답은 C가 아닙니다.
        "\uc815\ub2f5\uc740 C \ub610\ub294 D\uc785\ub2c8\ub2e4.",  # C 또는 D
        "\u7b54\u6848\u662fC\u4ee5\u5916\u7684\u9009\u9879\u3002",  # C以外: other than C
        "\u7b54\u6848\u662fC\u8fd8\u662fD",  # 答案是C还是D, no ？
        "\u7b54\u6848\u662fC\u5417",  # 答案是C吗 asks
        "\u6b63\u89e3\u306fC\u3067\u3059\u304b",  # 正解はCですか asks
        "\u7b54\u6848\u662fC\uff0cD\u4e5f\u53ef\u4ee5\u3002",  # C，D也可以 (D works too)
        "\u7b54\u6848\u662fA\u7c7b\u8bbe\u5907",  # 答案是A类设备: class-A equipment
        # diff32b #3: the same after 项 (option), and a conditional after だ
        "\u7b54\u6848\u662fC\u9879\u5417",  # 答案是C项吗
        "\u7b54\u6848\u662fC\u9879\u4ee5\u5916\u7684\u9009\u9879",  # C项以外的选项
        "\u7b54\u6848\u662fC\u9879\u8ddfD\u9879",  # C项跟D项
        "\u7b54\u6848\u662fC\u9879\u4ee5\u53caD\u9879",  # C项以及D项
        "\u7b54\u6848\u662fC\u9879/D\u9879",  # C项/D项
        "\u6b63\u89e3\u306fC\u3060\u3063\u305f\u3089\u2026",  # 正解はCだったら… (if)
        # diff32c #2: the other conditionals after だ
        "\u6b63\u89e3\u306fC\u3060\u3063\u305f\u306a\u3089\u2026",  # だったなら
        "\u6b63\u89e3\u306fC\u3060\u3068\u3057\u305f\u3089\u2026",  # だとしたら
        "\u6b63\u89e3\u306fC\u3060\u3068\u3059\u308c\u3070",  # だとすれば
        "\u6b63\u89e3\u306fC\u3060\u3063\u305f\u3068\u3057\u3066\u3082",  # だったとしても
        # diff32d #2, #4: polite conditionals; a bracket, colon or ellipsis then another option
        "\u6b63\u89e3\u306fC\u3067\u3057\u305f\u3089\u2026",  # でしたら
        "\u6b63\u89e3\u306fC\u3067\u3057\u305f\u306a\u3089\u2026",  # でしたなら
        "\u6b63\u89e3\u306fC\u3067\u3057\u305f\u3068\u3057\u3066\u3082",  # でしたとしても
        "\u7b54\u6848\u662fC\u9879\uff08\u6216D\u9879\uff09",  # C项（或D项）
        "\u7b54\u6848\u662fC\u9879\uff08\u4e0d\u786e\u5b9a\uff09",  # C项（不确定）
        "\u7b54\u6848\u662fC\u9879\uff1a\u6216\u8005D\u9879",  # C项：或者D项
        "\u7b54\u6848\u662fC\u9879\u2026\u6216D\u9879",  # C项…或D项
        # prosegaps38 #7: option C without an answer phrase, ruled out, one of several, asked
        "C\u9879\u9519\u8bef\u3002",  # C项错误。
        "C\u9879\u4e0d\u6b63\u786e\u3002",  # C项不正确。
        "C\u9879\u548cD\u9879\u90fd\u53ef\u80fd",  # C项和D项都可能
        "C\u9879\u6216D\u9879",  # C项或D项
        # C项（电机）或D项（水泵）
        "C\u9879\uff08\u7535\u673a\uff09\u6216D\u9879\uff08\u6c34\u6cf5\uff09",
        "C\u9879\u3001D\u9879\u6b63\u786e\u3002",  # C项、D项正确。
        "C\u548cD\u6b63\u786e\u3002",  # C和D正确。
        "C\u9879\u6b63\u786e\u5417\uff1f",  # C项正确吗？
        "C\u9879\u6b63\u786e\u5417",  # C项正确吗
        "C\u9879\u6b63\u786e\u4e0e\u5426\uff0c\u4e0d\u786e\u5b9a\u3002",  # C项正确与否，不确定。
        # 如果C项正确，那么D项错误。
        "\u5982\u679cC\u9879\u6b63\u786e\uff0c\u90a3\u4e48D\u9879\u9519\u8bef\u3002",
        "\u9664\u4e86C\u9879\uff0c\u90fd\u5bf9\u3002",  # 除了C项，都对。 all but C
        # 各选项分析：A项过热，B项正常，C项故障。
        "\u5404\u9009\u9879\u5206\u6790\uff1aA\u9879\u8fc7\u70ed\uff0c"
        "B\u9879\u6b63\u5e38\uff0cC\u9879\u6545\u969c\u3002",
        "\u6570\u636eC\u6b63\u786e\u3002",  # 数据C正确。 (data C, no option)
        "C\u9879\u76ee\u8fdb\u5c55\u987a\u5229\u3002",  # C项目进展顺利。 project C
        # prosegaps38: not choosing, asking, or choosing two
        "\u4e0d\u9009C\u3002",  # 不选C。
        "\u522b\u9009C",  # 别选C
        "\u662f\u5426\u9009C\uff1f",  # 是否选C？
        "\u9009C\u8fd8\u662fD\uff1f",  # 选C还是D？
        "\u9009C\u6216D",  # 选C或D
        "\u9009C\u5417",  # 选C吗
        "C\u9879\u5417\uff1f",  # C项吗？
        "\u662fC\u9879\uff1f",  # 是C项？
    ],
)
def test_cjk_prose_that_asks_doubts_or_names_two_states_no_option(answer: str) -> None:
    result = score("C", answer)
    assert (result.parse_method, result.passed) == ("text", False)
