"""The public API: ``score`` dispatch, ``assert_json_matches`` messages, ``JsonMatches``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import pytest_structeval
from pytest_structeval import (
    JsonMatches,
    Registry,
    ScoreResult,
    assert_json_matches,
    assert_json_valid,
    default_registry,
    score,
)
from pytest_structeval.api import (
    MAX_WALK_DEPTH,
    MAX_WALK_NODES,
    _violation_lines,
    assertrepr_lines,
    check_result,
    explain,
    failed_matchers,
    nested_assertrepr_lines,
    render_failure,
)
from pytest_structeval.errors import AnswerParseError, OptionsError
from pytest_structeval.naming import columns
from pytest_structeval.results import FieldResult
from tests.realdata import require_data


def test_public_surface() -> None:
    for name in pytest_structeval.__all__:
        assert getattr(pytest_structeval, name) is not None
    assert pytest_structeval.parse_answer("Final Answer: 3") == 3
    assert pytest_structeval.flatten({"a": [1]}) == {"answer.a[0]": 1}
    assert pytest_structeval.errors.OptionsError is OptionsError
    assert pytest_structeval.StructevalFixture.__name__ == "StructevalFixture"  # (api25 #3)
    with pytest.raises(AttributeError):
        _ = pytest_structeval.no_such_name


def test_importing_the_package_does_not_load_the_engine() -> None:
    code = (
        "import sys, pytest_structeval; "
        "print(sorted(m for m in ('rapidfuzz', 'orjson', 'pytest_structeval.parse', "
        "'pytest_structeval.walk') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_score_dispatches_by_mode_and_alias() -> None:
    assert score({"a": 1}, {"a": 1}).mode == "strict"
    assert score({"a": 1}, {"a": 1}, "static_json").mode == "strict"
    assert score({"a": 1}, {"a": 1}, "json_similarity").mode == "similarity"
    with pytest.raises(OptionsError, match="unknown scorer 'fuzzy'; registered: "):
        score({"a": 1}, {"a": 1}, "fuzzy")
    for slip, meant in (
        ("similarty", "similarity"),
        ("STRICT", "strict"),
        ("static-json", "static_json"),
    ):
        with pytest.raises(OptionsError, match=rf"'{slip}' \(did you mean '{meant}'\?\); "):
            score({"a": 1}, {"a": 1}, slip)  # (newuser25 #8)


def test_score_uses_a_given_registry() -> None:
    registry = Registry()

    def always(gold: Any, model: Any, **options: Any) -> ScoreResult:
        return ScoreResult(passed=True, score=1.0, mode="always", metrics=dict(options))

    registry.register_scorer("always", always)
    result = score(1, 2, "always", registry=registry, threshold=0.5, flavour="x")
    assert result.metrics == {"threshold": 0.5, "flavour": "x"}
    with pytest.raises(OptionsError):
        score(1, 2, "always")  # not in the default registry


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
@pytest.mark.parametrize("bound", [[], {}, set(), True, "5", 0])
def test_a_max_depth_of_the_wrong_kind_is_an_options_error(mode: str, bound: Any) -> None:
    """An unhashable bound was used as a cache key first: TypeError (fuzz26 #2)."""
    with pytest.raises(OptionsError, match="max_depth must be"):
        score({"a": 1}, {"a": 1}, mode, max_depth=bound)


@pytest.mark.parametrize(
    "gold",
    [
        '{"a": 1, "b": "x"}',  # a flat object: copied in one call
        '{"a": 1, "b": [1, 2], "c": {}}',
        '[{"a": 1}, []]',
        "```yaml\na: &x [1, 2]\nb: *x\n```",  # an alias, copied out
        '{"a": [1, 2], "pad": "' + "x" * 9000 + '"}',  # past the small-text cache
        "[" * 150 + "1" + "]" * 150,  # past the recursive copy's depth
        '{"a": [1, 2.5, -0.0, true, null, "\u00e9"]}',  # nested JSON data: decoded again
        '{"a": [123456789012345678901234567890]}',  # past 64 bits: copied in Python
        "{1: [2], 'b': {'c': 3}}",  # a key JSON has no form for
    ],
)
@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_changing_a_result_never_changes_how_its_gold_scores_next(gold: str, mode: str) -> None:
    """The gold's parse is cached: a result's ``parsed_gold`` (and an empty container in a
    field's ``gold``) was the cached object, so a test that changed it made every later
    score of that gold text fail (maintainer26 #1)."""
    first = score(gold, gold, mode)
    expected = json.loads(json.dumps(first.parsed_gold))
    value = first.parsed_gold
    for part in [value, *(value.values() if isinstance(value, dict) else value)]:
        if isinstance(part, dict):
            part["added"] = 1
        elif isinstance(part, list):
            part.append("added")
    for field in first.fields:
        if isinstance(field.gold, (dict, list)):
            field.gold.clear()
    again = score(gold, gold, mode)
    assert (again.passed, again.score) == (True, 1.0)
    assert again.parsed_gold == expected
    assert again.parsed_gold is not first.parsed_gold


def test_changing_the_deepest_part_of_a_deep_gold_changes_no_later_score() -> None:
    """Past 64 levels the copy goes on without recursion: it must still copy."""
    gold = "[" * 150 + "1" + "]" * 150
    deepest = score(gold, gold).parsed_gold
    while isinstance(deepest[0], list):
        deepest = deepest[0]
    deepest.append(2)
    again = score(gold, gold)
    assert (again.passed, again.score) == (True, 1.0)


def test_the_failure_headline_writes_the_threshold_as_the_reason_does() -> None:
    """diff26f #2: ``score 0.6000 (not passed, threshold 0.6)`` beside a reason saying
    ``threshold 0.6000000000000001``, the threshold that decided."""
    gold = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
    result = score(gold, {**gold, "d": 9, "e": 8}, threshold=0.1 * 6)
    head = render_failure(result).splitlines()[0]
    assert head.startswith("strict: score 0.6000 (not passed, threshold 0.6000000000000001): ")
    assert head.endswith("(f1 0.600 < threshold 0.6000000000000001)")


@pytest.mark.parametrize(
    ("value", "threshold", "shown"),
    [
        (0.9999999999999984, 1.0, "score >0.9999 (passed, threshold 1)"),
        (0.599999999999, 0.1 * 6, "score 0.6000 (passed, threshold 0.6)"),
    ],
)
def test_a_scorers_own_verdict_never_makes_its_headline_score_up(
    value: float, threshold: float, shown: str
) -> None:
    """A registered scorer whose ``passed`` is its own rule: the headline shows its score as
    it is (it read ``score 1.0000`` for 0.9999999999999984: diff26g #1, #2)."""
    registry = default_registry().copy()
    registry.register_scorer(
        "own",
        lambda gold, model, **options: ScoreResult(
            passed=True, score=value, mode="own", threshold=threshold, reason="its own rule"
        ),
    )
    result = score(1, 1, "own", registry=registry)
    assert render_failure(result).splitlines()[0] == f"own: {shown}: its own rule"


def test_a_scorer_must_return_a_score_result() -> None:
    registry = default_registry().copy()
    registry.register_scorer("broken", lambda gold, model, **options: 0.5)
    with pytest.raises(TypeError, match="not ScoreResult"):
        score(1, 1, "broken", registry=registry)


# ----------------------------------------------------------------------- assertions


def test_assert_json_matches_returns_the_result_when_it_passes() -> None:
    result = assert_json_matches('{"a": 1}', "Final Answer: {'a': 1}")
    assert result.passed


def test_failure_message_lists_only_the_failing_paths() -> None:
    gold = {"ok": "same", "price": 10, "gone": "here", "nested": {"fine": 1}}
    model = {"ok": "same", "price": 12, "nested": {"fine": 1}, "invented": True}
    with pytest.raises(AssertionError) as info:
        assert_json_matches(gold, model)
    message = str(info.value)
    lines = message.splitlines()
    assert lines[0].startswith("strict: score 0.5000 (not passed)")
    assert "1 mismatched, 1 missing, 1 extra" in lines[0]
    assert "f1=0.5" in message
    table = lines[lines.index(next(line for line in lines if line.startswith("path"))) :]
    assert [row.split()[0] for row in table] == [
        "path",
        "answer.price",
        "answer.gone",
        "answer.invented",
    ]
    assert "answer.ok" not in message
    assert "answer.nested.fine" not in message
    assert "missing key" in table[2]
    assert "key not in gold" in table[3]


def test_failure_message_truncates_long_values_and_many_rows() -> None:
    gold = {f"k{i}": "x" * 200 for i in range(60)}
    model = {f"k{i}": "y" * 200 for i in range(60)}
    lines = explain(score(gold, model))
    assert max(len(line) for line in lines) < 260
    assert lines[-1] == "... and 10 more failing fields"
    assert any('"xxxxxxxx' in line and "..." in line for line in lines)


def test_failure_message_of_an_error_result() -> None:
    result = score({"a": 1}, "x" * 500, max_bytes=100)
    lines = explain(result)
    assert lines[1].startswith("error: model answer")
    with pytest.raises(AssertionError, match="max_bytes"):
        check_result(result)


def test_render_handles_deep_and_huge_values() -> None:
    deep: Any = 1
    for _ in range(5_000):
        deep = [deep]
    result = ScoreResult(
        passed=False,
        score=0.0,
        mode="strict",
        fields=(pytest_structeval.FieldResult("answer.a", "mismatch", 0.0, deep, 10**5000, "x"),),
    )
    text = render_failure(result)
    assert "[[[[" in text
    assert "<int of" in text


def test_render_shows_a_custom_scorers_reason_whatever_its_type() -> None:
    reason: Any = {"why": ["unit differs"]}
    field = pytest_structeval.FieldResult("answer.a", "mismatch", 0.0, 1, 2, reason)
    result = ScoreResult(passed=False, score=0.0, mode="mine", fields=(field,))
    assert render_failure(result).splitlines()[-1].endswith("{'why': ['unit differs']}")


def test_undetailed_failure_message_is_the_headline() -> None:
    result = score({"a": 1, "b": 2}, '{"a": 1, "b": 3}')
    assert render_failure(result, detailed=False) == explain(result)[0]
    assert "\n" not in render_failure(result, detailed=False)
    with pytest.raises(AssertionError) as failure:
        check_result(result, detailed=False)
    assert str(failure.value) == "strict: score 0.5000 (not passed): " + result.reason
    error = score({"a": 1}, "x" * 500, max_bytes=100)
    assert "max_bytes" in render_failure(error, detailed=False)  # the reason names the error


def test_threshold_in_assertions() -> None:
    gold, model = {"a": 1, "b": 2}, {"a": 1, "b": 3}
    assert assert_json_matches(gold, model, threshold=0.5).score == 0.5
    with pytest.raises(AssertionError):
        assert_json_matches(gold, model, threshold=0.6)
    assert assert_json_matches(gold, model, "similarity", threshold=0.7).score == 0.75
    with pytest.raises(AssertionError, match=r"threshold 0\.8"):
        assert_json_matches(gold, model, "similarity", threshold=0.8)


def test_assertion_and_usage_error_frames_are_hidden_from_tracebacks() -> None:
    frames = [
        assert_json_matches,
        check_result,
        score,
        JsonMatches.__eq__,
        JsonMatches.__ne__,
        Registry.get_scorer,
        Registry.register_scorer,
        Registry.register_comparator,
        Registry.register_transform,
        type(default_registry().scorers).get,
        type(default_registry().scorers).add,
    ]
    for fn in frames:
        assert "__tracebackhide__" in fn.__code__.co_varnames, fn


def test_pytester_failure_points_at_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pytest_structeval import assert_json_matches

        def test_answer():
            assert_json_matches({"energy": 14, "material": 48}, '{"energy": 14, "material": 47}')
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*answer.material*48*47*", "*test_answer*"])
    assert "api.py" not in result.stdout.str()


# ----------------------------------------------------------------------- JsonMatches


def test_json_matches_keeps_the_result_and_reprs_the_value_after_a_match() -> None:
    matcher = JsonMatches({"a": 1, "b": "x"})
    good, bad = {"a": 1.0, "b": "X"}, {"a": 2, "b": "x"}
    assert good == matcher  # the model on the left: dict defers to the matcher
    assert matcher.result is not None
    assert matcher.result.passed
    assert repr(matcher) == repr(good)
    assert (good != matcher) is False
    assert bad != matcher
    assert repr(matcher).startswith("JsonMatches(")
    assert matcher.result.score == 0.5


def test_json_matches_inside_a_bigger_structure() -> None:
    response = {"status": 200, "body": '```json\n{"count": 5}\n```'}
    assert response == {"status": 200, "body": JsonMatches({"count": 5})}


def test_json_matches_with_mode_threshold_and_options() -> None:
    model = {"t": 20.5}
    assert model == JsonMatches({"t": 20.3}, "similarity", threshold=0.9)
    assert model != JsonMatches({"t": 20.3}, "similarity")
    assert model == JsonMatches({"t": 20.3}, numeric_tolerance={"rel": 0.01})
    matcher = JsonMatches({"t": 20.3})
    assert "threshold=0.9" in repr(JsonMatches({"t": 1}, threshold=0.9))
    with pytest.raises(TypeError):
        hash(matcher)


def test_a_matcher_that_matched_an_int_python_cannot_print_reprs_itself() -> None:
    """repr() of the matched value raised ValueError (past 4,300 digits; fuzz26 #6)."""
    matcher = JsonMatches([10**5000])
    assert matcher == [10**5000]
    shown = "JsonMatches([<int of 16610 bits>], mode='strict') -> 1.00: strict structured match"
    assert repr(matcher) == shown


def test_failed_matcher_repr_carries_its_last_result() -> None:
    matcher = JsonMatches({"a": 1, "b": 2, "c": 3})
    assert repr(matcher) == 'JsonMatches({"a":1,"b":2,"c":3}, mode=\'strict\')'  # not compared
    assert matcher != {"a": 1, "b": 5}
    assert repr(matcher) == (
        'JsonMatches({"a":1,"b":2,"c":3}, mode=\'strict\') -> 0.40: 1 mismatch, 1 omission'
    )
    assert matcher.failed
    many = JsonMatches({"a": [1, 1, 1], "b": 1, "c": 1})
    assert many != {"a": [2, 2, 2], "x": 1}
    assert repr(many).endswith("-> 0.00: 3 mismatches, 2 omissions, 1 hallucination")  # (api25)
    broken = JsonMatches({"a": 1}, max_bytes=10)
    assert broken != "x" * 50
    brief = "-> 0.00: error: model answer: answer is 50 bytes, over max_bytes=10"
    assert repr(broken).endswith(brief)
    short = JsonMatches({"a": 1}, "similarity", threshold=0.99)
    assert short != {"a": 1.05}  # passed by the mode, under the matcher's threshold
    assert repr(short).endswith("-> 0.95: 1 mismatch")
    assert short == {"a": 1}
    assert not short.failed
    assert repr(short) == "{'a': 1}"


def test_failed_matchers_are_found_inside_both_operands() -> None:
    body, item, fine, unused = (
        JsonMatches({"n": 1}),
        JsonMatches([1, 2]),
        JsonMatches({"ok": True}),
        JsonMatches({"z": 0}),
    )
    assert body != '{"n": 2}'
    assert item != "[1, 3]"
    assert fine == {"ok": True}
    left = ({"rows": [fine, (item,)]}, item)  # the same matcher twice: reported once
    right = {"status": 200, "body": body, "later": [unused], 7: [body]}
    found = failed_matchers(left, right)
    assert [(where, m is item or m is body) for where, m in found] == [
        ("left[0]['rows'][1][0]", True),
        ("right['body']", True),
    ]
    lines = nested_assertrepr_lines(left, right)
    assert (
        lines[0] == "left[0]['rows'][1][0]: structured answer does not match (strict score 0.5000)"
    )
    assert lines[1].split() == ["path", "gold", "model", "score", "reason"]
    assert lines[2].startswith("answer[1]")
    assert nested_assertrepr_lines(left, right, detailed=False) == [
        "left[0]['rows'][1][0]: structured answer does not match (strict score 0.5000)",
        "right['body']: structured answer does not match (strict score 0.0000)",
    ]
    assert failed_matchers({"a": [1, "x"]}, ("y", {"b": None})) == []
    assert nested_assertrepr_lines(1, "x") == []


def test_failed_matchers_walk_is_bounded() -> None:
    matcher = JsonMatches({"a": 1})
    assert matcher != {"a": 2}
    deep: Any = matcher
    for _ in range(100_000):  # far past the recursion limit: no RecursionError
        deep = {"k": [deep]}
    assert failed_matchers(deep, None) == []
    shallow: Any = matcher
    for _ in range(MAX_WALK_DEPTH // 2):
        shallow = {"k": [shallow]}
    assert [m for _, m in failed_matchers(None, shallow)] == [matcher]
    wide = [0] * (10 * MAX_WALK_NODES) + [matcher]
    assert failed_matchers(wide, None) == []  # stops after MAX_WALK_NODES values
    assert [w for w, _ in failed_matchers([0] * 100 + [matcher], None)] == ["left[100]"]
    cycle: list[Any] = []
    cycle.append(cycle)
    cycle.append(matcher)
    assert [w for w, _ in failed_matchers(cycle, cycle)] == ["left[1]"]


def test_assertrepr_lines_explain_the_last_comparison() -> None:
    matcher = JsonMatches({"a": 1, "b": 2})
    model = {"a": 1, "b": 3}
    assert model != matcher
    lines = assertrepr_lines(model, matcher)
    assert lines is not None
    assert lines[0] == "structured answer does not match (strict score 0.5000)"
    assert any(line.startswith("answer.b") for line in lines)
    assert assertrepr_lines({"a": 1}, matcher, detailed=False) == [lines[0]]
    result = score({"a": 1}, {"a": 2})
    assert assertrepr_lines(result, True) == [
        "structured answer does not match (strict score 0.0000)",
        *explain(result),
    ]
    assert assertrepr_lines(1, 2) is None
    assert matcher.explain() == explain(matcher.result)  # type: ignore[arg-type]
    assert JsonMatches({"a": 1}).explain() == []


# ------------------------------------------------------------------------ real data


def test_real_trajectory_answers_never_crash_either_mode() -> None:
    base = require_data("assetops", "hpml_smartgrid")
    golds = {
        p.parent.name.removeprefix("scenario_"): p.read_text(encoding="utf-8")
        for p in (base / "scenarios").glob("scenario_*/groundtruth.txt")
    }
    scored = 0
    for path in sorted((base / "trajectories").glob("*.json")):
        run = json.loads(path.read_text(encoding="utf-8"))
        gold = golds.get(str(run.get("scenario_id")))
        if gold is None or not gold.strip():
            continue
        for mode in ("strict", "similarity"):
            result = score(gold, run.get("answer") or "", mode)
            assert 0.0 <= result.score <= 1.0
            assert result.error is None or isinstance(result.error, str)
            explain(result)
        scored += 1
    assert scored > 1_000


@pytest.mark.filterwarnings("ignore::pytest_structeval.GoldWarning")  # (three messy golds)
def test_real_gold_answers_match_themselves() -> None:
    lines = require_data("deepsynth", "gold_dev.jsonl").read_text(encoding="utf-8").splitlines()
    golds = [json.loads(line)["gold_raw"] for line in lines if line.strip()]
    couchdb = require_data("assetops", "ibm_couchdb", "scenarios")
    golds += [p.read_text(encoding="utf-8") for p in sorted(couchdb.glob("*/groundtruth.txt"))]
    assert len(golds) >= 44
    for gold in golds:
        for mode in ("strict", "similarity"):
            result = score(gold, gold, mode)
            assert result.passed, (mode, gold[:80], render_failure(result))
            assert result.score == 1.0


def test_explain_a_passing_result() -> None:
    lines = explain(score({"a": 1}, {"a": 1}))
    assert lines[0] == "strict: score 1.0000 (passed): strict structured match"
    assert lines[-1] == "no failing fields"


def test_an_explicit_registry_reaches_the_schema_scorer() -> None:
    from pytest_structeval.registry import default_registry
    from pytest_structeval.schema import ComparatorResult

    registry = default_registry().copy()
    registry.register_comparator(
        "always_one", lambda gold, extracted, params: ComparatorResult(1.0, "always_one")
    )
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "x-eval-compare": "always_one"}},
    }
    result = score({"a": "x"}, {"a": "y"}, mode="schema", schema=schema, registry=registry)
    assert result.passed
    assert result.score == 1.0


