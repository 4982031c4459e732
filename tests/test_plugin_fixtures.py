"""The ``assert_json_matches`` and ``structeval`` fixtures, assertion diffs, the register hook."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from pytest_structeval.registry import default_registry
from tests.plugin_support import aggregate, scenario, trajectory

REGISTER = """
from pytest_structeval import score

def within_one(gold, model, **options):
    return score(gold, model, mode="strict", numeric_tolerance={"abs": 1}, **options)

def pytest_structeval_register(registry):
    registry.register_scorer("within_one", within_one)
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    return pytester


def failure_text(result: pytest.RunResult) -> str:
    text = result.stdout.str()
    return text[text.index("FAILURES") : text.index("short test summary")]


def test_assert_json_matches_fixture_lists_only_failing_paths(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        def test_answer(assert_json_matches):
            assert_json_matches(
                {"energy": 14, "material": 48, "site": "north"},
                'Final Answer: {"energy": 14, "material": 47, "site": "north"}',
            )
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    failure = failure_text(result)
    assert "answer.material" in failure
    assert "48" in failure
    assert "47" in failure
    assert "answer.energy" not in failure
    assert "answer.site" not in failure
    assert "check_result" not in failure  # __tracebackhide__: the traceback ends in the test
    assert not (project.path / "reports").exists()  # plain asserts are not recorded


def test_assert_json_matches_fixture_returns_the_result(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        def test_answer(assert_json_matches):
            result = assert_json_matches({"a": [1, 2]}, "```json\\n{\\"a\\": [1, 2]}\\n```")
            assert result.passed and result.score == 1.0
            close = assert_json_matches({"a": 1.0}, '{"a": 1.04}', mode="similarity",
                                        threshold=0.9)
            assert close.score < 1.0
        """
    )
    project.runpytest().assert_outcomes(passed=1)


def test_structeval_fixture_records_each_result(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        def test_many(structeval):
            structeval.score({"a": 1}, '{"a": 1}')
            structeval.score({"a": 1}, '{"a": 2}', mode="similarity")
            structeval.assert_matches({"b": "x"}, '{"b": "X"}')

        def test_fails(structeval):
            structeval.assert_matches({"c": 1}, '{"c": 2}')
        """
    )
    result = project.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*- structeval results -*",
            "test_*.py::test_fails strict: score 0.0000 FAILED",  # its name said once
            "test_*.py::test_many#2 [[]test_many-2[]] similarity: score 0.0000 FAILED",
        ]
    )
    report = aggregate(project.path)
    rows = sorted(
        (r["run_id"], r["scenario_id"].partition("::")[2], r["passed"]) for r in report["results"]
    )
    assert rows == [  # each call asks another question: no repeats (review asks18)
        ("test_fails", "test_fails", False),
        ("test_many", "test_many", True),
        ("test_many-2", "test_many#2", False),
        ("test_many-3", "test_many#3", True),
    ]
    assert report["repeats"]["repeated"] == 0
    assert {r["nodeid"] for r in report["results"]} == {
        "test_structeval_fixture_records_each_result.py::test_many",
        "test_structeval_fixture_records_each_result.py::test_fails",
    }
    assert report["totals"]["scored"] == 4
    assert report["totals"]["passed"] == 2


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_records_of_subtests_are_each_kept(
    project: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    """lifecycle32 #1: every subtest reports under its test's node id and phase, and each
    replaced the records of the one before: two failing samples of three were lost, and
    ``--structeval-fail-under 1.0`` was met. unittest's ``subTest`` reports the same way."""
    if not hasattr(pytest, "Subtests"):  # (pytest 9 reports subtests; pytest 8 has none)
        pytest.skip("pytest before 9.0 has no subtests")
    project.makepyfile(
        test_sub="""
        import unittest

        def test_scores(structeval, subtests):
            for i, answer in enumerate(['{"q": 9}', '{"q": 9}', '{"q": 0}']):
                with subtests.test(i=i):
                    structeval.score({"q": 0}, answer, run_id=f"sample{i}")
            structeval.score({"q": 0}, '{"q": 0}', run_id="after")

        class Case(unittest.TestCase):
            def test_sub(self):
                import pytest_structeval

                for i in range(2):
                    with self.subTest(i=i):
                        self.se.score({"q": 0}, '{"q": %d}' % i, run_id=f"unit{i}")

        import pytest

        @pytest.fixture(autouse=True)
        def _se(request, structeval):
            if request.instance is not None:
                request.instance.se = structeval
        """
    )
    result = project.runpytest("--structeval-fail-under", "1.0", "-p", "no:randomly", *workers)
    result.stdout.fnmatch_lines(["*runs 6 | passed 3 | pass rate 0.5000*"])
    assert result.ret == 1
    report = aggregate(project.path)
    assert sorted((r["run_id"], r["passed"]) for r in report["results"]) == [
        ("after", True),
        ("sample0", False),
        ("sample1", False),
        ("sample2", True),
        ("unit0", True),
        ("unit1", False),
    ]


def test_calls_asking_one_question_are_its_runs(project: pytest.Pytester) -> None:
    """The same gold scored the same way is one scenario (samples of one question); another
    mode, threshold or options make another question, never a flaky repeat."""
    project.makepyfile(
        """
        def test_samples(structeval):
            for answer in ('{"n": 3}', '{"n": 4}', '{"n": 3}'):
                structeval.score('{"n": 3}', answer)
            structeval.score({"n": 3}, '{"n": 3}')  # the same gold, given parsed
            structeval.score({"n": 3}, '{"n": 4}', threshold=0.5)
            structeval.score({"n": 3}, '{"n": 4}', "similarity")
            structeval.score({"n": 3}, '{"n": 4}', numeric_tolerance=0.5)
        """
    )
    project.runpytest().assert_outcomes(passed=1)
    report = aggregate(project.path)
    ids = [
        r["scenario_id"].partition("::")[2]
        for r in sorted(report["results"], key=lambda r: r["run_id"])
    ]
    assert ids == [
        "test_samples",
        "test_samples",
        "test_samples",
        "test_samples",
        "test_samples#2",
        "test_samples#3",
        "test_samples#4",
    ]
    assert report["repeats"]["flaky"] == [
        "test_calls_asking_one_question_are_its_runs.py::test_samples"
    ]


def test_parametrized_runs_sharing_a_scenario_id_are_repeats(project: pytest.Pytester) -> None:
    """pytest-repeat or a parametrized sample loop gave k separate "scenarios", so pass^k and
    flakiness were never computed for them (audit 10)."""
    project.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("i", range(4))
        def test_sample(structeval, i):
            answer = '{"a": 2}' if i == 3 else '{"a": 1}'
            structeval.score({"a": 1}, answer, scenario_id="q1")

        def test_named(structeval):
            structeval.score({"a": 1}, '{"a": 1}', scenario_id="q2", run_id="gpt-4o")
            structeval.assert_matches({"a": 1}, '{"a": 1}', scenario_id="q2", run_id="o3")
        """
    )
    project.runpytest().assert_outcomes(passed=5)
    report = aggregate(project.path)
    assert report["by_scenario"]["q1"]["runs"] == 4
    assert report["repeats"]["flaky"] == ["q1"]
    assert report["repeats"]["repeated"] == 2
    assert sorted(r["run_id"] for r in report["results"] if r["scenario_id"] == "q2") == [
        "gpt-4o",
        "o3",
    ]


PYTEST_REPEAT = """
import pytest

# pytest-repeat 0.9's own parametrization (``--count 3``), without installing it
@pytest.fixture
def __pytest_repeat_step_number(request):
    return request.param

@pytest.hookimpl(trylast=True)
def pytest_generate_tests(metafunc):
    count = 3
    metafunc.fixturenames.append("__pytest_repeat_step_number")
    metafunc.parametrize(
        "__pytest_repeat_step_number", range(count), indirect=True,
        ids=lambda i, n=count: f"{i + 1}-{n}",
    )
"""


def test_a_repeated_tests_runs_are_one_scenario_per_runner_and_model(
    project: pytest.Pytester,
) -> None:
    """pytest-repeat's ``--count 3`` made each repetition (``test_q[2-3]``) a scenario of its
    own, so a test failing one time in three was never flaky; a test parametrized over models
    pooled them into one flaky scenario (peers25 #1, #2). The repetitions are runs of the
    test's scenario now, and ``runner``/``model_name`` file each record under its system."""
    project.makeconftest(PYTEST_REPEAT)
    project.makepyfile(
        """
        import pytest

        ANSWERS = iter(['{"a": 1}', '{"a": 2}', '{"a": 1}'])

        def test_q(structeval):
            structeval.score({"a": 1}, next(ANSWERS))

        @pytest.mark.parametrize("case", ["x-1"])
        def test_p(structeval, case):
            structeval.score(1, "1")

        @pytest.mark.parametrize("model", ["m1", "m2"])
        def test_models(structeval, model):
            answer = '{"a": 1}' if model == "m1" else '{"a": 2}'
            structeval.assert_matches(
                {"a": 1}, answer, runner="agent", model_name=model, scenario_id="q1"
            )
        """
    )
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=9, failed=3)
    report = aggregate(project.path)
    test_q = "test_a_repeated_tests_runs_are_one_scenario_per_runner_and_model.py::test_q"
    assert sorted(report["by_scenario"]) == [
        "q1 [agent / m1]",
        "q1 [agent / m2]",
        test_q.replace("test_q", "test_p[x-1]"),
        test_q,
    ]
    assert report["by_scenario"][test_q.replace("test_q", "test_p[x-1]")]["runs"] == 3
    assert report["by_scenario"][test_q]["runs"] == 3
    assert report["repeats"]["flaky"] == [test_q]
    systems = report["by_runner_model"]
    assert {name: (s["runs"], s["passed"]) for name, s in systems.items()} == {
        "agent / m1": (3, 3),
        "agent / m2": (3, 0),
        "unknown": (6, 5),
    }
    models = {(r["run_id"], r["runner"], r["model"]) for r in report["results"]}
    assert ("test_models[m2-2-3]", "agent", "m2") in models
    assert ("test_q[1-3]", "", "") in models


PYTEST_FLAKEFINDER = """
import pytest

# pytest-flakefinder 1.1's own parametrization (``--flake-finder --flake-runs 3``)
@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    name = "__flakefinder_{}".format(metafunc.function.__name__)
    metafunc.fixturenames.append(name)
    metafunc.parametrize(argnames=name, argvalues=list(range(3)))
"""


def test_a_flakefinder_tests_copies_are_runs_of_one_scenario(project: pytest.Pytester) -> None:
    """pluginmix34 #4: pytest-flakefinder's copies (``test_q[0]`` ... ``test_q[2]``) were a
    scenario each, so the flaky answer it hunts for was never flaky; they are pooled as
    pytest-repeat's are, and a parameter of the test's own stays (``test_p[1]``)."""
    project.makeconftest(PYTEST_FLAKEFINDER)
    project.makepyfile(
        test_ff="""
        import pytest

        ANSWERS = iter(['{"a": 1}', '{"a": 2}', '{"a": 1}'])

        def test_q(structeval):
            structeval.score({"a": 1}, next(ANSWERS))

        @pytest.mark.parametrize("n", [1, 0])
        def test_p(structeval, n):
            structeval.score(n, str(n))
        """
    )
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=9)
    report = aggregate(project.path)
    assert {name: s["runs"] for name, s in report["by_scenario"].items()} == {
        "test_ff.py::test_q": 3,
        "test_ff.py::test_p[1]": 3,
        "test_ff.py::test_p[0]": 3,
    }
    assert report["repeats"]["flaky"] == ["test_ff.py::test_q"]
    assert sorted(r["run_id"] for r in report["results"])[:3] == [
        "test_p[0-0]",
        "test_p[0-1]",
        "test_p[1-0]",
    ]


