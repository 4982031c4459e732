"""The names that mark scenarios: one definition shared by the engine and the collector."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval.naming import (
    ItemNames,
    columns,
    few,
    fit_columns,
    natural_key,
    printable,
    safe_name,
    scenario_folder_id,
    score_beside,
    score_text,
    threshold_text,
)
from pytest_structeval.scenarios import id_key

LABELS = ["r", "r-2", "r\t", "r\n", "r/", "r-2-2", "r 2"]  # several sanitise alike


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("scenario_11", "11"),
        ("SCENARIO_SGT-001", "SGT-001"),
        ("Scenario_a b", "a b"),
        ("scenario_scenario_2", "scenario_2"),
        ("scenario_", None),  # the prefix alone names no scenario
        ("scenarios", None),
        ("my_scenario_3", None),
        ("", None),
    ],
)
def test_scenario_folder_id(name: str, expected: str | None) -> None:
    assert scenario_folder_id(name) == expected


def test_join_keys_drop_the_folder_prefix_like_discovery() -> None:
    assert id_key("Scenario_011") == id_key("scenario_11") == id_key("11") == "11"
    assert id_key("scenario_") == "scenario_"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain id 한", "plain id 한"),
        ("r\n::error::x", "r\\n::error::x"),
        ("a\x1b[2Jb\x7f\x85", "a\\x1b[2Jb\\x7f\\x85"),
        ("line\u2028sep\r", "line\\u2028sep\\r"),
        ("lone \ud800 surrogate", "lone \\ud800 surrogate"),  # UTF-8 output refuses it
        ("::error::x", ":\\:error::x"),  # a workflow command at the start of a line
        ("  ::warning::x", "  :\\:warning::x"),  # GitHub strips leading blanks first
        ("r ##[stop-commands]tok", "r ##\\[stop-commands]tok"),  # the old form, anywhere
        ("a::b and SGT::1", "a::b and SGT::1"),  # inside a line "::" is plain text
    ],
)
def test_printable_escapes_control_characters_only(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert printable(shown) == shown  # escaping twice changes nothing


def test_printable_escapes_bidirectional_controls() -> None:
    assert printable("id\u202egnp.exe") == "id\\u202egnp.exe"
    assert printable("a\u2066b\u200fc") == "a\\u2066b\\u200fc"


def test_printable_escapes_the_arabic_letter_mark() -> None:
    assert printable("a\u061cb") == "a\\u061cb"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("abc", 3),
        ("名前", 4),  # East Asian wide: two columns each
        ("ＡＢ", 4),  # fullwidth
        ("e\u0301", 1),  # a combining accent takes no column
        ("a\u200bb", 2),  # a zero-width space neither
        ("shy\xadkey", 7),  # a soft hyphen is drawn
        ("é", 1),
        ("", 0),
    ],
)
def test_columns_counts_terminal_columns(text: str, expected: int) -> None:
    assert columns(text) == expected


@given(st.text(max_size=30), st.integers(min_value=0, max_value=40), st.booleans())
def test_fit_columns_keeps_the_longest_start_or_end_that_fits(
    text: str, width: int, from_end: bool
) -> None:
    kept = fit_columns(text, width, from_end=from_end)
    assert text.endswith(kept) if from_end else text.startswith(kept)
    assert columns(kept) <= width
    if len(kept) < len(text):  # one more character would not fit
        one_more = text[len(text) - len(kept) - 1 :] if from_end else text[: len(kept) + 1]
        assert columns(one_more) > width


# -- mutation survivors (review mutants18) ---------------------------------------------------


def test_few_never_hides_just_one() -> None:
    assert few(list("abcdef")) == "a, b, c, d, e, f"
    assert few(list("abcdefg")) == "a, b, c, d, e, ... (+2 more)"
    # the first of a longer list (a report section keeps the worst 20 of them)
    assert few(list("abcd"), limit=3, total=25) == "a, b, c, ... (+22 more)"
    assert few(list("abcd"), limit=3, total=4) == "a, b, c, d"


def test_fit_columns_from_the_end_of_a_short_text() -> None:
    assert fit_columns("abc", 5, from_end=True) == "abc"
    assert fit_columns("abcdef", 2, from_end=True) == "ef"


def test_leading_zeros_do_not_outweigh_the_number() -> None:

    assert sorted(["scenario_10", "scenario_002"], key=natural_key) == [
        "scenario_002",
        "scenario_10",
    ]


def test_natural_order_ignores_case() -> None:

    assert sorted(["B_1", "a_2"], key=natural_key) == ["a_2", "B_1"]


def test_safe_name() -> None:
    assert safe_name("x" * 150) == "x" * 150  # at the limit: kept whole
    cut = safe_name("x" * 200)
    assert len(cut) == 150
    assert cut.startswith("x" * 139 + "~")
    assert safe_name("a::b[c]") == "a:b(c)"
    assert safe_name("") == "_"
    assert safe_name("a\ud800b c") == "a_b_c"
    # two long texts that sanitise alike keep apart by the hash of the text itself
    assert safe_name("a b" + "x" * 200) != safe_name("a_b" + "x" * 200)


def test_item_names_serve_labels_a_node_id_holds_as_they_are_first() -> None:
    """A run labelled ``a_b`` lost ``1[a_b]`` to a run before it whose label only reads so
    once cleaned (``a b``, ``a\u202eb``: diff26a #4); the order of the runs stays."""
    runs = [("1", "a\u202eb"), ("1", "a b"), ("1", "a_b"), ("2", "a b"), ("1", "c")]
    assert ItemNames().give_all(runs) == [
        ("1[a_b-2]", "a_b-2"),
        ("1[a_b-3]", "a_b-3"),
        ("1[a_b]", "a_b"),
        ("2[a_b]", "a_b"),
        ("1[c]", "c"),
    ]


def test_score_text_never_reads_a_near_miss_as_one() -> None:
    assert score_text(0.99999, ".4f") == ">0.9999"
    assert score_text(0.996, ".2f") == ">0.99"
    assert score_text(0.994, ".2f") == "0.99"
    assert score_text(1.0, ".2f") == "1.00"
    assert score_text(0.99999, ".4g") == ">0.9999"


def test_score_beside_reads_on_the_side_of_its_threshold_the_verdict_says() -> None:
    """``f1 0.900 < threshold 0.9`` read as a contradiction (diff26b #5, diff26c #1, diff26d,
    diff26e #1): the score takes the decimals it needs, the threshold shows its float noise
    only where that noise decided."""
    cases = [
        (0.89996, 0.9, False, ("0.89996", "0.9")),
        (0.9, 0.9, True, ("0.900", "0.9")),
        (0.5, 0.9, False, ("0.500", "0.9")),
        (0.99999, 1.0, False, ("0.99999", "1")),
        (0.9000001, 0.9, True, ("0.900", "0.9")),
        (2 / 3, 0.6667, False, ("0.66667", "0.6667")),
        (0.9, 0.9000001, False, ("0.900", "0.9000001")),
        (1 / 3, 1 / 3, True, ("0.3333333333333333", "0.3333333333333333")),
        (0.6, 0.1 * 6, False, ("0.600", "0.6000000000000001")),  # the noise decided
        (0.3, 0.1 + 0.2, True, ("0.300", "0.3")),  # passed within weights' slack
        (0.5999999999999998, 0.1 * 6, True, ("0.600", "0.6")),  # the same (diff26f #1)
    ]
    for value, limit, passed, texts in cases:
        assert score_beside(value, limit, passed) == texts
        shown, limit_text = texts
        assert (float(shown) >= float(limit_text)) == passed
    assert threshold_text(0.9) == "0.9"
    assert threshold_text(0.9000001) == "0.9000001"  # :g wrote 0.9
    assert threshold_text(0.9000000000001) == "0.9000000000001"  # no float noise
    assert threshold_text(0.1 + 0.2) == "0.3"  # float noise is no other number


def test_safe_name_leaves_no_control_or_bidi_character() -> None:
    """pytest prints node ids as they are (progress, headers, FAILED lines): a C1 control
    (U+009B is CSI) or a bidi override in a run id would reach the terminal raw."""
    assert safe_name("c1\x9b2J\x9b31mX") == "c1_2J_31mX"
    assert safe_name("rlo\u202eabc") == "rlo_abc"
    assert safe_name("a\u2066b\u2069c\u200fd\u061ce") == "a_b_c_d_e"
    assert safe_name("naïve → ünïcode") == "naïve_→_ünïcode"  # other text stays


def test_safe_name_leaves_no_double_colon() -> None:
    """A run of colons is one: ``x:::y`` named ``x::y`` split the node id (review mutants18)."""
    assert safe_name("a:::b") == safe_name("a::::b") == "a:b"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "a/b"]), st.sampled_from(LABELS)), max_size=12))
