"""Leaf comparison, tolerances and per-path options (pytest_structeval.compare)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from pytest_structeval.compare import (
    OVERRIDE_KEYS,
    SIMILARITY_DEFAULTS,
    STRICT_DEFAULTS,
    LeafOptions,
    LeafOutcome,
    OptionResolver,
    Tolerance,
    compare_leaf,
    leaf_score,
    leaf_scores,
    normalize_text,
    parse_tolerance,
)
from pytest_structeval.errors import OptionsError

STRICT = STRICT_DEFAULTS
SIM = SIMILARITY_DEFAULTS
NAN = float("nan")
INF = float("inf")


def strict(gold: Any, model: Any, **changes: Any) -> LeafOutcome:
    return compare_leaf(gold, model, dataclasses.replace(STRICT, **changes))


def sim(gold: Any, model: Any, **changes: Any) -> LeafOutcome:
    return compare_leaf(gold, model, dataclasses.replace(SIM, **changes))


def exact(outcome: LeafOutcome) -> bool:
    """An exact outcome is all-or-nothing consistent: exact, score 1, no reason."""
    if outcome.exact:
        assert outcome.score == 1.0
        assert outcome.reason is None
    else:
        assert outcome.score < 1.0
        assert outcome.reason
    return outcome.exact


# --- presets ------------------------------------------------------------------------


def test_presets() -> None:
    assert LeafOptions() == STRICT
    assert (STRICT.case_sensitive, STRICT.coerce_numeric_strings, STRICT.strict_types) == (
        False,
        True,
        False,
    )
    assert (SIM.case_sensitive, SIM.coerce_numeric_strings, SIM.strict_types) == (True, False, True)
    assert (SIM.tolerance, STRICT.tolerance) == (None, None)
    assert STRICT.numeric_credit == SIM.numeric_credit == "relative"


def test_override_keys_cover_every_leaf_option() -> None:
    names = {f.name for f in dataclasses.fields(LeafOptions)}
    assert names == {"tolerance", *(k for k in OVERRIDE_KEYS if k != "numeric_tolerance")}


def test_leaf_options_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        STRICT.case_sensitive = True  # type: ignore[misc]


def test_leaf_options_validate_numeric_credit() -> None:
    with pytest.raises(OptionsError, match="numeric_credit must be one of"):
        LeafOptions(numeric_credit="tiered")


def test_leaf_outcome_fields() -> None:
    outcome = compare_leaf(3.0, 3.2, STRICT)
    assert (outcome.exact, outcome.reason) == (False, "3.2 vs expected 3.0 (6.7% off)")
    assert LeafOutcome(True, 1.0).reason is None


# --- strings ------------------------------------------------------------------------


def test_strict_strings_ignore_case_and_outer_whitespace() -> None:
    assert exact(strict("Chiller 6", "  chiller 6\n"))
    assert exact(strict("STRASSE", "straße"))  # casefold, not lower
    assert not exact(strict("air  conditioner", "air conditioner"))
    assert exact(strict("air  conditioner", "air conditioner", normalize_whitespace=True))


def test_casefolded_text_is_composed_again_before_it_is_scored() -> None:
    """casefold() decomposes U+01F0 (j with caron) into two characters: without the second
    NFC, one differing letter after it would count as one edit in three, not in two."""
    assert strict("\u01f0a", "\u01f0b").score == 0.5


def test_case_sensitive_reports_case_difference() -> None:
    outcome = strict("Pump", "pump", case_sensitive=True)
    assert not exact(outcome)
    assert outcome.reason == "case differs"
    assert outcome.score == pytest.approx(0.75)


def test_whitespace_difference_is_named() -> None:
    outcome = strict("a  b", "a b")
    assert outcome.reason == "whitespace differs"
    both = sim("A  b", "a b")
    assert both.reason == "case and whitespace differ"


def test_anagrams_are_not_exact() -> None:
    """AssetOpsBench's char-set Jaccard made "on"/"no" exact."""
    for gold, model in [("on", "no"), ("normal", "lamron")]:
        outcome = strict(gold, model)
        assert not exact(outcome)
        assert outcome.score < 0.5


