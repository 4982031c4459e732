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


# --- emphasis -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "There are **34** or more pumps."),
        (34, "There are 34 **or more** pumps."),
        (34, "There are 34 *or more* pumps."),
        (34, "There are **34**+ pumps."),
        (3, "It happened at **3** pm."),
        (17, "See **step** 17 for details."),
        (17, "See step **17** for details."),
        (60599, "Per IEC **60599**."),
        (3, "I could **not** determine how many failed in the last 3 days."),
        (3, "I *cannot* determine how many failed in the last 3 days."),
        (34, "**34**\u4e2a\u4ee5\u4e0a\u3002"),  # 34个以上: 34 or more
        (34, "34**\u4e2a\u4ee5\u4e0a**\u3002"),
        (34, "**34**~**40**\u4e2a\u3002"),
        (3, "**3**\u6708"),  # 3月: March
        (5, "3\u6708**5**\u65e5"),  # 3月5日
        (3, "\u7b2c**3**\u7ae0"),  # 第3章: chapter 3
        (3, "\u4e0b\u5348**3**\u70b9"),  # 下午3点: 3 pm
        (34, "**34**\uac1c \uc774\uc0c1"),  # 34개 이상
    ],
)
def test_emphasis_around_a_number_hides_no_rule(gold: Any, answer: str) -> None:
    """Bold or italic around the number or the words after or before it hid the bound, the
    clock, the label, the date, the declining clause or the sign: "There are **34** or more
    pumps." and "−**34**" scored as the count 34."""
    _unread(gold, answer)


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "There were 34 failures (see step **17**)."),
        (34, "There were 34 failures, see steps 4 **and** 5."),
        (34, "There were 34 failures (HTTP **404**)."),
        (34, "There were 34 failures, **45**%."),
        (34, "There were 34 failures, 45 **%**."),
        (34, "**Q:** How many failed in the last 3 days?\n**A:** 34"),
        (-34, "The change is \u2212**34**."),
        (-34, "The change is -**34**."),
        ("C", "C is **correct**."),
        ("C", "**(C)** Chiller 6"),
    ],
)
def test_emphasis_reads_as_the_plain_text(gold: Any, answer: str) -> None:
    """A label, a percentage, a question in emphasis is one as in plain text (it left a second
    number that left the answer unread); "C is **correct**" concludes C."""
    _read(gold, answer)


@pytest.mark.parametrize("answer", ["The change is \u2212**34**.", "The change is -**34**."])
def test_a_sign_outside_the_emphasis_is_the_numbers(answer: str) -> None:
    """A sign before the emphasis is the number's: "−**34**" is −34 (the sign was lost, and
    the answer scored as the count 34)."""
    assert not score(34, answer).passed
    assert score(-34, answer).passed


@pytest.mark.parametrize(
    "answer",
    [
        "The answer is C. **Actually**, it is D.",
        "The answer is C.\n**Correction:** D",
        "The answer is C.\n__Correction:__ D",
    ],
)
def test_a_correction_in_emphasis_is_a_second_conclusion(answer: str) -> None:
    """A correction in emphasis corrects: "**Actually**, it is D." after "The answer is C."
    was none, and C scored right."""
    _unread("C", answer)


@pytest.mark.parametrize(
    "text",
    [
        "I **don't** know.",
        "I *don't know*.",
        "The value **cannot** be determined.",
        "The value cannot be **determined**.",
        "**Insufficient** information.",
        "The data is **insufficient**.",
        "I __don't__ know.",
    ],
)
def test_an_abstention_in_emphasis_is_one(text: str) -> None:
    assert abstention(text) == text


def test_emphasis_is_no_mark_between_digits_nor_in_a_name() -> None:
    _unread(34, "3*4 = 12 and 2**5 = 32.")
    assert abstention("No readings for T_005; the value cannot be determined.") is not None
    assert abstention("**I don't know.**") == "**I don't know.**"


# --- strikethrough --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (35, "The total is ~~34~~ 35."),
        (35, "The total is ~~34~~ **35**."),
        (34, "~~33~~ 34"),
        (34, "~~33~~\n34"),
        (34, "The answer is ~~33~~ 34."),
        ("C", "The answer is ~~B~~ C."),
        ("C", "~~B~~ C"),
    ],
)
def test_text_struck_through_is_taken_back(gold: Any, answer: str) -> None:
    """ "~~34~~ 35" is a model correcting itself to 35: the struck 34 left two numbers (and
    its tildes read as "about"), so the answer was unread; "~~B~~ C" chose no option."""
    _read(gold, answer)
    if isinstance(gold, int):
        assert not score(gold - 1, answer).passed


