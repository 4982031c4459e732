"""Opt-in leniency: gold numeric ranges (``numeric_range``) and date-time tolerance
(``timestamp_tolerance``) in strict and similarity modes, and the ``range`` and
``timestamp`` comparators of schema mode, all reading values with ``leniency.py``."""

from __future__ import annotations

import json
import math
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_structeval import parse_answer, score
from pytest_structeval.cli import main
from pytest_structeval.compare import (
    SIMILARITY_DEFAULTS,
    STRICT_DEFAULTS,
    LeafOptions,
    compare_leaf,
    leaf_score,
    leaf_scores,
)
from pytest_structeval.errors import OptionsError, SchemaError
from pytest_structeval.leniency import (
    DATE,
    LOCAL,
    ZONED,
    NumericRange,
    outside_range,
    parse_range,
    parse_timestamp,
    timestamp_miss,
)
from pytest_structeval.report import AGGREGATE_NAME
from pytest_structeval.schema import evaluate
from pytest_structeval.schema.comparators import compare_range, compare_timestamp
from tests.realdata import require_data

RANGES = STRICT_DEFAULTS.updated({"numeric_range": True})
MINUTE = STRICT_DEFAULTS.updated({"timestamp_tolerance": 60})
BOTH = STRICT_DEFAULTS.updated({"numeric_range": True, "timestamp_tolerance": 60})


def field(result: Any, path: str) -> Any:
    return next(f for f in result.fields if f.path == path)


# --- the range grammar -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("10-12", 10, 12),
        ("10 - 12", 10, 12),
        ("10 to 12", 10, 12),
        ("10 TO 12", 10, 12),
        ("10–12", 10, 12),  # en dash
        ("10—12", 10, 12),  # em dash
        ("10..12", 10, 12),
        ("  10-12 ", 10, 12),
        ("-5-3", -5, 3),
        ("-5--3", -5, -3),
        ("-5 - -3", -5, -3),
        ("0.5-1.25", 0.5, 1.25),
        ("0-0", 0, 0),
        ("5-5", 5, 5),
        ("2019-2020", 2019, 2020),
    ],
)
def test_range_grammar_accepts(text: str, low: float, high: float) -> None:
    found = parse_range(text)
    assert found == NumericRange(low, high)
    assert found is not None
    assert type(found.low) is type(low)


@pytest.mark.parametrize(
    "text",
    [
        "2020-06-26",  # a date
        "2020-06",  # a year and month: leading zero
        "2020-10",  # a year and month: low > high
        "2020-06-26T11:14:36",
        "COMP-01",
        "FAN-01",
        "-5",
        "10",
        "12-10",  # descending: a score or a difference, not a range
        "-3--5",
        "1,500",  # thousands separator, not a range
        "10,12",
        "01-03",  # leading zeros: a day and month, or an id
        "1e3-2e3",
        "+1-2",
        "10 to",
        "10to12",
        "10 -",
        "between 10 and 12",
        "10-12 units",
        "10 - 12 - 14",
        "１０-１２",  # full-width digits
        "1" * 60 + "-" + "1" * 60,  # over the length bound
        "",
    ],
)
def test_range_grammar_rejects(text: str) -> None:
    assert parse_range(text) is None


def test_range_shows_as_an_interval() -> None:
    assert str(parse_range("10-12")) == "[10, 12]"
    assert str(parse_range("-0.5 to 2.5")) == "[-0.5, 2.5]"


# --- the date-time grammar ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "moment"),
    [
        ("2020-06-26", DATE, datetime(2020, 6, 26)),
        ("2020-06-26T11:14", LOCAL, datetime(2020, 6, 26, 11, 14)),
        ("2020-06-26T11:14:36", LOCAL, datetime(2020, 6, 26, 11, 14, 36)),
        ("2020-06-26t11:14:36", LOCAL, datetime(2020, 6, 26, 11, 14, 36)),
        ("2020-06-26 11:14:36", LOCAL, datetime(2020, 6, 26, 11, 14, 36)),
        ("2020-06-26T11:14:36.5", LOCAL, datetime(2020, 6, 26, 11, 14, 36, 500000)),
        ("2020-06-26T11:14:36,25", LOCAL, datetime(2020, 6, 26, 11, 14, 36, 250000)),
        ("2020-06-26T11:14:36.123456789", LOCAL, datetime(2020, 6, 26, 11, 14, 36, 123456)),
        # numeric32 #6: a fraction of any length, read to the microsecond (ten digits: text)
        ("2020-06-26T11:14:36.1234567891", LOCAL, datetime(2020, 6, 26, 11, 14, 36, 123456)),
        ("2020-06-26T11:14:36Z", ZONED, datetime(2020, 6, 26, 11, 14, 36, tzinfo=timezone.utc)),
        ("2020-06-26T11:14:36z", ZONED, datetime(2020, 6, 26, 11, 14, 36, tzinfo=timezone.utc)),
        (
            "2020-06-26T13:14:36+02:00",
            ZONED,
            datetime(2020, 6, 26, 11, 14, 36, tzinfo=timezone.utc),
        ),
        ("2020-06-26T13:14:36+0200", ZONED, datetime(2020, 6, 26, 11, 14, 36, tzinfo=timezone.utc)),
        ("2020-06-26T13:14:36+02", ZONED, datetime(2020, 6, 26, 11, 14, 36, tzinfo=timezone.utc)),
        (
            "2020-06-26T06:44:36-04:30",
            ZONED,
            datetime(2020, 6, 26, 11, 14, 36, tzinfo=timezone.utc),
        ),
        (" 2020-06-26T11:14:36 ", LOCAL, datetime(2020, 6, 26, 11, 14, 36)),
    ],
)
def test_timestamp_grammar_accepts(text: str, kind: str, moment: datetime) -> None:
    found = parse_timestamp(text)
    assert found is not None
    assert (found.kind, found.moment, found.text) == (kind, moment, text.strip())