def test_fixture_results_join_the_scenario_aggregate(project: pytest.Pytester) -> None:
    scenario(project.path / "sc", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    project.makepyfile(test_unit="def test_unit(structeval):\n    structeval.score(1, '1')\n")
    project.runpytest("sc", "test_unit.py").assert_outcomes(passed=2)
    assert sorted(r["run_id"] for r in aggregate(project.path)["results"]) == ["r1", "test_unit"]


def test_assertrepr_for_json_matches_and_score_results(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_structeval import JsonMatches, score

        def test_matcher():
            assert '{"a": 1, "b": 2}' == JsonMatches({"a": 1, "b": 3})

        def test_result():
            assert score({"a": 1, "b": 2}, '{"a": 1, "b": 5}') == True
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=2)
    failure = failure_text(result)
    assert failure.count("structured answer does not match (strict score") == 2
    assert "answer.b" in failure
    assert "answer.a " not in failure


def test_diff_off_shortens_assertrepr(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_structeval import JsonMatches

        def test_matcher():
            assert {"a": 1, "b": 2} == JsonMatches({"a": 1, "b": 3})
        """
    )
    failure = failure_text(project.runpytest("--structeval-diff", "off"))
    assert "structured answer does not match (strict score" in failure
    assert "answer.b" not in failure


FIXTURE_FAILURES = """
def test_fixture(assert_json_matches):
    assert_json_matches({"a": 1, "b": [1, 2, 3]}, '{"a": 2, "b": [1, 2]}')

def test_recorded(structeval):
    structeval.assert_matches({"a": 1, "b": [1, 2, 3]}, '{"a": 2, "b": [1, 2]}', threshold=0.9)
"""
HEADLINE = (
    "AssertionError: strict: score 0.5714 (not passed{}): structured answer differs from "
    "ground truth: 1 mismatched, 1 missing, 0 extra{}"
)


@pytest.mark.parametrize("how", ["option", "ini"])
def test_diff_off_shortens_the_fixture_messages_to_their_headline(
    project: pytest.Pytester, how: str
) -> None:
    project.makepyfile(FIXTURE_FAILURES)
    if how == "ini":
        project.makeini("[pytest]\nstructeval_diff = off\n")
    result = project.runpytest(*(["--structeval-diff", "off"] if how == "option" else []))
    result.assert_outcomes(failed=2)
    messages = [line[1:].strip() for line in result.stdout.lines if line.startswith("E ")]
    assert messages == [
        HEADLINE.format("", ""),
        HEADLINE.format(", threshold 0.9", " (f1 0.571 < threshold 0.9)"),
    ]


def test_fixture_messages_are_detailed_by_default(project: pytest.Pytester) -> None:
    project.makepyfile(FIXTURE_FAILURES)
    failure = failure_text(project.runpytest())
    assert failure.count("path         gold  model  score  reason") == 2
    assert failure.count("answer.b[2]  3     -      0.00") == 2


def test_usage_errors_point_at_the_test_not_the_library(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        from pytest_structeval import JsonMatches, assert_json_matches, score
        from pytest_structeval.registry import Registry

        def test_fixture(assert_json_matches):
            assert_json_matches({"a": 1}, '{"a": 1}', mode="nope")

        def test_library():
            assert_json_matches({"a": 1}, '{"a": 1}', mode="nope")

        def test_matcher():
            assert {"a": 1} == JsonMatches({"a": 1}, mode="nope")

        def test_recording_fixture(structeval):
            structeval.assert_matches({"a": 1}, '{"a": 1}', mode="nope")

        def test_score():
            score({"a": 1}, '{"a": 1}', "nope")

        def test_register():
            Registry().register_scorer("", score)
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=6)
    output = result.stdout.str()
    unknown = "E       pytest_structeval.errors.OptionsError: unknown scorer 'nope'; registered: *"
    result.stdout.fnmatch_lines(
        [
            """>       assert_json_matches({"a": 1}, '{"a": 1}', mode="nope")""",
            unknown,
            """>       assert_json_matches({"a": 1}, '{"a": 1}', mode="nope")""",
            unknown,
            """>       assert {"a": 1} == JsonMatches({"a": 1}, mode="nope")""",
            unknown,
            """>       structeval.assert_matches({"a": 1}, '{"a": 1}', mode="nope")""",
            unknown,
            """>       score({"a": 1}, '{"a": 1}', "nope")""",
            unknown,
            """>       Registry().register_scorer("", score)""",
            "E       pytest_structeval.errors.OptionsError: scorer name must be a non-empty *",
        ]
    )
    for module in ("api.py", "registry.py", "plugin.py"):
        assert module not in output


def test_the_recording_fixture_refuses_ids_and_labels_a_trajectory_could_not_hold(
    project: pytest.Pytester,
) -> None:
    """Review messages29 #4: a list or a set was written as its repr, into the report and a
    file name (``__r__.json``), where a trajectory with the same value is a load error."""
    project.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("given", [
            {"scenario_type": ["x"]}, {"runner": {"r": 1}}, {"run_id": {"r"}},
            {"scenario_id": True}, {"model_name": float("inf")},
        ])
        def test_bad(structeval, given):
            structeval.score({"a": 1}, '{"a": 1}', **given)

        def test_numbers(structeval):
            structeval.assert_matches({"a": 1}, '{"a": 1}', run_id=7, model_name=4.1, runner="r")

        def test_objects(structeval):  # (ids from a DataFrame, a UUID, a path: diff29a #3)
            import decimal, pathlib, uuid
            structeval.score({"a": 1}, {"a": 1}, run_id=uuid.UUID(int=5), runner=pathlib.Path(
                "runs/a"), model_name=decimal.Decimal("3"), scenario_type=decimal.Decimal("1.50"))
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=5)
    accepted = "must be a string, a number, a path or a UUID"
    result.stdout.fnmatch_lines(
        [
            f"E   *OptionsError: scenario_type {accepted}, got list",
            f"E   *OptionsError: runner {accepted}, got dict",
            f"E   *OptionsError: run_id {accepted}, got set",
            f"E   *OptionsError: scenario_id {accepted}, got bool",
            "E   *OptionsError: model_name must be a finite number, got inf",
        ]
    )
    run = json.loads((project.path / "reports" / "structeval" / "7.json").read_text("utf-8"))
    assert (run["run_id"], run["model"], run["runner"]) == ("7", "4.1", "r")
    name = "00000000-0000-0000-0000-000000000005"
    run = json.loads((project.path / "reports" / "structeval" / f"{name}.json").read_text("utf-8"))
    assert (run["run_id"], run["runner"], run["model"], run["scenario_type"]) == (
        name,
        "runs/a",
        "3",
        "1.50",
    )


def test_bad_options_point_at_the_test_and_bugs_keep_their_frames(
    project: pytest.Pytester,
) -> None:
    """Option, pattern, alignment and limit errors end at the user's line (the library's
    frames hide only for its own errors); any other exception keeps every frame."""
    project.makepyfile(
        """
        from pytest_structeval import score

        def test_option(assert_json_matches):
            assert_json_matches({"a": 1}, {"a": 1}, numeric_tolerence=0.1)

        def test_align():
            score({"a": [1]}, {"a": [1]}, align="sideways")

        def test_pattern():
            score({"a": 1}, {"a": 1}, "similarity", options={"a[": {"case_sensitive": False}})

        def test_per_path_key():
            score({"a": 1}, {"a": 1}, options={"a": {"tolerance": 1}})

        def test_gold_too_deep():
            score({"a": {"b": {"c": 1}}}, {}, "schema", max_depth=1)

        def test_gold_text_too_deep(assert_json_matches):
            assert_json_matches('{"a": {"b": {"c": 1}}}', {}, max_depth=1)

        def test_gold_yaml_too_deep(assert_json_matches):
            assert_json_matches("```yaml\\na:\\n  b:\\n    c: 1\\n```", {}, max_depth=1)

        def test_bug(monkeypatch):
            from pytest_structeval import default_registry
            def broken(*args, **kwargs):
                raise KeyError("a bug")
            # (the scorer's own module globals: an earlier in-process run may have left
            # another copy of the module in sys.modules)
            scorer = default_registry().get_scorer("strict")
            monkeypatch.setitem(scorer.__globals__, "strict_metrics", broken)
            score({"a": 1}, {"a": 1})
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=8)
    text = result.stdout.str()
    failures = text[text.index("FAILURES") : text.index("test_bug ")]
    assert "pytest_structeval/" not in failures
    for error in (
        "OptionsError: strict mode: unknown option(s) 'numeric_tolerence'",
        "OptionsError: unknown align method 'sideways'",
        "OptionsError: ",
        "LimitError: ",
    ):
        assert f"E       pytest_structeval.errors.{error}" in failures
    bug = text[text.index("test_bug ") :]
    assert "pytest_structeval/modes/strict.py" in bug  # a real bug keeps the library's frames
    assert "KeyError: 'a bug'" in bug