def test_a_struck_number_alone_is_no_count_and_a_struck_answer_no_answer() -> None:
    _unread(34, "The total is ~~34~~.")
    said = abstention("~~The answer is 34.~~ I don't know.")
    assert said == "I don't know."


def test_a_tilde_fence_strikes_nothing() -> None:
    _read(34, "~~~\ncode\n~~~\n\nThere are 34 pumps.")


# --- HTML ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "<b>34</b>"),
        (34, "There are <strong>34</strong> pumps."),
        (34, "There are <span class='n'>34</span> pumps."),
        (34, "Here it is:\n\n<b>34</b>"),
        (34, "Total:<br>34"),
        (35, "The total is <del>34</del> 35."),
        (35, "I ran <code>head -n 34</code>; 35 failed."),
        ("C", "The answer is <b>C</b>."),
        ("C", "The answer is <del>B</del> C."),
    ],
)
def test_html_tags_read_as_the_text_they_show(gold: Any, answer: str) -> None:
    """The ">" closing "<b>" read as "greater than": "There are <b>34</b> pumps." stated no
    count, "The answer is <b>C</b>." no choice."""
    _read(gold, answer)


@pytest.mark.parametrize(
    "answer", ["The total is not <b>34</b>.", "There are &gt;34 pumps.", "There are &ge; 34 pumps."]
)
def test_html_entities_and_tags_keep_a_bound(answer: str) -> None:
    _unread(34, answer)


# --- LaTeX ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "The total is not $34$.",
        "The total is not \\(34\\).",
        "There are $\\geq 34$ pumps.",
        "There are $\\ge 34$ pumps.",
        "There are \\(\\geqslant 34\\) pumps.",
        "The total is $\\neq 34$.",
        "The total \u2260 34.",
        "The total is &ne; 34.",
        "There are $\\approx 34$ pumps.",
        # fixprose35 #1: a negation or bound in a text font inside the math (read as 34)
        "$\\text{not } 34$",
        "The total is $\\text{not}\\ 34$.",
        "There are \\(\\text{at least } 34\\) pumps.",
        "$\\textrm{isn't } 34$",
    ],
)
def test_latex_math_keeps_the_negation_or_bound(answer: str) -> None:
    """ "not $34$": the "$" between the negation and the number hid it, and "$\\geq 34$"
    typesets "≥ 34": both scored as the count 34, and so did "≠ 34"."""
    _unread(34, answer)


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "The total is $34$ (not $35$)."),
        ("C", "The answer is $C$."),
        ("C", "The answer is \\(C\\)."),
        ("C", "$\\text{C}$"),
        (34, "$34\\text{ pumps}$"),
        (3_000_000, "$3\\,\\text{million}$"),
    ],
)
def test_latex_math_reads_as_what_it_typesets(gold: Any, answer: str) -> None:
    _read(gold, answer)


def test_dollars_and_escaped_brackets_are_no_math() -> None:
    _unread(34, "The cost is $34 and $45.")
    _read(34, "See \\[1\\]. There are 34 pumps.")
    _read(34, "It costs $34.")


# --- blockquotes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "> 34"),
        (34, "Here it is:\n\n> **34**"),
        (34, "> > 34"),
        ("C", "> **C**"),
        ("C", "> (C) Chiller 6"),
    ],
)
def test_a_blockquote_mark_is_no_greater_than_sign(gold: Any, answer: str) -> None:
    """A line quoted in Markdown ("> 34") read as "greater than 34": the answer it quotes
    was unread."""
    _read(gold, answer)


@pytest.mark.parametrize("answer", [">34", "Count: >34", "&gt; 34", "> Not 34."])
def test_a_greater_than_sign_is_still_one(answer: str) -> None:
    _unread(34, answer)


# --- capitals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "There are More Than 34 pumps."),
        (34, "There are MORE THAN 34 pumps."),
        (34, "There are Fewer Than 34 pumps."),
        (3, "It happened at 3 O'clock."),
        (3, "MARCH 3 had no failures."),
    ],
)
def test_a_bound_clock_or_date_in_capitals_still_is_one(gold: Any, answer: str) -> None:
    """Title Case and capitals: "More Than 34" scored as the count 34 (its "than" was read
    in lower case only), "3 O'clock" as 3, "MARCH 3" as 3."""
    _unread(gold, answer)


