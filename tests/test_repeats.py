"""Keys written twice in one object (review goldyaml35 2): a scenario config that repeats a
key is broken (a second ``options:`` dropped the first without a word); a gold that repeats
one keeps the last value, as ``json.loads`` does, with a ``GoldWarning`` naming the key."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from pytest_structeval import GoldWarning, score
from pytest_structeval.repeats import Repeat, json_repeats
from pytest_structeval.scenarios import Scenario, Trajectory, discover_scenarios, score_run
from pytest_structeval.yamlvalue import yaml_value
from tests.plugin_support import write


def repeats_of(text: str) -> list[Repeat]:
    found: list[Repeat] = []
    yaml_value(text, repeated=found)
    return found


def test_each_reader_names_the_repeated_key_where_it_is_and_its_lines() -> None:
    assert repeats_of("pump: P-101\ncount: 3\npump: P-102") == [Repeat((), "pump", 3, 1)]
    assert repeats_of("a:\n  - {x: 1, x: 2}\nm: !!omap [y: 1, y: 2]") == [
        Repeat(("a", 0), "x", 2, 2),
        Repeat(("m",), "y", 3, 3),
    ]
    # keys YAML writes apart that name one JSON key: equal floats, an int's leading zero
    assert repeats_of("1.1: old\n1.10: new\n01: a\n1: b") == [
        Repeat((), "1.1", 2, 1),
        Repeat((), "1", 4, 3),
    ]
    # a key a merge brings in, written again, is the override merge keys are for
    assert repeats_of("d: &d {b: 1, c: 1}\ne:\n  <<: *d\n  c: 2\nf: {<<: [{a: 1}, {a: 2}]}") == []
    assert repeats_of("e:\n  <<: {c: 1}\n  c: 2\n  c: 3") == [Repeat(("e",), "c", 4, 3)]
    text = '[{"x": [1, {"b": 1,\n "b": {}}]},\n {"c": 1, "c": 2}]'
    assert json_repeats(text) == [Repeat((0, "x", 1), "b", 2, 1), Repeat((1,), "c", 3, 3)]
    assert json_repeats('{"a": {"b": 1}, "c": {"b": 2}}') == []
    assert json.loads(text)[1] == {"c": 2}  # (the value read: the last, as json reads it)


def test_a_config_that_repeats_a_key_is_an_error_of_the_scenario(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_opts"
    write(folder / "groundtruth.json", '{"temp": 100}')
    write(
        folder / "scenario.yaml",
        "mode: strict\noptions:\n  numeric_tolerance: {abs: 2}\ntype: monitoring\n"
        "options:\n  align: {answer.rows: {key: id}}\n",
    )
    write(
        tmp_path / "scenario_json" / "scenario.json",
        '{"ground_truth": 1, "mode": "x",\n"mode": "y"}',
    )
    write(tmp_path / "scenario_merged" / "groundtruth.json", "1")
    write(
        tmp_path / "scenario_merged" / "scenario.yaml",
        "base: &b {numeric_tolerance: {abs: 1}, case_sensitive: true}\n"
        "options: {<<: *b, case_sensitive: false}\n",
    )
    write(
        tmp_path / "cases_scenarios.yaml",
        "- id: a\n  expected_answer: 1\n  threshold: 0.5\n  threshold: 0.9\n"
        "- id: b\n  expected_answer: 2\n"
        "  options: {numeric_tolerance: {abs: 1}, numeric_tolerance: {abs: 2}}\n",
    )
    write(tmp_path / "scenario_meta" / "groundtruth.json", '{"a": 1}')
    write(
        tmp_path / "scenario_meta" / "groundtruth_eval.json",
        '{"keys": {"a": {"mode": "measure"}},\n "keys": {}}',
    )
    write(
        tmp_path / "more_scenarios.jsonl",
        '{"id": "c", "expected_answer": 3}\n{"id": "d", "id": "e", "expected_answer": 4}\n',
    )
    found = {s.id: s.error for s in discover_scenarios([tmp_path], root=tmp_path)}
    assert found == {
        "opts": "scenario.yaml: the key 'options' is written twice (lines 2 and 5): keep one",
        "json": "scenario.json: the key 'mode' is written twice (lines 1 and 2): keep one",
        "merged": None,
        "meta": "groundtruth_eval.json: the key 'keys' is written twice (lines 1 and 2): keep one",
        "a": "scenario config: the key 'threshold' is written twice (lines 3 and 4): keep one",
        "b": "scenario config: the key 'options.numeric_tolerance' is written twice (line 7): "
        "keep one",
        "c": None,
        "e": "scenario config: the key 'id' is written twice (line 2): keep one",
    }


def test_a_gold_that_repeats_a_key_keeps_the_last_value_and_warns(tmp_path: Path) -> None:
    write(tmp_path / "scenario_y" / "groundtruth.yaml", "pump: P-101\ncount: 3\npump: P-102\n")
    write(tmp_path / "scenario_j" / "groundtruth.json", '{"pump": "P-101",\n "pump": "P-102"}')
    write(
        tmp_path / "scenario_c" / "scenario.yaml",
        "ground_truth:\n  pump: P-101\n  pump: P-102\nexpected_answer: {pump: P-102}\n",
    )
    write(
        tmp_path / "cases_scenarios.json",
        '[{"id": "f", "expected_answer": {"pump": "P-101", "pump": "P-102"}}]',
    )
    found = {s.id: s for s in discover_scenarios([tmp_path], root=tmp_path)}
    assert {sid: (s.error, s.gold) for sid, s in found.items()} == {
        sid: (None, {"pump": "P-102", "count": 3} if sid == "y" else {"pump": "P-102"})
        for sid in ("c", "f", "j", "y")
    }
    assert {sid: s.gold_notes for sid, s in found.items()} == {
        "c": (
            "the ground_truth of scenario_c/scenario.yaml repeats the key answer.pump "
            "(lines 2 and 3): only the last value is read",
        ),
        "f": (
            "the expected_answer of cases_scenarios.json[0] repeats the key answer.pump "
            "(line 1): only the last value is read",
        ),
        "j": (
            "scenario_j/groundtruth.json repeats the key answer.pump (lines 1 and 2): "
            "only the last value is read",
        ),
        "y": (
            "scenario_y/groundtruth.yaml repeats the key answer.pump (lines 1 and 3): "
            "only the last value is read",
        ),
    }
    run = Trajectory(run_id="r1", answer='{"pump": "P-101", "count": 3}', source="t.json")
    with pytest.warns(GoldWarning, match=r"groundtruth\.yaml repeats the key answer\.pump") as seen:
        record = score_run(found["y"], run, root=str(tmp_path))
    assert record.score == 0.5  # (the value read is the last one)
    assert [(Path(w.filename).name, w.lineno) for w in seen] == [("groundtruth.yaml", 1)]
    # a gold text (groundtruth.txt, a string expected_answer) and a gold file given to score
    with pytest.warns(GoldWarning, match=r"answer\.pump \(lines 1 and 2 of it\).*'\{"):
        assert score('{"pump": "P-101",\n"pump": "P-102"}', '{"pump": "P-102"}').passed
    path = write(tmp_path / "gold.yaml", "a: 1\nb: 2\na: 3\n")
    with pytest.warns(GoldWarning, match=r"gold\.yaml repeats the key answer\.a \(lines 1 and 3\)"):
        assert score(path, '{"a": 3, "b": 2}').passed
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a gold that repeats nothing says nothing
        assert score_run(Scenario(id="x", path="p", gold={"a": 1}), run).error is None


GOLD_TEXTS = {  # a gold text that repeats a key, the value read, and what the warning says
    "fenced": (
        'The gold:\n```json\n{"pump": "P-101",\n "pump": "P-102"}\n```',
        {"pump": "P-102"},
        "the key answer.pump (lines 3 and 4 of it)",
    ),
    "final answer": (
        'Final Answer: {"rows": [{"id": 1, "id": 2}]}',
        {"rows": [{"id": 2}]},
        "the key answer.rows[0].id (line 1 of it)",
    ),
    "answer tag": ('<answer>{"a": 1, "a": 2}</answer>', {"a": 2}, "the key answer.a (line 1"),
    "literal": ("{'a': 1, 'b': {'c': 1, 'c': 2}, 'a': 3}", {"a": 3, "b": {"c": 2}}, "keys"),
    "literal, lines": ("{'a': 1,\n 'a': 2}", {"a": 2}, "the key answer.a (lines 1 and 2 of it)"),
    "python block": (
        "The gold:\n```python\n{'pump': 'P-101',\n # kept\n 'pump': 'P-102'}\n```",
        {"pump": "P-102"},
        "the key answer.pump (lines 3 and 5 of it)",
    ),
    "literal, equal keys": ("{True: 'x', 1: 'y'}", {"true": "y"}, "the key answer.true ("),
    "yaml block": ("```yaml\npump: P-101\npump: P-102\n```", {"pump": "P-102"}, "(lines 2 and 3"),
    "repaired": (
        '{"a": 1, "a": 2',
        {"a": 2},
        "needed a repair to read (closed a '{' left open at the end): '{\"a\": 1, \"a\": 2'; "
        "the gold answer repeats the key answer.a (line 1 of it)",
    ),
}


@pytest.mark.parametrize("case", GOLD_TEXTS)
def test_a_gold_text_that_repeats_a_key_warns_wherever_its_value_stands(case: str) -> None:
    """A gold text whose object is a part of it (a fenced block, a marked answer, a Python
    literal, a YAML block) lost the earlier value without a word: only bare JSON warned."""
    gold, value, said = GOLD_TEXTS[case]
    with pytest.warns(GoldWarning) as seen:
        result = score(gold, json.dumps(value))
    assert result.passed  # (scored against what is read: the last value)
    assert [str(w.message) for w in seen if said in str(w.message)], [str(w.message) for w in seen]
    assert "repeats the key" in str(seen[0].message) or "repeats the keys" in str(seen[0].message)


def test_the_lines_of_a_repeat_are_the_gold_texts_own_where_its_part_stands_once() -> None:
    from pytest_structeval.parse import PIECES, Piece, parse_answer_detailed, piece_of
    from pytest_structeval.repeats import piece_repeats

    def found(text: str) -> list[Repeat]:
        pieces: list[Piece] = []
        noting = PIECES.set(pieces)
        try:
            parsed = parse_answer_detailed(text)
        finally:
            PIECES.reset(noting)
        piece = piece_of(parsed.value, pieces)
        assert piece is not None
        assert piece[0] is parsed.value
        return piece_repeats(piece, text)

    assert found('x\r\n```json\r\n{"a": 1,\r\n"a": 2}\r\n```') == [Repeat((), "a", 4, 3)]
    assert found("```yaml\nk:\n  - {b: 1, b: 2}\n```") == [Repeat(("k", 0), "b", 3, 3)]
    # written twice in the text: where it is read from is not told, so no line is
    twice = '```json\n{"a": 1, "a": 2}\n```\nFinal Answer: {"a": 1, "a": 2}'
    assert found(twice) == [Repeat((), "a", 0, 0)]
    assert found("[{'x': 1}, (1, {'y': {2: 1, 2.0: 2}})]") == [Repeat((1, 1, "y"), "2", 1, 1)]
    assert found('```json\n{"a": {"b": 1}, "c": {"b": 2}}\n```') == []
    # a literal over several lines: the lines its keys are written on
    nested = "{'a': 1,\n 'b': {'c': 1,\n\n  'c': 2},\n 'a': 3}"
    assert found(nested) == [Repeat(("b",), "c", 4, 2), Repeat((), "a", 5, 1)]
    assert found("x\r\n```python\r\n{'a': 1,\r\n 'a': 2}\r\n```") == [Repeat((), "a", 4, 3)]
    json5 = "{\n  // first\n  a: 1, /* two\n  lines */ a: 2,\n  'b': [{x: 1,\n x: 2}]\n}"
    assert found(json5) == [Repeat((), "a", 4, 3), Repeat(("b", 0), "x", 6, 5)]
    # a string over two lines (kept so in the source Python reads), wide characters
    strings = "{'''k\nk''': 1,\n 'z': '\u00e9\U0001f600',\n '\u00e9': 1, 'z': 2,\n '\u00e9': 3}"
    assert found(strings) == [Repeat((), "z", 4, 3), Repeat((), "\u00e9", 5, 4)]
    # repairs that add a comma and join a thousands-grouped number; keys equal as Python's
    assert found("{True: 'x'\n 1: 'y',\n 'n': 1,871,\n 1.0: 'z'}") == [
        Repeat((), "true", 2, 1),
        Repeat((), "true", 4, 1),
    ]
    assert found("{'a': {'b': 1}, 'c': [{'b': 2}, {'b': 3}]}") == []


def test_an_answer_that_repeats_a_key_is_scored_as_read_without_a_word() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for answer in ('```json\n{"a": 1, "a": 2}\n```', "{'a': 1, 'a': 2}", '{"a": 1, "a": 2}'):
            assert score('{"a": 2}', answer).passed
        assert score('```json\n{"a": 1, "b": 2}\n```', '{"b": 2, "a": 1}').passed
        assert score("{'a': 1, 'b': [{'a': 1}]}", '{"a": 1, "b": [{"a": 1}]}').passed


def test_a_gold_text_that_repeats_a_key_warns_in_a_scenario_run(pytester: pytest.Pytester) -> None:
    """groundtruth.txt with a fenced block, a config's ground_truth string that is a Python
    literal, and a scenario file's expected_answer after "Final Answer:": each warns at the
    gold's own file and line, and is scored against the last value."""
    pytester.makeini("[pytest]\n")
    sc = pytester.path / "rk"
    write(sc / "scenario_1" / "groundtruth.txt", '```json\n{"a": 1,\n "a": 2}\n```\n')
    write(
        sc / "scenario_2" / "scenario.yaml",
        "mode: strict\nground_truth: \"{'b': 1, 'b': 2}\"\n",
    )
    write(
        pytester.path / "rk_cases.jsonl",
        json.dumps({"id": "3", "expected_answer": 'Final Answer: {"c": 1, "c": 2}'}) + "\n",
    )
    runs = [
        {"run_id": f"r{n}", "scenario_id": sid, "answer": answer}
        for n, (sid, answer) in enumerate(
            [("1", '{"a": 2}'), ("2", '{"b": 2}'), ("3", '{"c": 2}')], start=1
        )
    ]
    write(pytester.path / "runs" / "runs.jsonl", "".join(json.dumps(r) + "\n" for r in runs))
    result = pytester.runpytest(
        *("--structeval-scenarios", "rk", "--structeval-scenarios", "rk_cases.jsonl"),
        *("--structeval-trajectories", "runs", "-p", "no:randomly"),
    )
    result.assert_outcomes(passed=3, warnings=3)
    result.stdout.fnmatch_lines(
        [
            "*rk/scenario_1/groundtruth.txt:1: GoldWarning: the gold answer repeats the key "
            "answer.a (lines 2 and 3 of it): only the last value is read*",
            "*rk/scenario_2/scenario.yaml:2: GoldWarning: the gold answer repeats the key "
            "answer.b (line 1 of it)*",
            "*rk_cases.jsonl:1: GoldWarning: the gold answer repeats the key answer.c (line 1*",
        ]
    )


