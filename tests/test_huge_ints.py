"""Integers past Python's 4,300-digit int-string limit (review 15): a ``0x``/``0o``/``0b``
literal of 20,000 digits loads at once, then fails every ``str()`` and JSON dump, which took
down a whole pytest session at report writing. Answers and gold files are bounded where the
integer is read; whatever a custom scorer reports is still written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.errors import LimitError
from pytest_structeval.parse import MAX_INT_BITS, parse_answer
from pytest_structeval.report import report_bytes
from pytest_structeval.results import MISMATCH, huge_ints_named
from pytest_structeval.session import _ship, _unship
from pytest_structeval.yamlvalue import yaml_value
from tests.plugin_support import aggregate, scenario, trajectory

HUGE = ["0x" + "f" * 20_000, "0o" + "7" * 20_000, "0b" + "1" * 20_000, "-0X" + "F" * 4_000]


@pytest.mark.parametrize("literal", HUGE)
def test_a_huge_non_decimal_literal_is_a_limit(literal: str) -> None:
    with pytest.raises(LimitError, match=f"over the limit of {MAX_INT_BITS:,}"):
        parse_answer("{'a': " + literal + "}")
    result = score({"a": 1}, "The values: {'a': " + literal + "}.")  # scoring never raises
    assert result.score == 0.0


def test_non_decimal_literals_up_to_the_limit_are_read() -> None:
    assert parse_answer("{'a': 0x" + "f" * 3_571 + "}") == {"a": 16**3_571 - 1}
    assert parse_answer("{'a': 0x1F, 'b': 0o17, 'c': 0b101, 'd': 1_000}") == {
        "a": 31,
        "b": 15,
        "c": 5,
        "d": 1000,
    }


@pytest.mark.parametrize(
    "body", ["a: 0x" + "f" * 20_000, "a: 0o" + "7" * 20_000, "a: " + "9" * 5_000]
)
def test_yaml_integers_are_bounded_as_decimal_text_is(body: str) -> None:
    with pytest.raises(LimitError, match="an integer of more than 4300 digits"):
        yaml_value(body)
    assert score({"a": 1}, f"```yaml\n{body}\n```").score == 0.0


def test_whatever_a_scorer_reports_is_written_and_shipped() -> None:
    details: dict[str, Any] = {"big": 10**5_000, "fine": [2**70, -3]}
    record = {"details": details, "run_id": "r"}
    written = json.loads(report_bytes(record))
    assert written == {
        "details": {"big": "<an integer of 16,610 bits>", "fine": [2**70, -3]},
        "run_id": "r",
    }
    assert _unship(_ship(record)) == written  # pytest-xdist: what the serial run writes
    assert details["big"] == 10**5_000  # a copy: the record is left as it was
    assert huge_ints_named([True, 1.5, "x"]) == [True, 1.5, "x"]


def test_a_huge_hex_answer_no_longer_stops_the_session(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    block = "```yaml\na: 0x" + "f" * 20_000 + "\n```"
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}', trajectory("r1", block))
    scenario(pytester.path / "sc", "scenario_2", '{"a": 2}', trajectory("r2", '{"a": 2}'))
    result = pytester.runpytest("--structeval-scenarios=sc")
    result.assert_outcomes(passed=1, failed=1)
    report = aggregate(pytester.path)
    assert report["complete"] is True
    [failing] = [r for r in report["results"] if not r["passed"]]
    assert "an integer of more than 4300 digits" in failing["reason"]


def test_a_huge_hex_gold_is_a_load_error(tmp_path: Path) -> None:
    from pytest_structeval.scenarios import discover_scenarios

    folder = tmp_path / "sc" / "scenario_1"
    folder.mkdir(parents=True)
    (folder / "groundtruth.yaml").write_text("a: 0x" + "f" * 20_000 + "\n")
    [found] = discover_scenarios([tmp_path / "sc"])
    assert found.error is not None
    assert "an integer of more than 4300 digits" in found.error


def test_a_long_int_against_its_text_compares_every_digit() -> None:
    """With ``coerce_numeric_strings`` off, a number and a string compare by their text:
    the full decimal text, never a shown abbreviation (which cut the middle digits)."""
    options = {"answer.a": {"coerce_numeric_strings": False}}
    same = score({"a": 10**50}, {"a": str(10**50)}, options=options)
    assert same.passed
    differs = score({"a": 10**50}, {"a": str(10**50 + 1)}, options=options)
    assert not differs.passed


def test_a_digit_string_past_the_int_limit_compares_as_text() -> None:
    """A string of 5,000 digits is no number to coerce (int() would raise past 4,300 digits):
    it compares as text, and scoring never raises (review mutants16-core c11)."""
    result = score({"id": "1" * 5_000}, {"id": "1" * 4_999 + "2"}, "strict")
    assert result.error is None
    assert result.passed is False
    [field] = result.fields
    assert (field.path, field.status) == ("answer.id", MISMATCH)
    assert field.score == pytest.approx(1 - 1 / 5_000)
    assert field.reason == "text differs (similarity >0.99)"


def test_a_quoted_number_past_the_float_range_is_the_integer_it_writes() -> None:
    """numeric32 #3: ``{"a": 1e400}`` read 10**400, but the string ``"1e400"`` was compared as
    text (a string holding one JSON number is that number)."""
    from pytest_structeval.compare import as_number

    assert as_number("1e400") == 10**400
    assert as_number("-2.5e400") == -25 * 10**399
    assert score('{"a": 1e400}', {"a": "1e400"}).passed
    assert score({"a": 10**309}, {"a": "1e309"}).passed
    assert not score({"a": 10**309}, {"a": "1e310"}).passed
    assert as_number("1e99999") is None  # more digits than Python writes: text
    past = "1" + "0" * 400
    assert as_number(past + ".5") is None  # (diff32a #2: read as inf, it equalled Infinity)
    assert not score({"a": past + ".5"}, '{"a": Infinity}').passed


def test_the_relative_error_of_numbers_past_the_float_range_is_exact() -> None:
    """numeric32 #4: 10**309 against a gold of 1e308 is 900% off, not ">1e6%" (the
    quotient of an integer past the float range by a float overflowed)."""
    assert score({"a": 1e308}, '{"a": 1e309}').fields[0].reason.endswith("(900% off)")
    assert score({"a": 1e-300}, '{"a": 1e309}').fields[0].reason.endswith("(>1e6% off)")
