"""Scenario files (JSON list or object, JSONL, YAML): loading, problems, discovery, join."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest_structeval.scenarios as engine
from pytest_structeval.scenarios import (
    Scenario,
    discover_scenarios,
    folder_trajectories,
    join,
    plan,
    score_run,
)
from tests.plugin_support import write


def jsonl(path: Path, *lines: Any) -> Path:
    """One line per item: dicts/lists are dumped, strings written as they are."""
    return write(path, "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")


def by_location(scenarios: list[Scenario]) -> dict[str, Scenario]:
    return {s.location: s for s in scenarios}


# --------------------------------------------------------------------------- loading


def test_jsonl_entries_keep_every_gold_shape(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "set.jsonl",
        {"id": 21, "text": " How many? ", "type": "work-order", "expected_answer": 34},
        {"id": "22", "expected_answer": {"repair": 13, "replace": 0}},
        {"id": "23", "expected_answer": '[("Engines & motors", 5)]'},
        {"id": 24, "ground_truth": [1, 2], "question": "List."},
        {"id": 25.5, "expected_answer": False},
    )
    found = discover_scenarios([path])
    assert [s.id for s in found] == ["21", "22", "23", "24", "25.5"]
    assert [s.gold for s in found] == [
        34,  # a number is already-parsed gold, not a validation error
        {"repair": 13, "replace": 0},
        '[("Engines & motors", 5)]',  # text: the scorer parses it like an answer
        [1, 2],
        False,
    ]
    assert all(s.error is None for s in found)
    first = found[0]
    assert (first.question, first.type) == ("How many?", "work-order")
    assert (first.path, first.entry, first.location) == (str(path), ":1", f"{path}:1")
    assert found[3].question == "List."
    assert first.files == (str(path),)


def test_json_list_single_object_and_yaml_list(tmp_path: Path) -> None:
    listed = write(tmp_path / "list.json", json.dumps([{"id": 1, "expected_answer": "1"}] * 1))
    single = write(tmp_path / "one.json", json.dumps({"id": "x", "expected_answer": {"a": 1}}))
    yamled = write(
        tmp_path / "set.yaml",
        "- id: 7\n  expected_answer: {start: 2020-06-01}\n- id: 8\n  expected_answer: '8'\n",
    )
    found = discover_scenarios([listed, single, yamled])
    assert [(s.id, s.location) for s in found] == [
        ("1", f"{listed}[0]"),
        ("x", str(single)),  # the whole file is the scenario
        ("7", f"{yamled}[0]"),
        ("8", f"{yamled}[1]"),
    ]
    assert found[1].entry == ""
    assert found[2].gold == {"start": "2020-06-01"}  # YAML dates stay ISO text


def test_per_scenario_settings_mirror_the_folder_form(tmp_path: Path) -> None:
    write(tmp_path / "schemas" / "order.yaml", "type: object\n")
    path = jsonl(
        tmp_path / "set.jsonl",
        {
            "id": 1,
            "expected_answer": {"a": 1},
            "scoring_method": "schema",
            "schema": "schemas/order.yaml",
            "options": {"numeric_tolerance": 0.1},
            "threshold": 0.75,
            "category": "ignored",
        },
        {"id": 2, "expected_answer": {"a": 1}, "schema": "schemas/order.yaml", "mode": "schema"},
        {"id": 3, "expected_answer": 1, "scorer": "similarity"},
    )
    one, two, three = discover_scenarios([path])
    assert one.error is None
    assert (one.scorer, one.options, one.threshold) == ("schema", {"numeric_tolerance": 0.1}, 0.75)
    assert one.schema == {"type": "object"}  # relative to the scenario file's folder
    assert str(tmp_path / "schemas" / "order.yaml") in one.files
    assert two.schema == one.schema
    assert two.scorer == "schema"
    assert three.scorer == "similarity"


def test_folder_config_accepts_scoring_method_and_synonyms_must_agree(tmp_path: Path) -> None:
    write(tmp_path / "scenario_1" / "groundtruth.txt", "1")
    write(tmp_path / "scenario_1" / "scenario.yaml", "scoring_method: similarity\n")
    write(tmp_path / "scenario_2" / "groundtruth.txt", "2")
    write(tmp_path / "scenario_2" / "scenario.yaml", "scoring_method: strict\nmode: schema\n")
    jsonl(
        tmp_path / "x_scenarios.jsonl", {"id": 3, "expected_answer": 3, "scorer": "a", "mode": "b"}
    )
    found = {s.id: s for s in discover_scenarios([tmp_path])}
    assert found["1"].scorer == "similarity"
    assert found["1"].error is None
    assert "mode 'schema' and scoring_method 'strict' disagree" in (found["2"].error or "")
    assert "scorer 'a' and mode 'b' disagree" in (found["3"].error or "")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"id": 1, "characteristic_form": "Mentions 6 pumps."}, "characteristic_form is a rubric"),
        ({"id": 1, "expected_answer": None}, "expected_answer is null"),
        ({"id": 1, "expected_answer": "  "}, "expected_answer is empty"),
        ({"id": 1, "expected_answer": "1", "threshold": "high"}, "threshold must be a number"),
        # where it was written and as written (review messages29 #5: "options for
        # 'static_json': threshold must be a number in [0, 1], got 80.0")
        (
            {"id": 1, "expected_answer": "1", "threshold": 80},
            "scenario config: threshold: expected a number in [0, 1], got 80 (for 80% write 0.8)",
        ),
        ({"id": 1, "expected_answer": "1", "threshold": -0.5}, "in [0, 1], got -0.5"),
        ({"id": 1, "expected_answer": "1", "options": [1]}, "options must be a mapping"),
        (
            {"id": 1, "expected_answer": "1", "schema": "missing.json"},
            "schema missing.json: No such file or directory",
        ),
        ({"id": 1, "expected_answer": "1", "type": {"a": 1}}, "type must be"),
        ({"id": 1, "expected_answer": "1", "trajectories": 5}, "trajectories must be"),
        ({"id": 1, "expected_answer": "1", "trajectories": "nope/"}, "no such file or folder"),
    ],
)
def test_a_bad_entry_with_an_id_keeps_its_place(
    tmp_path: Path, entry: dict[str, Any], message: str
) -> None:
    path = jsonl(tmp_path / "set.jsonl", entry, {"id": 2, "expected_answer": "2"})
    bad, good = discover_scenarios([path])
    assert bad.id == "1"
    assert bad.location == f"{path}:1"
    assert message in (bad.error or "")
    assert (good.id, good.gold, good.error) == ("2", "2", None)


def test_rubric_only_entries_are_never_scored_on_prose(tmp_path: Path) -> None:
    """The reference scores a rubric with static_json; "6 pumps" would "equal" an answer 6."""
    path = jsonl(tmp_path / "set.jsonl", {"id": 1, "characteristic_form": "Mentions 6 pumps."})
    (scenario,) = discover_scenarios([path])
    record = score_run(scenario, engine.Trajectory(run_id="r", answer="6"))
    assert record.passed is False
    assert record.error is not None
    assert "is a rubric for a judge" in record.error
    assert record.scenario_path == f"{path}:1"


def test_bad_lines_and_entries_are_located_and_the_rest_load(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "set.jsonl",
        {"id": 1, "expected_answer": "1"},
        "",  # blank lines are skipped, but still counted
        '{"id": 2, "expected_answer": ',
        [1, 2],
        {"scenario_id": "9", "answer": "x"},
        {"id": True, "expected_answer": "1"},
        {"id": " ", "expected_answer": "1"},
        {"id": 3, "expected_answer": "3"},
    )
    found = by_location(discover_scenarios([path]))
    assert {loc: s.error for loc, s in found.items() if s.error} == {
        f"{path}:3": "invalid JSON: Expecting value: line 1 column 30 (char 29)",
        f"{path}:4": "expected a scenario object, got list",
        f"{path}:5": "missing id (this looks like a trajectory record)",
        f"{path}:6": "id must be a string or a number, got bool",
        f"{path}:7": "id is empty",
    }
    assert found[f"{path}:3"].id == f"{path}:3"  # no usable id: the location stands in
    assert [s.id for s in found.values() if s.error is None] == ["1", "3"]
    listed = write(tmp_path / "list.json", json.dumps([{"id": 1, "expected_answer": 1}, "x"]))
    assert [s.error for s in discover_scenarios([listed])] == [
        None,
        "expected a scenario object, got str",
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("a.json", '{"id": 1, ', "invalid JSON"),
        ("a.json", "[" * 5000 + "]" * 5000, "nested too deeply"),
        ("a.json", "34", "expected a list of scenarios or one scenario object, got int"),
        ("a.json", "[]", "no scenarios in file"),
        ("a.json", "  \n", "no scenarios in file"),
        ("a.jsonl", "\n\n", "no scenarios in file"),
        ("a.yaml", "", "no scenarios in file"),
        ("a.yaml", "- id: [unclosed", "invalid YAML"),
        ("a.yml", "- &x [{id: 1}, *x]\n", "nested too deeply (line 1: *x)"),
        ("a.json", b"\xff\xfe\x00bad", "cannot read scenario file"),
    ],
)
def test_a_broken_file_is_one_problem(
    tmp_path: Path, name: str, content: str | bytes, message: str
) -> None:
    path = write(tmp_path / name, content)
    (broken,) = discover_scenarios([path])
    assert (broken.id, broken.location, broken.entry) == (str(path), str(path), "")
    assert message in (broken.error or "")


def test_a_file_over_the_size_limit_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "MAX_SCENARIO_FILE_BYTES", 10)
    (broken,) = discover_scenarios([jsonl(tmp_path / "a.jsonl", {"id": 1, "expected_answer": 1})])
    assert "over the 10 byte limit" in (broken.error or "")


def test_usage_errors_for_paths(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        discover_scenarios([tmp_path / "missing.jsonl"])
    with pytest.raises(NotADirectoryError, match=r"neither a folder nor a scenario file \(.json"):
        discover_scenarios([write(tmp_path / "scenarios.txt", "[]")])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.builds(lambda i: json.dumps({"id": i, "expected_answer": i}), st.integers(0, 9)),
            st.text(alphabet='{}[]":, 0123456789abidxyz\t', max_size=30),
        ),
        max_size=12,
    )
)
def test_any_jsonl_gives_one_scenario_per_non_blank_line(lines: list[str]) -> None:
    """Never raises; each non-blank line is one scenario at its own line, usable or not."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.jsonl"
        path.write_text("\n".join(lines), encoding="utf-8")
        found = discover_scenarios([path])
    expected = [f":{n}" for n, line in enumerate(lines, start=1) if line.strip()]
    if expected:
        assert [s.entry for s in found] == expected
    else:
        assert [s.error for s in found] == ["no scenarios in file"]
    assert all((s.error is None) == (s.gold is not None) for s in found)