def test_registered_scorer_via_option_yaml_and_fixtures(project: pytest.Pytester) -> None:
    project.makeconftest(REGISTER)
    sc = project.path / "sc"
    scenario(sc, "scenario_1", '{"n": 10}', trajectory("r1", '{"n": 11}'))
    scenario(
        sc, "scenario_2", '{"n": 10}', trajectory("r2", '{"n": 9}'), config="scorer: within_one\n"
    )
    project.makepyfile(
        test_unit="""
        def test_fixtures(structeval, assert_json_matches):
            assert structeval.score(5, "6", mode="within_one").passed
            assert_json_matches(5, "4", mode="within_one")
        """
    )
    plain = project.runpytest("--structeval-scenarios", "sc")
    plain.assert_outcomes(passed=1, failed=1)  # scenario_2 names its scorer
    custom = project.runpytest("sc", "test_unit.py", "--structeval-scorer", "within_one")
    custom.assert_outcomes(passed=3)
    scorers = {
        r["scenario_id"]: json.loads(p.read_text())["score"]["scorer"]
        for r in aggregate(project.path)["results"]
        for p in [project.path / "reports" / "structeval" / r["report"]]
    }
    assert scorers["1"] == "within_one"
    assert scorers["2"] == "within_one"
    assert "within_one" not in default_registry().scorers  # undone at session end


