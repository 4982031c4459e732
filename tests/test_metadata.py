"""AssetOpsBench's ``evaluation_metadata`` in scenario configs, read as scorer options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval.cli import main
from pytest_structeval.metadata import with_metadata
from pytest_structeval.scenarios import discover_scenarios
from tests.plugin_support import trajectory, write


def test_each_per_key_mode_becomes_the_option_it_means() -> None:
    metadata = {
        "keys": {
            "count": {"mode": "measure"},
            "start": {"mode": "timestamp", "tolerance_s": 60},
            "rows": {"mode": "set_match", "match_on": ["name"]},
            "pumps": {"mode": "set_match", "match_on": "id"},
            "tags": {"mode": "set_match"},
            "a.b": {"mode": "measure"},
            "picks": {"mode": "set_contained", "n": 2},
        },
        "required_terms": ["P-101"],
        "optional_terms": [{"any_of": ["trip", "tripped"]}],
    }
    options, errors = with_metadata({}, metadata)
    assert errors == []
    assert options == {
        "required_terms": ["P-101"],
        "optional_terms": [{"any_of": ["trip", "tripped"]}],
        "options": {
            "answer.count": {"numeric_tolerance": {"abs": 1}},
            "answer.start": {"timestamp_tolerance": 60},
            'answer["a.b"]': {"numeric_tolerance": {"abs": 1}},
        },
        "align": {
            "answer.rows": {"key": "name"},
            "answer.pumps": {"key": "id"},
            "answer.tags": "unordered",
            "answer.picks": {"method": "contained", "count": 2},
        },
    }


def test_the_scenarios_own_options_win_path_by_path() -> None:
    own = {
        "options": {"answer.count": {"numeric_tolerance": 0}},
        "align": {"answer.tags": "ordered"},
    }
    metadata = {
        "keys": {
            "count": {"mode": "measure"},
            "n": {"mode": "measure"},
            "tags": {"mode": "set_match"},
            "rows": {"mode": "set_match"},
        },
    }
    options, errors = with_metadata(own, metadata)
    assert errors == []
    assert options == {
        "options": {
            "answer.count": {"numeric_tolerance": 0},
            "answer.n": {"numeric_tolerance": {"abs": 1}},
        },
        "align": {"answer.tags": "ordered", "answer.rows": "unordered"},
    }


@pytest.mark.parametrize(
    ("metadata", "own", "message"),
    [
        ("strict", {}, "evaluation_metadata must be a mapping, got str"),
        ({"car_score": 0.6}, {}, "unknown key 'car_score' (known: keys, required_terms"),
        ({"keys": ["count"]}, {}, "evaluation_metadata.keys must be a mapping"),
        ({"keys": {"t": {"mode": "timestamp"}}}, {}, "keys.t: mode timestamp needs tolerance_s"),
        ({"keys": {"r": {"mode": "set_match", "match_on": ["a", "b"]}}}, {}, "one key field"),
        ({"keys": {"x": {"mode": "fuzzy"}}}, {}, "keys.x: unknown mode 'fuzzy'"),
        ({"keys": {"x": "measure"}}, {}, "keys.x: unknown mode None"),
        ({"keys": {"t": {"mode": "set_match"}}}, {"align": "hungarian"}, "write options.align"),
        (  # review diff20b #8: named the mode set_match
            {"keys": {"t": {"mode": "set_contained", "n": 2}}},
            {"align": {"method": "hungarian"}},
            "set_match/set_contained pair answer.t",
        ),
        ({"keys": {"p": {"mode": "set_contained"}}}, {}, "keys.p: mode set_contained needs n"),
        ({"keys": {"p": {"mode": "set_contained", "count": 2}}}, {}, "unknown field(s) count"),
        ({"keys": {"q": {"mode": "measure", "tolerance": 5}}}, {}, "unknown field(s) tolerance"),
        (  # review newuser20 #6: the metadata's list was dropped without a word
            {"required_terms": ["theirs"]},
            {"required_terms": ["mine"]},
            "required_terms given here and in options: keep one list",
        ),
    ],
)
def test_what_has_no_counterpart_is_an_error_not_a_rule_dropped(
    metadata: Any, own: dict[str, Any], message: str
) -> None:
    _, errors = with_metadata(own, metadata)
    assert len(errors) == 1
    assert message in errors[0]


def test_a_scenario_config_reads_it_and_a_bad_one_breaks_only_its_scenario(tmp_path: Path) -> None:
    good = {
        "expected_answer": {"n": 5},
        "evaluation_metadata": {"keys": {"n": {"mode": "measure"}}},
    }
    write(tmp_path / "scenario_1" / "scenario.json", json.dumps(good))
    bad = {"expected_answer": {"n": 5}, "evaluation_metadata": {"keys": {"n": {"mode": "x"}}}}
    write(tmp_path / "scenario_2" / "scenario.json", json.dumps(bad))
    first, second = discover_scenarios([tmp_path])
    assert first.error is None
    assert first.options == {"options": {"answer.n": {"numeric_tolerance": {"abs": 1}}}}
    assert second.error is not None
    assert "unknown mode 'x'" in second.error


def test_an_upstream_scenario_file_scores_with_its_leniency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """AssetOpsBench's scenario-file form, one entry per scenario, its metadata honoured."""
    entries = [
        {
            "id": "anomaly_1",
            "text": "When did the anomaly start, and how many observations?",
            "expected_answer": json.dumps(
                {
                    "start": "2020-06-26T11:14:00",
                    "observations": 2876,
                    "sensors": ["T-011", "T-012", "P-201", "P-202"],
                }
            ),
            "evaluation_metadata": {
                "keys": {
                    "start": {"mode": "timestamp", "tolerance_s": 120},
                    "observations": {"mode": "measure"},
                    "sensors": {"mode": "set_contained", "n": 2},
                }
            },
        },
        {
            "id": "clarify_2",
            "text": "Is the chiller fine?",
            "expected_answer": json.dumps({"clarification": "Which chiller do you mean?"}),
            "evaluation_metadata": {
                "required_terms": [{"any_of": ["which chiller", "what chiller"]}]
            },
        },
    ]
    write(tmp_path / "scenarios.json", json.dumps(entries))
    answers = {
        "anomaly_1": {
            "start": "2020-06-26 11:15:00",
            "observations": 2877,
            "sensors": ["p-202", "T-011"],
        },
        "clarify_2": {"clarification": "What chiller is it?"},
    }
    for run, (sid, answer) in enumerate(answers.items()):
        record = trajectory(f"r{run}", json.dumps(answer), sid)
        write(tmp_path / "runs" / f"r{run}.json", json.dumps(record))
    out = tmp_path / "out"
    code = main(
        [
            "evaluate",
            "--scenarios", str(tmp_path / "scenarios.json"),
            "--trajectories", str(tmp_path / "runs"),
            "--reports-dir", str(out),
        ]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "runs 2 | passed 2" in printed
    assert json.loads((out / "r1.json").read_text())["score"]["details"]["car_score"] == 1.0
    kept = json.loads((out / "r0.json").read_text())["score"]["details"]["details"]
    assert [d["status"] for d in kept if d["key"].startswith("answer.sensors")] == [
        "match",
        "skipped",
        "skipped",
        "match",
    ]


def test_a_number_as_a_key_names_the_golds_key_as_json_text() -> None:
    """Review diff20b #13: a YAML 2023 named answer[<2023>], which matched nothing."""
    options, errors = with_metadata({}, {"keys": {2023: {"mode": "measure"}}})
    assert errors == []
    assert options == {"options": {'answer["2023"]': {"numeric_tolerance": {"abs": 1}}}}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("groundtruth_eval.json", '{"required_terms": [{"any_of": ["site", "location"]}]}'),
        (
            "groundtruth_eval.json",
            '{"evaluation_metadata": {"required_terms": [{"any_of": ["site", "location"]}]}}',
        ),
        ("GroundTruth_Eval.yaml", "required_terms:\n  - any_of: [site, location]\n"),
    ],
)
def test_a_groundtruth_eval_file_holds_the_metadata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    """Upstream's later layout: the terms live in the folder's groundtruth_eval file, which was
    silently ignored, so the answer was scored as a plain text value."""
    folder = tmp_path / "scenario_1"
    write(folder / "groundtruth.json", '{"clarification": "Which site do you mean?"}')
    write(folder / name, text)
    answers = {"r1": "Which location?", "r2": "Which pump?"}
    for run, answer in answers.items():
        record = trajectory(run, json.dumps({"clarification": answer}), "1")
        write(folder / f"trajectory_{run}.json", json.dumps(record))
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None
    assert scenario.options == {"required_terms": [{"any_of": ["site", "location"]}]}
    assert str(folder / name) in scenario.files  # a scenario's files: what a rerun watches
    out = tmp_path / "out"
    main(["evaluate", "--scenarios", str(tmp_path), "--reports-dir", str(out)])
    capsys.readouterr()
    scores = {run: json.loads((out / f"{run}.json").read_text())["score"] for run in answers}
    assert scores["r1"]["details"]["car_score"] == 1.0  # "location" is a synonym of "site"
    assert scores["r2"]["details"]["car_score"] == 0.0
    assert scores["r2"]["details"]["missing_terms"] == ["site"]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {
                "scenario.yaml": "evaluation_metadata:\n  required_terms: [site]\n",
                "groundtruth_eval.json": '{"required_terms": ["site"]}',
            },
            "evaluation_metadata in the scenario config and in groundtruth_eval.json: keep one",
        ),
        (
            {"groundtruth_eval.json": '{"required_terms": ["site"]}', "groundtruth_eval.yaml": ""},
            "several evaluation metadata files: groundtruth_eval.json, groundtruth_eval.yaml",
        ),
        ({"groundtruth_eval.json": "[1, 2"}, "groundtruth_eval.json: "),
        ({"groundtruth_eval.json": "[1, 2]"}, "groundtruth_eval.json must be a mapping, got list"),
        (
            {"groundtruth_eval.json": '{"car_score": 0.6}'},
            "groundtruth_eval.json: unknown key 'car_score' (known: keys, required_terms,",
        ),
        (
            {"groundtruth_eval.json": '{"evaluation_metadata": {"keys": {"n": {"mode": "x"}}}}'},
            "groundtruth_eval.json: evaluation_metadata.keys.n: unknown mode 'x'",
        ),
        (  # review diff21a #3: the wrapper itself was called an unknown key
            {"groundtruth_eval.json": '{"evaluation_metadata": {}, "car_score": 0.6}'},
            "groundtruth_eval.json: 'car_score' beside evaluation_metadata: unknown key",
        ),
        (  # review diff21a #4: a slip in the name lost the terms without a word
            {"ground_truth_eval.json": '{"required_terms": ["site"]}'},
            "ground_truth_eval.json: evaluation metadata is read from a file named "
            "groundtruth_eval.json, groundtruth_eval.yaml, groundtruth_eval.yml",
        ),
        ({"groundtruth-eval.yaml": ""}, "groundtruth-eval.yaml: evaluation metadata is read"),
        ({"groundtruth_evaluation.json": ""}, "groundtruth_evaluation.json: evaluation metadata"),
        ({"groundtruth_eval.json/notes.md": ""}, "groundtruth_eval.json: evaluation metadata"),
        (  # review diff21b: a known key in the wrong place is no unknown key
            {"groundtruth_eval.json": '{"evaluation_metadata": {}, "required_terms": ["a"]}'},
            "groundtruth_eval.json: 'required_terms' beside evaluation_metadata: move it inside",
        ),
    ],
)
def test_a_groundtruth_eval_file_that_cannot_apply_breaks_only_its_scenario(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    write(tmp_path / "scenario_1" / "groundtruth.json", '{"clarification": "Which site?"}')
    for name, text in files.items():
        write(tmp_path / "scenario_1" / name, text)
    write(tmp_path / "scenario_2" / "groundtruth.json", '{"n": 1}')
    first, second = discover_scenarios([tmp_path])
    assert first.error is not None
    assert message in first.error
    assert "unknown key 'evaluation_metadata'" not in first.error
    assert second.error is None


@pytest.mark.parametrize(
    "name",
    [
        "gold_eval.py",
        "groundtruth_eval.py",
        "gold_evaluation.md",
        "groundtruth_eval.txt",
        "groundtruth_eval.jsonl",
        "GoldEval.ipynb",
        "gold_evals/results.json",
        "groundtruth_evals/results.json",
    ],
)
def test_the_users_own_files_near_the_metadata_name_are_left_alone(
    tmp_path: Path, name: str
) -> None:
    """Review diff21b #2: any file or folder named around "gold eval" failed the scenario."""
    write(tmp_path / "scenario_1" / "groundtruth.json", '{"n": 1}')
    write(tmp_path / "scenario_1" / name, "")
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None


def test_a_near_name_beside_metadata_in_the_scenario_config_is_another_file(
    tmp_path: Path,
) -> None:
    """Review diff21b #2: the metadata is there already."""
    folder = tmp_path / "scenario_1"
    write(folder / "groundtruth.json", '{"clarification": "Which site?"}')
    write(folder / "scenario.yaml", "evaluation_metadata:\n  required_terms: [site]\n")
    write(folder / "ground_truth_eval.json", "{}")
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None
    assert scenario.options == {"required_terms": ["site"]}


def test_a_near_name_beside_the_metadata_file_is_another_file(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_1"
    write(folder / "groundtruth.json", '{"clarification": "Which site?"}')
    write(folder / "groundtruth_eval.json", '{"required_terms": ["site"]}')
    write(folder / "ground_truth_eval.json", "{}")  # a near name, and the real one is there
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None
    assert scenario.options == {"required_terms": ["site"]}


def test_a_groundtruth_eval_file_alone_is_a_scenario_without_gold(tmp_path: Path) -> None:
    write(tmp_path / "scenario_1" / "groundtruth_eval.json", '{"required_terms": ["site"]}')
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is not None
    assert scenario.error.startswith("no groundtruth.* in folder")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("groundtruth_eval.json", ""),
        ("groundtruth_eval.yaml", "\n"),
        ("groundtruth_eval.yml", "# later\n"),
    ],
)
def test_an_empty_groundtruth_eval_file_holds_no_metadata(
    tmp_path: Path, name: str, text: str
) -> None:
    """A gap carried since session 29: an empty metadata file, whose only purpose is the
    metadata, broke its scenario (``file is empty``); it holds none, as an empty scenario
    config holds no settings."""
    write(tmp_path / "scenario_1" / "groundtruth.json", '{"n": 1}')
    write(tmp_path / "scenario_1" / name, text)
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None
    assert scenario.options == {}


def test_a_json_null_groundtruth_eval_file_is_still_an_error(tmp_path: Path) -> None:
    """mutation31 MD2: only an empty file (or YAML of comments only) holds no metadata; a
    JSON file holding null says something else."""
    write(tmp_path / "scenario_1" / "groundtruth.json", '{"n": 1}')
    write(tmp_path / "scenario_1" / "groundtruth_eval.json", "null")
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is not None
    assert "groundtruth_eval.json" in scenario.error
