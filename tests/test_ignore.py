"""``IgnoreRules`` gives pytest's own ``pytest_ignore_collect`` verdicts, for many folders at once.

Each configuration below runs pytest on one directory of awkward folder names; a probe plugin
asks pytest's hook about every folder, as pytest's walk does, and compares the answers with
``IgnoreRules`` (its mirrored rules alone, and the batch the collector uses). The expected
sets are spelled out too, so a rule both get wrong the same way still fails here.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from _pytest.pathlib import fnmatch_ex
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import ignore
from pytest_structeval.ignore import CHECKED, _norecurse
from tests.plugin_support import PYTEST_RELEASE, scenario, trajectory, write

# The folders pytest's own hook ignores, and the rules mirroring them, are those of the
# releases this module was checked against (ignore.CHECKED); other releases are asked.
checked_release = pytest.mark.skipif(
    not CHECKED[0] <= PYTEST_RELEASE < CHECKED[1],
    reason=f"pytest {pytest.__version__} is outside ignore.CHECKED: its defaults differ",
)

PROBE = """\
import json

from pytest_structeval.ignore import IgnoreRules


def pytest_collection_finish(session):
    config = session.config
    d = config.rootpath / "d"
    paths = sorted(p for p in d.iterdir() if p.is_dir())
    links = {p for p in paths if p.is_symlink()}
    hook = session.gethookproxy(d).pytest_ignore_collect
    rules = IgnoreRules(session, d)
    judged = [p for p in paths if p not in links and p.name != ".hypothesis"]
    verdicts = {
        "asked": sorted(p.name for p in paths if hook(collection_path=p, config=config)),
        "mirrored": sorted(p.name for p, v in zip(judged, rules._rules(judged)) if v),
        "batch": sorted(p.name for p in rules.ignored(paths, links=links)),
        "fast": rules._fast,
    }
    (config.rootpath / "verdicts.json").write_text(json.dumps(verdicts), "utf-8")
"""

# Ignored by pytest's defaults (norecursedirs, __pycache__, hypothesis's own folder).
SKIPPED_BY_NAME = (
    "build",
    ".hidden",
    "__pycache__",
    "venv",
    "node_modules",
    "{arch}",
    ".hypothesis",
)
NAMES = (
    "scenario_1",
    "scenario_2",
    "scenario_3x",
    "scenario_4.egg",
    "scenario_[5]",
    "scenario with space",
    "scénario_6",
    *SKIPPED_BY_NAME,
)
# Everything the defaults ignore: those, *.egg, and the two virtualenv markers.
DEFAULT = {*SKIPPED_BY_NAME, "scenario_4.egg", "env_cfg", "env_conda"}


@pytest.fixture
def tree(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """``d/`` with the awkward names, folders that are (or only look like) virtualenvs, a link
    to a folder elsewhere and a link back to ``d`` itself. Its runs load hypothesis's plugin,
    as a user's do, for its ``pytest_ignore_collect`` (the root conftest leaves it out)."""
    monkeypatch.delenv("PYTEST_ADDOPTS")
    d = pytester.path / "d"
    for name in NAMES:
        (d / name).mkdir(parents=True)
    write(d / "env_cfg" / "pyvenv.cfg", "home = /usr\n")
    write(d / "env_conda" / "conda-meta" / "history", "")
    (d / "env_dir" / "pyvenv.cfg").mkdir(parents=True)  # a folder, not the file
    (d / "env_meta" / "conda-meta").mkdir(parents=True)  # no history file
    (pytester.path / "elsewhere").mkdir()
    if sys.platform != "win32":
        (d / "link_ok").symlink_to(pytester.path / "elsewhere", target_is_directory=True)
        (d / "link_loop").symlink_to(d, target_is_directory=True)
    write(pytester.path / "probe.py", PROBE)
    pytester.syspathinsert()
    return pytester


def verdicts(pytester: pytest.Pytester, *args: str) -> dict[str, object]:
    pytester.runpytest_inprocess("-p", "probe", "--co", "-q", "--structeval-scenarios", "d", *args)
    verdict: dict[str, object] = json.loads((pytester.path / "verdicts.json").read_text("utf-8"))
    return verdict


LOOP = {"link_loop"} if sys.platform != "win32" else set()


