"""The ``answer_schema`` option (any scorer), ``assert_json_valid``, and scenario folders
whose ``scenario.yaml`` names an answer schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import SchemaCheck, assert_json_valid, score
from pytest_structeval.api import render_failure
from pytest_structeval.errors import OptionsError
from tests.plugin_support import aggregate, scenario, trajectory

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "d": {"type": "string", "format": "date"}},
    "required": ["n", "d"],
    "additionalProperties": False,
}
GOLD = {"n": 3, "d": "2024-01-01"}


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_a_valid_answer_keeps_its_verdict_and_gains_the_metric(mode: str) -> None:
    options: dict[str, Any] = {"schema": SCHEMA} if mode == "schema" else {}
    plain = score(GOLD, '{"n": 3, "d": "2024-01-01"}', mode, **options)
    checked = score(GOLD, '{"n": 3, "d": "2024-01-01"}', mode, answer_schema=SCHEMA, **options)
    assert (checked.passed, checked.score, checked.reason) == (
        plain.passed,
        plain.score,
        plain.reason,
    )
    assert checked.metrics["schema_valid"] == 1.0
    assert checked.metrics["schema_violations"] == []
    assert "schema_valid" not in plain.metrics


def test_an_invalid_answer_fails_whatever_its_score() -> None:
    # The values match the gold; the model added a key the schema forbids.
    result = score(
        GOLD,
        '{"n": 3, "d": "2024-01-01", "x": 1}',
        "strict",
        ignore_extra=True,
        answer_schema=SCHEMA,
    )
    assert result.score == 1.0
    assert not result.passed
    assert result.metrics["schema_valid"] == 0.0
    assert result.metrics["schema_violations"] == [
        {
            "path": "answer.x",
            "keyword": "additionalProperties",
            "message": "is not allowed (additionalProperties is false)",
            "schema_path": "#/additionalProperties",
        }
    ]
    assert result.reason.startswith("answer breaks its JSON Schema (answer.x: is not allowed")
    text = render_failure(result)
    assert "schema: answer.x: is not allowed (additionalProperties is false)" in text


def test_schema_from_a_file_a_prebuilt_check_and_bad_values(tmp_path: Path) -> None:
    path = tmp_path / "answer.schema.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    bad_date = '{"n": 3, "d": "2024-13-01"}'
    assert not score(GOLD, bad_date, answer_schema=path).passed
    assert not score(GOLD, bad_date, answer_schema=str(path)).passed
    lenient = SchemaCheck(SCHEMA, formats=False)
    assert score(GOLD, bad_date, answer_schema=lenient).metrics["schema_valid"] == 1.0
    with pytest.raises(OptionsError, match="answer_schema must be a JSON Schema"):
        score(GOLD, bad_date, answer_schema=[SCHEMA])


def test_a_schema_file_is_parsed_once_while_its_bytes_stay_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A schema file given by path (``answer_schema``, ``assert_json_valid``) was read and
    parsed again at every call: it is parsed once, as schema mode keeps its files, with the
    same verdicts; a file edited between two calls is parsed again, and a key it writes twice
    still warns at each use, at the file's line."""
    from pytest_structeval.schema import SchemaWarning, io

    parsed: list[str] = []
    real = io.schema_from_bytes

    def counted(data: bytes, path: Any) -> Any:
        parsed.append(Path(path).name)
        return real(data, path)

    monkeypatch.setattr(io, "schema_from_bytes", counted)
    monkeypatch.setattr(io, "_files", io.Kept())
    path = tmp_path / "answer.schema.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    bad = '{"n": "3"}'
    for source in (path, str(path)):
        for _ in range(3):
            assert assert_json_valid('{"n": 3, "d": "2024-02-29"}', source)["n"] == 3
            with pytest.raises(AssertionError) as from_file:
                assert_json_valid(bad, source)
            with pytest.raises(AssertionError) as inline:
                assert_json_valid(bad, SCHEMA)
            assert str(from_file.value) == str(inline.value)
            result = score(GOLD, bad, answer_schema=source)
            assert result.metrics == score(GOLD, bad, answer_schema=SCHEMA).metrics
    assert parsed == ["answer.schema.json"]
    path.write_text(json.dumps({**SCHEMA, "required": ["n"]}), encoding="utf-8")  # edited
    assert assert_json_valid('{"n": 3}', path) == {"n": 3}
    assert assert_json_valid('{"n": 4}', path) == {"n": 4}
    assert parsed == ["answer.schema.json"] * 2
    twice = tmp_path / "twice.json"
    twice.write_text('{"type": "object",\n "required": ["b"],\n "required": ["a"]}', "utf-8")
    for _ in range(2):
        with pytest.warns(SchemaWarning, match="repeats the key 'required'") as seen:
            assert_json_valid('{"a": 1}', twice)
        assert [(w.filename, w.lineno) for w in seen] == [(str(twice), 2)]
    assert parsed == ["answer.schema.json"] * 2 + ["twice.json"]