def test_a_schema_file_that_repeats_a_key_warns_at_its_line(tmp_path: Path) -> None:
    """A second ``properties`` or ``required`` in a schema file dropped the first without a
    word: schema mode then scored, and answer_schema checked, against half the schema."""
    from pytest_structeval.answer_schema import as_check
    from pytest_structeval.schema import SchemaWarning, load_schema

    plain = write(
        tmp_path / "s.json",
        '{"type": "object",\n "properties": {"a": {"type": "string"}},\n "required": ["a"],\n'
        ' "properties": {"b": {"type": "string"}}}',
    )
    with pytest.warns(SchemaWarning) as seen:
        assert set(load_schema(plain)["properties"]) == {"b"}  # (the last, as json reads it)
    assert [(w.filename, w.lineno, str(w.message)) for w in seen] == [
        (
            str(plain),
            2,
            f"{plain} repeats the key 'properties' (lines 2 and 4): only the last value is read",
        )
    ]
    yaml_file = write(tmp_path / "s.yaml", "type: object\nrequired: [a]\nrequired: [b]\n")
    with pytest.warns(SchemaWarning, match=r"s\.yaml repeats the key 'required' \(lines 2 and 3"):
        check = as_check(str(yaml_file))
    assert not check.violations({"b": 1})  # (only b is required: the last value)
    wrapped = write(  # a JSONSchemaBench file: its test data is no schema
        tmp_path / "w.json",
        '{"schema": {"type": "object"}, "tests": [{"valid": true, "data": {"x": 1, "x": 2}}]}',
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_schema(wrapped) == {"type": "object"}
        assert score('{"a": "x"}', '{"a": "x"}', mode="schema", schema=wrapped).passed
    with pytest.warns(SchemaWarning, match=r"repeats the key 'properties'"):
        assert score('{"a": "x", "b": "y"}', '{"a": "z", "b": "y"}', mode="schema", schema=plain)


def test_a_scenario_schema_file_that_repeats_a_key_warns_at_each_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\n")
    folder = pytester.path / "sk" / "scenario_1"
    write(folder / "groundtruth.json", '{"a": "x", "b": "y"}')
    write(
        folder / "scenario.yaml",
        "mode: schema\nschema: s.json\nanswer_schema: ../a.yaml\n",
    )
    write(
        folder / "s.json",
        '{"type": "object",\n "properties": {"a": {"type": "string"}},\n'
        ' "properties": {"b": {"type": "string",\n   "x-eval-methd": "exact"}}}',
    )
    write(pytester.path / "sk" / "a.yaml", "type: object\nrequired: [a]\nrequired: [b]\n")
    write(
        folder / "trajectory_0.json",
        json.dumps({"run_id": "r1", "answer": '{"a": "wrong", "b": "y"}'}),
    )
    found = discover_scenarios([pytester.path / "sk"], root=pytester.path)
    assert [s.schema_notes for s in found] == [
        (
            (
                "sk/scenario_1/s.json repeats the key 'properties' (lines 2 and 3): "
                "only the last value is read",
                "sk/scenario_1/s.json",
                2,
            ),
            (
                "sk/a.yaml repeats the key 'required' (lines 2 and 3): only the last value is read",
                "sk/a.yaml",
                2,
            ),
        )
    ]
    result = pytester.runpytest("--structeval-scenarios", "sk", "-p", "no:randomly")
    result.assert_outcomes(passed=1, warnings=3)  # (a wrong: scored against b only)
    result.stdout.fnmatch_lines(  # at paths relative to rootdir, as a gold's (fixwarn37 #3)
        [
            "  sk/scenario_1/s.json:2: SchemaWarning: sk/scenario_1/s.json repeats the key "
            "'properties' (lines 2 and 3)*",
            "  sk/a.yaml:2: SchemaWarning: sk/a.yaml repeats the key 'required'*",
            # an unknown key at its line in the file (fixpaths37 #1: it was inside the package)
            "  sk/scenario_1/s.json:4: SchemaWarning: properties.b.x-eval-methd: unknown key "
            "ignored",
            '    "x-eval-methd": "exact"}}}',
        ]
    )
    result.stdout.no_fnmatch_line("*pytest_structeval/*")
    result = pytester.runpytest(
        "--structeval-scenarios", "sk", "-p", "no:randomly", "-W", "error::UserWarning"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "error: sk/scenario_1/s.json:2: the schema's SchemaWarning, raised as an error by "
            "the warnings filter: sk/scenario_1/s.json repeats the key 'properties'*"
        ]
    )