@pytest.mark.parametrize(
    "text",
    [
        "2020-02-30",  # no such day
        "2020-13-01",
        "2020-06-26T24:00:00",  # end of day: no instant of its own date
        "2020-06-26T11:60",
        "2020-06-26T23:59:60",  # leap seconds are not represented
        "2020-06-26T11",  # hours alone
        "2020-06-26T11:14:36.",
        "2020-06-26T11:14:36+24:00",
        "2020-06-26T11:14:36+02:60",  # offset minutes are checked too (not read as +03:00)
        "2020-06-26T11:14:36+0299",
        "2020-06-26T11:14:36 +02:00",
        "2020-06-26  11:14:36",  # two spaces
        "2020-06-26_11:14:36",
        "2020-06-26Z",  # an offset needs a time
        "20200626T111436",  # basic format
        "2020-W26-5",
        "2020-178",
        "0000-01-01",
        "2020-6-26",
        "26/06/2020",
        "June 26, 2020",
        "10-12",
        "",
    ],
)
def test_timestamp_grammar_rejects(text: str) -> None:
    assert parse_timestamp(text) is None


# --- numeric_range in the key-level modes --------------------------------------------------


@pytest.mark.parametrize(
    "model", [10, 11, 12, 10.0, 11.5, "11", " 12 ", "1.1e1", 12.000000000000002]
)
def test_a_number_inside_a_gold_range_is_exact(model: Any) -> None:
    assert compare_leaf("10-12", model, RANGES) == (True, 1.0, None)


@pytest.mark.parametrize("model", ["10-12", "10 to 12", "10 – 12", "10.0-12.0", "10..12"])
def test_the_same_range_in_any_notation_is_exact(model: str) -> None:
    assert compare_leaf("10 - 12", model, RANGES).exact


def test_a_number_outside_is_scored_against_the_nearest_bound() -> None:
    assert compare_leaf("10-12", 15, RANGES) == (
        False,
        0.75,
        "15 outside expected range [10, 12] (25% above 12)",
    )
    below = compare_leaf("10-12", 9, RANGES)
    assert below.score == pytest.approx(0.9)
    assert below.reason == "9 outside expected range [10, 12] (10% below 10)"
    # a bound of 0 is all or nothing, as a gold 0 is
    assert compare_leaf("0-5", -1, RANGES) == (
        False,
        0.0,
        "-1 outside expected range [0, 5] (below 0)",
    )


def test_numeric_credit_and_tolerance_apply_outside_the_range() -> None:
    exact_ids = RANGES.updated({"numeric_credit": "exact"})
    assert compare_leaf("10-12", 13, exact_ids).score == 0.0
    widened = RANGES.updated({"numeric_tolerance": {"abs": 1}})
    assert compare_leaf("10-12", 13, widened).exact
    assert compare_leaf("10-12", 9, widened).exact
    assert compare_leaf("10-12", 14, widened).reason == (
        "14 outside expected range [10, 12] (17% above 12; outside abs 1)"
    )


def test_a_different_model_range_gets_the_mean_credit_of_its_bounds() -> None:
    outcome = compare_leaf("10-12", "10-15", RANGES)
    assert not outcome.exact
    assert outcome.score == pytest.approx((1.0 + 0.75) / 2)
    assert outcome.reason == "range [10, 15] vs expected range [10, 12]"
    assert compare_leaf("10-12", "11-12", RANGES).score < 1.0  # inside is not the same range


