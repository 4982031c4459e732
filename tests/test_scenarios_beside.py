"""``scenario_ids_beside`` and ``join_keys``: which scenarios a run that picked part of a tree
left out, so the shared folder's runs of those are not reported as unmatched."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_structeval import scenarios
from pytest_structeval.scenarios import Trajectory, join_keys, scenario_ids_beside


def gold(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "groundtruth.txt").write_text("1")
    return folder


def test_finds_the_scenarios_of_sibling_groups_and_leaves_out_the_roots(tmp_path: Path) -> None:
    gold(tmp_path / "evals" / "group_a" / "scenario_1")
    gold(tmp_path / "evals" / "group_b" / "scenario_007")
    gold(tmp_path / "evals" / "group_b" / "scenario_3")
    gold(tmp_path / "evals" / "group_b" / "scenario_3" / "turns" / "scenario_8")
    gold(tmp_path / "evals" / "scenario_5")
    root = tmp_path / "evals" / "group_a"
    # 007 joins 7; a nested folder of a scenario is no target of a shared folder.
    assert scenario_ids_beside([str(root)], str(tmp_path)) == {"7", "3", "5"}


def test_a_folder_named_like_a_scenario_needs_evidence(tmp_path: Path) -> None:
    gold(tmp_path / "evals" / "group_a" / "scenario_1")
    (tmp_path / "evals" / "scenario_2").mkdir()  # no gold, config or trajectory
    (tmp_path / "evals" / "scenario_3").mkdir()
    (tmp_path / "evals" / "scenario_3" / "trajectory.json").write_text("{}")
    root = str(tmp_path / "evals" / "group_a")
    assert scenario_ids_beside([root], str(tmp_path)) == {"3"}


def test_depth_hidden_skipped_and_reports_folders_are_passed_by(tmp_path: Path) -> None:
    gold(tmp_path / "evals" / "group_a" / "scenario_1")
    gold(tmp_path / "evals" / "a" / "b" / "scenario_2")  # three levels below evals
    gold(tmp_path / "evals" / "a" / "b" / "c" / "scenario_3")  # four: too deep
    gold(tmp_path / "evals" / ".hidden" / "scenario_4")
    gold(tmp_path / "evals" / "venv" / "scenario_5")
    gold(tmp_path / "evals" / "reports" / "scenario_6")
    root = str(tmp_path / "evals" / "group_a")
    reports = str(tmp_path / "evals" / "reports")
    found = scenario_ids_beside([root], str(tmp_path), reports_dir=reports, skip_folders=["venv"])
    assert found == {"2"}
    assert scenario_ids_beside([root], str(tmp_path), depth=4) == {"2", "3", "5", "6"}


def test_never_lists_the_top_folder_or_above(tmp_path: Path) -> None:
    """The project (rootdir) holds more than one tree: ``pytest evals`` is a whole tree, and
    ``examples/scenario_9`` is no scenario it left out (review 14)."""
    gold(tmp_path / "outside" / "scenario_9")
    project = tmp_path / "project"
    gold(project / "evals" / "scenario_1")
    gold(project / "evals" / "scenario_3")
    gold(project / "examples" / "scenario_2")
    gold(project / "scenario_4")
    assert scenario_ids_beside([str(project / "evals")], str(project)) == set()
    root = str(project / "evals" / "scenario_1")
    assert scenario_ids_beside([root], str(project)) == {"3"}
    # A root outside the top folder has nothing around it to look at.
    assert scenario_ids_beside([str(tmp_path / "outside")], str(project)) == set()


def test_an_ancestor_named_like_a_scenario_is_no_scenario(tmp_path: Path) -> None:
    project = tmp_path / "scenario_planner"
    gold(project / "evals" / "scenario_1")
    (project / "groundtruth.txt").write_text("1")
    assert scenario_ids_beside([str(project / "evals")], str(tmp_path)) == set()


def test_the_look_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gold(tmp_path / "evals" / "group_a" / "scenario_1")
    for i in range(2, 12):
        gold(tmp_path / "evals" / f"g{i:02d}" / f"scenario_{i}")
    root = str(tmp_path / "evals" / "group_a")
    listed: list[str] = []
    list_dir = scenarios._list_dir

    def counted(path: str, shown: str, visited: set[tuple[int, int]]) -> object:
        listed.append(path)
        return list_dir(path, shown, visited)

    monkeypatch.setattr(scenarios, "_list_dir", counted)
    assert len(scenario_ids_beside([root], str(tmp_path))) == 10
    # Nearest folders first (evals, then its groups), and never more listings than the bound.
    assert listed[:2] == [str(tmp_path / "evals"), str(tmp_path / "evals" / "g02")]
    listed.clear()
    monkeypatch.setattr(scenarios, "MAX_LISTINGS_BESIDE", 12)
    assert scenario_ids_beside([root], str(tmp_path)) == {"2"}
    assert len(listed) == 12


def test_a_link_back_up_is_listed_once(tmp_path: Path) -> None:
    gold(tmp_path / "evals" / "group_a" / "scenario_1")
    gold(tmp_path / "evals" / "group_b" / "scenario_2")
    (tmp_path / "evals" / "group_b" / "up").symlink_to(tmp_path / "evals")
    root = str(tmp_path / "evals" / "group_a")
    assert scenario_ids_beside([root], str(tmp_path)) == {"2"}


@pytest.mark.parametrize(
    ("scenario_id", "source", "run_id", "keys"),
    [
        ("007", "runs/x.json", "r1", ["7"]),  # the record's id is authoritative
        (None, "runs/Scenario_011.json", "r1", ["11", "r1"]),  # then the stem, then the run id
        (None, "runs/x.jsonl", "SGT-001", ["x", "SGT-001"]),
    ],
)
def test_join_keys(scenario_id: str | None, source: str, run_id: str, keys: list[str]) -> None:
    trajectory = Trajectory(source=source, run_id=run_id, scenario_id=scenario_id)
    assert join_keys(trajectory) == keys