def test_failure_message_shows_the_notes_clipped() -> None:
    gold = {f"k{i}": i for i in range(8)}
    typos = {f"answer.typo{i}": {"case_sensitive": True} for i in range(7)}
    message = render_failure(score(gold, {**gold, "k0": -1}, options=typos))
    notes = [line for line in message.splitlines() if line.startswith("note: ")]
    assert notes == [f"note: options pattern 'answer.typo{i}' matched no field" for i in range(5)]
    assert "... and 2 more notes" in message
    assert message.index("note: ") < message.index("path ")  # above the table
    assert "note: " not in render_failure(score(gold, {**gold, "k0": -1}))


def test_the_failure_table_clips_long_paths_in_the_middle() -> None:
    gold = {f"f{i}": i for i in range(30)}
    model = {**{f"f{i}": i + 1 for i in range(30)}, "x" * 200_000 + "_tail": 1}
    with pytest.raises(AssertionError) as raised:
        assert_json_matches(gold, json.dumps(model))
    lines = str(raised.value).splitlines()
    assert max(map(len, lines)) < 200  # a model's extra key cannot blow the message up
    extra = next(line for line in lines if "_tail" in line)
    assert extra.startswith("answer.xxx")
    assert "..." in extra


def test_the_failure_table_aligns_wide_characters_and_clips_them_by_columns() -> None:
    gold = {"名前": "山田太郎", "age": 3, "city": "東京都渋谷区" * 20}
    with pytest.raises(AssertionError) as raised:
        assert_json_matches(gold, {"名前": "田中", "age": 4, "city": "x"})
    lines = str(raised.value).splitlines()
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("path ")) :]
    models = {"answer.名前": '"田中"', "answer.age": "4", "answer.city": '"x"'}
    starts = {columns(table[0][: table[0].index("model")])}  # in terminal columns
    for line in table[1:]:
        path = line.split(" ", 1)[0]
        starts.add(columns(line[: line.index(models[path])]))
    assert len(table) == 4
    assert len(starts) == 1
    city = next(line for line in table if line.startswith("answer.city"))
    assert "..." in city
    assert columns(city[city.index('"東京') : city.index("...") + 3]) == 40