@pytest.mark.parametrize(
    ("model", "reason"),
    [
        ("about 11", "'about 11' is not a number or a range (expected range [10, 12])"),
        (True, "true is not a number or a range (expected range [10, 12])"),
        (None, "null is not a number or a range (expected range [10, 12])"),
        ("12-10", "'12-10' is not a number or a range (expected range [10, 12])"),
        (math.nan, "NaN is not comparable"),
        (math.inf, "inf outside expected range [10, 12]"),
    ],
)
def test_a_value_that_is_no_number_scores_zero_under_numeric_range(model: Any, reason: str) -> None:
    assert compare_leaf("10-12", model, RANGES) == (False, 0.0, reason)


def test_similarity_mode_reads_a_range_as_numeric_but_keeps_strings_strings() -> None:
    opts = SIMILARITY_DEFAULTS.updated({"numeric_range": True})
    assert compare_leaf("10-12", 11, opts).exact  # strict_types: the range is numeric
    assert compare_leaf("10-12", "10 to 12", opts).exact
    assert compare_leaf("10-12", "11", opts) == (
        False,
        0.0,
        "'11' is not a number or a range (expected range [10, 12]; a numeric string, "
        "and coerce_numeric_strings is off)",
    )
    assert compare_leaf("10-12", "11", opts.updated({"coerce_numeric_strings": True})).exact


def test_numeric_range_only_reads_the_gold_side() -> None:
    # a gold number asks for a number: a model range is not an answer to it
    assert not compare_leaf(11, "10-12", RANGES).exact
    assert compare_leaf(11, "10-12", RANGES) == compare_leaf(11, "10-12", STRICT_DEFAULTS)


@pytest.mark.parametrize(
    ("gold", "model"),
    [
        ("COMP-01", "COMP-02"),
        ("2020-06-26", "2020-06-27"),
        ("Chiller 6", "chiller 6"),
        ("10-12 units", "11"),
        (11, 12),
        ("-5", -5),
    ],
)
def test_a_gold_that_is_no_range_compares_as_usual(gold: Any, model: Any) -> None:
    assert compare_leaf(gold, model, RANGES) == compare_leaf(gold, model, STRICT_DEFAULTS)


def test_leniency_is_off_by_default() -> None:
    assert STRICT_DEFAULTS.numeric_range is False
    assert STRICT_DEFAULTS.timestamp_tolerance is None
    assert not compare_leaf("10-12", 11, STRICT_DEFAULTS).exact
    assert not compare_leaf("2020-06-26T11:14:36", "2020-06-26T11:14:37", STRICT_DEFAULTS).exact
    assert not score({"r": "10-12"}, {"r": 11}).passed


# --- timestamp_tolerance -----------------------------------------------------------------


def test_a_date_time_within_the_tolerance_is_exact_bounds_included() -> None:
    gold = "2020-06-26T11:14:00"
    assert compare_leaf(gold, "2020-06-26T11:15:00", MINUTE).exact
    assert compare_leaf(gold, "2020-06-26T11:13:00", MINUTE).exact
    assert compare_leaf(gold, "2020-06-26 11:14:30", MINUTE).exact  # RFC 3339's space
    assert compare_leaf(gold, "2020-06-26T11:14:00.000", MINUTE).exact


def test_a_date_time_outside_the_tolerance_says_how_far_and_scores_zero() -> None:
    assert compare_leaf("2020-06-26T11:14:00", "2020-06-26T11:20:00", MINUTE) == (
        False,
        0.0,
        "2020-06-26T11:20:00 is 360 s after expected 2020-06-26T11:14:00 (tolerance 60 s)",
    )
    assert compare_leaf(
        "2020-06-26T11:14:00",
        "2020-06-26T11:13:59.5",
        MINUTE.updated({"timestamp_tolerance": 0.25}),
    ).reason == (
        "2020-06-26T11:13:59.5 is 0.5 s before expected 2020-06-26T11:14:00 (tolerance 0.25 s)"
    )


def test_offsets_are_compared_as_instants() -> None:
    same = STRICT_DEFAULTS.updated({"timestamp_tolerance": 0})
    assert compare_leaf("2020-06-26T11:14:00Z", "2020-06-26T13:14:00+02:00", same).exact
    assert compare_leaf("2020-06-26T11:14:00Z", "2020-06-26T11:14:00+00:00", same).exact
    assert not compare_leaf("2020-06-26T11:14:00Z", "2020-06-26T11:14:00+02:00", same).exact