@pytest.mark.parametrize(
    "answer",
    [
        "See STEPS 4 AND 5. There are 34.",
        "See steps 4 AND 5. There are 34.",
        "1 Validation Error for x; there are 34.",
        "QUESTION: How many failed in the last 3 days? There are 34.",
    ],
)
def test_a_label_error_count_or_question_in_capitals_is_no_second_number(answer: str) -> None:
    _read(34, answer)


def test_a_month_in_lower_case_is_a_verb_and_a_standard_no_plural_label() -> None:
    _read(34, "The team will march 34 miles.")
    _read(34, "Per BS 5839, 34 detectors failed.")


# --- dashes and the ellipsis ---------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "3 failed \u2013 the cause cannot be determined.",
        "3 failed\u2026 the cause cannot be determined.",
    ],
)
def test_a_spaced_en_dash_or_an_ellipsis_ends_a_clause_as_an_em_dash_does(answer: str) -> None:
    """ "3 failed — the cause cannot be determined." states 3; written with an en dash or an
    ellipsis, the whole sentence read as declining, and 3 as no count."""
    _read(3, answer)


def test_an_en_dash_of_a_range_stays_in_its_clause() -> None:
    _read(34, "How many failed between 3 \u2013 4 pm? 34.")


@pytest.mark.parametrize(
    "answer",
    [
        "The answer is C\u2026",
        "The answer is C \u2014 the oil shows it.",
        "The answer is C\u2014the oil shows it.",
        "The answer is C \u2013 the oil shows it.",
        "The answer is C -- the oil shows it.",
        "The answer is C \u2014 not B.",
    ],
)
def test_a_dash_or_an_ellipsis_after_the_letter_sets_it_off(answer: str) -> None:
    """ "The answer is C — the oil shows it." concludes C as "C, as the oil shows" does; it
    stated no choice."""
    _read("C", answer)


@pytest.mark.parametrize(
    "answer",
    [
        "The answer is C \u2014 D.",
        "The answer is C. Wait \u2014 it is D.",
        "The answer is C. Actually \u2014 D.",
        "Option C\u2026 is not suitable.",
        "Option C... is not suitable.",
    ],
)
def test_a_dash_names_no_one_choice_beside_another_letter_or_a_correction(answer: str) -> None:
    """ "Wait — it is D." after "The answer is C." corrects it (C scored as chosen), and an
    ellipsis before a word in lower case goes on with the sentence that rules C out."""
    _unread("C", answer)


def test_an_abstention_reads_a_name_with_an_en_dash_as_a_name() -> None:
    text = "There are no readings for T\u2013005. The value cannot be determined."
    assert abstention(text) == "The value cannot be determined."


def test_an_ellipsis_ends_the_sentence_an_answer_stands_in() -> None:
    """ "The cause is wear… The exact date cannot be determined." answers (the cause), as it
    does with a full stop: it was flagged as an abstention."""
    assert abstention("The cause is wear\u2026 The exact date cannot be determined.") is None


# --- a sentence wrapped ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (3, "I could not determine how many failed in\nthe last 3 days."),
        (3, "I could not\r\ndetermine how many failed in the last 3 days."),
        (34, "There are 34\nor more pumps."),
        (34, "There are 34\r\nor more pumps."),
        (3, "It happened at 3\npm."),
        ("C", "Option C is\nnot suitable."),
        ("C", "Option C\nis not suitable."),
        ("C", "If the\nanswer is C, then we check D."),
        # fixprose35 #2: a question wrapped before a line opening with its number (read 3)
        (3, "Is it\n3?"),
        (3, "Is it\r\n3?"),
        (3, "Is the count\nP-101 or\n3?"),
    ],
)
def test_a_sentence_wrapped_reads_as_one(gold: Any, answer: str) -> None:
    """A line break inside a sentence split it: the declining clause, the bound after the
    number, the sentence that rules C out or makes it a condition lost the number or letter
    (3, 34 and C scored as stated)."""
    _unread(gold, answer)


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "How many failed in the\nlast 3 days? 34."),
        (34, "Is it 3?\nno, there are 34."),
        ("C", "The answer\nis C."),
        ("C", "The answer is:\nC\nbecause the oil shows it."),
        (34, "How many failed in\n2023? There were 34."),
        (3, "Is it\n\n3?"),  # (under a blank line the number stands alone)
    ],
)
def test_a_wrapped_question_or_conclusion_reads_as_one(gold: Any, answer: str) -> None:
    _read(gold, answer)


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "The range is\n34 pumps."),
        (34, "Summary:\nthere are 34 pumps."),
        (34, "It is fine.\nthere are 34 pumps."),
    ],
)
def test_a_line_that_ends_its_sentence_or_opens_with_a_number_is_not_joined(
    gold: Any, answer: str
) -> None:
    _read(gold, answer)