def test_timestamps_with_permuted_digits_are_not_exact() -> None:
    outcome = strict("2020-06-26T11:14:36", "2020-06-26T11:41:36")
    assert not exact(outcome)
    assert outcome.score == pytest.approx(1 - 2 / 19)
    assert not exact(strict("2020-06-12", "2020-12-06"))


def test_identifiers_with_the_same_number_are_not_equal() -> None:
    """AssetOpsBench collapsed "Pump 6", "Boiler 6" and 6 into the number 6."""
    assert not exact(strict("Pump 6", "Boiler 6"))
    assert not exact(strict("Chiller 6", 6))
    assert not exact(strict(6, "Pump 6"))
    assert not exact(strict("FC101", "XX101"))
    assert not exact(strict("FAN-01", "MOT-01"))


def test_uipath_string_examples() -> None:
    assert sim("Alice", "Alicia").score == pytest.approx(1 - 2 / 6)
    assert sim("10001", "10002").score == pytest.approx(0.8)
    assert sim("abcd", "abdc").score == pytest.approx(0.5)
    assert sim("orange", "grape").score == pytest.approx(0.5)
    assert sim("", "abc").score == 0.0
    assert sim("abc", "").score == 0.0
    assert sim("sucessfully", "successfully").score == pytest.approx(1 - 1 / 12)


def test_two_empty_strings_are_exact() -> None:
    assert exact(sim("", ""))
    assert exact(strict("", "   "))


def test_nfc_and_nfd_are_equal_in_every_preset() -> None:
    nfc, nfd = "café", "cafe\u0301"
    assert exact(sim(nfc, nfd))
    assert exact(strict(nfc, nfd))
    assert exact(strict("CAFÉ", nfd))


def test_similarity_is_case_sensitive_and_whitespace_stripped() -> None:
    assert not exact(sim("Paris", "paris"))
    assert exact(sim("Paris", "Paris "))


def test_long_strings_are_fast_enough_to_compare() -> None:
    gold = "x" * 4000
    outcome = sim(gold, gold[:-1] + "y")
    assert outcome.score == pytest.approx(1 - 1 / 4000)
    assert not outcome.exact


# --- numbers ------------------------------------------------------------------------


def test_uipath_numeric_examples() -> None:
    assert sim(1, 1.5).score == pytest.approx(0.5)
    assert sim(1.5, 1).score == pytest.approx(2 / 3)
    assert sim(30, 28).score == pytest.approx(1 - 2 / 30)
    assert sim(20.5, 20.3).score == pytest.approx(1 - 0.2 / 20.5)
    assert sim(-10, -9).score == pytest.approx(0.9)
    assert sim(10, -10).score == 0.0
    assert sim(1, 5).score == 0.0


def test_ints_equal_equal_floats() -> None:
    assert exact(strict(3, 3.0))
    assert exact(sim(3.0, 3))
    assert exact(sim(0, -0.0))


def test_float_rounding_noise_is_equal_but_int_differences_are_not() -> None:
    assert exact(sim(0.1 + 0.2, 0.3))
    assert not exact(sim(10**15, 10**15 + 1))
    assert not exact(sim(1.0, 1.000001))


@pytest.mark.parametrize("compare", [sim, strict])
def test_a_tiny_gold_that_is_not_zero_is_compared_relatively(compare: Any) -> None:
    """UiPath treats any gold within 1e-12 of 0 as 0, so every tiny answer matched it: an
    electron's mass (9.109e-31 kg) matched a proton's (parity24 #1)."""
    assert not exact(compare(9.109e-31, 1.673e-27))
    assert compare(1e-13, 4.7e-13).score == 0.0
    assert not exact(compare(1e-12, -1e-12))
    assert compare(1e-13, 0).reason == "0 vs expected 1e-13 (100% off)"
    assert exact(compare(9.109e-31, 9.109e-31 * (1 + 1e-15)))  # float noise, relatively
    assert compare(2e-13, 1.9e-13).score == pytest.approx(0.95)
    assert exact(compare(1e-13, 1.05e-13, tolerance=parse_tolerance(0.1)))


