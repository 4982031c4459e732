"""The prose readings (a count, a choice, an abstention stated in prose) on the typography and
markup models emit: each rule reads the rendered text as it reads the plain ASCII one."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.modes import abstention


def _unread(gold: Any, answer: str) -> None:
    result = score(gold, answer)
    assert (result.parse_method, result.passed) == ("text", False), result.parsed_model


def _read(gold: Any, answer: str) -> None:
    result = score(gold, answer)
    assert result.passed, (result.parse_method, result.parsed_model)
    assert result.parse_method is not None
    assert result.parse_method.endswith(("count", "count-in-text", "choice-in-text"))


# --- spaces, invisible characters and hyphens ---------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "The total is not\u00a034."),
        (34, "The total is not\u202f34."),
        (34, "The total is not\u200934."),
        (34, "The total is not \u200b34."),
        (34, "There are more than\u00a034 pumps."),
        (34, "There are at least\u00a034 pumps."),
        (34, "There are 34\u00a0or more pumps."),
        (34, "The range is 30 to\u00a034."),
        (30, "The range is 30\u00a0to 34."),
        (3, "It happened on March\u00a03."),
        (3, "It happened at 3\u00a0pm."),
        (3, "It happened at 3\u202fPM."),
        (17, "See step\u00a017 for details."),
        (60599, "Per IEC\u202f60599 there are issues."),
        (34, "\u4e0d\u662f\u300034\u4e2a\u3002"),  # 不是　34个。
        (34, "34\uac1c\u00a0\uc774\uc0c1"),  # 34개 이상
    ],
)
def test_a_no_break_thin_or_zero_width_space_reads_as_a_space(gold: Any, answer: str) -> None:
    """A no-break space ("not\\u00a034", as typesetting models write after a short word), a
    narrow or thin one, or a zero-width one between a negation, bound, range, date, clock or
    label and its number hid it: "The total is not\\u00a034." scored as the count 34."""
    _unread(gold, answer)


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "There were 34 failures (see step\u00a017)."),
        (34, "There were 34 failures per IEC\u00a060599."),
        (34, "There were 34 failures, see steps\u00a04 and\u00a05."),
        (34, "There were 34 failures (HTTP\u00a0404)."),
        (34, "There were 34 failures in the 90\u2011day window."),
        (34, "There were 34 failures in the 90\u2010day window."),
        (34, "There were 34 failures (version\u00a02)."),
        (34, "**Step\u00a01:** None.\n**Step\u00a02:** There are 34."),
        (34, "\u00a0\u00a01. None\n\u00a0\u00a02. There are 34."),
        ("C", "The answer is C\u00a0because the oil shows it."),
        ("C", "The answer is C\u200b."),
    ],
)
def test_a_typeset_label_or_compound_is_no_second_number(gold: Any, answer: str) -> None:
    """Typeset, "step\\u00a017", "HTTP\\u00a0404" and "90\\u2011day" (the non-breaking
    hyphen) name or qualify a thing as "step 17" and "90-day" do: they were a second number
    beside the count and left the answer unread; "C\\u00a0because" sets C off as "C because"
    does."""
    _read(gold, answer)


@pytest.mark.parametrize(
    "text",
    [
        "I don't\u200b know.",
        "There are no readings for T\u2011005. The value cannot be determined.",
        "There are no readings for T\u2010005. The value cannot be determined.",
    ],
)
def test_an_abstention_reads_through_invisible_characters_and_hyphens(text: str) -> None:
    """A zero-width space hid "I don't know"; "T\\u2011005" with a non-breaking hyphen is an
    identifier as "T-005" is, not a number stated."""
    assert abstention(text) is not None


def test_typography_costs_nothing_on_ascii_and_keeps_the_quote() -> None:
    assert abstention("I don\u2019t\u00a0know.") == "I don\u2019t know."
    assert score(34, "There are 34 pumps.").passed