# --- full-width forms -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "\uff1e\uff13\uff14\u4e2a",  # ＞３４个: more than 34
        "\uff1e34\u4e2a",
        "\u226734\u4e2a",  # ≧34个: Japanese for ≥
        "\u226634\u4e2a",
        "34\uff0b\u4e2a",  # 34＋个
    ],
)
def test_a_full_width_bound_is_a_bound(answer: str) -> None:
    """ "＞34个" (more than 34) scored as the count 34: the full-width sign was no bound."""
    _unread(34, answer)


@pytest.mark.parametrize(
    "answer",
    [
        "\u5171\u670934\u4e2a\uff08\u89c1\uff3b1\uff3d\uff09",  # 共有34个（见［1］）
        "\u5171\u670934\u4e2a\uff0c\u7f16\u53f7\uff03\uff14",  # 共有34个，编号＃４
        "\u5171\u670934\u4e2a\uff0c\u5728\uff11\uff10\uff1a\uff13\uff10",  # 共有34个，在１０：３０
        "\uff11\uff0e \u65e0\n\uff12\uff0e \u5171\u670934\u4e2a",  # １． 无\n２． 共有34个
    ],
)
def test_a_full_width_citation_number_clock_or_list_item_is_no_second_number(answer: str) -> None:
    _read(34, answer)


def test_full_width_punctuation_of_prose_reads_as_before() -> None:
    _read(34, "\u5171\u6709\uff1a34\u4e2a")  # 共有：34个
    _unread(34, "\u6545\u969c34\uff0c\u6b63\u5e38400")  # 故障34，正常400: two numbers
    _unread(3, "\u662f\uff13\uff1f")  # 是３？ asks


@pytest.mark.parametrize(
    "answer",
    [
        '"Is it 3?" There are 34.',
        "\u201cIs it 3?\u201d There are 34.",
        "(Is it 3?) There are 34.",
        "\u00abIs it 3?\u00bb There are 34.",
    ],
)
def test_a_question_in_quotes_or_brackets_asks(answer: str) -> None:
    """A question the model quotes (the user's, echoed) asks as it does unquoted: its 3 was
    a second number beside the count 34."""
    _read(34, answer)


# --- other typographic characters -----------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "There were 34 failures on pump \u211617."),
        (34, "There were 34 failures on pump \u2116 17."),
        ("C", "Answer \u2013 C"),
        ("C", "Answer \u2014 C"),
    ],
)
def test_the_numero_sign_labels_and_a_dash_after_answer_sets_off(gold: Any, answer: str) -> None:
    """ "pump №17" names pump 17 as "pump No. 17" does (a second number beside 34); "Answer
    – C" states C as "Answer - C" does."""
    _read(gold, answer)


@pytest.mark.parametrize(
    "answer", ["There are more than\u2028 34 pumps.", "The total is not\u2029 34."]
)
def test_a_unicode_line_separator_breaks_a_line_as_a_line_feed(answer: str) -> None:
    _unread(34, answer)


# --- a bare number under its line (the parser's count) --------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "The total is __not__\n34",
        "The total is <b>not</b>\n34",
        "The total is not\u200b\n34",
        "The range is 30 \u2013\n34",
        "The range is 30\u2013\n34",
    ],
)
def test_a_bare_number_under_a_typeset_negation_or_range_is_no_count(answer: str) -> None:
    """The parser's count took "34" alone on its line under "The total is __not__" (the
    underscores hid the negation from the line-end test, as a tag or a zero-width space
    did) and under a range's en dash: scored as the count 34."""
    _unread(34, answer)


@pytest.mark.parametrize("answer", ["Knot\n34", "The total is\n34.", "The range is 30-\n34"])
def test_a_bare_number_under_other_lines_is_still_the_count(answer: str) -> None:
    assert score(34, answer).passed


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (34, "The total isn&#39;t 34."),
        (34, "The total isn&rsquo;t 34."),
        ("C", "Option C isn&#x27;t suitable."),
    ],
)
def test_an_escaped_apostrophe_negates(gold: Any, answer: str) -> None:
    """An answer HTML-escaped on its way ("isn&#39;t 34") negated nothing: scored as 34."""
    _unread(gold, answer)


@pytest.mark.parametrize("text", ["I don&#39;t know.", "I don&apos;t know."])
def test_an_escaped_apostrophe_abstains(text: str) -> None:
    """ "I don&#39;t know." was no abstention (and its "39" a number stated)."""
    assert abstention(text) == "I don't know."