def test_numeric_reason() -> None:
    outcome = strict(3.0, 3.2)
    assert outcome.reason == "3.2 vs expected 3.0 (6.7% off)"
    assert outcome.score == pytest.approx(1 - 0.2 / 3)


def test_gold_zero_is_all_or_nothing() -> None:
    assert exact(sim(0, 0))
    assert exact(sim(0, 1e-13))
    assert exact(sim(0.0, 0.1 + 0.2 - 0.3))  # a computed zero's rounding noise
    outcome = sim(0, 1e-9)
    assert not exact(outcome)
    assert outcome.score == 0.0
    assert sim(0, 1e-11).score == 0.0
    assert sim(0.0, 0.5).reason == "0.5 vs expected 0.0"


def test_gold_zero_with_abs_tolerance() -> None:
    tol = Tolerance(abs=0.01)
    assert exact(strict(0, 0.01, tolerance=tol))
    assert exact(strict(0, -0.005, tolerance=tol))
    assert not exact(strict(0, 0.02, tolerance=tol))
    # A relative bound is meaningless at 0: only abs applies.
    both = Tolerance(rel=0.05, abs=0.01)
    assert exact(strict(0, 0.005, tolerance=both))
    assert not exact(strict(0, 0.005, tolerance=Tolerance(rel=0.5)))


def test_nan_never_earns_credit() -> None:
    for gold, model in [(NAN, NAN), (1.0, NAN), (NAN, 1.0), (0, NAN), (NAN, 0)]:
        outcome = sim(gold, model)
        assert not exact(outcome)
        assert outcome.score == 0.0
        assert outcome.reason == "NaN is not comparable"
    assert strict(NAN, "nan").score == 0.0
    assert strict("nan", NAN).score == 0.0
    assert strict(NAN, NAN, tolerance=Tolerance(rel=1.0)).score == 0.0


def test_infinities_only_equal_the_same_infinity() -> None:
    assert exact(sim(INF, INF))
    assert exact(sim(-INF, -INF))
    for gold, model in [(INF, -INF), (INF, 1.0), (1.0, INF), (-INF, 5), (INF, 10**400)]:
        outcome = sim(gold, model)
        assert not exact(outcome)
        assert outcome.score == 0.0
    assert strict(INF, "inf").score == 0.0
    assert strict(INF, "inf").reason == "'inf' vs expected inf"
    assert sim(INF, -INF).reason == "-inf vs expected inf"
    assert strict(INF, 1e308, tolerance=Tolerance(rel=1.0)).score == 0.0


def test_huge_ints_compare_exactly_without_overflow() -> None:
    big = 10**400
    assert exact(sim(big, big))
    near = sim(big, big + 1)
    assert not exact(near)
    assert 0.99 < near.score < 1.0
    assert sim(big, 1.5).score == 0.0
    assert sim(1.5, big).score == 0.0
    assert sim(big, 2 * big).score == 0.0
    assert sim(big, -big).score == 0.0
    assert exact(sim(big, big + 1, tolerance=Tolerance(rel=0.01)))
    assert exact(sim(big, big + 5, tolerance=Tolerance(abs=5)))
    assert not exact(sim(big, big + 6, tolerance=Tolerance(abs=5)))
    assert sim(big, 1.0e308).score == 0.0
    assert "digits" in (sim(big, big + 1).reason or "")


def test_float_overflow_in_difference_scores_zero() -> None:
    assert sim(1.7e308, -1.7e308).score == 0.0


@pytest.mark.parametrize(
    ("gold", "model", "tol", "within"),
    [
        (100, 105, Tolerance(rel=0.05), True),
        (100, 95, Tolerance(rel=0.05), True),
        (100, 105.01, Tolerance(rel=0.05), False),
        (1.0, 1.1, Tolerance(rel=0.1), True),  # inclusive through float rounding
        (100, 102, Tolerance(abs=2), True),
        (100, 102.5, Tolerance(abs=2), False),
        (100, 103, Tolerance(rel=0.05, abs=2), True),  # either bound (pytest.approx)
        (100, 102, Tolerance(rel=0.01, abs=2), True),
        (100, 103, Tolerance(rel=0.01, abs=2), False),  # outside both
        (100, 101, Tolerance(rel=0.01, abs=2), True),
        (-50, -52, Tolerance(rel=0.04), True),
    ],
)
def test_tolerance_decides_exactness(
    gold: float, model: float, tol: Tolerance, within: bool
) -> None:
    outcome = strict(gold, model, tolerance=tol)
    assert exact(outcome) is within
    if not within:
        assert outcome.score == pytest.approx(1 - abs(gold - model) / abs(gold))