def test_an_answer_that_could_not_be_scored_is_not_valid() -> None:
    result = score(GOLD, "no structure here", "strict", strict_parse=True, answer_schema=SCHEMA)
    assert result.error is not None
    assert (result.passed, result.metrics["schema_valid"]) == (False, 0.0)


def test_assert_json_valid_returns_the_parsed_answer_or_lists_violations(tmp_path: Path) -> None:
    assert assert_json_valid('Final Answer: {"n": 3, "d": "2024-02-29"}', SCHEMA) == {
        "n": 3,
        "d": "2024-02-29",
    }
    with pytest.raises(AssertionError) as info:
        assert_json_valid('```json\n{"n": "3"}\n```', SCHEMA)
    assert str(info.value).splitlines() == [
        "answer breaks its JSON Schema: 2 violations",
        "answer.d: is missing (required)  [required at #/required]",
        "answer.n: is a string, not integer  [type at #/properties/n/type]",
    ]
    assert assert_json_valid('{"n": 1, "d": "soon"}', SCHEMA, formats=False)["d"] == "soon"
    answer = tmp_path / "answer.txt"
    answer.write_text('{"n": 1, "d": "2024-01-01"}', encoding="utf-8")
    assert assert_json_valid(answer, SCHEMA)["n"] == 1