def test_item_names_take_the_first_free_suffix(runs: list[tuple[str, str]]) -> None:
    """The suffix search resumes per name (8,000 labels that sanitise alike took 5 s, review
    diff22c #6); the names stay those of trying every suffix from 2."""
    given: set[str] = set()
    expected = []
    for scenario_id, label in runs:
        head, base = safe_name(scenario_id), safe_name(label)
        bracket, n = base, 1
        while f"{head}[{bracket}]" in given:
            n += 1
            bracket = f"{base}-{n}"
        given.add(f"{head}[{bracket}]")
        expected.append((f"{head}[{bracket}]", bracket))
    names = ItemNames()
    assert [names.give(scenario_id, label) for scenario_id, label in runs] == expected


@pytest.mark.parametrize(
    ("given", "hint"),
    [
        ("90", " (for 90% write 0.9)"),
        (80, " (for 80% write 0.8)"),
        ("99.5 %", " (for 99.5% write 0.995)"),
        ("0.5%", " (for 0.5% write 0.005)"),  # a percentage written as one (diff29a #10)
        ("1.5", ""),  # no percentage meant: no hint (diff29a #10)
        ("150", ""),
        ("high", ""),
    ],
)
def test_a_rate_out_of_range_says_what_a_percentage_would_be(given: object, hint: str) -> None:
    from pytest_structeval.naming import read_rate

    with pytest.raises(ValueError, match="expected a number") as refused:
        read_rate(given)
    assert str(refused.value) == f"expected a number in [0, 1], got {given!r}{hint}"
    assert read_rate("0.9") == read_rate(0.9) == 0.9


def test_a_label_is_its_text_whatever_type_holds_it() -> None:
    """diff29b #3, #8: a str Enum was written by its member name; a Decimal past the float
    range was "not finite", a signalling NaN a conversion error naming no argument."""
    import enum
    from decimal import Decimal

    from pytest_structeval.naming import scalar_text

    class Runner(str, enum.Enum):
        REACT = "react"

    class Level(enum.IntEnum):
        HIGH = 3

    assert scalar_text(Runner.REACT, "runner") == "react"
    assert scalar_text(Level.HIGH, "runner") == "3"
    assert scalar_text(Decimal("1E+400"), "run_id") == "1E+400"
    for value in (Decimal("sNaN"), Decimal("NaN"), float("inf")):
        with pytest.raises(ValueError, match=r"^run_id must be a finite number, got "):
            scalar_text(value, "run_id")