def test_tolerance_is_relative_to_gold() -> None:
    tol = Tolerance(rel=0.1)
    assert exact(strict(10, 11, tolerance=tol))
    assert not exact(strict(9, 10, tolerance=tol))


def test_numeric_credit_exact_gives_no_partial_credit() -> None:
    assert strict(10001, 10002, numeric_credit="exact").score == 0.0
    assert exact(strict(10001, 10001.0, numeric_credit="exact"))
    assert exact(strict(100, 101, numeric_credit="exact", tolerance=Tolerance(rel=0.05)))


def test_not_exact_never_scores_one() -> None:
    outcome = sim(10**400, 10**400 + 1)
    assert outcome.score < 1.0


# --- numeric strings and types ------------------------------------------------------


def test_strict_numeric_strings_equal_numbers() -> None:
    assert exact(strict(2876, "2876"))
    assert exact(strict("1000045", 1000045))
    assert exact(strict(3.0, "3"))
    assert exact(strict("3.0", "3"))
    assert exact(strict("2876", " 2876 "))
    assert exact(strict(1e20, "1E20"))
    assert exact(strict(-0.5, "-5e-1"))


def test_strict_numeric_strings_get_numeric_credit() -> None:
    outcome = strict("30", 31)
    assert outcome.score == pytest.approx(1 - 1 / 30)
    assert strict("100", "105", tolerance=Tolerance(rel=0.05)).exact


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Pump 6", 6),
        ("01234", 1234),
        ("1,000", 1000),
        ("$5", 5),
        ("5%", 5),
        ("1_000", 1000),
        ("0x10", 16),
        ("+5", 5),
        ("5.", 5),
        (".5", 0.5),
        ("1e999", INF),
        ("inf", INF),
    ],
)
def test_only_json_numbers_are_coerced(text: str, number: float) -> None:
    assert not strict(text, number).exact
    assert not strict(number, text).exact


def test_leading_zero_identifiers_stay_strings() -> None:
    assert not exact(strict("01234", "1234"))
    assert not exact(strict("01234", 1234))


def test_similarity_type_mismatches_score_zero() -> None:
    for gold, model, kinds in [
        (30, "30", "number vs string"),
        ("30", 30, "string vs number"),
        (True, "true", "bool vs string"),
        (True, 1, "bool vs number"),
        (1, True, "number vs bool"),
        (None, 0, "null vs number"),
        (None, "None", "null vs string"),
        ("x", None, "string vs null"),
        ({}, [], "object vs array"),
        ([], {}, "array vs object"),
        ({}, "{}", "object vs string"),
    ]:
        outcome = sim(gold, model)
        assert outcome.score == 0.0
        assert outcome.reason == f"type mismatch: {kinds}"


def test_strict_bool_is_never_a_number_and_null_only_equals_null() -> None:
    assert strict(True, 1).score == 0.0
    assert strict(False, 0).score == 0.0
    assert strict(0, False).score == 0.0
    assert strict(None, "None").score == 0.0
    assert strict(None, "null").score == 0.0
    assert strict("null", None).score == 0.0
    assert strict(None, 0).score == 0.0
    assert exact(strict(None, None))


def test_strict_compares_other_type_mismatches_by_text() -> None:
    assert exact(strict(True, "True"))
    assert exact(strict("false", False))
    assert strict(True, "yes").score == 0.0  # bools are all-or-nothing
    text = strict(6, "six")
    assert not text.exact
    assert "compared as text" in (text.reason or "")
    assert exact(strict(3.0, "3", coerce_numeric_strings=False))