def test_the_failure_table_escapes_bidirectional_controls() -> None:
    with pytest.raises(AssertionError) as raised:
        assert_json_matches({"t": "red"}, {"t": "red\u202e"})
    message = str(raised.value)
    assert "\u202e" not in message
    assert "\\u202e" in message


def test_a_failed_matcher_never_shows_a_score_of_one() -> None:
    matcher = JsonMatches({"observations": 28760, "a": "x"}, mode="similarity")
    assert matcher != {"observations": 28761, "a": "x"}
    assert repr(matcher).endswith("-> >0.99: 1 mismatch")


def test_schema_failures_without_a_comparator_reason_still_say_why() -> None:
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string", "x-eval-compare": {"similarity": {"min": 0.8}}},
            "k": {"type": "string"},
            "n": {"type": "string"},
        },
    }
    with pytest.raises(AssertionError) as raised:
        assert_json_matches(
            {"title": "Centrifugal pump", "k": "z", "n": "q"},
            {"title": "Centrifugal pumps", "k": "x"},
            mode="schema",
            schema=schema,
        )
    rows = {line.split()[0]: line for line in str(raised.value).splitlines() if "answer." in line}
    assert rows["answer.title"].endswith("0.97   similarity gives partial credit; a match needs 1")
    assert rows["answer.k"].endswith("0.00   exact: values differ")
    assert rows["answer.n"].endswith("0.00   missing from the answer")