def test_scenarios_check_answers_against_their_answer_schema(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    sc = pytester.path / "sc"
    folder = scenario(
        sc,
        "scenario_1",
        '{"n": 3, "d": "2024-01-01"}',
        trajectory("good", '{"n": 3, "d": "2024-01-01"}'),
        trajectory("bad", '{"n": 3, "d": "2024-01-01", "x": 1}'),
        config="answer_schema: answer.schema.json\noptions:\n  ignore_extra: true\n",
    )
    (folder / "answer.schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    scenario(
        sc,
        "scenario_2",
        '{"n": 1}',
        trajectory("misplaced", '{"n": 1}'),
        config="options:\n  answer_schema: answer.schema.json\n",
    )
    result = pytester.runpytest(
        "--structeval-scenarios", "sc", "--structeval-gate", "schema_valid>=0.9"
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*answer breaks its JSON Schema (answer.x: is not allowed (additionalProperties*",
            "*answer_schema belongs at the top level, beside schema, not under options*",
            "answer schema: valid rate 0.5000 over the scored runs that name one",
            "*schema_valid_avg 0.5000 misses --structeval-gate schema_valid>=0.9*",
        ]
    )
    report = aggregate(pytester.path)
    assert report["score_summary"]["schema_valid_avg"] == 0.5
    run = json.loads((pytester.path / "reports/structeval/bad.json").read_text(encoding="utf-8"))
    assert run["score"]["passed"] is False
    assert run["score"]["score"] == 1.0
    assert run["score"]["details"]["schema_violations"][0]["path"] == "answer.x"


@pytest.mark.parametrize(
    ("config", "line"),
    [
        ("answer_schema: nowhere.json\n", "*answer_schema nowhere.json: *"),
        (
            "answer_schema:\n  properties:\n    n: {minimum: '5'}\n",
            "*answer_schema: #/properties/n/minimum: must be a number, got '5'*",
        ),
        (  # (it stopped the whole run: INTERNALERROR, schemaline38)
            "answer_schema:\n  schema: 1\n  tests: []\n",
            "*scenario sc/scenario_1: answer_schema: schema: the wrapper's 'schema' must be an "
            "object*",
        ),
    ],
    ids=["missing file", "broken schema", "wrapper of no schema"],
)
def test_a_bad_answer_schema_is_the_scenario_error_named_as_such(
    pytester: pytest.Pytester, config: str, line: str
) -> None:
    pytester.makeini("[pytest]\n")
    scenario(
        pytester.path / "sc", "scenario_1", '{"n": 1}', trajectory("r", '{"n": 1}'), config=config
    )
    result = pytester.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([line])


def test_an_answer_too_deep_to_check_is_invalid_not_an_exception() -> None:
    recursive = {
        "$defs": {"n": {"type": "array", "items": {"allOf": [{"$ref": "#/$defs/n"}, {}]}}},
        "$ref": "#/$defs/n",
    }
    result = score([], "[" * 160 + "]" * 160, answer_schema=recursive)
    assert (result.passed, result.metrics["schema_valid"]) == (False, 0.0)
    (violation,) = result.metrics["schema_violations"]
    assert violation["keyword"] == "limit"
    assert violation["message"].startswith("not checked: checking ")


def test_assert_json_valid_names_its_own_parameter() -> None:
    with pytest.raises(OptionsError, match=r"^schema must be a JSON Schema"):
        assert_json_valid("{}", None)


# -- review findings (users15) ----------------------------------------------------------------


def test_a_nested_matcher_says_which_schema_rule_failed() -> None:
    from pytest_structeval import JsonMatches
    from pytest_structeval.api import nested_assertrepr_lines

    schema = {"type": "object", "properties": {"count": {"type": "integer"}}}
    matcher = JsonMatches({"count": 5}, answer_schema=schema)
    left = {"body": '{"count": "5"}'}
    assert left != {"body": matcher}
    lines = nested_assertrepr_lines(left, {"body": matcher})
    assert "schema: answer.count: is a string, not integer" in lines


def test_a_reason_counts_violations_past_the_limit() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    result = score(list(range(80)), list(range(80)), answer_schema=schema)
    assert result.reason.startswith("answer breaks its JSON Schema (answer[0]: is an integer")
    assert "; 50+ in all)" in result.reason
    few = score([1, 2, 3, 4], [1, 2, 3, 4], answer_schema=schema)
    assert "; 4 in all)" in few.reason


def test_a_misspelt_option_is_told_about_answer_schema() -> None:
    with pytest.raises(OptionsError, match="and for every scorer answer_schema"):
        score({"a": 1}, {"a": 1}, answer_shema=SCHEMA)


def test_three_violations_are_all_shown_without_a_count() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    result = score([1, 2, 3], [1, 2, 3], answer_schema=schema)
    assert result.reason.startswith("answer breaks its JSON Schema (answer[0]")
    assert "in all" not in result.reason


def test_scenario_file_entries_take_an_answer_schema(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    runs = pytester.path / "runs"
    runs.mkdir()
    for run_id, answer in (("ok", {"n": 3, "d": "2024-01-01"}), ("bad", {"n": "3"})):
        (runs / f"{run_id}.json").write_text(
            json.dumps(trajectory(run_id, answer, scenario_id="1")), encoding="utf-8"
        )
    (pytester.path / "evals").mkdir()
    (pytester.path / "evals" / "answer.schema.json").write_text(
        json.dumps(SCHEMA), encoding="utf-8"
    )
    entry = {
        "id": "1",
        "expected_answer": {"n": 3},
        "answer_schema": "answer.schema.json",
        "options": {"ignore_extra": True},
    }
    (pytester.path / "evals" / "scenarios.jsonl").write_text(
        json.dumps(entry) + "\n", encoding="utf-8"
    )
    result = pytester.runpytest(
        "--structeval-scenarios", "evals", "--structeval-trajectories", "runs"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*answer breaks its JSON Schema (answer.d: is missing (required)*"]
    )


# -- mutation survivors (review mutants18) ---------------------------------------------------


def test_boolean_schemas() -> None:
    """``false`` (nothing is valid) and ``true`` (anything is) are JSON Schemas too."""
    refused = score({"a": 1}, '{"a": 1}', "strict", answer_schema=False)
    assert (refused.passed, refused.metrics["schema_valid"]) == (False, 0.0)
    allowed = score({"a": 1}, '{"a": 1}', "strict", answer_schema=True)
    assert (allowed.passed, allowed.metrics["schema_valid"]) == (True, 1.0)


def test_every_violation_is_in_the_metrics_not_only_the_shown_ones() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    result = score([1, 2, 3, 4, 5], "[1,2,3,4,5]", "strict", answer_schema=schema)
    assert len(result.metrics["schema_violations"]) == 5
    assert "; 5 in all)" in result.reason


def test_the_scorer_s_reason_follows_the_schema_s() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    plain = score({"a": 1, "b": 2}, '{"a": 2, "b": 2}', "strict")
    checked = score({"a": 1, "b": 2}, '{"a": 2, "b": 2}', "strict", answer_schema=schema)
    broken = "answer breaks its JSON Schema (answer.a: is an integer, not string)"
    assert checked.reason == f"{broken}; {plain.reason}"