def test_booleans_are_exact_or_nothing() -> None:
    assert exact(sim(True, True))
    assert exact(sim(False, False))
    outcome = sim(True, False)
    assert outcome.score == 0.0
    assert outcome.reason == "false vs expected true"


def test_empty_containers() -> None:
    assert exact(sim({}, {}))
    assert exact(sim([], []))
    assert exact(strict([], ()))
    assert strict({}, []).score == 0.0
    assert strict([], {}).score == 0.0
    assert strict({}, None).score == 0.0
    assert strict({}, "").score == 0.0


def test_non_empty_containers_are_not_leaves() -> None:
    outcome = strict({"a": 1}, {"a": 1})
    assert outcome.score == 0.0
    assert outcome.reason == "a non-empty object is not a leaf"
    assert strict(5, {"a": 5}).reason == "type mismatch: number vs object"


def test_subclasses_compare_like_their_base() -> None:
    class Name(str):
        pass

    assert exact(sim(Name("Pump"), "Pump"))
    assert exact(sim(1, 1.0))


def test_other_types_compare_by_equality() -> None:
    assert exact(strict({1, 2}, {2, 1}))
    assert strict({1, 2}, {1}).score == 0.0
    assert strict(b"x", "x").score == 0.0


# --- tolerances ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (0.05, Tolerance(rel=0.05)),
        (1, Tolerance(rel=1)),
        ({"rel": 0.1}, Tolerance(rel=0.1)),
        ({"abs": 2}, Tolerance(abs=2)),
        ({"rel": 0.1, "abs": 0.5}, Tolerance(rel=0.1, abs=0.5)),
        ({}, None),
        ({"rel": None}, None),
        (Tolerance(abs=1), Tolerance(abs=1)),
    ],
)
def test_parse_tolerance(value: Any, expected: Tolerance | None) -> None:
    assert parse_tolerance(value) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-0.1, ">= 0"),
        ({"rel": -1}, ">= 0"),
        ({"abs": "1"}, ">= 0"),
        ({"rel": math.inf}, ">= 0"),
        ({"rel": math.nan}, ">= 0"),
        ({"rel": True}, ">= 0"),
        (True, "number or a mapping"),
        ("5%", "number or a mapping"),
        ([0.1], "number or a mapping"),
        ({"relative": 0.1}, "unknown key"),
    ],
)
def test_parse_tolerance_rejects_bad_values(value: Any, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        parse_tolerance(value)


def test_tolerance_needs_a_bound() -> None:
    with pytest.raises(OptionsError, match="needs"):
        Tolerance()


# --- LeafOptions.updated ------------------------------------------------------------


def test_updated_applies_user_options() -> None:
    opts = STRICT.updated({"case_sensitive": True, "numeric_tolerance": {"rel": 0.05}})
    assert opts.case_sensitive
    assert opts.tolerance == Tolerance(rel=0.05)
    assert STRICT.updated({}) is STRICT


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"case_sensitive": 1}, "case_sensitive must be true or false"),
        ({"numeric_credit": "tiered"}, "numeric_credit must be one of"),
        ({"tolerance": 0.1}, "unknown option 'tolerance'"),
        ({"numeric_tolerance": -1}, r"where: numeric_tolerance"),
    ],
)
def test_updated_rejects_bad_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        STRICT.updated(options, where="where")


# --- OptionResolver -----------------------------------------------------------------


def test_resolver_without_overrides_returns_the_defaults() -> None:
    resolver = OptionResolver(STRICT, None, None)
    assert resolver.options_for("answer.anything") is STRICT
    assert not resolver.ignored("answer.anything")


def test_resolver_per_path_overrides() -> None:
    resolver = OptionResolver(
        STRICT,
        {
            "answer.price": {"numeric_tolerance": {"rel": 0.05}},
            "answer.items[*].name": {"case_sensitive": True},
        },
        None,
    )
    assert resolver.options_for("answer.price").tolerance == Tolerance(rel=0.05)
    assert resolver.options_for("answer.items[3].name").case_sensitive
    assert resolver.options_for("answer.other") is STRICT
    assert resolver.options_for("answer.pricey") is STRICT
    assert compare_leaf(100, 104, resolver.options_for("answer.price")).exact
    assert not compare_leaf(100, 104, resolver.options_for("answer.cost")).exact