@pytest.mark.parametrize(
    ("gold", "model", "reason"),
    [
        (
            "2020-06-26T11:14:00",
            "2020-06-26T11:14:00Z",
            "2020-06-26T11:14:00Z is a date-time with UTC offset and expected "
            "2020-06-26T11:14:00 a date-time without UTC offset: not comparable",
        ),
        (
            "2020-06-26T11:14:00+02:00",
            "2020-06-26T11:14:00",
            "2020-06-26T11:14:00 is a date-time without UTC offset and expected "
            "2020-06-26T11:14:00+02:00 a date-time with UTC offset: not comparable",
        ),
        (
            "2020-06-26",
            "2020-06-26T00:00:00",
            "2020-06-26T00:00:00 is a date-time without UTC offset and expected 2020-06-26 "
            "a date: not comparable",
        ),
        (
            "2020-06-26T11:14:00",
            "2020-06-26",
            "2020-06-26 is a date and expected 2020-06-26T11:14:00 a date-time without "
            "UTC offset: not comparable",
        ),
        (
            "2020-06-26T11:14:00",
            "26/06/2020 11:14",
            "'26/06/2020 11:14' is not an ISO 8601 date-time (expected 2020-06-26T11:14:00)",
        ),
        ("2020-06-26", 20200626, "20200626 is not an ISO 8601 date (expected 2020-06-26)"),
    ],
)
def test_kinds_never_mix_and_non_date_times_score_zero(gold: str, model: Any, reason: str) -> None:
    assert compare_leaf(gold, model, MINUTE.updated({"timestamp_tolerance": 86400})) == (
        False,
        0.0,
        reason,
    )


def test_dates_differ_by_whole_days() -> None:
    day = STRICT_DEFAULTS.updated({"timestamp_tolerance": 86400})
    assert compare_leaf("2020-06-26", "2020-06-27", day).exact
    assert compare_leaf("2020-06-26", "2020-06-28", day).reason == (
        "2020-06-28 is 172800 s (2 days) after expected 2020-06-26 (tolerance 86400 s)"
    )


@pytest.mark.parametrize(
    ("gold", "model"),
    [("10-12", "11"), ("Pump 6", "pump 6"), ("note", "notes"), (3, 4), (True, "true")],
)
def test_a_gold_that_is_no_date_time_compares_as_usual(gold: Any, model: Any) -> None:
    assert compare_leaf(gold, model, MINUTE) == compare_leaf(gold, model, STRICT_DEFAULTS)


# --- options: validation, per-path, global, modes ------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"numeric_range": "yes"}, r"options\['answer.r'\]: numeric_range must be true or false"),
        ({"numeric_range": 1}, r"options\['answer.r'\]: numeric_range must be true or false"),
        ({"timestamp_tolerance": -1}, r"options\['answer.r'\]: timestamp_tolerance must be"),
        ({"timestamp_tolerance": math.nan}, r"options\['answer.r'\]: timestamp_tolerance must"),
        ({"timestamp_tolerance": math.inf}, r"options\['answer.r'\]: timestamp_tolerance must"),
        ({"timestamp_tolerance": True}, r"options\['answer.r'\]: timestamp_tolerance must be"),
        # an int too large for a float: an OptionsError, never an OverflowError
        ({"timestamp_tolerance": 10**400}, r"options\['answer.r'\]: timestamp_tolerance must"),
        ({"numeric_tolerance": {"abs": 10**400}}, r"options\['answer.r'\]"),
        ({"timestamp_tolerance": "60"}, r"options\['answer.r'\]: timestamp_tolerance must be"),
        ({"timestamp_tolerance_s": 60}, r"unknown option 'timestamp_tolerance_s'.*numeric_range"),
    ],
)
@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_bad_values_raise_options_error_naming_the_path(
    mode: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionsError, match=message):
        score({"r": "10-12"}, {"r": 11}, mode=mode, options={"answer.r": options})


def test_leaf_options_validate_direct_construction() -> None:
    with pytest.raises(OptionsError, match="timestamp_tolerance must be a finite number"):
        LeafOptions(timestamp_tolerance=-5)


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_per_path_and_global_through_the_root_pattern(mode: str) -> None:
    gold = {"r": "10-12", "s": "10-12", "t": "2020-06-26T11:14:00", "u": "2020-06-26T11:14:00"}
    model = {"r": 11, "s": 11, "t": "2020-06-26T11:14:30", "u": "2020-06-26T11:14:30"}
    per_path = score(
        gold,
        model,
        mode=mode,
        options={"answer.r": {"numeric_range": True}, "answer.t": {"timestamp_tolerance": 60}},
    )
    assert {f.path for f in per_path.fields if f.status == "match"} == {"answer.r", "answer.t"}
    everywhere = {"answer": {"numeric_range": True, "timestamp_tolerance": 60}}
    assert score(gold, model, mode=mode, options=everywhere).passed
    # a more specific pattern switches leniency off again
    off = {
        **everywhere,
        "answer.u": {"timestamp_tolerance": None},
        "answer.s": {"numeric_range": False},
    }
    result = score(gold, model, mode=mode, options=off)
    assert {f.path for f in result.fields if f.status != "match"} == {"answer.s", "answer.u"}