def test_gold_and_answers_can_be_files(tmp_path: Path) -> None:
    (tmp_path / "gold.json").write_text('{"a": 1, "b": [1, 2]}', encoding="utf-8")
    (tmp_path / "gold.yaml").write_text("a: 1\nb: [1, 2]\n", encoding="utf-8")
    (tmp_path / "answer.txt").write_text('Final Answer: {"a": 1, "b": [1, 2]}\n', "utf-8")
    (tmp_path / "wrong.md").write_text('```json\n{"a": 2, "b": [1, 2]}\n```', "utf-8")
    (tmp_path / "empty.txt").write_text("  \n", encoding="utf-8")
    gold = tmp_path / "gold.json"
    for mode in ("strict", "similarity", "schema"):
        assert score(gold, tmp_path / "answer.txt", mode).score == 1.0
        assert score(tmp_path / "gold.yaml", tmp_path / "answer.txt", mode).passed
    failed = score(str(gold), tmp_path / "answer.txt")  # a str is the answer, not a file name
    assert not failed.passed
    assert assert_json_matches(gold, tmp_path / "answer.txt").passed
    assert JsonMatches(gold) == '{"b": [1, 2], "a": 1}'
    wrong = score(gold, tmp_path / "wrong.md")
    assert [f.path for f in wrong.failing_fields] == ["answer.a"]
    assert wrong.parse_method == "fence:json+json"
    empty = score(gold, tmp_path / "empty.txt")
    assert empty.error == f"model answer file {tmp_path / 'empty.txt'}: file is empty"
    assert (score(gold, tmp_path / "none.txt").error or "").startswith("model answer file ")
    with pytest.raises(OptionsError, match="unknown option"):  # checked all the same
        score(gold, tmp_path / "none.txt", bogus=1)
    with pytest.raises(AnswerParseError, match=r"gold file .*none\.json: "):
        score(tmp_path / "none.json", "1")