def _repeating_runs(root: Path) -> None:
    """Scenario 1 (gold ``{"a": 1}``) and runs that write a key of their own twice, or
    inside their answer (the model's output: read as parsed, unsaid)."""
    write(root / "scenario_1" / "groundtruth.json", '{"a": 1}')
    write(
        root / "runs" / "a.jsonl",
        '{"run_id": "r1", "scenario_id": "1", "answer": "{\\"a\\": 2}", "answer": "{\\"a\\": 1}"}\n'
        '{"run_id": "r2", "scenario_id": "1", "answer": {"a": 2, "a": 1}, "trajectory": '
        '{"turns": [{"k": 1, "k": 2}]}}\n',
    )
    write(
        root / "runs" / "b.json",
        '[{"run_id": "r3",\n "scenario_id": "9",\n "scenario_id": "1", "answer": "{\\"a\\": 1}"}]',
    )


def test_a_trajectory_record_that_repeats_a_key_is_read_as_the_last_value_and_listed(
    tmp_path: Path,
) -> None:
    """Two ``answer`` or ``scenario_id`` keys in one record: the last was used without a word.
    The run is read as json reads it, and the join lists it (no load error: it is scored)."""
    from pytest_structeval.scenarios import join, load_trajectories

    _repeating_runs(tmp_path)
    runs = load_trajectories([tmp_path / "runs"], root=tmp_path)
    assert [(t.location, t.scenario_id, t.answer, t.repeated) for t in runs] == [
        (
            "runs/a.jsonl:1",
            "1",
            '{"a": 1}',
            "the key 'answer' is written twice (line 1): the last value is read",
        ),
        ("runs/a.jsonl:2", "1", {"a": 1}, None),  # (its answer's and its turns' own keys)
        (
            "runs/b.json[0]",
            "1",
            '{"a": 1}',
            "the key 'scenario_id' is written twice (lines 2 and 3): the last value is read",
        ),
    ]
    joined = join(discover_scenarios([tmp_path], root=tmp_path), runs)
    assert len(joined.runs) == 3
    assert not joined.errors
    assert joined.notes()["repeated_keys"] == [
        {"source": "runs/a.jsonl:1", "keys": ["answer"], "problem": runs[0].repeated},
        {"source": "runs/b.json[0]", "keys": ["scenario_id"], "problem": runs[2].repeated},
    ]