def test_measure_mode_is_an_abs_tolerance_of_one() -> None:
    measure = {"answer.count": {"numeric_tolerance": {"abs": 1}}}
    assert score({"count": 10}, {"count": 11}, options=measure).passed
    assert score({"count": 10}, {"count": 9}, options=measure).passed
    assert not score({"count": 10}, {"count": 12}, options=measure).passed


def test_a_miss_reads_in_the_failure_table() -> None:
    result = score(
        {"end": "2020-06-26T11:14:00", "n": "10-12"},
        {"end": "2020-06-26T11:20:00", "n": 15},
        options={"answer": {"numeric_range": True, "timestamp_tolerance": 60}},
    )
    assert not result.passed
    assert field(result, "answer.end").reason == (
        "2020-06-26T11:20:00 is 360 s after expected 2020-06-26T11:14:00 (tolerance 60 s)"
    )
    assert field(result, "answer.n").reason == "15 outside expected range [10, 12] (25% above 12)"
    assert field(result, "answer.n").score == 0.75


@pytest.mark.parametrize("align", ["unordered", "hungarian"])
def test_alignment_pairs_elements_by_the_same_leniency(align: str) -> None:
    gold = {"segments": ["10-12", "20-22", "30-32"]}
    model = {"segments": [31, 11, 21.5]}
    lenient = {"answer.segments": {"numeric_range": True}}
    assert score(gold, model, align=align, options=lenient).passed
    assert not score(gold, model, align=align).passed
    records = {"events": [{"at": "2020-06-26T11:14:00"}, {"at": "2020-06-27T08:00:00"}]}
    answer = {"events": [{"at": "2020-06-27T08:00:20"}, {"at": "2020-06-26T11:13:50"}]}
    assert score(records, answer, align=align, options={"answer": {"timestamp_tolerance": 30}})


def test_leaf_score_and_leaf_scores_agree_with_compare_leaf() -> None:
    models: list[Any] = [11, "11", "10 to 12", 15, "x", None, "2020-06-26T11:14:30", 9.5]
    for gold in ("10-12", "2020-06-26T11:14:00", "plain"):
        expected = [compare_leaf(gold, m, BOTH).score for m in models]
        assert [leaf_score(gold, m, BOTH) for m in models] == expected
        assert leaf_scores(gold, models, BOTH) == expected


# --- schema mode comparators ---------------------------------------------------------------


def _schema(compare: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": {"type": "string", "x-eval-compare": compare}}}


@pytest.mark.parametrize(
    ("gold", "extracted", "score_", "reason"),
    [
        ("10-12", 11, 1.0, None),
        ("10-12", "11", 1.0, None),
        ("10-12", "10 to 12", 1.0, None),
        ("10-12", 12.0, 1.0, None),
        ("10-12", 15, 0.0, "15 outside expected range [10, 12]"),
        ("10-12", "10-13", 0.0, "range [10, 13] vs expected range [10, 12]"),
        ("10-12", "eleven", 0.0, "'eleven' is not a number or a range (expected range [10, 12])"),
        ("10-12", True, 0.0, "true is not a number or a range (expected range [10, 12])"),
        (11, "11", 1.0, None),  # a gold number is a one-point range
        (11, 12, 0.0, "12 outside expected range [11, 11]"),
        ("COMP-01", "COMP-01", 1.0, None),
        ("COMP-01", "COMP-02", 0.0, "gold 'COMP-01' is not a number or a range"),
    ],
)
def test_schema_range_comparator(gold: Any, extracted: Any, score_: float, reason: Any) -> None:
    verdict = compare_range(gold, extracted, {})
    assert (verdict.score, verdict.reason, verdict.comparator) == (score_, reason, "range")


@pytest.mark.parametrize(
    ("gold", "extracted", "params", "score_", "reason"),
    [
        ("2020-06-26T11:14:36", "2020-06-26T11:15:30", {"tolerance_s": 60}, 1.0, None),
        ("2020-06-26T11:14:36", "2020-06-26T11:14:36.000", {}, 1.0, None),
        ("2020-06-26T11:14:36Z", "2020-06-26T12:14:36+01:00", {}, 1.0, None),
        (
            "2020-06-26T11:14:36",
            "2020-06-26T11:16:30",
            {"tolerance_s": 60},
            0.0,
            "2020-06-26T11:16:30 is 114 s after expected 2020-06-26T11:14:36 (tolerance 60 s)",
        ),
        (
            "2020-06-26T11:14:36",
            "2020-06-26T11:14:37",
            {},
            0.0,
            "2020-06-26T11:14:37 is 1 s after expected 2020-06-26T11:14:36 (tolerance 0 s)",
        ),
        ("soon", "soon", {}, 1.0, None),
        ("soon", "later", {}, 0.0, "gold 'soon' is not an ISO 8601 date or date-time"),
    ],
)
def test_schema_timestamp_comparator(
    gold: Any, extracted: Any, params: dict[str, Any], score_: float, reason: Any
) -> None:
    verdict = compare_timestamp(gold, extracted, params)
    assert (verdict.score, verdict.reason, verdict.comparator) == (score_, reason, "timestamp")


def test_schema_comparators_are_registered_and_score_records() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "string", "x-eval-compare": "range"},
            "at": {"type": "string", "x-eval-compare": {"timestamp": {"tolerance_s": 60}}},
        },
    }
    gold = [{"n": "10-12", "at": "2020-06-26T11:14:36"}] * 2
    run = evaluate(gold, [{"n": "11", "at": "2020-06-26 11:15:00"}, {"n": 13, "at": "x"}], schema)
    assert [r.f1 for r in run.records] == [1.0, 0.0]
    assert score(gold[0], {"n": 10, "at": "2020-06-26T11:14:00"}, mode="schema", schema=schema)


