"""Scenario discovery, trajectory loading, join rules and score_run."""

from __future__ import annotations

import json
import math
import os
import threading
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import scenarios as scenarios_module
from pytest_structeval import score
from pytest_structeval.errors import LimitError, OptionsError, SchemaError
from pytest_structeval.naming import FirstFree
from pytest_structeval.parse import strip_think
from pytest_structeval.registry import Registry
from pytest_structeval.results import FieldResult, ScoreResult
from pytest_structeval.scenarios import (
    Scenario,
    Trajectory,
    _near_ids,
    discover_scenarios,
    folder_trajectories,
    id_key,
    join,
    load_trajectories,
    looks_like_scenario,
    plan,
    score_run,
)
from tests.plugin_support import first_free_naively, write


def traj(path: Path, **record: Any) -> Path:
    return write(path, json.dumps(record))


def by_id(scenarios: list[Scenario]) -> dict[str, Scenario]:
    return {s.id: s for s in scenarios}


# --------------------------------------------------------------------------- discovery


def test_discovers_gold_forms_questions_and_natural_order(tmp_path: Path) -> None:
    write(tmp_path / "scenario_10" / "groundtruth.txt", "  {'a': 1}\n")
    write(tmp_path / "scenario_2" / "groundtruth.json", '{"n": 12345678901234567890123}')
    write(tmp_path / "scenario_2" / "question.txt", "  How many?\n")
    write(tmp_path / "Scenario_12" / "groundtruth.yaml", "items:\n  - a\n  - b\n")
    write(tmp_path / "scenario_3" / "groundtruth.yml", "x: 1\n")
    found = discover_scenarios([tmp_path])
    assert [s.id for s in found] == ["2", "3", "10", "12"]
    scenarios = by_id(found)
    assert scenarios["10"].gold == "{'a': 1}"  # raw text: the scorer parses it
    assert scenarios["2"].gold == {"n": 12345678901234567890123}  # exact big int
    assert scenarios["2"].question == "How many?"
    assert scenarios["12"].gold == {"items": ["a", "b"]}
    assert scenarios["3"].gold == {"x": 1}
    assert all(s.error is None for s in found)
    assert scenarios["10"].path == str(tmp_path / "scenario_10")


def test_root_folder_can_itself_be_a_scenario(tmp_path: Path) -> None:
    write(tmp_path / "scenario_7" / "groundtruth.txt", "7")
    (only,) = discover_scenarios([tmp_path / "scenario_7"])
    assert (only.id, only.gold) == ("7", "7")


def test_nested_turn_folders_are_scenarios(tmp_path: Path) -> None:
    write(tmp_path / "scenario_4" / "turns" / "02" / "groundtruth.txt", '{"a": 1}')
    write(tmp_path / "scenario_4" / "turns" / "03" / "groundtruth.json", '{"b": 2}')
    write(tmp_path / "scenario_4" / "turns" / "05" / "characteristic_form.txt", "Prose rubric.")
    write(tmp_path / "scenario_4" / "notes" / "readme.md", "not a scenario")
    found = by_id(discover_scenarios([tmp_path]))
    # scenario_4 holds no files of its own: it is only a container, not reported
    assert sorted(found) == ["4/turns/02", "4/turns/03", "4/turns/05"]
    assert found["4/turns/02"].gold == '{"a": 1}'
    rubric_only = found["4/turns/05"]
    assert rubric_only.gold is None  # rubric prose is never gold
    assert rubric_only.error is not None
    assert "no groundtruth" in rubric_only.error
    assert "characteristic_form.txt" in rubric_only.error


def test_a_multi_turn_parent_holding_a_question_is_no_scenario_of_its_own(tmp_path: Path) -> None:
    """AssetOpsBench's upstream tree keeps the shared question in the parent of its turns
    (``scenario_4/question.txt``), and ``default/`` holds a question and a manifest: neither
    is a broken scenario (switcher26 #1). With no nested scenario, a question alone in a
    ``scenario_`` folder still is; a gold in a folder of another name still is reported."""
    write(tmp_path / "scenario_4" / "question.txt", "Shared context.")
    write(tmp_path / "scenario_4" / "turns" / "02" / "groundtruth.txt", '{"a": 1}')
    write(tmp_path / "scenario_4" / "turns" / "02" / "question.txt", "Turn 2?")
    write(tmp_path / "default" / "question.txt", "Default?")
    write(tmp_path / "default" / "manifest.json", "{}")
    write(tmp_path / "scenario_6" / "question.txt", "Where is the gold?")
    write(tmp_path / "scenario_6" / "notes" / "readme.md", "no scenario here")
    write(tmp_path / "scenario_7" / "question.txt", "A question and runs, no gold.")
    write(tmp_path / "scenario_7" / "turns" / "01" / "groundtruth.txt", "1")
    write(tmp_path / "scenario_7" / "trajectory.json", '{"answer": "1"}')
    write(tmp_path / "extra" / "question.txt", "Q")
    write(tmp_path / "extra" / "groundtruth.txt", "1")
    found = by_id(discover_scenarios([tmp_path]))
    expected = ["4/turns/02", "6", "7", "7/turns/01", str(tmp_path / "extra")]
    assert sorted(found) == sorted(expected)
    assert found["4/turns/02"].error is None
    assert found["4/turns/02"].question == "Turn 2?"
    assert found["6"].error == "no groundtruth.* in folder"
    assert found["7"].error == "no groundtruth.* in folder"  # its runs fail saying so
    assert found["7"].trajectory_files
    assert "not named scenario_<id>" in str(found[str(tmp_path / "extra")].error)