def test_a_text_file_reads_its_line_endings_as_python_does(tmp_path: Path) -> None:
    """A prose gold checked out with CRLF (git's ``core.autocrlf``) or old Mac CR endings
    says what it says with LF; a JSON string's ``\\r\\n`` is content and stays."""
    (tmp_path / "crlf.txt").write_bytes(b"The pump fails.\r\nReplace the seal.\r\n")
    (tmp_path / "cr.txt").write_bytes(b"The pump fails.\rReplace the seal.")
    (tmp_path / "gold.json").write_bytes(b'"The pump fails.\\r\\nReplace the seal."')
    answer = "The pump fails.\nReplace the seal."
    for gold in ("crlf.txt", "cr.txt"):
        result = score(tmp_path / gold, answer, "strict", normalize_whitespace=False)
        assert result.passed, result.failing_fields
    json_gold = score(tmp_path / "gold.json", answer, "strict", normalize_whitespace=False)
    assert not json_gold.passed


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_a_per_path_option_given_as_keyword_is_pointed_to_options(mode: str) -> None:
    with pytest.raises(OptionsError) as caught:
        score({"t": 72}, {"t": "72.0"}, mode, coerce_numeric_strings=True, bogus=1)
    assert str(caught.value).endswith(
        "; per-path option(s) coerce_numeric_strings go in options, as in "
        "options={'**': {'coerce_numeric_strings': ...}} for every path"
    )
    with pytest.raises(OptionsError) as plain:
        score({"t": 72}, {"t": 72}, mode, bogus=1)
    assert str(plain.value).endswith("and for every scorer answer_schema")


def test_five_schema_violations_need_no_more_line() -> None:
    lines = _violation_lines([{"path": f"answer.x{i}", "message": "bad"} for i in range(5)])
    assert len(lines) == 5
    assert not any("more" in line for line in lines)


def test_exactly_max_rows_failing_fields_are_all_shown() -> None:
    gold = {f"k{i:02}": i for i in range(50)}
    lines = render_failure(score(gold, {k: -1 for k in gold})).splitlines()
    assert lines[-1].startswith("answer.k49")
    assert not any("more failing" in line for line in lines)


def _custom(reason: str) -> ScoreResult:
    field = FieldResult(
        path="answer.a", status="mismatch", score=0.0, gold=1, model=2, reason=reason
    )
    return ScoreResult(passed=False, score=0.0, mode="custom", fields=(field,), reason="r")


def test_an_empty_field_reason_leaves_its_cell_empty() -> None:
    assert render_failure(_custom("")).splitlines()[-1] == "answer.a  1     2      0.00"


def test_a_multiline_reason_stays_on_one_row() -> None:
    assert (
        render_failure(_custom("first line\nsecond line"))
        .splitlines()[-1]
        .endswith("0.00   first line second line")
    )


def test_the_right_operand_result_is_shown_first() -> None:
    left, right = score({"a": 1}, {"a": 2}), score({"a": 1, "b": 1}, {"a": 1, "b": 2}, "similarity")
    assert "similarity score 0.5000" in assertrepr_lines(left, right)[0]


def test_a_failed_result_is_explained_before_a_passed_one() -> None:
    bad, good = score({"a": 1}, {"a": 2}), score({"a": 1}, {"a": 1}, "similarity")
    for left, right in ((bad, good), (good, bad)):
        lines = assertrepr_lines(left, right)
        assert lines is not None
        assert lines[0] == "structured answer does not match (strict score 0.0000)"
    assert assertrepr_lines(good, score({"a": 2}, {"a": 2})) is None  # pytest's own diff