@pytest.mark.parametrize(
    ("compare", "message"),
    [
        ({"range": {"tolerance": 1}}, r"range: unknown parameter\(s\) \['tolerance'\]"),
        ({"timestamp": {"tolerance": 1}}, r"timestamp: unknown parameter\(s\) \['tolerance'\]"),
        (
            {"timestamp": {"tolerance_s": -1}},
            "timestamp: 'tolerance_s' must be a finite number of seconds",
        ),
        (
            {"timestamp": {"tolerance_s": math.inf}},
            "timestamp: 'tolerance_s' must be a finite number",
        ),
        ({"timestamp": {"tolerance_s": True}}, "timestamp: 'tolerance_s' must be a finite number"),
        ({"timestamp": {"tolerance_s": 10**400}}, "timestamp: 'tolerance_s' must be a finite"),
        ({"numeric": {"tolerance": {"abs": 10**400}}}, "numeric: tolerance 'abs' must be a finite"),
        ({"timestamp": {"tolerance_s": "60"}}, "timestamp: 'tolerance_s' must be a finite number"),
    ],
)
def test_schema_parameters_are_validated_when_the_schema_is_parsed(
    compare: Any, message: str
) -> None:
    with pytest.raises(SchemaError, match=rf"properties\.v\.x-eval-compare: {message}"):
        evaluate([], [], _schema(compare))


# --- properties ----------------------------------------------------------------------------

_INT = st.integers(-(10**6), 10**6)
_SEPARATORS = st.sampled_from(["-", " - ", "–", " — ", "..", " to ", " TO "])


def _decimal_text(value: int, places: int) -> str:
    """A decimal in the range grammar: ``value / 10**places`` written out."""
    if places == 0:
        return str(value)
    sign = "-" if value < 0 else ""
    digits = str(abs(value)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


@settings(max_examples=200, deadline=None)
@given(_INT, _INT, st.integers(0, 3), st.integers(0, 3), _SEPARATORS)
def test_a_written_range_reads_back_and_holds_its_bounds(
    a: int, b: int, pa: int, pb: int, sep: str
) -> None:
    low_text, high_text = _decimal_text(a, pa), _decimal_text(b, pb)
    low, high = float(low_text), float(high_text)
    found = parse_range(f"{low_text}{sep}{high_text}")
    if low > high:
        assert found is None
        return
    assert found is not None
    assert (found.low, found.high) == (low, high)
    for inside in (low, high, (low + high) / 2):
        assert found.holds(inside)
        assert compare_leaf(f"{low_text}{sep}{high_text}", inside, RANGES).exact
        assert compare_range(f"{low_text}{sep}{high_text}", inside, {}).score == 1.0


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
def test_dates_and_date_times_are_never_ranges(moment: datetime) -> None:
    year_month = f"{moment.year:04d}-{moment.month:02d}"
    assert parse_range(year_month) is None
    for text in (
        moment.date().isoformat(),
        moment.isoformat(),
        moment.isoformat(sep=" "),
        moment.replace(tzinfo=timezone.utc).isoformat(),
    ):
        assert parse_range(text) is None
        assert parse_timestamp(text) is not None


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False)))
def test_a_single_number_is_never_a_range(number: int | float) -> None:
    assert parse_range(str(number)) is None
    assert parse_range(repr(number)) is None