@pytest.mark.parametrize(
    ("args", "ini", "conftest", "expected"),
    [
        pytest.param([], "", "", DEFAULT | LOOP, id="defaults"),
        pytest.param(
            ["--ignore", "d/scenario_1", "--ignore-glob", "*/scenario_3*"],
            "",
            "",
            DEFAULT | LOOP | {"scenario_1", "scenario_3x"},
            id="ignore-options",
        ),
        pytest.param(
            ["--collect-in-virtualenv"],
            "",
            "",
            (DEFAULT | LOOP) - {"env_cfg", "env_conda"},
            id="collect-in-virtualenv",
        ),
        pytest.param(
            [],
            "",
            "collect_ignore = ['d/scenario_2', 'd/build']\n"
            "collect_ignore_glob = ['d/scenario_[[]*', 'd/*space']\n",
            DEFAULT | LOOP | {"scenario_2", "scenario_[5]", "scenario with space"},
            id="conftest-lists",
        ),
        pytest.param(
            [],
            "norecursedirs = scenario_1 d/scenario_2 */sc*_3x {abs}\n",
            "",
            LOOP
            | {"scenario_1", "scenario_2", "scenario_3x", "scénario_6", "__pycache__"}
            | {"env_cfg", "env_conda", ".hypothesis"},
            id="norecursedirs",
        ),
    ],
)
@checked_release
def test_the_rules_give_pytests_verdicts(
    tree: pytest.Pytester, args: list[str], ini: str, conftest: str, expected: set[str]
) -> None:
    absolute = tree.path / "d" / "scénario_6"
    tree.makeini("[pytest]\n" + ini.replace("{abs}", str(absolute)))
    if conftest:
        tree.makeconftest(conftest)
    got = verdicts(tree, *args)
    assert got["fast"] is True
    assert got["asked"] == sorted(expected)
    assert got["batch"] == got["asked"]
    # The mirrored rules alone judge neither links (this plugin's hook does) nor .hypothesis
    # (hypothesis's hook warns and ignores it when norecursedirs leaves it in).
    assert got["mirrored"] == sorted(expected - {"link_loop", ".hypothesis"})


@checked_release
def test_another_implementation_of_the_hook_is_asked_about_every_folder(
    tree: pytest.Pytester,
) -> None:
    tree.makeini("[pytest]\n")
    tree.makeconftest(
        "def pytest_ignore_collect(collection_path, config):\n"
        "    return collection_path.name == 'scenario_1' or None\n"
    )
    got = verdicts(tree)
    assert got["fast"] is False
    assert got["batch"] == got["asked"] == sorted(DEFAULT | LOOP | {"scenario_1"})


@checked_release
def test_an_unchecked_pytest_release_is_asked_about_every_folder(
    tree: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree.makeini("[pytest]\n")
    monkeypatch.setattr(ignore, "_release", lambda: CHECKED[1])
    got = verdicts(tree)
    assert got["fast"] is False
    assert got["batch"] == got["asked"] == sorted(DEFAULT | LOOP)


def test_a_scenario_run_drops_what_a_conftest_hook_ignores(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    for i in range(1, 4):
        scenario(pytester.path / "sc", f"scenario_{i}", '{"a": 1}', trajectory(f"r{i}", '{"a": 1}'))
    pytester.makeconftest(
        "def pytest_ignore_collect(collection_path, config):\n"
        "    return collection_path.name == 'scenario_2' or None\n"
    )
    result = pytester.runpytest("--structeval-scenarios", "sc", "--co", "-q")
    assert [line for line in result.outlines if "::" in line] == [
        "sc/scenario_1::1[r1]",
        "sc/scenario_3::3[r3]",
    ]


_NAME = st.text(alphabet="ab.-_[]!*?{} é", min_size=1, max_size=8).filter(
    lambda n: n not in (".", "..")
)
_PATTERN = st.text(alphabet="ab.-_[]!*?{}/ é", min_size=1, max_size=8)


@given(names=st.lists(_NAME, max_size=6, unique=True), pattern=_PATTERN)
def test_norecursedirs_patterns_match_as_fnmatch_ex_does(names: list[str], pattern: str) -> None:
    base = Path(os.path.abspath("d"))
    texts = [str(base / name) for name in names]
    matched = set(_norecurse(pattern, names, texts))
    for name, text in zip(names, texts, strict=True):
        assert (name in matched or text in matched) == fnmatch_ex(pattern, base / name)


# -- mutation survivors (review mutants18b) --------------------------------------------------


@checked_release
def test_a_relative_ignore_glob_is_taken_from_the_invocation_folder(tree: pytest.Pytester) -> None:
    """pytest makes --ignore-glob patterns absolute: 'd/scenario_3*' (no leading '*') ignores."""
    tree.makeini("[pytest]\n")
    got = verdicts(tree, "--ignore-glob", "d/scenario_3*")
    assert got["asked"] == sorted(DEFAULT | LOOP | {"scenario_3x"})
    assert got["batch"] == got["asked"]


PATH_AWARE_PROXY = """
import functools

import pytest


class PathAware:  # pytest 8.0-9.0's _pytest.config.compat.PathAwareHookProxy
    def __init__(self, hooks):
        self._hooks = hooks

    def __getattr__(self, name):
        caller = getattr(self._hooks, name)
        if name != "pytest_ignore_collect":
            return caller

        @functools.wraps(caller)  # a plain function, the HookCaller as __wrapped__
        def fixed_hook(**kwargs):
            return caller(**kwargs)

        return fixed_hook


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    real = session.gethookproxy
    session.gethookproxy = lambda fspath: PathAware(real(fspath))
"""


def test_a_hook_wrapped_as_pytest_before_9_1_wraps_it_still_works(
    pytester: pytest.Pytester,
) -> None:
    """deps23: on pytest 8.0-9.0 every scenario run crashed (``'function' object has no
    attribute 'get_hookimpls'``). On those releases the stand-in wraps pytest's own wrapper."""
    pytester.makeini("[pytest]\n")
    for i in (1, 2):
        scenario(pytester.path / "sc", f"scenario_{i}", '{"a": 1}', trajectory(f"r{i}", '{"a": 1}'))
    pytester.makeconftest(PATH_AWARE_PROXY)
    result = pytester.runpytest("--structeval-scenarios", "sc", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