def test_resolver_override_applies_below_its_path() -> None:
    resolver = OptionResolver(STRICT, {"answer.items": {"case_sensitive": True}}, None)
    assert resolver.options_for("answer.items[0].name").case_sensitive
    assert not resolver.options_for("answer.itemsx").case_sensitive


def test_resolver_more_specific_patterns_win_and_layer() -> None:
    resolver = OptionResolver(
        STRICT,
        {
            "answer.items[0].name": {"case_sensitive": False},
            "answer.items[*].name": {"case_sensitive": True, "normalize_whitespace": True},
            "answer.items": {"case_sensitive": False, "numeric_credit": "exact"},
            "**": {"strict_types": True},
        },
        None,
    )
    first = resolver.options_for("answer.items[0].name")
    assert not first.case_sensitive  # exact path beats the glob of the same depth
    assert first.normalize_whitespace  # ...which still contributes what it alone sets
    assert first.numeric_credit == "exact"  # from the ancestor
    assert first.strict_types  # from the catch-all
    second = resolver.options_for("answer.items[1].name")
    assert second.case_sensitive  # the deeper glob beats the shallower exact path


@pytest.mark.parametrize("order", [1, -1])
def test_a_doublestar_glob_naming_the_field_beats_its_parents_pattern(order: int) -> None:
    """``**.price`` names the price fields: a tolerance on their parent no longer outranks it
    (a ``**`` counted no depth, so the exact parent path won, api25 #1)."""
    rules = [
        ("answer.items", {"numeric_tolerance": 0.2}),
        ("**.price", {"numeric_tolerance": None}),
    ]
    resolver = OptionResolver(STRICT, dict(rules[::order]), None)
    assert resolver.options_for("answer.items[0].price").tolerance is None
    assert resolver.options_for("answer.items[0].q").tolerance is not None


def test_resolver_ties_go_to_the_later_entry() -> None:
    resolver = OptionResolver(
        STRICT,
        {"answer.*.x": {"case_sensitive": True}, "answer.a.*": {"case_sensitive": False}},
        None,
    )
    assert not resolver.options_for("answer.a.x").case_sensitive
    resolver = OptionResolver(
        STRICT,
        {"answer.a.*": {"case_sensitive": False}, "answer.*.x": {"case_sensitive": True}},
        None,
    )
    assert resolver.options_for("answer.a.x").case_sensitive