# --------------------------------------------------------------------------- discovery


def test_folders_find_scenario_files_by_name_outside_scenario_folders(tmp_path: Path) -> None:
    write(tmp_path / "scenario_1" / "groundtruth.txt", "1")
    jsonl(tmp_path / "more_scenarios.jsonl", {"id": "m", "expected_answer": 1})
    jsonl(tmp_path / "zz" / "scenarios.json", {"id": "z", "expected_answer": 1})
    write(tmp_path / "extra" / "Team.Scenarios.YAML", "- id: y\n  expected_answer: 1\n")
    jsonl(tmp_path / "scenario_1" / "scenarios.jsonl", {"id": "inside", "expected_answer": 1})
    jsonl(tmp_path / "runs.jsonl", {"run_id": "r", "answer": "1"})  # not a scenario file name
    write(tmp_path / "notes.json", "{broken")
    found = discover_scenarios([tmp_path])
    # natural order, files and folders interleaved; never inside a scenario folder
    assert [s.id for s in found] == ["y", "m", "1", "z"]
    assert all(s.error is None for s in found)


def test_a_scenario_file_reached_twice_is_read_once(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "scenarios.jsonl", {"id": 1, "expected_answer": 1})
    assert [s.id for s in discover_scenarios([tmp_path, path, tmp_path / "." / path.name])] == ["1"]