_OFFSETS = st.one_of(
    st.none(), st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda m: timedelta(minutes=m))
)


@settings(max_examples=200, deadline=None)
@given(
    st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9998, 12, 31)),
    _OFFSETS,
    st.sampled_from(["T", " "]),
)
def test_a_written_date_time_reads_back_as_the_same_instant(
    moment: datetime, offset: timedelta | None, sep: str
) -> None:
    if offset is not None:
        moment = moment.replace(tzinfo=timezone(offset))
    found = parse_timestamp(moment.isoformat(sep=sep))
    assert found is not None
    assert found.moment == moment
    assert found.kind == (LOCAL if offset is None else ZONED)


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9998, 12, 30)),
    st.integers(-200_000, 200_000),
    st.integers(0, 100_000),
)
def test_the_tolerance_is_an_inclusive_bound_on_the_gap(
    moment: datetime, shift: int, tolerance: int
) -> None:
    gold = moment.replace(microsecond=0).isoformat()
    model = (moment.replace(microsecond=0) + timedelta(seconds=shift)).isoformat()
    opts = STRICT_DEFAULTS.updated({"timestamp_tolerance": tolerance})
    outcome = compare_leaf(gold, model, opts)
    assert outcome.exact == (abs(shift) <= tolerance)
    assert outcome.score in (0.0, 1.0)
    assert (compare_timestamp(gold, model, {"tolerance_s": tolerance}).score == 1.0) == (
        abs(shift) <= tolerance
    )


_SCALARS = st.one_of(
    st.text(max_size=40),
    st.from_regex(r"-?[0-9]{1,4}(\.[0-9]{1,3})? ?(-|to|\.\.) ?-?[0-9]{1,4}", fullmatch=True),
    st.from_regex(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?Z?)?", fullmatch=True
    ),
    st.integers(),
    st.floats(),
    st.booleans(),
    st.none(),
)


@settings(max_examples=400, deadline=None)
@given(_SCALARS, _SCALARS, st.booleans(), st.sampled_from([None, 0, 30, 86400.5]))
def test_leniency_never_raises_and_keeps_the_leaf_invariants(
    gold: Any, model: Any, numeric_range: bool, seconds: float | None
) -> None:
    for base in (STRICT_DEFAULTS, SIMILARITY_DEFAULTS):
        opts = base.updated({"numeric_range": numeric_range, "timestamp_tolerance": seconds})
        outcome = compare_leaf(gold, model, opts)
        assert 0.0 <= outcome.score <= 1.0
        assert outcome.exact == (outcome.score == 1.0) == (outcome.reason is None)
        assert leaf_score(gold, model, opts) == outcome.score
    if isinstance(gold, str) and isinstance(model, str):
        assert parse_range(gold) is None or parse_timestamp(gold) is None
    for comparator in (compare_range, compare_timestamp):
        verdict = comparator(gold, model, {})
        assert verdict.score in (0.0, 1.0)
        assert (verdict.reason is None) == (verdict.score == 1.0)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_the_grammars_never_raise_on_any_text(text: str) -> None:
    found = parse_range(text)
    assert found is None or found.low <= found.high
    stamp = parse_timestamp(text)
    assert stamp is None or stamp.text == text.strip()


@settings(max_examples=200, deadline=None)
@given(_INT, _INT, st.one_of(_INT, st.floats(-2e6, 2e6)))
def test_key_level_and_schema_agree_on_containment(a: int, b: int, number: float) -> None:
    assume(a <= b)
    exact = compare_leaf(f"{a}-{b}", number, RANGES).exact
    inside = compare_range(f"{a}-{b}", number, {}).score == 1.0
    assert inside == (a <= number <= b)
    if exact != inside:  # key level only: float rounding noise at a bound is no miss
        assert min(abs(number - a), abs(number - b)) <= 1e-9 * max(abs(a), abs(b))


# --- real data: the couchdb scenarios ------------------------------------------------------

_COUCHDB = ("assetops", "ibm_couchdb", "scenarios")


def _gold(name: str) -> dict[str, Any]:
    text = (require_data(*_COUCHDB) / name / "groundtruth.txt").read_text(encoding="utf-8")
    value = parse_answer(text)
    assert isinstance(value, dict)
    return value


def _shifted(stamp: str, seconds: int, sep: str = "T") -> str:
    return (datetime.fromisoformat(stamp) + timedelta(seconds=seconds)).isoformat(sep=sep)