def test_resolver_caches_per_path() -> None:
    resolver = OptionResolver(STRICT, {"answer.a": {"case_sensitive": True}}, None)
    assert resolver.options_for("answer.a") is resolver.options_for("answer.a")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"answer.price": {"tolerance": 0.1}}, r"options\['answer.price'\]: unknown option"),
        ({"answer.price": {"case_sensitive": "yes"}}, "answer.price"),
        ({"answer.price": 0.1}, r"options\['answer.price'\] must be a mapping"),
        ({"answer..price": {"case_sensitive": True}}, "empty key"),
        ({5: {"case_sensitive": True}}, "must be a string"),
        (["answer.price"], "must map paths"),
    ],
)
def test_resolver_rejects_bad_overrides(overrides: Any, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        OptionResolver(STRICT, overrides, None)


def test_resolver_ignore_paths_cover_the_subtree() -> None:
    resolver = OptionResolver(STRICT, None, ["answer.items[*].id", "meta"])
    assert resolver.ignored("answer.items[0].id")
    assert resolver.ignored("answer.items[0].id.value")
    assert resolver.ignored("answer.meta")
    assert resolver.ignored("answer.meta[3].x")
    assert not resolver.ignored("answer.items[0].identifier")
    assert not resolver.ignored("answer.items[0].name")
    assert not resolver.ignored("answer.metadata")


def test_resolver_accepts_a_single_ignore_pattern_string() -> None:
    resolver = OptionResolver(STRICT, None, "answer.id")
    assert resolver.ignored("answer.id")
    assert not resolver.ignored("answer.i")


def test_resolver_rejects_bad_ignore_patterns() -> None:
    with pytest.raises(OptionsError, match="whole segment"):
        OptionResolver(STRICT, None, ["answer.id*"])
    with pytest.raises(OptionsError, match="must be a string"):
        OptionResolver(STRICT, None, [3])  # type: ignore[list-item]
    with pytest.raises(OptionsError, match="a list of them"):
        OptionResolver(STRICT, None, 3)  # type: ignore[arg-type]


# --- reasonless scoring -------------------------------------------------------------


def test_leaf_score_is_compare_leaf_without_the_reason() -> None:
    pairs = [("Alice", "Alicia"), (1, 1.5), ("x", "x"), (2876, "2876"), (None, 0), ({}, [])]
    for gold, model in pairs:
        assert leaf_score(gold, model, STRICT) == compare_leaf(gold, model, STRICT).score


def test_leaf_scores_of_one_gold_against_many_models() -> None:
    models = ["alice", "Alicia", 5, None, " ALICE "]
    assert leaf_scores("Alice", models, STRICT) == [
        compare_leaf("Alice", m, STRICT).score for m in models
    ]
    assert leaf_scores(10, [10, 11, "10"], SIM) == [1.0, 0.9, 0.0]


def test_normalize_text() -> None:
    assert normalize_text("  Café  Noir ", STRICT) == "café  noir"
    assert normalize_text("  Cafe\u0301  Noir ", SIM) == "Café  Noir"
    assert normalize_text(" a \t b ", dataclasses.replace(SIM, normalize_whitespace=True)) == "a b"


def test_texts_too_long_for_edit_distance_are_compared_for_equality() -> None:
    """Edit distance costs the product of the lengths: two 4 MB answers took 13 minutes."""
    from pytest_structeval import score
    from pytest_structeval.compare import MAX_EDIT_CELLS
    from pytest_structeval.schema.comparators import compare_similarity

    side = math.isqrt(MAX_EDIT_CELLS) + 1  # the smallest square past the bound
    gold, model = "a" * side, "a" * (side - 1) + "b"
    reason = (
        f"texts of {side:,} and {side:,} characters differ (too long to compare by edit "
        "distance: compared for equality, no partial credit)"
    )
    for mode in ("strict", "similarity"):
        (field,) = score({"t": gold}, {"t": model}, mode).fields
        assert (field.score, field.reason) == (0.0, reason)
        assert score({"t": gold}, {"t": gold}, mode).passed
    assert compare_similarity(gold, model, {}).reason == reason
    assert compare_similarity(gold, gold, {}).score == 1.0
    near = strict("x" * 1000, "x" * 999 + "y")  # just under the bound: partial credit
    assert 0.99 < near.score < 1.0
    assert near.reason == "text differs (similarity >0.99)"


def test_a_bool_against_a_near_text_gets_no_partial_credit() -> None:
    """A bool is all or nothing against text too: "fals" is not 80% of false
    (review mutants16-core c14)."""
    assert compare_leaf(False, "fals", STRICT_DEFAULTS) == LeafOutcome(
        False, 0.0, "'fals' vs expected 'false'"
    )
    assert compare_leaf(True, "truth", STRICT_DEFAULTS) == LeafOutcome(
        False, 0.0, "'truth' vs expected 'true'"
    )
    assert compare_leaf("tru", True, STRICT_DEFAULTS).score == 0.0


def test_a_float_past_1e16_compares_by_its_repr_text() -> None:
    """Without coercion a float's text is ``3`` for 3.0 only below 1e16; above, its repr
    (``1e+16``), so the model's "1e+16" is exact (review mutants16-core c22)."""
    opts = dataclasses.replace(STRICT_DEFAULTS, coerce_numeric_strings=False)
    assert compare_leaf(1e16, "1e+16", opts) == LeafOutcome(True, 1.0, None)
    assert compare_leaf(1e15, "1000000000000000", opts) == LeafOutcome(True, 1.0, None)
    assert compare_leaf(1e20, "100000000000000000000", opts).exact is False