# --------------------------------------------------------------------------- join and plan


def test_duplicates_within_and_across_files_and_folders_are_reported(tmp_path: Path) -> None:
    write(tmp_path / "scenario_7" / "groundtruth.txt", "7")
    path = jsonl(
        tmp_path / "set.jsonl",
        {"id": 1, "expected_answer": 1},
        {"id": "01", "expected_answer": 2},  # the same id once normalised
        {"id": 7, "expected_answer": 7},
    )
    result = join(discover_scenarios([tmp_path / "scenario_7", path]), [])
    assert [s.location for s in result.unmatched_scenarios] == [
        str(tmp_path / "scenario_7"),
        f"{path}:1",
    ]
    assert [(d["id"], d["sources"]) for d in result.duplicates] == [
        ("1", [f"{path}:1", f"{path}:2"]),
        ("7", [str(tmp_path / "scenario_7"), f"{path}:3"]),
    ]
    assert [e["source"] for e in result.errors] == [f"{path}:2", f"{path}:3"]
    assert result.scenario_files == (str(path),)
    assert result.notes()["unmatched_scenarios"][1] == {
        "id": "1",
        "path": f"{path}:1",
        "error": None,
    }


def test_trajectories_key_and_external_trajectories(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write(runs / "a.json", json.dumps({"run_id": "a", "answer": "34"}))  # no scenario_id
    jsonl(runs / "b.jsonl", {"run_id": "b1", "answer": 2}, {"run_id": "b2", "answer": 3})
    write(runs / "shared" / "2.json", json.dumps({"run_id": "s", "answer": 2}))
    write(tmp_path / "ext" / "3.json", json.dumps({"run_id": "e", "answer": 3}))
    path = jsonl(
        tmp_path / "set.jsonl",
        {"id": 1, "expected_answer": 34, "trajectories": "runs/a.json"},
        {"id": 2, "expected_answer": 2, "trajectories": ["runs/b.jsonl", "runs/shared"]},
        {"id": 3, "expected_answer": 3, "trajectories": "runs/shared"},
    )
    result = plan([path], [tmp_path])  # --trajectories over everything: nothing read twice
    assert [(r.scenario.id, r.trajectory.run_id) for r in result.runs] == [
        ("1", "a"),
        ("2", "b1"),
        ("2", "b2"),
        ("2", "s"),  # listed by two entries: no default id, joins by its file name
        ("3", "e"),
    ]
    assert result.errors == ()
    assert result.unmatched_trajectories == ()
    records = [score_run(r.scenario, r.trajectory) for r in result.runs]
    assert [r.passed for r in records] == [True, True, False, True, True]
    assert records[0].scenario_path == f"{path}:1"


def test_folder_trajectories_reads_a_shared_file_once() -> None:
    one = Scenario(id="1", path="f", entry=":1", trajectory_files=("missing.json",))
    two = Scenario(id="2", path="f", entry=":2", trajectory_files=("missing.json",))
    (only,) = folder_trajectories([one, two])
    assert only.scenario_id is None
    assert only.error is not None


def test_folder_config_trajectories_key(tmp_path: Path) -> None:
    write(tmp_path / "runs" / "x.json", json.dumps({"run_id": "x", "answer": "5"}))
    write(tmp_path / "sc" / "scenario_5" / "groundtruth.txt", "5")
    write(tmp_path / "sc" / "scenario_5" / "scenario.yaml", "trajectories: ../../runs\n")
    result = plan([tmp_path / "sc"])
    assert [(r.scenario.id, r.trajectory.run_id) for r in result.runs] == [("5", "x")]


def test_root_keyword_makes_file_locations_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "data" / "runs" / "r.json", json.dumps({"run_id": "r", "answer": 1}))
    jsonl(
        tmp_path / "data" / "set.jsonl",
        {"id": 1, "expected_answer": 1, "trajectories": "runs"},
        "{bad",
    )
    monkeypatch.chdir(tmp_path / "data" / "runs")
    result = plan(["data/set.jsonl"], root=tmp_path)
    (run,) = result.runs
    assert (run.scenario.location, run.trajectory.source) == (
        "data/set.jsonl:1",
        "data/runs/r.json",
    )
    assert result.scenario_files == ("data/set.jsonl",)
    assert [e["source"] for e in result.errors] == ["data/set.jsonl:2"]