def test_a_trajectory_that_repeats_a_key_is_listed_in_the_summary_and_aggregate(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\n")
    _repeating_runs(pytester.path / "tk")
    result = pytester.runpytest(
        *("--structeval-scenarios", "tk", "--structeval-trajectories", "tk/runs"),
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(passed=3)  # (no load error: each is scored as read)
    result.stdout.fnmatch_lines(
        [
            "repeated keys: 2 (tk/runs/a.jsonl:1 answer, tk/runs/b.json[[]0[]] scenario_id; "
            "records read as the last value of a key written twice says)"
        ]
    )
    aggregate = json.loads(
        (pytester.path / "reports" / "structeval" / "_aggregate.json").read_text()
    )
    assert [r["source"] for r in aggregate["repeated_keys"]] == [
        "tk/runs/a.jsonl:1",
        "tk/runs/b.json[0]",
    ]
    assert aggregate["totals"]["load_errors"] == 0


def test_a_gold_or_schema_file_edited_between_two_sessions_shows_its_new_line(
    pytester: pytest.Pytester,
) -> None:
    """Two pytest sessions in one process (an IDE's, a watcher's, pytester's inline runs)
    with the gold and schema files rewritten in between: the warnings located at them showed
    the line ``linecache`` kept from the first session, not the file's line."""
    pytester.makeini("[pytest]\n")
    folder = pytester.path / "ek" / "scenario_1"
    write(folder / "scenario.yaml", "mode: schema\nschema: s.json\n")
    write(folder / "trajectory_0.json", json.dumps({"run_id": "r1", "answer": '{"a": 2}'}))
    outputs = []
    for key in ("a", "a_new"):
        write(folder / "groundtruth.json", f'{{"{key}": 1, "{key}": 2}}\n')
        write(folder / "s.json", f'{{"title": "{key}", "title": "x"}}\n')
        result = pytester.runpytest("--structeval-scenarios", "ek", "-p", "no:randomly")
        result.assert_outcomes(warnings=2, **{"passed" if key == "a" else "failed": 1})
        outputs.append(result.stdout.str())
    assert '  {"a": 1, "a": 2}' in outputs[0]
    assert '  {"title": "a", "title": "x"}' in outputs[0]
    assert '  {"a_new": 1, "a_new": 2}' in outputs[1]
    assert '  {"title": "a_new", "title": "x"}' in outputs[1]
    assert '"a": 1' not in outputs[1]


def test_a_scenario_schema_written_inline_warns_at_the_line_of_its_key(tmp_path: Path) -> None:
    """Review fixlocale37 #1: an unknown x-eval key of a schema written inline (``schema:``
    as a mapping in scenario.yaml, under ``options``, in a scenario file's entry, a JSONL
    line) warned at the first frame outside the package (pytest's or the CLI's own code): it
    is the file's problem, located at the line that writes the key, as a schema file's is."""
    from pytest_structeval.schema import SchemaWarning

    write(tmp_path / "sc" / "scenario_1" / "groundtruth.json", '{"w": 1}')
    write(
        tmp_path / "sc" / "scenario_1" / "scenario.yaml",
        "mode: schema\nschema:\n  type: object\n  properties:\n    w:\n      type: integer\n"
        "      x-eval-methd: exact\n",
    )
    write(tmp_path / "sc" / "scenario_2" / "groundtruth.json", '{"w": 1}')
    write(
        tmp_path / "sc" / "scenario_2" / "scenario.json",
        '{"mode": "schema",\n "options": {"schema": {"type": "object",\n'
        ' "x-eval-methd": "exact"}}}',
    )
    write(  # the same schema in two entries: each at its own line
        tmp_path / "cases.yaml",
        "- id: a\n  expected_answer: '{\"w\": 1}'\n  mode: schema\n  schema:\n"
        "    type: object\n    x-eval-methd: exact\n"
        "- id: b\n  expected_answer: '{\"w\": 1}'\n  mode: schema\n  schema:\n"
        "    type: object\n    x-eval-methd: exact\n",
    )
    write(
        tmp_path / "cases.jsonl",
        '\n{"id": "c", "expected_answer": "{}", "mode": "schema", '
        '"schema": {"type": "object", "x-eval-methd": "exact"}}\n',
    )
    found = discover_scenarios(
        [tmp_path / "sc", tmp_path / "cases.yaml", tmp_path / "cases.jsonl"], root=tmp_path
    )
    located = []
    for scenario in found:
        with pytest.warns(SchemaWarning, match="x-eval-methd: unknown key ignored") as seen:
            record = score_run(
                scenario, Trajectory(run_id="r", answer='{"w": 1}'), root=str(tmp_path)
            )
        assert record.error is None, record.error
        located += [(w.filename, w.lineno) for w in seen]
    assert located == [
        ("sc/scenario_1/scenario.yaml", 7),
        ("sc/scenario_2/scenario.json", 3),
        ("cases.yaml", 6),
        ("cases.yaml", 12),
        ("cases.jsonl", 2),
    ]