_WINDOW = {"answer.start": {"timestamp_tolerance": 60}, "answer.end": {"timestamp_tolerance": 60}}


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["scenario_3", "scenario_4_turn_03"])
def test_real_golds_accept_a_close_date_time_only_with_the_option(name: str) -> None:
    gold = _gold(name)
    assert parse_timestamp(gold["start"]) is not None
    assert parse_timestamp(gold["end"]) is not None
    model = {**gold, "start": _shifted(gold["start"], 45), "end": _shifted(gold["end"], -30, " ")}
    assert not score(gold, model).passed
    assert score(gold, model, options=_WINDOW).passed
    assert score(gold, model, mode="similarity", options=_WINDOW).passed
    late = {**gold, "end": _shifted(gold["end"], 7200)}
    result = score(gold, late, options=_WINDOW)
    assert not result.passed
    assert field(result, "answer.end").reason == (
        f"{late['end']} is 7200 s after expected {gold['end']} (tolerance 60 s)"
    )


@pytest.mark.realdata
def test_a_tolerance_does_not_hide_the_scenario_3_gold_error() -> None:
    # §10.12: scenario_3's end disagrees with its own observations; turn 03 has the right one
    gold, right = _gold("scenario_3"), _gold("scenario_4_turn_03")
    day = {"answer.end": {"timestamp_tolerance": 86400}}
    result = score(gold, {**gold, "end": right["end"]}, options=day)
    assert not result.passed
    assert field(result, "answer.end").reason == (
        "2020-06-30T23:45:00 is 390624 s (4.521 days) after expected 2020-06-26T11:14:36 "
        "(tolerance 86400 s)"
    )


@pytest.mark.realdata
def test_real_gold_in_schema_mode_with_the_timestamp_comparator() -> None:
    gold = _gold("scenario_4_turn_03")
    stamp = {"timestamp": {"tolerance_s": 60}}
    schema = {
        "type": "object",
        "properties": {
            "observations": {"type": "integer", "x-eval-compare": "numeric"},
            "start": {"type": "string", "x-eval-compare": stamp},
            "end": {"type": "string", "x-eval-compare": stamp},
        },
    }
    model = {**gold, "start": _shifted(gold["start"], 59), "end": _shifted(gold["end"], 61)}
    run = evaluate([gold], [model], schema)
    assert [(f.path, f.status) for f in run.records[0].fields] == [
        ("observations", "match"),
        ("start", "match"),
        ("end", "mismatch"),
    ]


@pytest.mark.realdata
def test_real_scenarios_run_with_leniency_from_scenario_yaml(tmp_path: Path) -> None:
    root = require_data(*_COUCHDB)
    for name in ("scenario_3", "scenario_4_turn_03"):
        folder = tmp_path / "suite" / name
        shutil.copytree(root / name, folder)
        (folder / "scenario.yaml").write_text(
            "options:\n  options:\n"
            "    answer.start: {timestamp_tolerance: 60}\n"
            "    answer.end: {timestamp_tolerance: 60}\n",
            encoding="utf-8",
        )
        gold = _gold(name)
        answer = {**gold, "start": _shifted(gold["start"], 30), "end": _shifted(gold["end"], 40)}
        (folder / "trajectory.json").write_text(
            json.dumps({"run_id": f"run-{name}", "answer": f"Final Answer: {json.dumps(answer)}"}),
            encoding="utf-8",
        )
    reports = tmp_path / "reports"
    code = main(["evaluate", "--scenarios", str(tmp_path / "suite"), "--reports-dir", str(reports)])
    aggregate = json.loads((reports / AGGREGATE_NAME).read_text(encoding="utf-8"))
    assert {(r["run_id"], r["passed"]) for r in aggregate["results"]} == {
        ("run-scenario_3", True),
        ("run-scenario_4_turn_03", True),
    }
    assert code == 0


def test_a_large_tolerance_is_shown_as_written() -> None:
    # "%g" printed 1234567 as 1.23457e+06, a value the user never wrote.
    far = score(
        {"t": "2020-06-01T00:00:00"},
        {"t": "2020-07-01T00:00:00"},
        options={"answer.t": {"timestamp_tolerance": 1234567}},
    )
    assert far.fields[0].reason == (
        "2020-07-01T00:00:00 is 2592000 s (30 days) after expected 2020-06-01T00:00:00"
        " (tolerance 1234567 s)"
    )


def test_a_miss_of_whole_days_says_how_many() -> None:
    expected = parse_timestamp("2020-06-26T00:00:00")
    assert "is 86400 s (1 day) after" in timestamp_miss(expected, "2020-06-27T00:00:00", 60)
    assert "(2 days)" in timestamp_miss(expected, "2020-06-28T00:00:00", 60)


def test_a_model_value_of_60_characters_is_shown_whole() -> None:
    text = outside_range("x" * 58, parse_range("10-12"))  # repr is 60 characters
    assert text == f"'{'x' * 58}' outside expected range [10, 12]"