def test_a_matcher_not_asked_in_this_comparison_is_no_slip() -> None:
    """``Weird() == matcher``: the left side answered, the matcher keeps an earlier passed
    result, and no ScoreResult is in the assertion (review diff18a)."""
    matcher = JsonMatches({"a": 1})
    assert matcher == {"a": 1}
    assert assertrepr_lines(object(), matcher) is None


@pytest.mark.parametrize("other", [1.0, True, 1])
def test_a_passed_result_compared_with_a_number_says_to_assert_passed(other: object) -> None:
    good = score({"a": 1}, '{"a": 1}')
    expected = [
        f"a ScoreResult never equals {type(other).__name__} {other!r}: assert result.passed,"
        " or compare result.score (strict score 1.0000, passed)"
    ]
    assert assertrepr_lines(good, other) == expected
    assert assertrepr_lines(other, good) == expected


def _failed(n: int) -> list[JsonMatches]:
    matchers = [JsonMatches({"a": 1}) for _ in range(n)]
    for m in matchers:
        assert m != {"a": 2}
    return matchers


def test_exactly_five_failed_matchers_need_no_more_line() -> None:
    lines = nested_assertrepr_lines(None, _failed(5), detailed=False)
    assert len(lines) == 5
    assert not any("more failed" in line for line in lines)


def test_a_matcher_past_the_walk_depth_is_not_searched() -> None:
    value: object = _failed(1)[0]
    for _ in range(65):
        value = [value]
    assert failed_matchers(None, value) == []


def test_a_long_key_in_where_is_clipped() -> None:
    where = failed_matchers(None, {"k" * 80: _failed(1)[0]})[0][0]
    assert where.endswith("...]")
    assert len(where) < 60


def test_a_matcher_repr_clips_a_long_reason() -> None:
    registry = default_registry().copy()
    registry.register_scorer(
        "judge",
        lambda g, m, **o: ScoreResult(passed=False, score=0.0, mode="judge", reason="no " * 40),
    )
    matcher = JsonMatches("x", "judge", registry=registry)
    assert matcher != "y"
    assert repr(matcher).endswith("...")
    assert len(repr(matcher).split(": ", 1)[1]) <= 60


def test_bool_metrics_are_not_figures() -> None:
    result = ScoreResult(
        passed=False,
        score=0.4,
        mode="judge",
        reason="r",
        metrics={"abstained": False, "confidence": 0.4},
    )
    assert explain(result)[1] == "confidence=0.4"


def test_a_model_file_over_max_bytes_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "g.json").write_text('{"a": 1}')
    (tmp_path / "m.txt").write_text('{"a": 1, "pad": "' + "x" * 200 + '"}')
    result = score(tmp_path / "g.json", tmp_path / "m.txt", max_bytes=50)
    assert not result.passed
    assert "m.txt" in result.error


def test_the_violation_count_wording() -> None:
    from pytest_structeval.schema.validity import MAX_VIOLATIONS

    schema = {"additionalProperties": {"type": "integer"}}
    with pytest.raises(AssertionError, match=r"^answer breaks its JSON Schema: 1 violation\n"):
        assert_json_valid({"k": "x"}, schema)
    many = {f"k{i}": "x" for i in range(MAX_VIOLATIONS)}
    with pytest.raises(
        AssertionError, match=rf"^answer breaks its JSON Schema: {MAX_VIOLATIONS}\+ violations\n"
    ):
        assert_json_valid(many, schema)


# -- mutation survivors (review mutants18) ---------------------------------------------------


def test_overwriting_an_alias_name_takes_effect() -> None:
    """The name was an alias of another scorer: overwriting it must replace what it runs
    (the alias won, silently, review mutants18)."""
    from pytest_structeval.registry import Registry

    r = Registry()
    r.register_scorer("y", lambda g, m, **k: "old", aliases=["x"])
    r.register_scorer("x", lambda g, m, **k: "new", overwrite=True)
    assert (r.get_scorer("x")(1, 1), r.get_scorer("y")(1, 1)) == ("new", "old")


# -- mutation survivors (review mutants18b) --------------------------------------------------


def test_an_empty_name_is_refused() -> None:
    from pytest_structeval.errors import OptionsError
    from pytest_structeval.registry import Registry

    with pytest.raises(OptionsError, match="non-empty string"):
        Registry().register_scorer("", lambda g, m, **k: None)


def test_a_scorer_that_cannot_be_called_is_refused_at_registration() -> None:
    from pytest_structeval.registry import Registry

    with pytest.raises(TypeError, match="must be callable"):
        Registry().register_scorer("x", "not a function")  # type: ignore[arg-type]


def test_registering_changes_the_revision() -> None:
    """What was derived from a table (a parsed schema) is valid only while it is unchanged."""
    from pytest_structeval.registry import Registry

    registry = Registry()
    before = registry.comparators.revision
    registry.register_comparator("close", lambda g, m, **k: True)
    assert registry.comparators.revision != before


def test_a_name_that_is_no_string_is_not_registered() -> None:
    from pytest_structeval.registry import Registry, default_registry

    for table in (Registry().scorers, default_registry().scorers):
        assert {"a": 1} not in table
        assert ["strict"] not in table


def test_an_unhashable_scorer_declaring_registry_is_seen() -> None:
    import dataclasses

    from pytest_structeval.registry import takes_registry

    @dataclasses.dataclass
    class Scorer:  # eq=True without frozen: unhashable
        name: str = "s"

        def __call__(self, gold: Any, model: Any, *, registry: Any = None) -> None: ...

    assert takes_registry(Scorer())


def test_schema_mode_has_no_options_to_point_to() -> None:
    """Schema mode takes no ``options``: its error must not send the user there."""
    from pytest_structeval.api import score
    from pytest_structeval.errors import OptionsError

    with pytest.raises(OptionsError) as caught:
        score({"t": 72}, {"t": 72}, "schema", numeric_tolerance=0.1)
    assert "go in options" not in str(caught.value)


