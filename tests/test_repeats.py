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