def test_conftest_loaded_during_collection_can_register(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    sc.mkdir()
    (sc / "conftest.py").write_text(REGISTER, encoding="utf-8")
    scenario(
        sc, "scenario_1", '{"n": 10}', trajectory("r1", '{"n": 11}'), config="scorer: within_one\n"
    )
    project.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=1)


def test_register_hook_is_not_called_for_projects_that_do_not_score(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(
        """
        def pytest_structeval_register(registry):
            raise AssertionError("the registry was prepared for a plain test run")
        """
    )
    project.makepyfile(test_unit="def test_unit():\n    pass\n")
    project.runpytest().assert_outcomes(passed=1)


# -- mutation survivors (review mutants18b) --------------------------------------------------


def test_one_gold_in_another_key_order_or_with_a_huge_int_is_one_question(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        """
        def test_keys(structeval):
            structeval.score({"a": 1, "b": 2}, '{"a": 1, "b": 2}')
            structeval.score({"b": 2, "a": 1}, '{"a": 1, "b": 3}')

        def test_big(structeval):
            structeval.score({"n": 2**70}, {"n": 2**70})
            structeval.score({"n": 2**70}, {"n": 1})
        """
    )
    project.runpytest().assert_outcomes(passed=2)
    report = aggregate(project.path)
    ids = sorted(r["scenario_id"].partition("::")[2] for r in report["results"])
    assert ids == ["test_big", "test_big", "test_keys", "test_keys"]


def test_a_run_id_the_test_name_merely_ends_with_is_shown(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        def test_ab(structeval):
            structeval.score({"a": 1}, '{"a": 2}', run_id="b")
        """
    )
    result = project.runpytest("-rA")
    result.stdout.fnmatch_lines(["test_*.py::test_ab [[]b[]] strict: score 0.0000 FAILED"])


def test_a_gold_deeper_than_repr_goes_is_still_one_question() -> None:
    """orjson refuses 255 levels and repr recursed past Python's limit: with max_depth raised
    the fixture raised RecursionError where score() scores (review robust19)."""
    from pytest_structeval.plugin import _question_key

    deep: Any = 1
    for _ in range(3000):
        deep = [deep]
    key = _question_key(deep, "strict", None, {"max_depth": 5000})
    assert key == _question_key(deep, "strict", None, {"max_depth": 5000})
    assert key != _question_key([deep], "strict", None, {"max_depth": 5000})
    if sys.version_info < (3, 12):  # later versions' repr reaches 3,000 levels
        assert "list at 0x" in key  # the object itself names the question


def test_the_assert_fixture_takes_its_own_registry(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pytest_structeval import Registry, score

        def test_r(assert_json_matches):
            reg = Registry()
            reg.register_scorer("always", lambda gold, model, **kw: score(1, 1, "strict"))
            assert assert_json_matches(1, 2, "always", registry=reg).passed
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_options_in_another_keyword_order_ask_the_same_question(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_two_calls(structeval):
            structeval.score({"a": 1}, {"a": 1}, ignore_extra=True, ignore_paths=["answer.x"])
            structeval.score({"a": 1}, {"a": 2}, ignore_paths=["answer.x"], ignore_extra=True)
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)
    ids = {r["scenario_id"] for r in aggregate(pytester.path)["results"]}
    assert ids == {"test_options_in_another_keyword_order_ask_the_same_question.py::test_two_calls"}


def test_the_fixtures_have_public_types_a_type_checker_reads(tmp_path: Any) -> None:
    """The README's annotations: ``assert_json_matches`` had no exported type (its fixture
    was a bare ``Callable[..., ScoreResult]``), so its arguments went unchecked
    (packaging27 #6)."""
    pytest.importorskip("mypy")
    module = tmp_path / "test_user.py"
    module.write_text(
        "from pytest_structeval import AssertJsonMatches, ScoreResult, StructevalFixture\n"
        "\n\n"
        "def test_typed(assert_json_matches: AssertJsonMatches, structeval: StructevalFixture)"
        " -> None:\n"
        "    result: ScoreResult = assert_json_matches({'a': 1}, '{\"a\": 1}', mode='strict')\n"
        "    assert result.passed\n"
        "    structeval.score({'a': 1}, '{\"a\": 1}')\n"
        "\n\n"
        "def test_wrong(assert_json_matches: AssertJsonMatches) -> None:\n"
        "    assert_json_matches({'a': 1}, threshold='high')\n",
        encoding="utf-8",
    )
    # (in a process of its own: mypy.api raises this process's recursion limit for good, and
    # a later test relies on re's parser running out of it)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(module)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,  # (its cache there)
    )
    out = checked.stdout
    assert checked.returncode == 1, out + checked.stderr
    assert out.count("error:") == 2, out  # the missing model, the threshold's type
    assert 'Missing positional argument "model"' in out
    assert ':11: error: Argument "threshold"' in out


def test_a_messy_gold_warns_in_every_session_of_a_process(project: pytest.Pytester) -> None:
    """The gold's parse is cached for the process: a second session (pytester, an IDE, a
    harness calling pytest.main in a loop) heard no warning, and ``-W error`` passed it
    (interplay30 #3)."""
    project.makepyfile(
        """
        def test_messy(assert_json_matches):
            assert_json_matches('{"a": 1, "b": 2', {"a": 1, "b": 2})
        """
    )
    first = project.runpytest()
    first.assert_outcomes(passed=1, warnings=1)
    first.stdout.fnmatch_lines(["*test_a_messy_gold_warns*.py:2: GoldWarning: the gold answer*"])
    project.runpytest().assert_outcomes(passed=1, warnings=1)
    strict = project.runpytest("-W", "error::pytest_structeval.GoldWarning")
    strict.assert_outcomes(failed=1)


def test_under_w_error_every_use_of_a_messy_gold_fails(project: pytest.Pytester) -> None:
    """diff31a #9: the gold was noted as warned before the warning raised, so only the first
    test (or scenario run) of a messy gold failed under ``-W error`` and the rest passed."""
    project.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("n", [1, 2, 3])
        def test_messy(assert_json_matches, n):
            assert_json_matches('{"a": 1, "b": 2', {"a": 1, "b": 2})
        """
    )
    project.runpytest("-W", "error::pytest_structeval.GoldWarning").assert_outcomes(failed=3)
    project.runpytest().assert_outcomes(passed=3, warnings=1)


def test_what_a_test_sees_of_a_messy_gold_never_depends_on_the_tests_before_it(
    project: pytest.Pytester,
) -> None:
    """runtimeflags34 #4: a GoldWarning counted as given once ``warnings.warn`` returned, so
    a test that ignored it (or caught it in ``pytest.warns``) hid it from every later test of
    that gold: ``filterwarnings = error`` passed them, a later ``pytest.warns`` failed with
    DID NOT WARN, and results changed with the order and the xdist split. Now the default
    display shows it once per session, and every other filter or context gets it."""
    project.makepyfile(
        """
        import warnings

        import pytest
        from pytest_structeval import GoldWarning

        GOLD = '{"a": 1, "b": 2'

        @pytest.mark.filterwarnings("ignore::pytest_structeval.GoldWarning")
        def test_1_ignored(assert_json_matches):
            assert_json_matches(GOLD, {"a": 1, "b": 2})

        def test_2_shown(assert_json_matches):
            assert_json_matches(GOLD, {"a": 1, "b": 2})

        def test_3_shown_once_a_session(assert_json_matches):
            assert_json_matches(GOLD, {"a": 1, "b": 2})

        def test_4_warns(assert_json_matches):
            with pytest.warns(GoldWarning):
                assert_json_matches(GOLD, {"a": 1, "b": 2})

        def test_5_recwarn(assert_json_matches, recwarn):
            assert_json_matches(GOLD, {"a": 1, "b": 2})
            assert [w.category for w in recwarn] == [GoldWarning]

        def test_6_catch_warnings(assert_json_matches):
            with warnings.catch_warnings(record=True) as caught:
                assert_json_matches(GOLD, {"a": 1, "b": 2})
            assert [w.category for w in caught] == [GoldWarning]

        @pytest.mark.filterwarnings("error::pytest_structeval.GoldWarning")
        def test_7_error(assert_json_matches):
            with pytest.raises(GoldWarning):
                assert_json_matches(GOLD, {"a": 1, "b": 2})
        """
    )
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=7, warnings=1)
    project.runpytest("-p", "no:randomly", "-k", "not 2").assert_outcomes(
        passed=6,
        deselected=1,
        warnings=1,  # test 3's, then
    )
    strict = project.runpytest("-p", "no:randomly", "-W", "error::pytest_structeval.GoldWarning")
    strict.assert_outcomes(passed=4, failed=3)  # each test that sets no filter of its own
    strict.stdout.fnmatch_lines(
        ["FAILED *test_2_shown*", "FAILED *test_3_shown_once*", "FAILED *test_6_catch*"]
    )


def test_a_fixture_record_stores_the_answer_as_a_scenario_run_does(
    project: pytest.Pytester,
) -> None:
    """equiv31 #5: a record of ``structeval.score`` wrote ``"answer": null``; it stores the
    answer as a scenario run's does, a text without its drafts, a value as read."""
    project.makepyfile(
        """
        def test_text(structeval):
            structeval.score({"a": 1}, '<think>draft</think>{"a": 1}', run_id="text")

        def test_value(structeval):
            structeval.score({"b": [1, 2]}, {"b": {2, 1}}, run_id="value")

        def test_bytes(structeval):
            structeval.score({"a": 1}, b'{"a": 1}', run_id="bytes")
        """
    )
    project.runpytest().assert_outcomes(passed=3)
    stored = {
        name: json.loads((project.path / "reports/structeval" / f"{name}.json").read_text("utf-8"))
        for name in ("text", "value", "bytes")
    }
    assert stored["text"]["answer"] == '{"a": 1}'
    assert stored["value"]["answer"] == {"b": [1, 2]}
    assert stored["bytes"]["answer"] == {"a": 1}


def test_a_conftests_scorers_are_its_folders(project: pytest.Pytester) -> None:
    """config35 #2: what a conftest registers applies to the tests under its folder, as its
    fixtures do (a library call there too, which saw it only when something had prepared
    the registry before), not to a test elsewhere."""
    tests = project.mkdir("tests")
    (tests / "conftest.py").write_text(REGISTER, encoding="utf-8")
    (tests / "test_in.py").write_text(
        "from pytest_structeval import score\n\n"
        "def test_library():\n    assert score({'n': 1}, {'n': 2}, mode='within_one').passed\n\n"
        "def test_fixture(structeval):\n"
        "    assert structeval.score({'n': 1}, {'n': 2}, mode='within_one').passed\n",
        encoding="utf-8",
    )
    project.makepyfile(
        test_out="def test_fixture(structeval):\n"
        "    structeval.score({'n': 1}, {'n': 2}, mode='within_one')\n"
    )
    result = project.runpytest("-p", "no:cacheprovider", "-q", "tests", "test_out.py")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*_ test_fixture _*", "*unknown scorer 'within_one'; *"])