def test_the_example_names_the_first_per_path_option() -> None:
    from pytest_structeval.api import score
    from pytest_structeval.errors import OptionsError

    with pytest.raises(OptionsError) as caught:
        score({"t": 72}, {"t": 72}, "strict", strict_types=True, coerce_numeric_strings=True)
    assert str(caught.value).endswith(
        "; per-path option(s) coerce_numeric_strings, strict_types go in options, as in "
        "options={'**': {'coerce_numeric_strings': ...}} for every path"
    )


def test_a_comparators_own_validate_params_is_its_validator() -> None:
    from pytest_structeval.registry import Registry

    def check(params: dict[str, Any]) -> None:
        raise ValueError("bad params")

    def close(gold: Any, extracted: Any, params: dict[str, Any]) -> Any: ...

    close.validate_params = check  # type: ignore[attr-defined]
    registry = Registry()
    registry.register_comparator("close", close)
    assert registry.comparators.get("close").validate is check


def test_deferring_built_ins_changes_the_revision() -> None:
    """A deferred table behaves as if its built-ins were there: that is new contents."""
    from pytest_structeval.registry import Registry, install_builtins

    registry = Registry()
    before = registry.comparators.revision
    install_builtins(registry)
    assert registry.comparators.revision != before


@pytest.mark.parametrize(
    ("mode", "options", "hint"),
    [
        ("similarity", {"required_terms": ["x"]}, "; required_terms is an option of strict mode"),
        ("strict", {"schema": {}}, "; schema is an option of schema mode"),
        (
            "schema",
            {"numeric_tolerance": 0.1, "penalize_extra": True},
            "; numeric_tolerance is an option of strict and similarity modes"
            "; penalize_extra is an option of similarity mode",
        ),
    ],
)
def test_an_option_of_another_mode_is_named_as_such(
    mode: str, options: dict[str, Any], hint: str
) -> None:
    """A similarity scenario given mode-answer terms (evaluation_metadata) was told only
    that required_terms is unknown."""
    from pytest_structeval.api import score
    from pytest_structeval.errors import OptionsError

    with pytest.raises(OptionsError) as caught:
        score({"response": "x"}, {"response": "x"}, mode, **options)
    assert str(caught.value).endswith(hint)
    with pytest.raises(OptionsError) as plain:
        score({"a": 1}, {"a": 1}, mode, bogus=1)
    assert " is an option of " not in str(plain.value)


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_an_answer_of_too_many_values_is_an_error_result_not_gigabytes(mode: str) -> None:
    """A 9.8 MB answer of 4.9 million one-digit elements, under ``max_bytes``, took 97 s and
    7.9 GB, and under a memory limit killed the run with every report lost (hostile25 #1).
    Past ``MAX_VALUES`` an answer is an error result at once; a gold that big raises."""
    from pytest_structeval.errors import LimitError
    from pytest_structeval.modes import MAX_VALUES

    options = {"schema": {"type": "array"}} if mode == "schema" else {}
    many = "[" + "1," * MAX_VALUES + "1]"
    result = score([1], many, mode, **options)
    assert result.error == (
        "model answer: holds more than 100,000 values (object entries and array elements)"
    )
    rows = [{"a": 1, "b": [2, 3]} for _ in range(MAX_VALUES // 4)]  # entries at every level
    assert score({"rows": []}, {"rows": rows}, mode, **options).error is not None
    assert score([1], [[1] for _ in range(MAX_VALUES // 2)], mode, **options).error is None
    with pytest.raises(LimitError, match="gold holds more than 100,000 values"):
        score([1] * (MAX_VALUES + 1), "[1]", mode, **options)
    # A short text cannot hold more values than characters (so it costs no count), unless
    # YAML's aliases repeat what an anchor holds.
    anchor = "[" + ",".join(["1"] * 1000) + "]"
    aliases = f"```yaml\na: &x {anchor}\nb: [{','.join(['*x'] * 200)}]\n```"
    assert len(aliases) < 3000
    assert (score({"a": [1]}, aliases, mode, **options).error or "").endswith(
        "holds more than 100,000 values (object entries and array elements)"
    )


def test_a_long_gold_text_is_parsed_once_for_the_runs_that_share_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the small-gold cache a 2 MB gold was parsed again for every run of its scenario
    (2.7 s each, hostile25 #6): the last long gold text is kept, by identity."""
    from pytest_structeval import modes

    parses = []
    real = modes.parse_answer_detailed

    def counted(*args: Any, **kwargs: Any) -> Any:
        parses.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(modes, "parse_answer_detailed", counted)
    gold = "[" + "1, " * 5_000 + "2]"  # over the small-gold cache's 8,192 characters
    for answer in ("[1]", "[2]", "[1, 2]"):
        score(gold, answer)
    assert parses.count(gold) == 1
    score(gold[:-1] + "]", "[1]")  # another text object: parsed (equal texts are not compared)
    assert len([text for text in parses if text == gold]) == 2


def test_the_value_bound_holds_a_sides_lines_together() -> None:
    """line_by_line checked the bound per line, and extra model lines not at all: one extra
    line of 4 million elements gave 4 million fields (diff25a #2)."""
    from pytest_structeval.errors import LimitError
    from pytest_structeval.modes import MAX_VALUES

    line = "[" + ",".join(["1"] * (MAX_VALUES // 2)) + "]"  # each line within the bound
    over = "[" + ",".join(["1"] * (MAX_VALUES + 1)) + "]"
    too_many = f"holds more than {MAX_VALUES:,} values (object entries and array elements)"
    expected = f"model answer: {too_many} in its lines together"
    for model in ("\n".join([line] * 3), "[1]\n" + over):
        result = score("[1]", model, "similarity", line_by_line=True, penalize_extra=True)
        assert result.error == expected  # (paired lines over the bound: see the next call)
    paired = score("[1]\n[1]", "[1]\n" + over, "similarity", line_by_line=True)
    assert paired.error == f"line 2 of the model answer: {too_many}"
    keys = ["a", "b", "c"]  # each part started the bound anew (diff25b #1)
    parts = {"gold": {k: "[1]" for k in keys}, "model": {k: line for k in keys}}
    result = score(
        parts["gold"], parts["model"], "similarity", line_by_line=True, target_output_key=keys
    )
    assert result.error == expected
    exactly = "[" + ",".join(["1"] * MAX_VALUES) + "]"  # a line is no value of its own
    assert score("[1]", exactly, "similarity", line_by_line=True).error is None
    with pytest.raises(LimitError, match="gold holds more than 100,000 values"):
        score("\n".join([line] * 3), "[1]", "similarity", line_by_line=True)
    assert score("[1, 2]\n[3]", "[1, 2]\n[3]", "similarity", line_by_line=True).score == 1.0


def test_a_scalar_line_counts_as_one_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines of one scalar each counted nothing, so many target_output_key parts of them
    passed the bound twice over (diff25c #3)."""
    from pytest_structeval import default_registry

    # (the scorer's own module globals: pytester's in-process runs before this test may have
    # left another copy of the module in sys.modules, mutation31)
    scorer = default_registry().get_scorer("similarity")
    monkeypatch.setitem(scorer.__globals__, "MAX_VALUES", 100)
    keys = ["a", "b"]
    model = {key: "\n".join(["1"] * 60) for key in keys}  # 120 one-value lines
    result = score({k: "1" for k in keys}, model, "similarity", line_by_line=True,
                   target_output_key=keys, penalize_extra=True)  # fmt: skip
    assert (result.error or "").endswith("in its lines together")
    fine = {key: "\n".join(["1"] * 50) for key in keys}  # 100: within
    assert score({k: "1" for k in keys}, fine, "similarity", line_by_line=True,
                 target_output_key=keys).error is None  # fmt: skip


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_a_gold_given_as_bytes_is_read_strictly_as_utf8(mode: str, kind: Any) -> None:
    """Review messages29 #9: the bytes were decoded replacing what is not UTF-8, so every
    answer was scored against U+FFFD, where the same bytes in a gold file are refused. A
    model answer's bytes stay lenient (``strict=False`` replaces them, as parse_answer does)."""
    with pytest.raises(AnswerParseError, match=r"^the gold answer is not valid UTF-8: .*0xe9"):
        score(kind(b'{"a": "caf\xe9"}'), {"a": "caf\u00e9"}, mode)
    with pytest.raises(AnswerParseError, match=r"^the gold answer is empty$"):
        score(kind(b" \n"), {"a": 1}, mode)
    good = score(kind(b'\xef\xbb\xbf{"a": "caf\xc3\xa9"}'), {"a": "caf\u00e9"}, mode)
    assert (good.passed, good.parsed_gold) == (True, {"a": "caf\u00e9"})
    lenient = score({"a": "caf\u00e9"}, b'{"a": "caf\xe9"}', mode)
    assert (lenient.passed, lenient.parsed_model) == (False, {"a": "caf\ufffd"})
    with pytest.raises(AnswerParseError, match="the text is UTF-16"):  # (diff29a #10)
        score(kind('{"a": 1}'.encode("utf-16")), {"a": 1}, mode)
    with pytest.raises(AnswerParseError, match=r"the text is UTF-32: save"):  # (not UTF-16)
        score(kind('{"a": 1}'.encode("utf-32")), {"a": 1}, mode)
    with pytest.raises(AnswerParseError, match=r"the text is UTF-16: save"):  # (big-endian:
        score(kind(b"\xfe\xff" + '{"a": 1}'.encode("utf-16-be")), {"a": 1}, mode)  # no PS)


def test_values_that_would_show_alike_are_shown_escaped_in_the_failure_table() -> None:
    """Review property29 #4: schema mode's exact tells U+00C5 from A + U+030A, and the table
    showed both as "Å"."""
    with pytest.raises(AssertionError) as failed:
        assert_json_matches({"a": "\u00c5", "c": "x"}, {"a": "A\u030a", "c": "y"}, "schema")
    rows = str(failed.value).splitlines()[-2:]
    assert rows[0].split()[:3] == ["answer.a", '"\\u00c5"', '"A\\u030a"']
    assert rows[1].split()[:3] == ["answer.c", '"x"', '"y"']


def test_threshold_is_the_fourth_argument_everywhere() -> None:
    """Review maintainer29 #6: ``assert_json_matches(g, m, "strict", 0.5)`` worked and
    ``score(g, m, "strict", 0.5)`` was a TypeError."""
    assert score('{"a": 1, "b": 2}', '{"a": 1}', "strict", 0.5).passed
    assert not score('{"a": 1, "b": 2}', '{"a": 1}', "strict", 0.9).passed
    assert_json_matches('{"a": 1, "b": 2}', '{"a": 1}', "strict", 0.5)


def test_a_gold_leaf_under_a_type_mismatch_shows_no_model_value_in_similarity_mode() -> None:
    """realdata32 #4 (DeepSynth Q30 and Q79's golds): the gold leaf under a node of another
    type was a mismatch beside the model's whole value, so the table read as equal values
    failing (``answer.Volatility  31.6  31.6  0.00``). The model holds nothing there: the
    leaf is missing, as in strict mode, and scores 0 as UiPath's type mismatch does."""
    for gold, answer in (
        ({"Volatility": 31.6}, "Final Answer: 31.6"),
        ({"2018": ["Q4"]}, '{"2018": "Q4"}'),
    ):
        result = score(gold, answer, "similarity")
        leaf = result.fields[0]
        assert (leaf.status, leaf.model, result.score) == ("omission", None, 0.0)
        assert leaf.reason is not None
        assert leaf.reason.startswith("type mismatch: expected ")
        assert (result.metrics["missing_leaves"], result.metrics["mismatched_leaves"]) == (1, 0)
        with pytest.raises(AssertionError) as caught:
            assert_json_matches(gold, answer, mode="similarity")
        (row,) = [line for line in str(caught.value).splitlines() if line.startswith("answer")][:1]
        assert row.split()[2] == "-"  # the model column
    same_path = score({"a": 5}, '{"a": [5]}', "similarity").fields[0]
    assert (same_path.status, same_path.model) == ("mismatch", [5])  # its own value, there