def test_overlapping_paths_read_each_scenario_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder given twice, or with a folder inside it (overlapping globs: ``evals
    evals/hard``), is read once: its scenarios were each a duplicate of itself (cli24 #1)."""
    write(tmp_path / "evals" / "scenario_1" / "groundtruth.txt", "1")
    write(tmp_path / "evals" / "hard" / "scenario_2" / "groundtruth.txt", "2")
    write(tmp_path / "evals" / "all_scenarios.json", '[{"id": "9", "ground_truth": 9}]')
    monkeypatch.chdir(tmp_path)
    evals = tmp_path / "evals"
    for paths in (
        ["evals", "evals"],
        ["evals", "./evals", str(evals)],
        ["evals/hard", "evals"],
        ["evals", "evals/hard/scenario_2", "evals/all_scenarios.json"],
    ):
        found = discover_scenarios(paths)
        assert [s.id for s in found] == ["9", "2", "1"], paths  # the scan of evals, once
        assert all(s.error is None for s in found), paths
    assert [s.id for s in discover_scenarios(["evals/hard", "evals/scenario_1"])] == ["2", "1"]
    # a scenario file a folder walk does not read (not *scenarios.*) is read when given
    write(evals / "custom.json", '[{"id": "c", "ground_truth": 1}]')
    assert [s.id for s in discover_scenarios(["evals", "evals/custom.json"])] == [
        "9",
        "2",
        "1",
        "c",
    ]
    with pytest.raises(FileNotFoundError, match="does not exist: evals/nope"):
        discover_scenarios(["evals", "evals/nope"])  # still checked, though inside a given one


def test_a_nested_turn_folder_given_on_its_own_keeps_its_id(tmp_path: Path) -> None:
    """``scenario_4/turns/02`` given as a scenario path is scenario ``4/turns/02``, as in a
    scan of the whole tree; it read as a folder "not named scenario_<id>" (cli24 #2)."""
    write(tmp_path / "scenario_4" / "turns" / "02" / "groundtruth.txt", '{"a": 1}')
    write(tmp_path / "scenario_4" / "turns" / "03" / "groundtruth.json", '{"b": 2}')
    whole = by_id(discover_scenarios([tmp_path]))
    (turn,) = discover_scenarios([tmp_path / "scenario_4" / "turns" / "02"])
    assert (turn.id, turn.error, turn.gold) == ("4/turns/02", None, '{"a": 1}')
    assert turn == whole["4/turns/02"]
    turns = discover_scenarios([tmp_path / "scenario_4" / "turns"])
    assert [s.id for s in turns] == ["4/turns/02", "4/turns/03"]
    assert all(s.error is None for s in turns)


class _Listing:
    """``os.scandir``'s iterator, passing by the names in ``hidden``."""

    def __init__(self, inner: Any, hidden: set[str]) -> None:
        self.inner, self.hidden = inner, hidden

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.close()

    def __iter__(self) -> _Listing:
        return self

    def __next__(self) -> Any:
        while (entry := next(self.inner)).name in self.hidden:
            pass
        return entry

    def close(self) -> None:
        self.inner.close()


def case_insensitive(monkeypatch: pytest.MonkeyPatch, aliases: dict[Path, str]) -> None:
    """Make each ``aliases`` path open the folder named beside it while no listing shows it, as
    a case-insensitive file system (macOS, Windows) opens ``Turns`` for the ``turns`` it lists:
    a link that listings pass by. The names with their case swapped open it too (``tURNS``,
    ``TURNS``), as there."""
    hidden = set()
    for alias, target in aliases.items():
        for name in {alias.name, alias.name.swapcase(), target.swapcase()}:
            (alias.parent / name).symlink_to(target)
            hidden.add(name)
    scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": _Listing(scandir(path), hidden))


def test_a_scenario_path_typed_in_another_case_keeps_the_ids_of_a_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On macOS and Windows ``evals/scenario_4/Turns/02`` opens ``evals/scenario_4/turns/02``:
    its id was ``4/Turns/02`` (and ``scenario_PUMP``'s ``PUMP``), so runs naming
    ``4/turns/02`` went unmatched and a baseline counted new and missing items instead of a
    regression (review portability33 #4). Each component is spelt as its folder lists it."""
    evals = tmp_path / "evals"
    write(evals / "scenario_4" / "turns" / "02" / "groundtruth.txt", '{"a": 1}')
    write(evals / "scenario_pump" / "groundtruth.txt", "1")
    traj(tmp_path / "runs" / "x.json", run_id="x", scenario_id="4/turns/02", answer={"a": 1})
    whole = by_id(discover_scenarios([evals], root=tmp_path))
    case_insensitive(
        monkeypatch,
        {evals / "scenario_4" / "Turns": "turns", evals / "scenario_PUMP": "scenario_pump"},
    )
    typed = "evals/scenario_4/Turns/02"
    (turn,) = discover_scenarios([typed], root=tmp_path)
    assert turn == whole["4/turns/02"]
    assert turn.path == "evals/scenario_4/turns/02"
    (pump,) = discover_scenarios([evals / "scenario_PUMP"], root=tmp_path)
    assert pump == whole["pump"]
    result = plan([typed], ["runs"], root=tmp_path)
    assert (result.unmatched_trajectories, [run.scenario.id for run in result.runs]) == (
        (),
        ["4/turns/02"],
    )
    monkeypatch.chdir(tmp_path)  # (relative, without a root)
    assert [s.id for s in discover_scenarios(["evals/scenario_PUMP"])] == ["pump"]


def test_a_path_spelt_as_listed_lists_none_of_its_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each typed component's folder was listed in full to find its spelling, even on a
    case-sensitive file system, where a name that opens is listed as typed: 125 ms per
    discovery beside a folder of 300,000 files, and every folder above an absolute path
    (review diff33a F7). A case-swapped name that opens nothing, or the same file as nothing,
    shows that the typed spelling is the listed one."""
    write(tmp_path / "evals" / "scenario_4" / "turns" / "02" / "groundtruth.txt", "1")
    listed: list[str] = []
    scandir, listdir = os.scandir, os.listdir

    def counted_scandir(path: Any = ".") -> Any:
        listed.append(os.path.abspath(path))
        return scandir(path)

    def counted_listdir(path: Any = ".") -> Any:
        listed.append(os.path.abspath(path))
        return listdir(path)

    monkeypatch.setattr(os, "scandir", counted_scandir)
    monkeypatch.setattr(os, "listdir", counted_listdir)
    typed = tmp_path / "evals" / "scenario_4" / "turns" / "02"
    above = set(map(os.fspath, typed.parents))  # (the start itself is listed by its scan)
    for start in ["evals/scenario_4/turns/02", typed]:
        listed.clear()
        (turn,) = discover_scenarios([start], root=tmp_path)
        assert turn.id == "4/turns/02"
        assert [path for path in listed if path in above] == []
    # (a name no case swap changes: listed as typed too)
    write(tmp_path / "7" / "scenario_1" / "groundtruth.txt", "1")
    listed.clear()
    assert [s.id for s in discover_scenarios(["7"], root=tmp_path)] == ["1"]
    assert os.fspath(tmp_path) not in listed


def test_a_project_named_like_a_scenario_folder_is_no_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``scenario_planner/evals`` holds scenario folders of its own: their ids are theirs."""
    project = tmp_path / "scenario_planner"
    evals = project / "evals"
    write(evals / "scenario_1" / "groundtruth.txt", "1")
    write(evals / "scenario_1" / "turns" / "01" / "groundtruth.txt", "1.1")
    assert [s.id for s in discover_scenarios([evals])] == ["1", "1/turns/01"]
    plain = project / "docs"
    write(plain / "notes.md", "no scenario here")
    assert discover_scenarios([plain]) == []
    # a folder of scenario files with a gold-like file below: never one nested scenario
    # (compat24 #1: its scenario files went unread), whether the project is the current
    # folder (or rootdir) or lies below it
    files = project / "files"
    write(files / "all_scenarios.jsonl", '{"id": "9", "ground_truth": 9}\n')
    write(files / "fixtures" / "groundtruth.json", "{}")
    write(project / "turnish" / "fixtures" / "groundtruth.json", "{}")
    for top in (project, tmp_path):
        monkeypatch.chdir(top)
        found = by_id(discover_scenarios([files]))
        assert found["9"].error is None
        assert "not named scenario_<id>" in str(found[str(files / "fixtures")].error)
    monkeypatch.chdir(project)  # the project itself is no scenario folder
    (lookalike,) = discover_scenarios(["turnish"])
    assert "not named scenario_<id>" in str(lookalike.error)
    (rooted,) = discover_scenarios(["scenario_planner/turnish"], root=tmp_path)
    assert rooted.id == "planner/turnish/fixtures"  # under rootdir it is a scenario tree


def test_a_folder_above_a_deeper_nested_scenario_is_read_as_in_a_full_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``scenario_4/a`` holding ``b/c/groundtruth.txt`` is scenario ``4/a/b/c``, as a scan of
    the whole tree names it; a folder in a scenario's ``trajectories/`` never is (diff24a #5)."""
    write(tmp_path / "scenario_4" / "a" / "b" / "c" / "groundtruth.txt", "1")
    write(tmp_path / "scenario_4" / "trajectories" / "t" / "groundtruth.json", "{}")
    monkeypatch.chdir(tmp_path)
    assert [s.id for s in discover_scenarios(["scenario_4/a"])] == ["4/a/b/c"]
    assert "4/a/b/c" in [s.id for s in discover_scenarios(["."])]
    (stray,) = discover_scenarios(["scenario_4/trajectories"])
    assert "not named scenario_<id>" in str(stray.error)


def test_a_folder_and_a_link_to_it_are_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "evals" / "scenario_1" / "groundtruth.txt", "1")
    (tmp_path / "link").symlink_to(tmp_path / "evals", target_is_directory=True)
    write(tmp_path / "shared" / "scenario_2" / "groundtruth.txt", "2")
    (tmp_path / "evals" / "ext").symlink_to(tmp_path / "shared", target_is_directory=True)
    (tmp_path / "evals" / "up").symlink_to(tmp_path, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    for paths in (
        ["evals", "link"],
        ["link/scenario_1", "evals"],
        ["link", "evals/scenario_1"],
        ["evals", "evals/ext"],  # a link inside evals to a folder elsewhere (diff24b #1)
        ["evals/ext", "evals", "shared"],
        ["evals", "evals/up"],  # a link to evals's parent: evals stays (diff24c #1)
        ["evals/up/evals", "evals", "evals/up"],
        ["evals", "evals/ext", "shared/scenario_2"],  # read through ext (diff24d #2)
        ["shared/scenario_2", "evals/ext", "evals"],
    ):
        found = discover_scenarios(paths)
        assert sorted((s.id, s.error) for s in found) == [("1", None), ("2", None)], paths


def test_a_given_folder_that_walks_pass_by_is_read_though_its_parent_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evals`` skips ``.archive`` and ``build`` (norecursedirs) in its walk: given too, they
    are read, not dropped as "inside evals" (diff24b #5)."""
    write(tmp_path / "evals" / "scenario_1" / "groundtruth.txt", "1")
    write(tmp_path / "evals" / ".archive" / "scenario_2" / "groundtruth.txt", "2")
    write(tmp_path / "evals" / "build" / "scenario_3" / "groundtruth.txt", "3")
    monkeypatch.chdir(tmp_path)
    found = discover_scenarios(["evals", "evals/.archive", "evals/build"], skip_folders=["build"])
    assert [s.id for s in found] == ["1", "2", "3"]
    assert [s.id for s in discover_scenarios(["evals"], skip_folders=["build"])] == ["1"]


def test_discovery_names_paths_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Overlapping paths are read once, and named as the user gave them, never made absolute
    (compat24 #2: every report path of ``structeval evaluate`` carried the checkout's)."""
    write(tmp_path / "evals" / "scenario_1" / "groundtruth.txt", "1")
    monkeypatch.chdir(tmp_path)
    (found,) = discover_scenarios(["evals", "evals/scenario_1", str(tmp_path / "evals")])
    assert found.path == "evals/scenario_1"


def test_where_scenarios_are_inferred_test_data_named_like_a_scenario_file_is_left_alone(
    tmp_path: Path,
) -> None:
    write(tmp_path / "scenario_1" / "groundtruth.txt", "1")
    write(tmp_path / "data" / "login_scenarios.yaml", "- name: happy path\n")
    write(tmp_path / "data" / "empty_scenarios.json", "[]")
    write(
        tmp_path / "data" / "mixed_scenarios.jsonl",
        '{"name": "x"}\n{"id": 2, "expected_answer": 2}\n',
    )
    write(tmp_path / "data" / "rubric_scenarios.json", '[{"id": 3, "characteristic_form": "x"}]')
    write(tmp_path / "data" / "bad_scenarios.json", "[{")
    write(tmp_path / "data" / "broken_line_scenarios.jsonl", '{"name": "x"}\n{oops\n')
    inferred = {s.location for s in discover_scenarios([tmp_path], inferred=lambda path: True)}
    given = {s.location for s in discover_scenarios([tmp_path])}
    kept = {  # a gold, a rubric, or something that does not parse: reported as before
        "data/bad_scenarios.json",
        "data/broken_line_scenarios.jsonl:1",
        "data/broken_line_scenarios.jsonl:2",
        "data/mixed_scenarios.jsonl:1",
        "data/mixed_scenarios.jsonl:2",
        "data/rubric_scenarios.json[0]",
    }
    assert {loc.removeprefix(f"{tmp_path.as_posix()}/") for loc in inferred} == {
        "scenario_1",
        *kept,
    }
    assert {loc.removeprefix(f"{tmp_path.as_posix()}/") for loc in given} == {
        "scenario_1",
        *kept,
        "data/empty_scenarios.json",
        "data/login_scenarios.yaml[0]",
    }


def test_a_looping_link_is_one_bad_entry_not_a_lost_folder(tmp_path: Path) -> None:
    """``x -> x`` made the whole folder unlistable: every scenario in it, or every run next to
    it in ``trajectories/``, was lost (robustness audit 9)."""
    write(tmp_path / "scenario_1" / "groundtruth.json", '{"a": 1}')
    write(tmp_path / "scenario_1" / "trajectories" / "r.json", '{"run_id": "r", "answer": "{}"}')
    (tmp_path / "x").symlink_to("x")
    (tmp_path / "scenario_1" / "trajectories" / "loop.json").symlink_to("loop.json")
    result = plan([tmp_path], root=tmp_path)
    assert [(run.scenario.id, run.trajectory.run_id) for run in result.runs] == [("1", "r")]
    assert [e["source"] for e in result.errors] == ["scenario_1/trajectories/loop.json"]


def test_a_link_from_trajectories_back_to_its_scenario_is_not_followed(tmp_path: Path) -> None:
    """``trajectories/up -> ..`` read the scenario's own gold as a trajectory, a spurious
    ``not a trajectory record`` error (robustness audit 9)."""
    write(tmp_path / "scenario_1" / "groundtruth.json", '{"a": 1}')
    write(tmp_path / "scenario_1" / "trajectories" / "r.json", '{"run_id": "r", "answer": "{}"}')
    (tmp_path / "scenario_1" / "trajectories" / "up").symlink_to("..")
    (tmp_path / "scenario_1" / "trajectories" / "top").symlink_to("../..")  # the siblings too
    write(tmp_path / "scenario_2" / "groundtruth.json", '{"b": 1}')
    result = plan([tmp_path], root=tmp_path)
    assert [(run.scenario.id, run.trajectory.run_id) for run in result.runs] == [("1", "r")]
    assert result.errors == ()


def test_file_names_differing_only_in_case_are_all_read(tmp_path: Path) -> None:
    """``Run.json`` and ``run.json`` kept one run and dropped the other without a word;
    ``groundtruth.json`` next to ``GroundTruth.json`` silently used one (audit 9)."""
    write(tmp_path / "scenario_a" / "groundtruth.json", '{"a": 1}')
    write(tmp_path / "scenario_a" / "trajectories" / "Run.json", '{"run_id": "upper", "answer": 1}')
    write(tmp_path / "scenario_a" / "trajectories" / "run.json", '{"run_id": "lower", "answer": 2}')
    write(tmp_path / "scenario_a" / "Trajectory.json", '{"run_id": "t1", "answer": 1}')
    write(tmp_path / "scenario_a" / "trajectory.json", '{"run_id": "t2", "answer": 1}')
    write(tmp_path / "scenario_c" / "groundtruth.json", '{"a": 1}')
    write(tmp_path / "scenario_c" / "GroundTruth.json", '{"a": 2}')
    result = plan([tmp_path], root=tmp_path)
    assert sorted(run.trajectory.run_id for run in result.runs) == ["lower", "t1", "t2", "upper"]
    broken = by_id(list(result.unmatched_scenarios))["c"]
    assert broken.error == "several gold files: GroundTruth.json, groundtruth.json (keep one)"
    write(tmp_path / "scenario_a" / "Question.txt", "upper")
    write(tmp_path / "scenario_a" / "question.txt", "lower")
    (asked,) = [s for s in discover_scenarios([tmp_path]) if s.id == "a"]
    assert asked.error == "several question files: Question.txt, question.txt (keep one)"


def test_folders_without_gold_are_reported_not_dropped(tmp_path: Path) -> None:
    write(tmp_path / "scenario_4" / "question.txt", "Find the work order.")
    (tmp_path / "scenario_5").mkdir()
    found = by_id(discover_scenarios([tmp_path]))
    assert found["4"].question == "Find the work order."
    assert found["4"].error == "no groundtruth.* in folder"
    assert found["5"].error == "no groundtruth.* in folder"


def test_where_scenarios_are_inferred_only_a_folder_of_tests_is_left_alone(
    tmp_path: Path,
) -> None:
    write(tmp_path / "scenario_login" / "test_login.py", "def test_login(): pass\n")
    write(tmp_path / "scenario_3" / "test_3.py", "def test_3(): pass\n")  # tests, and a run:
    write(tmp_path / "scenario_3" / "trajectory.json", "{}")
    write(tmp_path / "scenario_4" / "question.txt", "Find the work order.")
    write(tmp_path / "scenario_6" / "turns" / "01" / "groundtruth.txt", "1")
    write(tmp_path / "scenario_8" / "groundtruth.jsn", "{}")  # misnamed, but runs are here
    write(tmp_path / "scenario_8" / "trajectory.json", "{}")
    write(tmp_path / "venv" / "scenario_5" / "groundtruth.txt", "5")
    inferred = by_id(
        discover_scenarios([tmp_path], inferred=lambda path: True, skip_folders=["venv"])
    )
    assert sorted(inferred) == ["3", "4", "6/turns/01", "8"]  # broken ones still reported
    assert inferred["3"].error == "no groundtruth.* in folder"
    assert inferred["8"].error == (  # the near miss is named (review newuser16)
        "no groundtruth.* in folder (groundtruth.jsn: a gold file is named groundtruth.json, "
        "groundtruth.yaml, groundtruth.yml, groundtruth.txt)"
    )
    given = by_id(discover_scenarios([tmp_path]))  # asked for: the folder of tests is broken
    assert sorted(given) == ["3", "4", "5", "6/turns/01", "8", "login"]
    assert (given["login"].error, given["login"].holds_python) == (
        "no groundtruth.* in folder",
        True,
    )


def test_looks_like_scenario_wants_gold_runs_or_a_config_naming_gold(tmp_path: Path) -> None:
    write(tmp_path / "a" / "question.txt", "q")
    write(tmp_path / "a" / "scenario.yaml", "planner: settings\n")
    assert not looks_like_scenario(tmp_path / "a")
    write(tmp_path / "b" / "scenario.yaml", "expected_answer: 3\n")
    assert looks_like_scenario(tmp_path / "b")
    write(tmp_path / "c" / "turns" / "01" / "trajectory_1.jsonl", "")
    assert not looks_like_scenario(tmp_path / "c", depth=1)
    assert looks_like_scenario(tmp_path / "c", depth=2)
    (tmp_path / "d" / "traces").mkdir(parents=True)  # discovery reads trajectories/ only
    assert not looks_like_scenario(tmp_path / "d")
    (tmp_path / "d" / "Trajectories").mkdir()  # (in any case: portability33 #5)
    assert looks_like_scenario(tmp_path / "d")


def test_scenario_yaml_settings_and_schema_file(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_1"
    write(folder / "groundtruth.txt", '{"a": 1}')
    write(folder / "schema.json", '{"type": "object"}')
    write(
        folder / "scenario.yaml",
        "mode: schema\noptions: {numeric_tolerance: 0.1}\nthreshold: 0.75\n"
        "schema: schema.json\ntype: lookup\nunknown_key: [1, 2]\n",
    )
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None
    assert scenario.scorer == "schema"
    assert scenario.options == {"numeric_tolerance": 0.1}
    assert scenario.threshold == 0.75
    assert scenario.schema == {"type": "object"}
    assert scenario.type == "lookup"
    assert str(folder / "schema.json") in scenario.files


def test_a_schema_under_options_is_the_folders_file_and_one_place_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """equiv31 #1: ``options: {schema: schema.json}`` reached the scorer as a path of the
    current folder (a project-level ``schema.json`` scored the scenario in silence), and a
    schema or threshold given both there and at the top level lost one without a word."""
    folder = tmp_path / "scenario_1"
    write(folder / "groundtruth.txt", '{"a": 1}')
    write(folder / "schema.json", '{"type": "object"}')
    write(folder / "scenario.yaml", "mode: schema\noptions: {schema: schema.json}\n")
    write(tmp_path / "schema.json", '{"type": "array"}')  # the current folder's: not it
    monkeypatch.chdir(tmp_path)
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None
    assert scenario.schema == {"type": "object"}
    assert "schema" not in scenario.options
    for key, value in (("schema", "schema.json"), ("threshold", "0.5")):
        write(
            folder / "scenario.yaml", f"mode: schema\n{key}: {value}\noptions: {{{key}: {value}}}\n"
        )
        (scenario,) = discover_scenarios([tmp_path])
        assert scenario.error == (
            f"scenario config: {key} is given at the top level and under options (keep one)"
        )


def test_assetopsbench_scenario_json(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_SGT-001"
    write(folder / "groundtruth.txt", '{"must_include": ["T-011"]}')
    write(
        folder / "scenario.json",
        json.dumps(
            {
                "id": "SGT-001",
                "type": "IoT",
                "text": "List all sensors.",
                "category": "Asset Discovery",
                "characteristic_form": "The answer should ...",
                "ground_truth": {"must_include": ["T-011"]},
                "expected_tools": ["iot.list_sensors"],
            }
        ),
    )
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None
    assert (scenario.id, scenario.type, scenario.scorer) == ("SGT-001", "IoT", None)
    assert scenario.question == "List all sensors."  # "text" when there is no question.txt
    assert scenario.gold == '{"must_include": ["T-011"]}'  # the groundtruth file wins


def test_config_ground_truth_is_gold_when_no_file(tmp_path: Path) -> None:
    write(tmp_path / "scenario_1" / "scenario.json", '{"ground_truth": {"a": 1}}')
    write(tmp_path / "scenario_2" / "scenario.yaml", "expected_answer: '34'\n")
    found = by_id(discover_scenarios([tmp_path]))
    assert found["1"].gold == {"a": 1}
    assert found["2"].gold == "34"
    assert found["1"].error is None
    assert found["2"].error is None


def test_a_gold_file_and_a_config_gold_must_agree(tmp_path: Path) -> None:
    """AssetOpsBench folders hold the gold twice (``groundtruth.txt`` and ``scenario.json``'s
    ``ground_truth``): alike, the file is the gold; an edit to one only is an error, never
    ignored (realdata24 #5)."""
    same = {"ground_truth": {"must_include": ["a", "b"]}}
    write(tmp_path / "scenario_1" / "groundtruth.txt", '{\n  "must_include": ["a", "b"]\n}\n')
    write(tmp_path / "scenario_1" / "scenario.json", json.dumps(same))
    write(tmp_path / "scenario_2" / "groundtruth.txt", "Chiller 6\n")
    write(tmp_path / "scenario_2" / "scenario.yaml", "expected_answer: ' Chiller 6'\n")
    write(tmp_path / "scenario_3" / "groundtruth.json", '{"n": 1.0}')
    write(tmp_path / "scenario_3" / "scenario.yaml", "ground_truth: {n: 1}\n")
    write(tmp_path / "scenario_4" / "groundtruth.txt", '{"must_include": ["zzz"]}')
    write(tmp_path / "scenario_4" / "scenario.json", json.dumps(same))
    write(tmp_path / "scenario_5" / "groundtruth.json", "[1, 2]")
    write(tmp_path / "scenario_5" / "scenario.yaml", "expected_answer: '[1, 2, 3]'\n")
    # the same said twice in other ways (diff24c #4): a string gold is text the scorer parses
    write(tmp_path / "scenario_6" / "groundtruth.txt", '{\r\n  "a": [1, 2]\r\n}\r\n')
    write(tmp_path / "scenario_6" / "scenario.json", json.dumps({"expected_answer": '{"a":[1,2]}'}))
    write(tmp_path / "scenario_7" / "groundtruth.txt", "34")
    write(tmp_path / "scenario_7" / "scenario.yaml", "expected_answer: '34.0'\n")
    prose = "The pump fails.\nReplace the seal."  # a .txt file's line endings read as LF
    write(tmp_path / "scenario_8" / "groundtruth.txt", prose.replace("\n", "\r\n"))
    write(tmp_path / "scenario_8" / "scenario.json", json.dumps({"expected_answer": prose}))
    write(tmp_path / "scenario_9" / "groundtruth.txt", prose.replace("\n", "\r\n"))
    write(tmp_path / "scenario_9" / "scenario.json", json.dumps({"expected_answer": prose + "!"}))
    # YAML reads an unquoted 02134 as the number 2134: the two look alike (goldyaml35 8)
    write(tmp_path / "scenario_10" / "groundtruth.txt", '{"zip": "02134", "country": "NO"}')
    write(
        tmp_path / "scenario_10" / "scenario.yaml", "ground_truth:\n  zip: 02134\n  country: NO\n"
    )
    found = by_id(discover_scenarios([tmp_path]))
    assert [found[n].error for n in "123678"] == [None] * 6
    assert found["8"].gold == prose
    assert found["1"].gold == '{\n  "must_include": ["a", "b"]\n}'  # the file, as it was
    # each names the first place the two differ, and what each says there
    assert {n: found[n].error for n in ("4", "5", "9", "10")} == {
        "4": "groundtruth.txt and the config's ground_truth disagree "
        '(answer.must_include[0]: "zzz" vs "a"): keep one',
        "5": "groundtruth.json and the config's expected_answer disagree "
        "(answer[2]: nothing vs 3): keep one",
        "9": "groundtruth.txt and the config's expected_answer disagree "
        '(answer: "The pump fails.\\nReplace the seal." vs '
        '"The pump fails.\\nReplace the seal.!"): keep one',
        "10": "groundtruth.txt and the config's ground_truth disagree "
        '(answer.zip: "02134" vs 2134): keep one',
    }


_LAUGHS = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f"), ("f", "g")]


@pytest.mark.parametrize("config", ["", "  \n", "# no settings yet\n"])
def test_an_empty_scenario_yaml_holds_no_settings(tmp_path: Path, config: str) -> None:
    """Review messages29 #10: the file is optional, yet empty it was "file is empty" and with
    only a comment "must be a mapping, got NoneType"; a JSON null is still refused."""
    write(tmp_path / "scenario_1" / "groundtruth.txt", "1")
    write(tmp_path / "scenario_1" / "scenario.yaml", config)
    write(tmp_path / "scenario_2" / "groundtruth.txt", "2")
    write(tmp_path / "scenario_2" / "scenario.json", "null")
    found = by_id(discover_scenarios([tmp_path]))
    assert (found["1"].error, found["1"].scorer, found["1"].threshold) == (None, None, None)
    assert found["2"].error == "scenario.json: must be a mapping, got NoneType"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (  # one line (PyYAML's own text spans several, with a caret)
            {"groundtruth.txt": "1", "scenario.yaml": "mode: [unclosed"},
            "scenario.yaml: invalid YAML: while parsing a flow sequence: expected ',' or ']', "
            "but got '<stream end>' (line 1, column 16)",
        ),
        ({"groundtruth.yaml": "a: " + "9" * 5000}, "invalid YAML: an integer of more than"),
        ({"groundtruth.txt": "1", "scenario.yaml": "- a list"}, "must be a mapping"),
        ({"groundtruth.json": '{"a": '}, "groundtruth.json: invalid JSON"),
        ({"groundtruth.json": "[" * 5000 + "]" * 5000}, "nested too deeply"),
        ({"groundtruth.json": "[" + "9" * 5000 + "]"}, "invalid JSON: an integer of more than"),
        ({"groundtruth.txt": b"\xff\xfe\x00bad"}, "groundtruth.txt"),
        ({"groundtruth.txt": "   \n"}, "file is empty"),
        ({"groundtruth.txt": "1", "groundtruth.json": "1"}, "several gold files"),
        (
            {"groundtruth.txt": "1", "scenario.yaml": "a: 1", "scenario.json": "{}"},
            "several config",
        ),
        ({"groundtruth.txt": "1", "scenario.yaml": "scorer: strict\nmode: schema"}, "disagree"),
        ({"groundtruth.txt": "1", "scenario.yaml": "threshold: high"}, "threshold must be"),
        ({"groundtruth.txt": "1", "scenario.yaml": "options: [1]"}, "options must be"),
        (
            {"groundtruth.txt": "1", "scenario.yaml": "schema: missing.json"},
            "schema missing.json: No such file or directory",
        ),
        ({"groundtruth.txt": "1", "scenario.yaml": "scorer: 5"}, "scorer must be"),
        ({"groundtruth.txt": "1", "scenario.yaml": "type: {a: 1}"}, "type must be"),
        ({"groundtruth.txt": "1", "scenario.yaml": "question: [1]"}, "question must be a string"),
        (
            {"groundtruth.txt": "x" * 200, "scenario.yaml": "options: {max_bytes: 100}"},
            "over the 100 byte limit",
        ),
        (
            {
                "groundtruth.yaml": "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in _LAUGHS)
            },
            "YAML aliases expand to over 1,000,000 values (line 2: *a)",
        ),
        ({"groundtruth.yaml": "a: &a [1, *a]\n"}, "invalid YAML: nested too deeply (line 1: *a)"),
        (
            {"groundtruth.txt": "1", "scenario.yaml": "schema: s.yaml", "s.yaml": "/etc/passwd"},
            "schema s.yaml: expected a mapping (a JSON Schema object), got str",
        ),
    ],
)
def test_broken_folder_sets_error_and_others_continue(
    tmp_path: Path, files: dict[str, str | bytes], message: str
) -> None:
    for name, text in files.items():
        write(tmp_path / "scenario_1" / name, text)
    write(tmp_path / "scenario_2" / "groundtruth.txt", "2")
    found = by_id(discover_scenarios([tmp_path]))
    assert found["1"].error is not None
    assert message in found["1"].error
    assert found["2"].error is None
    assert found["2"].gold == "2"


def test_yaml_gold_keeps_dates_as_text(tmp_path: Path) -> None:
    write(
        tmp_path / "scenario_1" / "groundtruth.yaml", "start: 2020-06-01\nat: 2020-06-01 10:00:00\n"
    )
    (scenario,) = discover_scenarios([tmp_path])
    # as written: YAML 1.1 built a date-time whose ISO text ("...T10:00:00") differed (review 15)
    assert scenario.gold == {"start": "2020-06-01", "at": "2020-06-01 10:00:00"}


def test_yaml_aliases_and_merge_keys_are_copied_out_in_file_order(tmp_path: Path) -> None:
    """An anchor shared by several scenarios (``<<: *defaults``) is ordinary YAML; it was
    refused, and one alias lost a whole scenario file (robustness audit 9)."""
    write(
        tmp_path / "scenarios.yaml",
        "- &first {id: a, scorer: similarity, options: &opts {numeric_tolerance: 0.1},\n"
        "          expected_answer: {z: 1, y: [2, 3]}}\n"
        "- {<<: *first, id: b, expected_answer: 2, scorer: strict}\n"
        "- {id: c, expected_answer: 3, options: *opts}\n",
    )
    a, b, c = discover_scenarios([tmp_path / "scenarios.yaml"])
    assert (a.id, a.scorer, dict(a.options)) == ("a", "similarity", {"numeric_tolerance": 0.1})
    assert list(a.gold) == ["z", "y"]
    assert (b.id, b.scorer, b.gold, dict(b.options)) == ("b", "strict", 2, dict(a.options))
    assert (c.id, c.gold, dict(c.options), c.error) == ("c", 3, dict(a.options), None)


def test_bad_scan_paths_are_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        discover_scenarios([tmp_path / "missing"])
    with pytest.raises(NotADirectoryError, match="neither a folder nor a scenario file"):
        discover_scenarios([write(tmp_path / "groundtruth.txt", "x")])
    # a folder above the path denies access (root never sees it: stat is made to refuse)
    locked = write(tmp_path / "locked" / "scenario_1" / "groundtruth.txt", "1").parent
    stat = Path.stat

    def refusing(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.name in ("scenario_1", "runs.json"):
            raise PermissionError(13, "Permission denied", str(self))
        return stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", refusing)
    with pytest.raises(OSError, match=r"^scenario path cannot be reached: .*scenario_1 \("):
        discover_scenarios([locked])
    with pytest.raises(OSError, match=r"^trajectory path cannot be reached: .*runs.json \("):
        load_trajectories([tmp_path / "runs.json"])


def test_hidden_and_trajectory_folders_are_not_scenarios(tmp_path: Path) -> None:
    write(tmp_path / ".cache" / "scenario_9" / "groundtruth.txt", "9")
    write(tmp_path / "scenario_1" / "groundtruth.txt", "1")
    write(tmp_path / "scenario_1" / "trajectories" / "groundtruth.txt", "not a nested scenario")
    assert [s.id for s in discover_scenarios([tmp_path])] == ["1"]


def test_a_trajectories_folder_is_read_in_any_case(tmp_path: Path) -> None:
    """``Trajectories/`` (as Finder or Explorer may name it) is read as ``trajectories/`` is,
    as the files beside it are matched in any case; it was neither read nor named as unread,
    so its runs went missing with a weak signal (review portability33 #5)."""
    write(tmp_path / "Scenario_3" / "groundtruth.json", '{"a": 1}')
    traj(tmp_path / "Scenario_3" / "Trajectories" / "x.json", run_id="x", answer={"a": 1})
    write(tmp_path / "Scenario_3" / "Trajectories" / "t" / "groundtruth.txt", "not a scenario")
    write(tmp_path / "scenario_4" / "groundtruth.txt", "2")
    write(tmp_path / "scenario_4" / "TRAJECTORIES" / "y.jsonl", '{"run_id": "y", "answer": 2}\n')
    result = plan([tmp_path], root=tmp_path)
    assert [(run.scenario.id, run.trajectory.location) for run in result.runs] == [
        ("3", "Scenario_3/Trajectories/x.json"),
        ("4", "scenario_4/TRAJECTORIES/y.jsonl:1"),
    ]
    assert (result.unmatched_scenarios, result.unmatched_trajectories) == ((), ())
    assert [(s.id, s.unread) for s in discover_scenarios([tmp_path], root=tmp_path)] == [
        ("3", ()),
        ("4", ()),
    ]
    (tmp_path / "held" / "Trajectories").mkdir(parents=True)
    assert looks_like_scenario(tmp_path / "held")


def test_root_keyword_makes_paths_relative(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "data" / "scenario_1" / "groundtruth.txt", "1")
    traj(tmp_path / "data" / "scenario_1" / "trajectory.json", run_id="r1", answer="1")
    traj(tmp_path / "runs" / "r2.json", run_id="r2", scenario_id="1", answer="1")
    monkeypatch.chdir(tmp_path / "runs")  # cwd differs from the root, as on an xdist worker
    result = plan(["data"], ["runs"], root=tmp_path)
    assert [r.scenario.path for r in result.runs] == ["data/scenario_1"] * 2
    assert [r.trajectory.source for r in result.runs] == [
        "data/scenario_1/trajectory.json",
        "runs/r2.json",
    ]
    outside = plan([tmp_path / "data"], root=tmp_path / "runs")
    assert outside.runs[0].scenario.path == (tmp_path / "data" / "scenario_1").as_posix()


# --------------------------------------------------------------------------- trajectories


def test_loads_json_and_jsonl_recursively_with_line_errors(tmp_path: Path) -> None:
    traj(tmp_path / "b" / "2.json", run_id="r2", scenario_id="2", answer="x")
    traj(tmp_path / "10.json", run_id="r10", scenario_id="10", answer="y")
    write(
        tmp_path / "a" / "runs.jsonl",
        '{"run_id": "l1", "scenario_id": "1", "answer": 1}\n\n{bad json}\n'
        '{"run_id": "l4", "scenario_id": "1", "answer": null}\r\n',
    )
    write(tmp_path / "notes.txt", "ignored: not json")
    loaded = load_trajectories([tmp_path])
    assert [t.location for t in loaded] == [
        str(tmp_path / "10.json"),
        f"{tmp_path / 'a' / 'runs.jsonl'}:1",
        f"{tmp_path / 'a' / 'runs.jsonl'}:3",
        f"{tmp_path / 'a' / 'runs.jsonl'}:4",
        str(tmp_path / "b" / "2.json"),
    ]
    assert loaded[2].error is not None
    assert "invalid JSON" in loaded[2].error
    assert [t.error for t in loaded if t is not loaded[2]] == [None] * 4
    assert loaded[1].answer == 1
    assert loaded[3].answer is None


def test_record_fields_defaults_and_types(tmp_path: Path) -> None:
    traj(
        tmp_path / "t.json",
        run_id=7,
        answer={"a": [1, 2]},
        judge={"score": 1},
        source={"repo": "x"},
    )
    (loaded,) = load_trajectories([tmp_path / "t.json"])
    assert loaded.error is None
    assert (loaded.run_id, loaded.scenario_id, loaded.runner, loaded.model) == ("7", None, "", "")
    assert loaded.answer == {"a": [1, 2]}
    assert loaded.trajectory is None
    assert loaded.unscorable is None


def test_a_record_without_an_answer_is_a_run_that_cannot_be_scored(tmp_path: Path) -> None:
    """A runner writing ``output`` instead of ``answer`` had its run scored as the answer
    ``null``, counted a structured parse (newuser25 #5): it is an error record now, which
    names the keys the record has; ``"answer": null`` stays the answer null."""
    write(tmp_path / "runs.jsonl", '{"run_id": "x", "scenario_id": "1", "output": "34"}\n'
          '{"run_id": "y", "scenario_id": "1", "answer": null}\n')  # fmt: skip
    missing, null = load_trajectories([tmp_path / "runs.jsonl"])
    assert missing.error is None
    assert missing.unscorable == "no 'answer' field (its keys: run_id, scenario_id, output)"
    assert null.unscorable is None
    write(tmp_path / "cased.json", '{"run_id": "z", "Answer": "34"}')  # (review messages29)
    (cased,) = load_trajectories([tmp_path / "cased.json"])
    assert cased.unscorable == (
        "no 'answer' field ('Answer' is not it, keys are exact; its keys: run_id, Answer)"
    )
    result = join([scenario("1", gold="34")], [missing, null])
    assert [run.label for run in result.runs] == ["x", "y"]
    records = [score_run(run.scenario, run.trajectory) for run in result.runs]
    assert records[0].error == f"trajectory {missing.location}: {missing.unscorable}"
    assert missing.location.endswith("runs.jsonl:1")
    assert (records[1].error, records[1].score) == (None, 0.0)


def test_a_jsonl_file_with_lone_cr_line_endings_is_split_on_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Classic Mac line endings read as one line, ``Extra data`` (review portability33 #7): a
    CR ends a line too (it never stands raw inside a JSON string), while U+2028 and the other
    separators ``str.splitlines`` would split on stay inside their string."""
    records = [
        {"run_id": f"r{i}", "scenario_id": "1", "answer": f"a\u2028b\x85{i}"} for i in (1, 2)
    ]
    text = "\r".join(json.dumps(r, ensure_ascii=False) for r in records) + "\r\r"
    loaded = load_trajectories([write(tmp_path / "runs.jsonl", text)])
    assert [(t.line, t.run_id, t.answer, t.error) for t in loaded] == [
        (1, "r1", "a\u2028b\x851", None),
        (2, "r2", "a\u2028b\x852", None),
    ]
    entries = '{"id": "1", "expected_answer": "x"}\r{"id": "2", "expected_answer": "y"}\r'
    found = discover_scenarios([write(tmp_path / "all_scenarios.jsonl", entries)])
    assert [(s.id, s.gold, s.error) for s in found] == [("1", "x", None), ("2", "y", None)]
    # a file read a line at a time: a line holding a NUL says what the file likely is
    monkeypatch.setattr(scenarios_module, "MAX_TRAJECTORY_BYTES", 60)
    wide = write(tmp_path / "big.jsonl", '{"run_id": "r", "answer": 1}' + "\n" * 40)
    wide.write_bytes(wide.read_bytes() + '{"run_id": "w"}'.encode("utf-16-le"))
    assert [(t.line, t.run_id, t.error) for t in load_trajectories([wide])] == [
        (1, "r", None),
        (
            41,
            "",
            "a NUL byte: the line looks like UTF-16 without a byte-order mark (or is not "
            "text): save it as UTF-8",
        ),
    ]


def test_a_text_answer_reads_its_line_endings_as_lf(tmp_path: Path) -> None:
    """A Windows agent's answer (CRLF, or a lone CR) matches a ``groundtruth.txt``, whose line
    endings read as LF wherever it was written (review portability33 #3)."""
    write(tmp_path / "scenario_1" / "groundtruth.txt", "The pump tripped.\r\nNew seal.\r\n")
    answers = {"win": "The pump tripped.\r\nNew seal.", "mac": "The pump tripped.\rNew seal."}
    answers["unix"] = "The pump tripped.\nNew seal."
    lines = [json.dumps({"run_id": k, "scenario_id": "1", "answer": v}) for k, v in answers.items()]
    write(tmp_path / "runs.jsonl", "\n".join(lines) + "\n")
    traj(tmp_path / "one.json", run_id="one", scenario_id="1", answer=answers["win"])
    traj(tmp_path / "data.json", run_id="data", scenario_id="1", answer={"a": "x\r\ny"})
    loaded = load_trajectories([tmp_path / "runs.jsonl", tmp_path / "one.json"])
    assert [t.answer for t in loaded] == ["The pump tripped.\nNew seal."] * 4
    result = join(discover_scenarios([tmp_path / "scenario_1"]), loaded)
    records = [score_run(run.scenario, run.trajectory) for run in result.runs]
    assert [(r.run_id, r.score) for r in records] == [(k, 1.0) for k in [*answers, "one"]]
    (data,) = load_trajectories([tmp_path / "data.json"])
    assert data.answer == {"a": "x\r\ny"}  # (a parsed value is left as it is)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1]", "a list of 1 item, none a trajectory record"),
        ('[{"role": "user"}, {"role": "assistant"}]', "a list of 2 items, none a trajectory"),
        ("7", "expected a JSON object, got int"),
        ('{"name": "not a trajectory"}', "not a trajectory record"),
        ('{"run_id": ["x"], "answer": "a"}', "run_id must be a string"),
        ('{"scenario_id": true, "answer": "a"}', "scenario_id must be a string"),
        ("{", "invalid JSON"),
        ("[" * 100_000, "invalid JSON"),
    ],
)
def test_bad_trajectory_files_become_error_entries(
    tmp_path: Path, content: str, message: str
) -> None:
    (loaded,) = load_trajectories([write(tmp_path / "t.json", content)])
    assert loaded.error is not None
    assert message in loaded.error


def test_a_json_file_holding_a_list_of_runs_is_read_like_jsonl(tmp_path: Path) -> None:
    """Runners that dump every run into one ``.json`` list were refused ("expected a JSON
    object, got list"); each element is one run now, located as ``file[index]``."""
    runs = [
        {"run_id": "a", "scenario_id": "1", "answer": "1"},
        {"scenario_id": "1", "answer": "2"},
        {"run_id": ["bad"], "answer": "3"},
    ]
    write(tmp_path / "scenario_1" / "groundtruth.txt", "1")
    write(tmp_path / "runs" / "all.json", json.dumps(runs))
    result = plan([tmp_path / "scenario_1"], [tmp_path / "runs"], root=tmp_path)
    assert [(r.label, r.trajectory.location) for r in result.runs] == [
        ("a", "runs/all.json[0]"),
        ("all-1", "runs/all.json[1]"),
    ]
    assert result.errors == (
        {"source": "runs/all.json[2]", "error": "run_id must be a string or a number, got list"},
    )


def test_a_jsonl_file_over_the_file_limit_is_read_a_line_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A JSONL file over MAX_TRAJECTORY_BYTES lost every run (200,000 real trajectories are
    about 2 GB: scale26 #2); each line is held to the limit instead, and a JSON file still
    is refused whole."""
    monkeypatch.setattr(scenarios_module, "MAX_TRAJECTORY_BYTES", 200)
    lines = [
        json.dumps({"run_id": f"r{i}", "scenario_id": "1", "answer": str(i)}) for i in range(9)
    ]
    lines[4] = json.dumps({"run_id": "big", "answer": "x" * 300})  # one line over the limit
    lines[6] = ""
    data = "\ufeff" + "\r\n".join(lines) + "\n"
    path = write(tmp_path / "runs" / "all.jsonl", data)
    assert path.stat().st_size > 200
    with path.open("ab") as file:
        file.write(b'{"run_id": "bad\xff", "answer": "1"}\n')
    loaded = load_trajectories([path])
    assert [(t.line, t.run_id, t.error) for t in loaded] == [
        (1, "r0", None),
        (2, "r1", None),
        (3, "r2", None),
        (4, "r3", None),
        (5, "", "line over the 200 byte limit"),
        (6, "r5", None),
        (8, "r7", None),
        (9, "r8", None),
        (10, "", "invalid UTF-8: invalid start byte at byte 15"),
    ]
    record = json.dumps({"run_id": "r", "answer": "1"})  # 30 bytes
    exact = record + " " * (200 - len(record))  # at the limit, with its CRLF beside it
    big = "\ufeff" + json.dumps({"run_id": "big", "answer": "x" * 300}) + "\r\n"
    crlf = write(tmp_path / "runs" / "crlf.jsonl", big + (exact + "\r\n") * 2)
    assert [(t.line, t.run_id, t.error) for t in load_trajectories([crlf])] == [
        (1, "", "line over the 200 byte limit"),  # a BOM before it does not cut it (diff26b #1)
        (2, "r", None),
        (3, "r", None),
    ]
    (whole,) = load_trajectories([write(tmp_path / "all.json", json.dumps(lines))])
    assert str(whole.error).startswith("cannot read trajectory file: ")
    assert "over the 200 byte limit" in str(whole.error)


def test_a_trajectory_file_reached_twice_is_read_once(tmp_path: Path) -> None:
    """``--trajectories tr tr``, ``tr tr/sub`` or ``tr tr/../tr/a.json`` counted each run of
    the overlap twice: doubled tokens, cost and repeats (ops26 #1)."""
    a = traj(tmp_path / "tr" / "a.json", run_id="a", answer="1")
    traj(tmp_path / "tr" / "sub" / "b.json", run_id="b", answer="1")
    (tmp_path / "tr" / "link.json").symlink_to(a)
    for paths in (
        [tmp_path / "tr", tmp_path / "tr"],
        [tmp_path / "tr", tmp_path / "tr" / "sub"],
        [tmp_path / "tr", tmp_path / "tr" / ".." / "tr" / "a.json"],
    ):
        assert sorted(t.run_id for t in load_trajectories(paths)) == ["a", "b"]
    own = traj(tmp_path / "scenario_1" / "trajectory.json", run_id="own", answer="1")
    os.link(own, tmp_path / "tr" / "hard.json")  # a scenario's own file, hard-linked (diff26e #2)
    loaded = load_trajectories([tmp_path / "tr"], exclude=[str(own)])
    assert sorted(t.run_id for t in loaded) == ["a", "b"]


def test_a_trajectory_folder_holding_no_json_file_is_a_load_error(tmp_path: Path) -> None:
    """Review messages29 #3: a wrong folder, or runs saved as ``.txt``, was passed over without a
    word beside other runs (the same ``.txt`` given as a file is a load error). A folder whose
    files are all the scenarios' own, or read through another path, is no error."""
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    (tmp_path / "txt").mkdir()
    (tmp_path / "txt" / "r.txt").write_text('{"run_id": "r", "answer": "1"}', encoding="utf-8")
    own = traj(tmp_path / "scenario_1" / "trajectory.json", run_id="own", answer="1")
    loaded = load_trajectories(
        [tmp_path / "empty", tmp_path / "txt", tmp_path / "scenario_1", tmp_path / "scenario_1"],
        exclude=[str(own)],
        root=tmp_path,
    )
    assert [(t.source, t.error) for t in loaded] == [
        ("empty", "no .json or .jsonl file in this folder"),
        ("txt", "no .json or .jsonl file in this folder"),
    ]


def test_a_broken_link_reached_twice_is_one_error_and_files_without_inodes_are_all_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scenario's own broken trajectory link, reached again through another spelling, is
    one error (diff26f #3); where the file system gives no inode (0), files are told apart
    by their real paths, not all taken for one (#4)."""
    (tmp_path / "scenario_1").mkdir()
    own = tmp_path / "scenario_1" / "trajectory.json"
    own.symlink_to(tmp_path / "gone.json")
    (tmp_path / "tr").mkdir()
    (tmp_path / "tr" / "again.json").symlink_to(own)
    assert load_trajectories([tmp_path / "tr"], exclude=[str(own)]) == []
    traj(tmp_path / "runs" / "a.json", run_id="a", answer="1")
    traj(tmp_path / "runs" / "b.json", run_id="b", answer="1")
    stat = os.stat

    def no_inode(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        info = stat(path, *args, **kwargs)
        return os.stat_result((info.st_mode, 0, *tuple(info)[2:]))

    (broken,) = load_trajectories([tmp_path / "tr"], exclude=["x\0y.json"])  # no crash (diff26g #4)
    assert str(broken.error).startswith("cannot read trajectory file")
    (tmp_path / "tr" / "other.json").symlink_to(tmp_path / "gone.json")  # another link to it:
    errors = load_trajectories([tmp_path / "tr"])  # each is named (diff26h #1)
    assert sorted(Path(str(t.source)).name for t in errors) == ["again.json", "other.json"]
    with pytest.raises(OSError, match="trajectory path holds a NUL character"):
        load_trajectories(["t\0r"])  # an ini key can hold one: a usage error, no crash
    monkeypatch.setattr(os, "stat", no_inode)
    assert sorted(t.run_id for t in load_trajectories([tmp_path / "runs"])) == ["a", "b"]


def test_a_nul_in_a_configs_trajectories_is_the_scenarios_error(tmp_path: Path) -> None:
    """``os.stat`` raises ValueError for a NUL, which crashed plan (diff26g #4)."""
    write(tmp_path / "scenario_1" / "groundtruth.txt", "1")
    write(tmp_path / "scenario_1" / "scenario.json", '{"trajectories": "a\\u0000b.json"}')
    (found,) = plan([tmp_path]).unmatched_scenarios
    assert "trajectories a\x00b.json: " in str(found.error)


def test_explicit_non_json_file_is_an_error_and_missing_path_raises(tmp_path: Path) -> None:
    (loaded,) = load_trajectories([write(tmp_path / "t.txt", "{}")])
    assert loaded.error == "not a .json or .jsonl file"
    with pytest.raises(FileNotFoundError):
        load_trajectories([tmp_path / "missing"])


def test_dangling_links_are_reported_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "gone.json").symlink_to(tmp_path / "missing.json")
    (loaded,) = load_trajectories([tmp_path / "runs"])
    assert loaded.error is not None
    assert loaded.error.startswith("cannot read trajectory file")
    (tmp_path / "scenario_1").mkdir()
    (tmp_path / "scenario_1" / "groundtruth.txt").symlink_to(tmp_path / "missing.txt")
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is not None
    assert scenario.error.startswith("groundtruth.txt:")


def test_exclude_skips_files(tmp_path: Path) -> None:
    keep = traj(tmp_path / "a.json", run_id="a", answer="1")
    skip = traj(tmp_path / "b.json", run_id="b", answer="1")
    assert [t.source for t in load_trajectories([tmp_path], exclude=[str(skip)])] == [str(keep)]


def test_folder_trajectories_default_to_the_folder_id(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_3"
    write(folder / "groundtruth.txt", "3")
    traj(folder / "trajectory.json", run_id="in-folder", answer="3")
    traj(folder / "trajectories" / "deep" / "x.json", run_id="sub", answer="3")
    write(folder / "trajectories" / "more.jsonl", '{"run_id": "other", "scenario_id": "9"}\n')
    (scenario,) = discover_scenarios([tmp_path])
    loaded = folder_trajectories([scenario])
    assert [(t.run_id, t.scenario_id) for t in loaded] == [
        ("in-folder", "3"),
        ("sub", "3"),
        ("other", "9"),  # an explicit scenario_id is kept
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
@pytest.mark.parametrize("unrelated", [False, True])
def test_a_duplicates_runs_are_told_apart_by_the_real_files_each_lists(
    tmp_path: Path, unrelated: bool
) -> None:
    """A losing duplicate listing the used scenario's file through a linked folder failed
    the used one's right answer as its own (diff25b #3), and so did an unrelated scenario
    listing it first (diff25c #1a); a loser's own file listed by another through a link
    was scored against the used one's gold (diff25c #1b). Ownership goes by real path."""
    gold = {"a": '{"x": "a"}', "b": '{"x": "b"}', "c": '{"x": "c"}'}
    sid = {"a": "1", "b": "1", "c": "0"}
    for name in "abc":
        write(tmp_path / name / f"scenario_{sid[name]}" / "groundtruth.json", gold[name])
    traj(tmp_path / "a" / "scenario_1" / "trajectory.json", run_id="ra", scenario_id="1",
         answer={"x": "a"})  # fmt: skip
    traj(tmp_path / "b" / "scenario_1" / "trajectory.json", run_id="rb", scenario_id="1",
         answer={"x": "a"})  # b's own run: right for a's gold, not b's  # fmt: skip
    for name in "ab":
        (tmp_path / f"{name}link").symlink_to(tmp_path / name)
    a_file, b_file = (f"../../{n}link/scenario_1/trajectory.json" for n in "ab")
    write(tmp_path / "b" / "scenario_1" / "scenario.yaml", f"trajectories: [{a_file}]\n")
    if unrelated:  # found first, listing both files through the links
        write(
            tmp_path / "c" / "scenario_0" / "scenario.yaml", f"trajectories: [{a_file}, {b_file}]\n"
        )
    roots = [tmp_path / "c", tmp_path / "a", tmp_path / "b"]
    found = discover_scenarios(roots)
    result = join(found, folder_trajectories(found))
    verdicts = [
        (
            Path(r.scenario.path).parent.name,
            r.trajectory.run_id,
            score_run(r.scenario, r.trajectory).error,
        )
        for r in result.runs
    ]  # each file read once however it is spelt (diff25d #1: a link read it twice)
    duplicate = "scenario {}: duplicate scenario id '1': {} is used".format(
        tmp_path / "b" / "scenario_1", tmp_path / "a" / "scenario_1"
    )
    assert verdicts == [("a", "ra", None), ("b", "rb", duplicate)]


# --------------------------------------------------------------------------- join


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("011", "11"),
        ("scenario_011", "11"),
        ("Scenario_11", "11"),
        (" 11 ", "11"),
        ("000", "0"),
        ("SGT-001", "SGT-001"),
        ("4/turns/02", "4/turns/2"),
        ("x" + "0" * 5000 + "1", "x" + "0" * 5000 + "1"),
        ("0" * 5000 + "7", "7"),  # no int() conversion, so no digit limit
        ("١٢", "١٢"),  # only ASCII digits are numeric ids
        ("scenario_cafe\u0301", "caf\u00e9"),  # macOS folder names are decomposed (NFD)
    ],
)
def test_id_key(raw: str, key: str) -> None:
    assert id_key(raw) == key


def scenario(sid: str, path: str | None = None, **kw: Any) -> Scenario:
    return Scenario(id=sid, path=path or f"scenario_{sid}", gold=kw.pop("gold", "1"), **kw)


def trajectory(source: str, **kw: Any) -> Trajectory:
    return Trajectory(source=source, **kw)


def test_join_keys_in_order() -> None:
    scenarios = [scenario("11"), scenario("24"), scenario("34"), scenario("SGT-001")]
    trajectories = [
        trajectory("a.json", run_id="a", scenario_id="011"),  # leading zeros
        trajectory("b.json", run_id="b", scenario_id="scenario_11"),
        trajectory("34.json", run_id="24"),  # stem first (the reference's fallback)
        trajectory("direct_llm_12.json", run_id="24"),  # stem names nothing: run_id
        trajectory("c.json", run_id="c", scenario_id="SGT-1"),  # not all digits: exact
        trajectory("11.json", run_id="d", scenario_id="99"),  # explicit id is authoritative
    ]
    result = join(scenarios, trajectories)
    assert [(r.scenario.id, r.trajectory.source) for r in result.runs] == [
        ("11", "a.json"),
        ("11", "b.json"),
        ("24", "direct_llm_12.json"),
        ("34", "34.json"),
    ]
    assert [t.source for t in result.unmatched_trajectories] == ["c.json", "11.json"]
    assert [s.id for s in result.unmatched_scenarios] == ["SGT-001"]


def test_several_runs_per_scenario_get_unique_labels_and_duplicate_run_ids_are_listed() -> None:
    result = join(
        [scenario("1"), scenario("2")],
        [
            trajectory("x/a.json", run_id="r", scenario_id="1"),
            trajectory("y/a.json", run_id="r", scenario_id="1"),
            trajectory("runs.jsonl", line=3, scenario_id="1"),
            trajectory("z.json", run_id="r", scenario_id="2"),
        ],
    )
    assert [(r.scenario.id, r.label) for r in result.runs] == [
        ("1", "r"),
        ("1", "r-2"),
        ("1", "runs-3"),
        ("2", "r"),
    ]
    # One run id twice in one scenario; "r" of scenario 2 is another run (audit 9).
    assert result.duplicates == (
        {
            "kind": "run_id",
            "id": "r",
            "scenario_id": "1",
            "scenario_path": "scenario_1",
            "sources": ["x/a.json", "y/a.json"],
        },
    )


def test_one_run_id_of_two_models_is_no_duplicate() -> None:
    """Agents numbering their runs alike (``r1``) ran two runs, not one twice (peers25 #6)."""
    result = join(
        [scenario("1")],
        [
            trajectory("a.jsonl", line=1, run_id="r1", scenario_id="1", model="m1"),
            trajectory("a.jsonl", line=2, run_id="r1", scenario_id="1", model="m2"),
            trajectory("a.jsonl", line=3, run_id="r1", scenario_id="1", model="m2"),
        ],
    )
    assert [r.label for r in result.runs] == ["r1", "r1-2", "r1-3"]
    assert [d["sources"] for d in result.duplicates] == [["a.jsonl:2", "a.jsonl:3"]]


def test_an_unmatched_trajectory_names_the_nearest_scenario_id() -> None:
    """A typo in a record's scenario id (``pump`` for ``pumps``) says what it likely meant
    (newuser25 #4); an id near nothing, or a record without one, gets no guess."""
    result = join(
        [scenario("pumps"), scenario("11"), scenario("chillers")],
        [
            trajectory("a.json", run_id="a", scenario_id="pump"),
            trajectory("b.json", run_id="b", scenario_id="1"),
            trajectory("c.json", run_id="c"),
        ],
    )
    entries = result.notes()["unmatched_trajectories"]
    assert entries == [
        {"source": "a.json", "run_id": "a", "scenario_id": "pump", "near": "pumps"},
        {"source": "b.json", "run_id": "b", "scenario_id": "1"},
        {"source": "c.json", "run_id": "c", "scenario_id": None},
    ]


def test_a_run_of_a_multi_turn_parent_names_its_first_nested_scenario() -> None:
    """A multi-turn parent (``scenario_4`` above ``turns/02``) is no scenario: a run asking
    for ``4`` is unmatched, and names what the folder holds (compat26 #1)."""
    deep = "/".join(["d", *"abcdefg", "x" * 40])  # 8 folder levels above it; no fuzzy match
    assert _near_ids(["d/a/b/c/d/e/f/g"], [deep]) == {"d/a/b/c/d/e/f/g": deep}
    result = join(
        [scenario("4/turns/02"), scenario("4/turns/03"), scenario("40")],
        [
            trajectory(f"{asked}.json", run_id="p", scenario_id=asked)
            for asked in ("4", "04", "scenario_4", "4/turns")  # joined as "4" is (diff26c #3)
        ],
    )
    entries = result.notes()["unmatched_trajectories"]
    assert [e.get("near") for e in entries] == ["4/turns/02"] * 4


def test_json_files_and_runs_folders_nothing_reads_are_named(tmp_path: Path) -> None:
    """A trajectory saved under another name in a scenario folder (``gpt4.json``, a
    ``trajectory/`` or ``runs/`` folder) is named, not lost without a word (newuser25 #3);
    the files the scenario reads (config, schema, gold, trajectories) are not."""
    folder = tmp_path / "scenario_1"
    write(folder / "groundtruth.json", '{"a": 1}')
    write(folder / "scenario.yaml", "mode: schema\nschema: schema.json\n")
    write(folder / "schema.json", '{"type": "object"}')
    write(folder / "trajectory_1.json", json.dumps({"run_id": "r", "answer": "{}"}))
    write(folder / "gpt4.json", json.dumps({"run_id": "g", "answer": "{}"}))
    write(folder / "runs" / "r2.json", json.dumps({"run_id": "r2", "answer": "{}"}))
    write(folder / "notes.md", "not JSON")
    write(folder / "run" / "groundtruth.txt", "a nested scenario named run/, read as one")
    only, nested = discover_scenarios([tmp_path])
    assert (only.error, nested.id) == (None, "1/run")
    assert only.unread == (str(folder / "gpt4.json"), str(folder / "runs") + "/")
    result = join([only], [])
    assert result.notes()["unmatched_scenarios"][0]["unread"] == list(only.unread)


def test_a_run_without_run_id_is_named_by_its_label_in_its_record() -> None:
    result = join(
        [scenario("1", gold="1")],
        [
            trajectory("t/a.json", scenario_id="1", answer="1"),
            trajectory("runs.jsonl", line=2, scenario_id="1", answer="2"),
            trajectory("t/b.json", run_id="kept", scenario_id="1", answer="1"),
        ],
    )
    assert [r.run_id for r in result.runs] == ["a", "runs-2", "kept"]
    records = [score_run(r.scenario, r.trajectory, run_id=r.run_id) for r in result.runs]
    assert [record.run_id for record in records] == ["a", "runs-2", "kept"]
    assert score_run(result.runs[0].scenario, result.runs[0].trajectory).run_id == ""


def test_duplicate_scenario_ids_first_wins_and_other_is_an_error() -> None:
    first, second = scenario("11", "a/scenario_11"), scenario("011", "b/scenario_011")
    result = join([first, second], [trajectory("t.json", scenario_id="11")])
    assert [r.scenario for r in result.runs] == [first]
    assert result.duplicates == (
        {"kind": "scenario_id", "id": "11", "sources": ["a/scenario_11", "b/scenario_011"]},
    )
    assert result.errors == (
        {
            "source": "b/scenario_011",
            "error": "duplicate scenario id '011': a/scenario_11 is used",
            "scenario_id": "011",
        },
    )
    assert result.unmatched_scenarios == ()


def test_the_runs_a_losing_scenario_owns_are_its_errors_not_the_winners_runs() -> None:
    """A folder that lost a duplicate-id contest had its own trajectories scored against the
    winner's gold: a right answer scored 0, as a plain failure (hostile25 #4)."""
    first = scenario("011", "ev/scenario_011", gold='{"a": 1}', trajectory_files=("ev/a.json",))
    second = scenario("11", "ev/scenario_11", gold='{"a": 2}', trajectory_files=("ev/b.json",))
    mine = trajectory(
        "ev/b.json", run_id="r11", scenario_id="11", answer='{"a": 2}', owners=(second.path,)
    )  # (folder_trajectories names the scenarios listing its file)
    other = trajectory("runs/c.json", run_id="c", scenario_id="11", answer='{"a": 1}')
    result = join([first, second], [mine, other])
    assert [(r.scenario.path, r.label) for r in result.runs] == [
        ("ev/scenario_011", "c"),  # a trajectory from elsewhere joins the one that is used
        ("ev/scenario_11", "r11"),
    ]
    assert result.errors == ()  # its run stands for it
    record = score_run(result.runs[1].scenario, result.runs[1].trajectory)
    assert record.error == (
        "scenario ev/scenario_11: duplicate scenario id '11': ev/scenario_011 is used"
    )
    assert record.scenario_id == "11"
    # A file the first lists too (in its folder, or shared) stays its own (diff25a #1).
    shared = replace(second, trajectory_files=("ev/a.json", "ev/b.json"))
    theirs = trajectory(
        "ev/a.json", run_id="r011", scenario_id="11", answer='{"a": 1}',
        owners=(first.path, second.path),
    )  # fmt: skip
    again = join([first, shared], [theirs, mine])
    assert [(r.scenario.path, r.label) for r in again.runs] == [
        ("ev/scenario_011", "r011"),
        ("ev/scenario_11", "r11"),
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_one_file_in_two_folders_is_each_folders_run_and_never_counted_twice(
    tmp_path: Path,
) -> None:
    """Read once by identity, one file linked into two scenario folders went to neither
    (diff25e #1); listed by ``1`` and ``01``, one id, it must give one run (diff25e #3)."""
    traj(tmp_path / "runs" / "r.json", run_id="r", answer={"x": 1})
    for sid in ("1", "2"):
        write(tmp_path / "s" / f"scenario_{sid}" / "groundtruth.json", '{"x": 1}')
        (tmp_path / "s" / f"scenario_{sid}" / "trajectory.json").symlink_to(
            tmp_path / "runs" / "r.json"
        )
    found = discover_scenarios([tmp_path / "s"])
    result = join(found, folder_trajectories(found))
    assert [(r.scenario.id, Path(r.trajectory.source).parent.name) for r in result.runs] == [
        ("1", "scenario_1"),
        ("2", "scenario_2"),
    ]
    # One id's own spelling takes the record: a shared spelling of the same file no longer
    # adds a copy joined by its file name (diff25f #1: scenario 1 counted it twice).
    write(tmp_path / "e" / "more_scenarios.yaml",
          '- {id: "3", expected_answer: 3, trajectories: ../runs}\n'
          '- {id: "4", expected_answer: 4, trajectories: ../runs}\n')  # fmt: skip
    found = discover_scenarios([tmp_path / "s", tmp_path / "e"])
    result = join(found, folder_trajectories(found))
    assert [(r.scenario.id, r.trajectory.run_id) for r in result.runs] == [("1", "r"), ("2", "r")]
    assert result.unmatched_trajectories == ()
    listed = "trajectories: ../../runs/r.json\n"
    for folder in ("scenario_1", "scenario_01"):
        write(tmp_path / "t" / folder / "groundtruth.json", '{"x": 1}')
        write(tmp_path / "t" / folder / "scenario.yaml", listed)
    found = discover_scenarios([tmp_path / "t"])
    result = join(found, folder_trajectories(found))
    assert [(r.scenario.id, r.trajectory.run_id) for r in result.runs] == [(found[0].id, "r")]
    assert len(found) == 2  # (the other lost the id: a duplicate, with no run of its own)


def test_a_losing_duplicates_unreadable_file_leaves_the_used_one_without_runs(
    tmp_path: Path,
) -> None:
    """The loser's broken file marked the used scenario as owning an unreadable file, so it
    dropped out of "scenarios without trajectories" (diff25d #2)."""
    write(tmp_path / "a" / "scenario_1" / "groundtruth.json", "1")
    write(tmp_path / "b" / "scenario_1" / "groundtruth.json", "2")
    write(tmp_path / "b" / "scenario_1" / "trajectory.json", '{"scenario_id": "1", ')
    found = discover_scenarios([tmp_path / "a", tmp_path / "b"])
    result = join(found, folder_trajectories(found))
    assert [s.path for s in result.unmatched_scenarios] == [str(tmp_path / "a" / "scenario_1")]


def test_nothing_is_dropped_silently() -> None:
    broken = scenario("3", error="no groundtruth.* in folder", gold=None)
    bad = trajectory("bad.jsonl", line=2, error="invalid JSON: x")
    orphan = trajectory("o.json", run_id="o", scenario_id="77")
    result = join([scenario("1"), broken], [bad, orphan])
    assert result.runs == ()
    assert result.unmatched_trajectories == (orphan,)
    assert [s.id for s in result.unmatched_scenarios] == ["1", "3"]
    assert result.errors == (
        {"source": "bad.jsonl:2", "error": "invalid JSON: x"},
        {"source": "scenario_3", "error": "no groundtruth.* in folder"},
    )
    notes = result.notes()
    assert json.loads(json.dumps(notes)) == notes
    assert notes["unmatched_trajectories"] == [
        {"source": "o.json", "run_id": "o", "scenario_id": "77"}
    ]
    assert notes["unmatched_scenarios"][1] == {
        "id": "3",
        "path": "scenario_3",
        "error": "no groundtruth.* in folder",
    }


def test_unreadable_trajectories_of_a_folder_keep_their_scenario(tmp_path: Path) -> None:
    """A trajectory file a scenario owns that cannot be read is that scenario's load error:
    the scenario is ``unread``, not "without trajectories". One owned by no scenario (the
    trajectories folder) leaves nothing to say about scenarios."""
    for sid in ("1", "2", "3"):
        (tmp_path / f"scenario_{sid}").mkdir()
        (tmp_path / f"scenario_{sid}" / "groundtruth.json").write_text("1", encoding="utf-8")
    (tmp_path / "scenario_1" / "trajectory.json").write_text("{oops", encoding="utf-8")
    (tmp_path / "scenario_2" / "trajectory.jsonl").write_text("[1]\n", encoding="utf-8")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "3.json").write_text("{oops", encoding="utf-8")
    result = plan([tmp_path], [runs], root=tmp_path)
    assert [s.id for s in result.unread_scenarios] == ["1", "2"]
    assert [s.id for s in result.unmatched_scenarios] == ["3"]
    assert [e["source"] for e in result.errors] == [
        "scenario_1/trajectory.json",
        "scenario_2/trajectory.jsonl:1",
        "runs/3.json",
    ]


def test_plan_never_reads_scenario_files_as_trajectories(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_1"
    write(folder / "groundtruth.json", '{"a": 1}')
    write(folder / "scenario.json", '{"type": "t", "answer": "looks like a trajectory"}')
    traj(folder / "trajectory.json", run_id="r1", answer='{"a": 1}')
    traj(tmp_path / "other" / "1.json", run_id="r2", answer='{"a": 1}')
    result = plan([tmp_path], [tmp_path])  # trajectories searched in the same tree
    assert [r.trajectory.run_id for r in result.runs] == ["r1", "r2"]
    assert result.errors == ()
    assert result.unmatched_trajectories == ()
    assert result.duplicates == ()


# --------------------------------------------------------------------------- score_run


def fake_scorer(calls: list[dict[str, Any]]) -> Callable[..., ScoreResult]:
    def scorer(gold: Any, model: Any, **options: Any) -> ScoreResult:
        calls.append({"gold": gold, "model": model, **options})
        passed = gold == (strip_think(model) if isinstance(model, str) else model)
        return ScoreResult(
            passed=passed,
            score=1.0 if passed else 0.25,
            mode="fake",
            metrics={"f1": 1.0 if passed else 0.5},
            fields=(
                FieldResult("answer", "match" if passed else "mismatch", 1.0 if passed else 0.25),
            ),
            reason="" if passed else "differs",
        )

    return scorer


def registry_with(**scorers: Callable[..., Any]) -> Registry:
    registry = Registry()
    for name, fn in scorers.items():
        registry.register_scorer(name, fn)
    return registry


def test_score_run_passes_options_and_the_answer_as_written() -> None:
    """The scorer gets the trajectory's answer as written, as ``score`` would (equiv31 #3:
    stripped here and again by the parser, ``<think>5" wide</think>{...}</think>`` read as
    an empty answer); the record stores it stripped."""
    calls: list[dict[str, Any]] = []
    registry = registry_with(fake=fake_scorer(calls))
    scen = Scenario(
        id="1",
        path="s/scenario_1",
        gold="42",
        question="Q?",
        type="count",
        scorer="fake",
        options={"case_sensitive": True},
        threshold=0.5,
        schema={"type": "object"},
    )
    run = Trajectory(
        run_id="r1",
        runner="cell",
        model="gpt-4o",
        answer="<think>draft: 41</think> 42",
        trajectory={"turns": [{"input_tokens": 10, "output_tokens": 5, "tool_calls": []}]},
        source="t.json",
    )
    record = score_run(scen, run, registry=registry, nodeid="x::1[r1]")
    assert calls == [
        {
            "gold": "42",
            "model": "<think>draft: 41</think> 42",
            "case_sensitive": True,
            "threshold": 0.5,
            "schema": {"type": "object"},
        }
    ]
    assert record.passed
    assert record.error is None
    assert (record.answer, record.scorer, record.question) == ("42", "fake", "Q?")
    assert (record.scenario_type, record.runner, record.model) == ("count", "cell", "gpt-4o")
    assert record.details["mode"] == "fake"
    assert record.result is not None
    assert record.ops["tokens_in"] == 10
    assert record.ops["est_cost_usd"] == 0.000075
    assert (record.source, record.scenario_path, record.nodeid) == (
        "t.json",
        "s/scenario_1",
        "x::1[r1]",
    )


def test_a_scenario_run_reads_a_think_block_as_score_does() -> None:
    """equiv31 #3: stripping is not idempotent (a quote inside the dropped draft decides
    whether a later stray ``</think>`` is named or used), so stripping in the engine and
    again in the parser read an answer ``score`` reads as ``{"count": 3}`` as empty."""
    answer = '<think>the pipe is 5" wide</think>{"count": 3}</think>'
    expected = score({"count": 3}, answer)
    assert expected.passed
    record = score_run(
        Scenario(id="1", path="s/scenario_1", gold='{"count": 3}'),
        Trajectory(run_id="r1", answer=answer, source="t.json"),
    )
    assert (record.passed, record.score) == (True, 1.0)
    assert record.answer == strip_think(answer)


def test_score_run_uses_the_default_scorer_and_keeps_parsed_answers() -> None:
    calls: list[dict[str, Any]] = []
    registry = registry_with(fake=fake_scorer(calls))
    record = score_run(
        scenario("1", gold={"a": 1}),
        trajectory("t.json", answer={"a": 2}),
        default_scorer="fake",
        registry=registry,
    )
    assert calls[0]["model"] == {"a": 2}
    assert (record.passed, record.score, record.rationale, record.error) == (
        False,
        0.25,
        "differs",
        None,
    )


def _boom(gold: Any, model: Any, **options: Any) -> ScoreResult:
    raise RecursionError("maximum recursion depth exceeded")


def _limit(gold: Any, model: Any, **options: Any) -> ScoreResult:
    raise LimitError("gold is nested deeper than 200 levels")


def _not_a_result(gold: Any, model: Any, **options: Any) -> Any:
    return 1.0


def _scoring(value: Any) -> Callable[..., ScoreResult]:
    def scorer(gold: Any, model: Any, **options: Any) -> ScoreResult:
        return ScoreResult(passed=True, score=value, mode="custom")

    return scorer


def _bad_options(gold: Any, model: Any, **options: Any) -> ScoreResult:
    raise OptionsError("unknown option(s) 'numeric_tolerence'")


class _Unsayable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


def _raising(exc: BaseException) -> Callable[..., ScoreResult]:
    def scorer(gold: Any, model: Any, **options: Any) -> ScoreResult:
        try:
            {}["k"]
        except KeyError as cause:
            raise exc from cause
        raise AssertionError  # (never reached)

    return scorer


@pytest.mark.parametrize(
    ("exc", "message"),
    [
        (SystemExit(3), "scorer 'x' failed: SystemExit: 3"),  # the CLI exited 3 (diff24b #5)
        (GeneratorExit(), "scorer 'x' failed: GeneratorExit"),  # the CLI crashed (diff24c #8)
        (pytest.fail.Exception("judge down"), "failed: Failed: judge down"),  # outside pytest
        (pytest.skip.Exception("later"), "failed: Skipped: later"),
        (_Unsayable(), "failed: _Unsayable: <its message could not be read>"),  # the CLI crashed
    ],
)
def test_whatever_a_scorer_raises_is_its_runs_error(exc: BaseException, message: str) -> None:
    record = score_run(
        scenario("1", scorer="x"), trajectory("t.json"), registry=registry_with(x=_raising(exc))
    )
    assert record.error is not None
    assert message in record.error
    assert record.trace is not None  # for the item's failure: the chain, the scorer's frames
    assert "KeyError: 'k'" in record.trace
    assert "direct cause" in record.trace
    assert "test_scenarios.py" in record.trace
    assert "pytest_structeval" not in record.trace.replace("test_scenarios", "")
    assert "trace" not in json.dumps(record.to_dict())


def test_a_ctrl_c_and_the_stops_a_caller_names_go_through_score_run() -> None:
    registry = registry_with(
        ctrl_c=_raising(KeyboardInterrupt()), skip=_raising(pytest.skip.Exception("x"))
    )
    with pytest.raises(KeyboardInterrupt):
        score_run(scenario("1", scorer="ctrl_c"), trajectory("t.json"), registry=registry)
    with pytest.raises(pytest.skip.Exception):
        score_run(
            scenario("1", scorer="skip"),
            trajectory("t.json"),
            registry=registry,
            stops=(pytest.skip.Exception,),
        )


def test_this_packages_own_errors_carry_no_traceback() -> None:
    """A built-in scorer's limit says all in its message; the same error raised by a user's
    scorer shows where (diff24c #9)."""
    deep = "[" * 300 + "]" * 300
    record = score_run(scenario("1", gold=deep, scorer="static_json"), trajectory("t.json"))
    assert record.error is not None
    assert "LimitError" in record.error
    assert record.trace is None
    raised = score_run(
        scenario("1", scorer="limit"), trajectory("t.json"), registry=registry_with(limit=_limit)
    )
    assert raised.trace is not None
    assert "in _limit" in raised.trace
    wrong = score_run(
        scenario("1", scorer="weird"),
        trajectory("t.json"),
        registry=registry_with(weird=_not_a_result),
    )
    assert wrong.error == "scorer 'weird' failed: TypeError: returned float, expected ScoreResult"
    assert wrong.trace is None  # the scorer's answer, checked by this package: no traceback


def _bad_schema(gold: Any, model: Any, **options: Any) -> ScoreResult:
    raise SchemaError("properties.a: bad")


@pytest.mark.parametrize(
    ("scen", "message"),
    [
        (scenario("1", scorer="boom"), "scorer 'boom' failed: RecursionError"),
        (scenario("1", scorer="limit"), "LimitError: gold is nested deeper"),
        (scenario("1", scorer="weird"), "returned float, expected ScoreResult"),
        (
            scenario("1", scorer="nope"),  # the scenario's config names it (newuser25 #8)
            "scenario scenario_1: unknown scorer 'nope'; registered: boom, five, limit, nan, "
            "options, schema, text, weird, yes",
        ),
        (scenario("1", error="no groundtruth.* in folder"), "scenario scenario_1: no groundtruth"),
        (
            scenario("1", scorer="options"),
            "scenario scenario_1: options for 'options': unknown option(s) 'numeric_tolerence'",
        ),
        (scenario("1", scorer="schema"), "scenario scenario_1: schema: properties.a: bad"),
        (scenario("1", scorer="nan"), "returned score nan, expected a number in [0, 1]"),
        (scenario("1", scorer="five"), "returned score 5.0, expected a number in [0, 1]"),
        (scenario("1", scorer="text"), "returned score 'x', expected a number in [0, 1]"),
        (scenario("1", scorer="yes"), "returned score True, expected a number in [0, 1]"),
    ],
)
def test_score_run_never_raises(scen: Scenario, message: str) -> None:
    registry = registry_with(
        boom=_boom,
        limit=_limit,
        weird=_not_a_result,
        options=_bad_options,
        schema=_bad_schema,
        nan=_scoring(math.nan),
        five=_scoring(5.0),
        text=_scoring("x"),
        yes=_scoring(True),
    )
    record = score_run(
        scen, trajectory("t.json", run_id="r"), default_scorer="boom", registry=registry
    )
    assert record.passed is False
    assert record.score == 0.0
    assert record.error is not None
    assert message in record.error
    assert record.rationale == record.error
    assert record.details == {}


@pytest.mark.parametrize("scorer", ["strict", "json_similarity"])
def test_a_schema_for_a_scorer_that_reads_none_is_told_as_the_configs(scorer: str) -> None:
    """Review messages29 #5: "options for 'similarity': similarity mode: unknown option(s)
    'schema'; known: ..." for a key the config has, not its options."""
    record = score_run(
        scenario("1", scorer=scorer, schema={"type": "object"}),
        trajectory("t.json", run_id="r", answer="1"),
    )
    assert record.error == (
        "scenario scenario_1: scenario config: schema is read by the schema scorer only, and "
        f"scorer {scorer!r} scores this scenario (say scorer: schema)"
    )
    both = score_run(  # and the other unknown options still told (diff29a #7)
        scenario("1", scorer=scorer, schema={}, options={"numeric_tolerence": 0.1}),
        trajectory("t.json", run_id="r", answer="1"),
    )
    assert "(say scorer: schema); options for" in (both.error or "")
    assert "'numeric_tolerence' (did you mean 'numeric_tolerance'?)" in (both.error or "")
    by_option = score_run(  # a schema among the options is the options' error, as before
        scenario("1", scorer=scorer, options={"schema": {"type": "object"}}),
        trajectory("t.json", run_id="r", answer="1"),
    )
    assert (by_option.error or "").startswith(
        f"scenario scenario_1: options for {scorer!r}: {scorer.split('_')[-1]} mode: unknown "
        "option(s) 'schema'"
    )


def test_score_run_reports_a_broken_trajectory() -> None:
    record = score_run(
        scenario("1"), trajectory("t.jsonl", line=4, error="invalid JSON"), registry=Registry()
    )
    assert record.error == "trajectory t.jsonl:4: invalid JSON"


def test_score_run_with_the_builtin_static_json_scorer() -> None:
    gold = Scenario(id="3", path="scenario_3", gold='{"asset": "Chiller 6", "count": 5}')
    good = trajectory(
        "t.json",
        answer='<think>{"asset": "x"}</think>Final Answer: ```json\n'
        '{"asset": "Chiller 6", "count": 5}\n```',
    )
    bad = trajectory("u.json", answer='{"asset": "Chiller 9", "count": 5}')
    assert score_run(gold, good).passed is True
    failed = score_run(gold, bad)
    assert failed.passed is False
    assert failed.error is None
    assert failed.scorer == "static_json"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero (an endless file)")
def test_an_endless_gold_file_stops_at_the_byte_limit(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_1"
    write(folder / "scenario.yaml", "options: {max_bytes: 100}")
    (folder / "groundtruth.txt").symlink_to("/dev/zero")
    write(tmp_path / "scenario_2" / "groundtruth.txt", "2")
    found = by_id(discover_scenarios([tmp_path]))  # returns: no hang on a size-0 device
    assert found["1"].error is not None
    assert "over the 100 byte limit" in found["1"].error
    assert found["2"].gold == "2"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need os.mkfifo (POSIX)")
def test_named_pipes_are_reported_and_never_block(tmp_path: Path) -> None:
    """Opening a pipe for reading waits for a writer: a pipe (or a link to one) where a gold,
    config or trajectory file should be is an error naming the file, never a hang."""
    for sid in "1234":
        write(tmp_path / f"scenario_{sid}" / "groundtruth.txt", "1")
        traj(tmp_path / f"scenario_{sid}" / "trajectory.json", run_id=f"r{sid}", answer=1)
    os.mkfifo(tmp_path / "scenario_2" / "scenario.yaml")
    (tmp_path / "scenario_3" / "trajectory.json").unlink()
    os.mkfifo(tmp_path / "scenario_3" / "trajectory.json")
    (tmp_path / "scenario_4" / "groundtruth.txt").unlink()
    os.mkfifo(tmp_path / "scenario_4" / "groundtruth.json")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "scenario_1" / "trajectory_link.json").symlink_to(tmp_path / "pipe")
    result = plan([tmp_path], root=tmp_path)
    pipe = "not a regular file (a named pipe or a socket)"
    errors = {e["source"]: e["error"] for e in result.errors}
    assert errors["scenario_1/trajectory_link.json"] == f"cannot read trajectory file: {pipe}"
    assert errors["scenario_3/trajectory.json"] == f"cannot read trajectory file: {pipe}"
    broken = {s.id: s.error for s in (r.scenario for r in result.runs) if s.error}
    assert broken == {"2": f"scenario.yaml: {pipe}", "4": f"groundtruth.json: {pipe}"}


def test_a_non_finite_number_is_no_id(tmp_path: Path) -> None:
    """``1e400`` read as the run id ``"inf"``, which then clashed with a real ``inf`` run
    (robustness audit 9); it is the integer it writes now, and ``Infinity`` is no id."""
    write(tmp_path / "t.json", '{"run_id": Infinity, "scenario_id": "1", "answer": "x"}')
    write(tmp_path / "u.json", '{"run_id": 7, "scenario_id": 1.5, "answer": "x"}')
    first, second = load_trajectories([tmp_path])
    assert first.error == "run_id must be a finite number, got inf"
    assert (second.error, second.run_id, second.scenario_id) == (None, "7", "1.5")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_given_as_trajectories_is_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    """It read "cannot list folder: Not a directory" (robustness audit 9)."""
    os.mkfifo(tmp_path / "runs.json")
    (found,) = load_trajectories([tmp_path / "runs.json"])
    assert (
        found.error == "cannot read trajectory file: not a regular file (a named pipe or a socket)"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_named_like_a_config_is_no_evidence_and_never_blocks(tmp_path: Path) -> None:
    """Deciding whether a folder is a scenario read ``scenario.yaml`` with a plain open(),
    which waits forever on a pipe: pytest hung at startup (review 9)."""
    folder = tmp_path / "scenario_1"
    folder.mkdir()
    os.mkfifo(folder / "scenario.yaml")
    answers: list[bool] = []
    # In a thread, so that a regression fails this test instead of hanging the suite.
    worker = threading.Thread(
        target=lambda: answers.append(looks_like_scenario(str(folder), depth=0)), daemon=True
    )
    worker.start()
    worker.join(timeout=30)
    assert answers == [False]


@pytest.mark.parametrize(
    ("folder", "error"),
    [
        ("scenario_", "holds groundtruth.json but its name has no id: name it scenario_<id>"),
        (
            "scenario-3",
            "holds groundtruth.json, scenario.yaml but is not named scenario_<id>, so it is "
            "not scored: rename it or move those files",
        ),
    ],
)
def test_a_folder_that_looks_like_a_scenario_is_never_dropped_silently(
    tmp_path: Path, folder: str, error: str
) -> None:
    """Such a folder was walked past: its failing run vanished and the run passed (review)."""
    for name in (folder, "scenario_1"):
        (tmp_path / "evals" / name).mkdir(parents=True)
        (tmp_path / "evals" / name / "groundtruth.json").write_text("1", encoding="utf-8")
    if folder == "scenario-3":
        (tmp_path / "evals" / folder / "scenario.yaml").write_text("type: x\n", encoding="utf-8")
    found = discover_scenarios([tmp_path / "evals"])
    broken = [s for s in found if s.error is not None]
    assert [(s.id, s.error) for s in broken] == [(broken[0].path, error)]
    assert broken[0].path.endswith(folder)
    assert [s.id for s in found if s.error is None] == ["1"]


def test_gold_keys_that_disagree_are_an_error_and_a_bad_max_bytes_is_named(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "scenario_1"
    folder.mkdir()
    (folder / "scenario.yaml").write_text("ground_truth: 1\nexpected_answer: 2\n", "utf-8")
    (only,) = discover_scenarios([tmp_path])
    assert only.error == "ground_truth and expected_answer disagree (answer: 1 vs 2): keep one"
    (folder / "scenario.yaml").write_text("ground_truth: 1\nexpected_answer: 1\n", "utf-8")
    (agreed,) = discover_scenarios([tmp_path])
    assert (agreed.error, agreed.gold) == (None, 1)
    (folder / "scenario.yaml").write_text("options:\n  max_bytes: -1\n", "utf-8")
    (folder / "groundtruth.json").write_text('{"a": 1}', "utf-8")
    (bounded,) = discover_scenarios([tmp_path])
    assert bounded.error is None  # the gold is read; the scorer names the bad option
    result = score_run(bounded, Trajectory(run_id="r", scenario_id="1", answer='{"a": 1}'))
    assert "max_bytes must be a positive integer, got -1" in (result.error or "")


@pytest.mark.parametrize(
    ("first", "second", "agree"),
    [
        ("1", "1.0", True),
        ("true", "1", False),
        ("{ok: true}", "{ok: 1}", False),
        (".nan", ".nan", True),
    ],
)
def test_gold_keys_agree_as_the_scorers_read_values(
    tmp_path: Path, first: str, second: str, agree: bool
) -> None:
    folder = tmp_path / "scenario_1"
    folder.mkdir()
    config = f"ground_truth: {first}\nexpected_answer: {second}\n"
    (folder / "scenario.yaml").write_text(config, encoding="utf-8")
    (only,) = discover_scenarios([tmp_path])
    assert (only.error is None) == agree


def test_a_record_with_scenario_id_zero_joins_scenario_zero(tmp_path: Path) -> None:
    """``"scenario_id": 0`` is an id, not a missing one: the record joins ``scenario_0``
    and is not re-guessed by file name or run id (review mutants16-plugin sc15)."""
    write(tmp_path / "scen" / "scenario_0" / "groundtruth.json", '{"a": 1}')
    write(
        tmp_path / "runs.jsonl",
        json.dumps({"scenario_id": 0, "run_id": "r1", "answer": '{"a": 1}'}) + "\n",
    )
    result = plan([tmp_path / "scen"], [tmp_path / "runs.jsonl"], root=tmp_path)
    assert [(r.scenario.id, r.run_id) for r in result.runs] == [("0", "r1")]
    assert result.unmatched_trajectories == ()


def test_a_scenario_threshold_of_zero_is_passed_to_the_scorer() -> None:
    """``threshold: 0`` (record scores, never fail) is a threshold, not the mode's default
    (review mutants16-plugin sc11)."""
    scen = Scenario(
        id="1", path="scenario_1", gold={"a": 1, "b": 2}, threshold=0.0, scorer="strict"
    )
    record = score_run(scen, Trajectory(run_id="r", answer='{"a": 1, "b": 3}', source="t.json"))
    assert (record.passed, record.score, record.error) == (True, 0.5, None)
    assert record.details["threshold"] == 0.0


def test_a_repeated_run_id_keeps_its_run_id_and_gets_its_own_label() -> None:
    """The second ``r1`` is labelled ``r1-2`` for its item, but its record names the run id
    its file holds, so a baseline of the same files matches it (review mutants16-plugin
    sc9)."""
    result = join(
        [scenario("1", gold={"a": 1})],
        [
            trajectory("t.jsonl", line=1, run_id="r1", scenario_id="1", answer='{"a": 1}'),
            trajectory("t.jsonl", line=2, run_id="r1", scenario_id="1", answer='{"a": 2}'),
        ],
    )
    assert [(r.label, r.run_id) for r in result.runs] == [("r1", "r1"), ("r1-2", "r1")]
    assert [d["kind"] for d in result.duplicates] == ["run_id"]


def test_the_record_question_is_the_one_the_agent_was_asked() -> None:
    """The trajectory's question wins over the scenario's (review mutants16-plugin sc12)."""
    scen = scenario("1", gold={"a": 1}, question="scenario's question")
    run = trajectory("t.json", run_id="r", question="what the agent was asked", answer='{"a": 1}')
    assert score_run(scen, run).question == "what the agent was asked"
    assert score_run(scen, trajectory("u.json", answer='{"a": 1}')).question == (
        "scenario's question"
    )


def test_the_rationale_is_the_scorer_reason_before_its_error() -> None:
    """A result that could not be evaluated has both; the rationale is its reason, as
    ``score()`` shows it (review mutants16-plugin sc17)."""
    scen = scenario("1", gold={"a": 1}, scorer="strict", options={"max_depth": 2})
    record = score_run(scen, trajectory("t.json", answer='{"a": {"b": {"c": {"d": 1}}}}'))
    assert record.result is not None
    assert record.result.error == "model answer: answer nests deeper than max_depth=2"
    assert record.rationale == "error: model answer: answer nests deeper than max_depth=2"
    assert (record.passed, record.score, record.error) == (False, 0.0, None)


def test_a_scorer_option_at_the_top_or_a_near_miss_key_is_an_error(tmp_path: Path) -> None:
    """``mdoe: similarity``, ``treshold: 0.8`` and a top-level ``numeric_tolerance`` were
    dropped without a word, so the scenario was scored in the default mode with no tolerance
    (review newuser16). AssetOpsBench's own keys stay ignored."""
    folder = tmp_path / "scen" / "scenario_1"
    write(folder / "groundtruth.json", '{"a": 1}')
    write(folder / "trajectory.json", json.dumps({"run_id": "r", "answer": '{"a": 1}'}))
    write(
        folder / "scenario.yaml",
        "mdoe: similarity\ntreshold: 0.8\nnumeric_tolerance: {rel: 0.2}\n"
        "category: x\nexpected_tools: [a]\ncharacteristic_form: y\ndifficulty: easy\n",
    )
    result = plan([tmp_path / "scen"], [], root=tmp_path)
    assert [run.scenario.error for run in result.runs] == [
        "scenario config: unknown key 'mdoe' (did you mean 'mode'?); "
        "scenario config: unknown key 'treshold' (did you mean 'threshold'?); "
        "scenario config: numeric_tolerance is a scorer option: put it under options:"
    ]
    # A user's own keys: other words, known keys extended or shortened (review diff16b).
    write(folder / "scenario.yaml", "MODE: similarity\nNumeric_Tolerance: {rel: 0.2}\n")
    result = plan([tmp_path / "scen"], [], root=tmp_path)
    assert [run.scenario.error for run in result.runs] == [
        "scenario config: unknown key 'MODE' (did you mean 'mode'?); "
        "scenario config: Numeric_Tolerance (numeric_tolerance) is a scorer option: "
        "put it under options:"
    ]
    own = ["model", "code", "uid", "test", "types", "question_id", "ground_truth_source"]
    own += ["schema_url", "optional", "score", "notes", "owner", "expected_tools"]
    config = "mode: similarity\ncategory: x\noptions: {align: key}\nmdoe: z\n"
    write(folder / "scenario.yaml", config + "".join(f"{key}: x\n" for key in own))
    fine = plan([tmp_path / "scen"], [], root=tmp_path)
    assert [run.scenario.error for run in fine.runs] == [None]  # (mode is there: mdoe is too)


def test_runs_of_a_folder_whose_gold_is_misnamed_fail_saying_so(tmp_path: Path) -> None:
    """``ground_truth.json`` (AssetOpsBench's key name) beside a good trajectory: the
    folder was listed as "without trajectories" and its run dropped, so the closing message
    pointed at the trajectory's name (review newuser16). Its run now fails with why."""
    folder = tmp_path / "evals" / "scenario_1"
    write(folder / "ground_truth.json", '{"a": 1}')
    write(folder / "trajectory.json", json.dumps({"run_id": "r", "answer": '{"a": 1}'}))
    result = plan([tmp_path / "evals"], [], root=tmp_path)
    assert result.unmatched_scenarios == ()
    assert [(run.run_id, run.scenario.error) for run in result.runs] == [
        (
            "r",
            "no groundtruth.* in folder (ground_truth.json: a gold file is named "
            "groundtruth.json, groundtruth.yaml, groundtruth.yml, groundtruth.txt)",
        )
    ]


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("mdoe", "mode"),
        ("tpye", "type"),
        ("treshold", "threshold"),
        ("scorrer", "scorer"),
        ("groundtruth", "ground_truth"),
        ("quesiton", "question"),
        ("trajectory", "trajectories"),
        ("option", "options"),
        ("MODE", "mode"),  # letter case aside (review newuser19)
        ("Mode", "mode"),
        ("SCORER", "scorer"),
        ("OPTIONS", "options"),
        ("Type", "type"),
        ("TRESHOLD", "threshold"),
        ("Trajectory", "trajectories"),
        ("Model", None),
        ("QUESTION_ID", None),
        ("model", None),  # a word of its own beside a short key
        ("uid", None),
        ("questions", None),  # a known key extended
        ("score", None),  # or shortened
        ("optional", None),  # two slips away
    ],
)
def test_a_slip_is_one_swap_or_for_longer_keys_one_letter(key: str, meant: str | None) -> None:
    assert scenarios_module._slip_of(key) == meant


def test_runs_of_a_multi_turn_tree_never_vanish(tmp_path: Path) -> None:
    """A turn folder with a run and a misnamed gold, and a parent that keeps runs beside its
    nested turns: both were passed by without a word, and the run passed (review diff16b)."""
    evals = tmp_path / "evals"
    turn = evals / "scenario_4" / "turns" / "01"
    write(turn / "groundtruth.json", '{"a": 1}')
    write(turn / "trajectory.json", json.dumps({"run_id": "t1", "answer": '{"a": 1}'}))
    write(evals / "scenario_4" / "turns" / "03" / "ground_truth.json", '{"a": 3}')
    write(
        evals / "scenario_4" / "turns" / "03" / "trajectory.json",
        json.dumps({"run_id": "t3", "answer": '{"a": 3}'}),
    )
    write(
        evals / "scenario_4" / "trajectories" / "t9.json",
        json.dumps({"run_id": "t9", "scenario_id": "4/turns/01", "answer": '{"a": 9}'}),
    )
    result = plan([evals], [], root=tmp_path)
    assert [(r.scenario.id, r.run_id, r.scenario.error) for r in result.runs] == [
        ("4/turns/01", "t1", None),
        (
            "4/turns/03",
            "t3",
            "no groundtruth.* in folder (ground_truth.json: a gold file is named "
            "groundtruth.json, groundtruth.yaml, groundtruth.yml, groundtruth.txt)",
        ),
    ]
    assert [(s.id, s.error) for s in result.unmatched_scenarios] == [
        (
            "4",
            "no groundtruth.* in folder, and its trajectory files are not read: the scenario "
            "folders nested in it are scored; move each run into the folder of its scenario",
        )
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["r", "r-2", "r-2-2", "r-3", None]), max_size=12))
def test_run_labels_take_the_first_free_suffix(run_ids: list[str | None]) -> None:
    """The suffix search resumes where it last stopped for its id (thousands of runs sharing
    one run id were quadratic); the labels stay those of trying every suffix from 2."""
    runs = [
        SimpleNamespace(run_id=r, line=None, index=i, stem="runs") for i, r in enumerate(run_ids)
    ]
    expected = first_free_naively(run.run_id or f"runs-{run.index}" for run in runs)
    labels, base = FirstFree(), scenarios_module._label_base  # as join() names a scenario's runs
    assert [labels(base(run)) for run in runs] == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "gold"), [("groundtruth.json", '{"x": 1e400}'), ("groundtruth.yaml", "x: 1e400\n")]
)
def test_a_gold_file_number_past_the_float_range_reads_as_an_answer_does(
    tmp_path: Path, name: str, gold: str
) -> None:
    """diff of property29 #1: the parser read 1e400 in an answer as 10**400 while a gold
    file's JSON or YAML read it as infinity, so the same number never matched."""
    write(tmp_path / "scenario_1" / name, gold)
    found = by_id(discover_scenarios([tmp_path]))
    assert found["1"].gold == {"x": 10**400}
    same = score_run(found["1"], trajectory("t.json", run_id="r", answer='{"x": 1e400}'))
    other = score_run(found["1"], trajectory("t.json", run_id="r", answer='{"x": 2e400}'))
    assert (same.passed, other.passed) == (True, False)


def _gold_warned_at(gold: Any, answer: Any) -> list[tuple[str, int]]:
    from pytest_structeval import GoldWarning
    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        score(gold, answer)
    return [(Path(w.filename).name, w.lineno) for w in caught if w.category is GoldWarning]


def test_a_gold_warning_points_at_the_gold_only_while_it_is_scored(tmp_path: Path) -> None:
    """mutation31 W4/W6/G1: the location holds for that gold object (a text or bytes) and
    only inside the scenario's scoring; a folder's gold file beats its config file."""
    from pytest_structeval.modes import gold_written_at

    text = '{"a": 1'
    with gold_written_at(text, lambda part: ("g.txt", 7), every=False):
        assert _gold_warned_at(text, '{"a": 1}') == [("g.txt", 7)]
    assert [name for name, _ in _gold_warned_at(text, '{"a": 1}')] == [Path(__file__).name]
    given = b'{"a": 1'
    with gold_written_at(given, lambda part: ("g.txt", 7), every=False):
        assert _gold_warned_at(given, '{"a": 1}') == [("g.txt", 7)]
        assert [n for n, _ in _gold_warned_at(b'{"b": 2', '{"b": 2}')] == [Path(__file__).name]
    with gold_written_at(given, lambda part: ("g.txt", 7), every=True):  # a built-in scorer's
        assert _gold_warned_at('{"c": 3', '{"c": 3}') == [("g.txt", 7)]
    with gold_written_at('{"a": 1}\n{"a": 1', lambda part: ("g.txt", 7), every=False):
        # a custom scorer's own gold, though a part of the scenario's (diff31c #2)
        assert [n for n, _ in _gold_warned_at('{"a": 1', '{"a": 1}')] == [Path(__file__).name]
    write(tmp_path / "scenario_1" / "groundtruth.txt", '{"a": 1')
    write(tmp_path / "scenario_1" / "scenario.yaml", "mode: strict\n")
    (found,) = discover_scenarios([tmp_path])
    assert (Path(found.gold_at()[0]).name, found.gold_at()[1]) == ("groundtruth.txt", 1)
    (tmp_path / "scenario_1" / "groundtruth.txt").unlink()  # the top-level key's line
    write(
        tmp_path / "scenario_1" / "scenario.yaml",
        'meta:\n  expected_answer: "x"\nnote: |\n  expected_answer: y\nexpected_answer: "[1"\n',
    )
    (found,) = discover_scenarios([tmp_path])
    assert (Path(found.gold_at()[0]).name, found.gold_at()[1]) == ("scenario.yaml", 5)
    write(  # the key that holds the gold, not a null one above it (diff31d #5)
        tmp_path / "scenario_1" / "scenario.yaml",
        'ground_truth: null\nnote: "a\u2028b"\nexpected_answer: "[1"\n',
    )
    (found,) = discover_scenarios([tmp_path])
    assert found.gold_at()[1] == 3
    for config, line in (  # diff31e #3-#5
        ('meta:\n  ground_truth: "see ticket"\nexpected_answer: "[1"\n', 3),
        ('note: |\n  ground_truth: text\nexpected_answer: "[1"\n', 3),
        ('ground_truth: null  # later\nexpected_answer: "[1"\n', 2),
        ('ground_truth:\nexpected_answer: "[1"\n', 2),
        ('mode: strict\rexpected_answer: "[1"\r', 2),
    ):
        (tmp_path / "scenario_1" / "scenario.yaml").write_bytes(config.encode())
        (found,) = discover_scenarios([tmp_path])
        assert found.gold_at()[1] == line, config


def test_a_gold_in_a_scenario_file_is_located_at_its_key(tmp_path: Path) -> None:
    """An entry of a YAML or JSON scenario list was located by its index (``cases.yaml[2]``,
    line 1): it is the line of the key that gives the gold, read from the file's parse
    (a key of that name nested in a value or a block of text is none), else the entry's."""
    yaml_list = (
        "# cases\n"
        '- id: "1"\n'
        "  meta: {expected_answer: decoy}\n"
        "  note: |\n"
        "    expected_answer: decoy\n"
        '  expected_answer: "[1"\n'
        '- {id: "2", ground_truth: null, expected_answer: "[2"}\n'
        "- id: 3\n"
        '  expected_answer: "[3"\n'
        '  ground_truth: "[3"\n'
        '- &base {id: 4, expected_answer: "[4"}\n'
        "- <<: *base\n"
        "  id: 5\n"
    )
    write(tmp_path / "cases.yaml", yaml_list)
    found = discover_scenarios([tmp_path / "cases.yaml"])
    assert [(s.id, s.gold_at()) for s in found] == [
        ("1", (found[0].path, 6)),
        ("2", (found[0].path, 7)),
        ("3", (found[0].path, 10)),  # ground_truth is read first
        ("4", (found[0].path, 11)),
        ("5", (found[0].path, 12)),  # merged in: the entry's line
    ]
    json_list = [
        {"id": "1", "question": "q", "expected_answer": "[1"},
        {"id": "2", "meta": {"ground_truth": "x"}, "ground_truth": "[2"},
    ]
    text = json.dumps(json_list, indent=2, ensure_ascii=False).replace('"q"', '"q\u2028"')
    write(tmp_path / "cases.json", text)
    lines = text.split("\n")  # (U+2028 breaks no line in an editor)
    first, second = discover_scenarios([tmp_path / "cases.json"])
    assert first.gold_at()[1] == 1 + next(i for i, x in enumerate(lines) if '"[1"' in x)
    assert second.gold_at()[1] == 1 + next(i for i, x in enumerate(lines) if '"[2"' in x)
    write(tmp_path / "one.yaml", 'id: 9\nquestion: q\nexpected_answer: "[9"\n')
    (alone,) = discover_scenarios([tmp_path / "one.yaml"])
    assert alone.gold_at()[1] == 3
    write(tmp_path / "one.yaml", 'id: 9\n\n\nexpected_answer: "[9"\n')  # edited: read again
    assert alone.gold_at()[1] == 4
    (tmp_path / "one.yaml").unlink()
    assert alone.gold_at() == (alone.path, 1)
    write(tmp_path / "one.yaml", "- not: [a mapping\n")  # no longer the file it was
    assert alone.gold_at() == (alone.path, 1)


_OTHER_VALUES = st.recursive(
    st.none() | st.integers() | st.text(st.characters(codec="utf-8", exclude_characters="G")),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["expected_answer", "ground_truth", "note"]), inner)
    ),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None)
@given(
    entries=st.lists(
        st.tuples(
            st.dictionaries(st.sampled_from(["question", "note", "n"]), _OTHER_VALUES),
            st.booleans(),
        ),
        min_size=1,
        max_size=5,
    ),
    indent=st.sampled_from([None, 1, 2, 4]),
    as_yaml=st.booleans(),
)
def test_a_listed_gold_is_located_on_the_line_that_writes_it(
    tmp_path_factory: pytest.TempPathFactory,
    entries: list[tuple[dict[str, Any], bool]],
    indent: int | None,
    as_yaml: bool,
) -> None:
    """Property: whatever an entry holds around it (decoy gold keys nested in values, text
    with line breaks), its gold is located on the line where its own value is written."""
    import yaml

    listed = []
    for number, (others, first) in enumerate(entries):
        gold = {"expected_answer": f"GOLD{number}"}
        listed.append(
            {"id": number, **gold, **others} if first else {"id": number, **others, **gold}
        )
    folder = tmp_path_factory.mktemp("cases")
    if as_yaml:
        text = yaml.safe_dump(listed, allow_unicode=True, default_flow_style=indent is None)
        path = folder / "cases.yaml"
    else:
        text = json.dumps(listed, indent=indent, ensure_ascii=False)
        path = folder / "cases.json"
    path.write_text(text, encoding="utf-8", newline="")
    found = discover_scenarios([path])
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    assert [scenario.id for scenario in found] == [str(n) for n in range(len(entries))]
    for scenario in found:
        wanted = f"GOLD{scenario.id}"
        assert wanted in lines[scenario.gold_at()[1] - 1]


def test_a_scorer_of_a_module_imported_anew_is_still_ours() -> None:
    """A registry made before pytester's in-process run dropped and re-imported the modes
    holds the first functions: told by identity, the scenario's messy gold was located at
    pytest's runner in some test orders (line_by_line: every gold read inside counts)."""
    import importlib.util

    from pytest_structeval.modes import is_builtin_scorer

    spec = importlib.util.find_spec("pytest_structeval.modes.similarity")
    assert spec is not None
    assert spec.loader is not None
    anew = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(anew)
    assert is_builtin_scorer(anew.score_similarity)


def test_the_scorer_last_found_ours_is_remembered_and_no_other_function_is() -> None:
    """is_builtin_scorer remembers the last function it found ours (a scenario run asks once
    per item): asked in turns, a user's function and a partial of it are never ours."""
    import functools

    from pytest_structeval.modes import is_builtin_scorer
    from pytest_structeval.modes.strict import score_strict

    def mine(gold: Any, model: Any, **options: Any) -> Any:
        return score_strict(gold, model, **options)

    bound = functools.partial(score_strict, ignore_extra=True)
    for asked, ours in [(score_strict, True), (mine, False), (score_strict, True)] * 2 + [
        (bound, True),
        (bound, True),
        (functools.partial(mine), False),
        (score_strict, True),
        (mine, False),
    ]:
        assert is_builtin_scorer(asked) is ours, asked


def test_a_scorer_of_this_package_is_told_by_the_function_not_its_module() -> None:
    """diff31d #1-#3: "ours" was read from ``__module__``: a scorer whose ``__module__`` is
    None crashed every run, one made with ``functools.wraps`` of a built-in counted as one
    (its own gold located at the scenario's file), and a ``partial`` of one did not."""
    import functools

    from pytest_structeval.modes import is_builtin_scorer
    from pytest_structeval.modes.similarity import score_similarity
    from pytest_structeval.modes.strict import score_strict

    assert is_builtin_scorer(score_strict)
    assert is_builtin_scorer(functools.partial(score_similarity, line_by_line=True))

    @functools.wraps(score_strict)
    def wrapped(gold: Any, model: Any, **options: Any) -> Any:
        return score_strict(gold, model, **options)

    def made(gold: Any, model: Any, **options: Any) -> None:
        return None

    made.__module__ = None  # type: ignore[assignment]  # (as exec(src, {}) leaves it)
    assert not is_builtin_scorer(wrapped)

    class Looping(functools.partial):  # type: ignore[type-arg]
        @property
        def func(self) -> Any:  # type: ignore[override]
            return self

    assert not is_builtin_scorer(Looping(score_strict))  # (diff31e: it looped for ever)
    assert not is_builtin_scorer(made)
    record = score_run(
        Scenario(id="1", path="s/scenario_1", gold="1", scorer="made"),
        Trajectory(run_id="r1", answer="1", source="t.json"),
        registry=registry_with(made=made),
    )
    assert (
        record.error == "scorer 'made' failed: TypeError: returned NoneType, expected ScoreResult"
    )
