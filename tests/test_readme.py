"""README.md is the product's reference, so its examples run here as tests.

Every ```python block runs in a fresh namespace inside a temporary directory, with a private
copy of the default registry. A block preceded by ``<!-- file: NAME -->`` is a file of a
pytest project instead (``conftest.py``, a test module, ``pytest.ini``): those run together
through ``pytester`` against the bundled example scenarios. ``<!-- no-run -->`` skips a block.
The option tables are checked against what the plugin and the CLI define, both ways.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

# pytester's inline runs drop modules first imported inside them; importing the api here keeps
# one JsonMatches class for the whole session, as in a real (single) pytest run.
import pytest_structeval.api  # noqa: F401
from pytest_structeval import hookspecs
from pytest_structeval import registry as registry_module
from pytest_structeval.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
EXAMPLES = ROOT / "examples" / "scenarios"

_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!--\s*(no-run|file:\s*(\S+))\s*-->$")
# JUnit property names the plugin writes: they look like ini keys but are not options.
JUNIT_PROPERTIES = {
    "structeval_score",
    "structeval_passed",
    "structeval_scorer",
    "structeval_parse_method",
}


@dataclass(frozen=True)
class Block:
    """One fenced code block of the README."""

    lang: str
    code: str
    line: int  # 1-based line of the opening fence
    section: str  # the nearest heading above it
    marker: str | None  # "no-run" or "file:NAME"

    @property
    def file(self) -> str | None:
        return self.marker[5:] if self.marker and self.marker.startswith("file:") else None


def read_blocks(text: str) -> list[Block]:
    """Fenced blocks in order, with the heading and the marker comment just above each."""
    blocks: list[Block] = []
    lines = text.splitlines()
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        fence = _FENCE.match(line)
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        marker = None
        previous = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        found = _MARKER.match(previous.strip())
        if found:
            marker = "no-run" if found.group(1) == "no-run" else f"file:{found.group(2)}"
        code = "\n".join(lines[i + 1 : end]) + "\n"
        blocks.append(Block(fence.group(1), code, i + 1, section, marker))
        i = end + 1
    return blocks


TEXT = README.read_text(encoding="utf-8")
BLOCKS = read_blocks(TEXT)
RUNNABLE = [b for b in BLOCKS if b.lang == "python" and b.marker is None]
FILES = [b for b in BLOCKS if b.file is not None]


def section_text(title: str) -> str:
    """The README text under the heading ``title``, up to the next heading of any level
    (``#`` lines inside code blocks are not headings)."""
    out: list[str] = []
    inside = in_code = False
    for line in TEXT.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            if inside:
                break
            inside = line.lstrip("#").strip() == title
            continue
        if inside:
            out.append(line)
    assert out, f"README has no section {title!r}"
    return "\n".join(out) + "\n"


# --- the examples ------------------------------------------------------------------------------


@pytest.mark.parametrize("block", RUNNABLE, ids=[f"line{b.line}" for b in RUNNABLE])
def test_python_example_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # Examples may register comparators: give them a registry of their own.
    monkeypatch.setattr(registry_module, "_default", registry_module.default_registry().copy())
    code = compile(block.code, f"README.md:{block.line}", "exec")
    exec(code, {"__name__": f"readme_line_{block.line}"})


def test_python_examples_check_their_results() -> None:
    """Every runnable example asserts on real results: it is documentation and a test."""
    assert len(RUNNABLE) >= 15
    unchecked = [b.line for b in RUNNABLE if "assert" not in b.code]
    assert unchecked == [], f"examples without an assert at README lines {unchecked}"


def test_yaml_and_json_blocks_parse() -> None:
    for block in BLOCKS:
        if block.lang == "yaml":
            assert isinstance(yaml.safe_load(block.code), dict), f"README line {block.line}"
        elif block.lang == "json":
            json.loads(block.code.replace('"..."', '""').replace("{...}", "{}"))


def test_project_files_run_together_in_pytest(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conftest.py (both hooks), the fixture tests and the gate ini of the README, with
    the bundled scenarios as ``evals/``: everything passes, the gates hold, the hook writes."""
    names = [b.file for b in FILES]
    assert sorted(names) == ["conftest.py", "pytest.ini", "test_answers.py"]  # type: ignore[type-var]
    for block in FILES:
        (pytester.path / str(block.file)).write_text(block.code, encoding="utf-8")
    shutil.copytree(EXAMPLES, pytester.path / "evals", ignore=shutil.ignore_patterns("*.md"))
    monkeypatch.delenv("GITHUB_SHA", raising=False)
    result = pytester.runpytest("-p", "no:cacheprovider", "--structeval-scorer", "within_one")
    result.assert_outcomes(passed=23 + 4)
    assert "FAIL structeval" not in result.stdout.str()
    report = json.loads(
        (pytester.path / "reports" / "structeval" / "_aggregate.json").read_text(encoding="utf-8")
    )
    assert report["ci"] == {"commit": "local"}
    assert report["totals"]["scored"] == 23 + 2  # the scenario runs + two `structeval` records
    assert report["totals"]["pass_rate"] == 1.0


@pytest.mark.parametrize("off", [("-p", "no:structeval"), ("autoload",)])
def test_project_files_run_with_the_plugin_off(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, off: tuple[str, ...]
) -> None:
    """The README's conftest with the plugin off: its hooks stopped the run with an internal
    error (unknown hook) before they were marked optional (packaging27 #1)."""
    for block in FILES:
        if block.file == "conftest.py":
            (pytester.path / "conftest.py").write_text(block.code, encoding="utf-8")
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    args = ["-p", "no:cacheprovider"]
    if off == ("autoload",):
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    else:
        args += off
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    result.assert_outcomes(passed=1)


def _docstring_example(hook: object) -> str:
    """The ``Example conftest.py::`` block of a hookspec's docstring (what an IDE shows)."""
    doc = inspect.getdoc(hook) or ""
    _, found, example = doc.partition("Example ``conftest.py``::\n")
    assert found, doc
    return textwrap.dedent(example)


def test_the_hookspecs_docstring_examples_work_with_the_plugin_on_and_off(
    pytester: pytest.Pytester,
) -> None:
    """The hookspecs' docstrings, an IDE's hover text, showed hooks without
    ``@pytest.hookimpl(optionalhook=True)``: a conftest copied from them stopped pytest with
    an internal error (unknown hook) under ``-p no:structeval`` (typing34 #8)."""
    hooks = (hookspecs.pytest_structeval_register, hookspecs.pytest_structeval_update_aggregate)
    pytester.makeconftest("\n\n".join(_docstring_example(hook) for hook in hooks))
    pytester.makepyfile(
        test_hooks="""
        def test_scorer(structeval):
            assert structeval.assert_matches({"n": 5}, '{"n": 6}', "within_one").passed
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--structeval-reports-dir=r")
    result.assert_outcomes(passed=1)
    report = pytester.path / "r" / "_aggregate.json"
    assert "ci" in json.loads(report.read_text(encoding="utf-8"))
    pytester.makepyfile(test_hooks="def test_plain():\n    assert True\n")
    off = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:structeval")
    assert off.ret == pytest.ExitCode.OK, off.stdout.str()[-2000:]
    off.assert_outcomes(passed=1)


# --- commands and options ------------------------------------------------------------------------


def test_quick_start_is_exactly_the_two_commands() -> None:
    quick = section_text("Quick start")
    commands = [b for b in read_blocks(quick) if b.lang in ("bash", "sh", "shell", "console", "")]
    assert len(commands) == 1
    lines = [line.strip() for line in commands[0].code.splitlines() if line.strip()]
    assert lines == ["uv run pytest --structeval-scenarios examples/scenarios", "uv run pytest"]


def test_quick_start_shows_the_main_jobs_summary(tmp_path: Path) -> None:
    """The summary the Quick start promises is the one the main job prints (it said "3 of 19
    scenarios ran more than once" after the repeats were counted per runner and model)."""
    (shown,) = [b for b in read_blocks(section_text("Quick start")) if b.lang == "text"]
    main_job = ["--structeval-scenarios", "examples/scenarios", "--structeval-reports-dir"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *main_job, str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "80"},  # the width of the summary's title line
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    printed = done.stdout.splitlines()
    start = printed.index(shown.code.splitlines()[0])
    expected = shown.code.splitlines()[:-1]  # (the reports line names the folder)
    assert printed[start : start + len(expected)] == expected
    assert printed[start + len(expected)].startswith("reports: ")


def plugin_help(pytester: pytest.Pytester) -> str:
    result = pytester.runpytest("--help")
    assert result.ret == 0
    return result.stdout.str()


def test_every_documented_option_and_ini_key_exists(pytester: pytest.Pytester) -> None:
    help_text = plugin_help(pytester)
    options = set(re.findall(r"--structeval-[a-z-]+[a-z]", TEXT))
    assert len(options) >= 14
    missing = sorted(o for o in options if not re.search(rf"{o}[=\s]", help_text))
    assert missing == [], f"README documents options pytest does not know: {missing}"
    keys = set(re.findall(r"\bstructeval_[a-z_]+[a-z]\b", TEXT)) - JUNIT_PROPERTIES
    keys -= {"structeval_gate", "structeval_save_baseline"}  # named as keys that do not exist
    unknown = sorted(k for k in keys if not re.search(rf"^\s+{k} \(", help_text, flags=re.M))
    assert unknown == [], f"README documents ini keys pytest does not know: {unknown}"
    plugin_source = (ROOT / "pytest_structeval" / "plugin.py").read_text(encoding="utf-8")
    assert all(f'"{name}"' in plugin_source for name in JUNIT_PROPERTIES)


def test_every_plugin_option_and_ini_key_is_in_the_options_table(
    pytester: pytest.Pytester,
) -> None:
    help_text = plugin_help(pytester)
    table = section_text("Options and ini keys")
    options = set(re.findall(r"--structeval-[a-z-]+[a-z]", help_text))
    keys = set(re.findall(r"^\s+(structeval_[a-z_]+) \(", help_text, flags=re.M))
    # saving a baseline is a deliberate act: no ini key does it on every run
    assert len(options - {"--structeval-save-baseline"}) == len(keys) >= 15
    rows = [line for line in table.splitlines() if line.startswith("| `--structeval-")]
    assert {re.search(r"--structeval-[a-z-]+[a-z]", r).group(0) for r in rows} == options  # type: ignore[union-attr]
    undocumented = sorted(k for k in keys if f"`{k}`" not in table)
    assert undocumented == [], f"ini keys missing from the README options table: {undocumented}"
    # the exceptions to "an ini key of the same name" are the ones the README names (config35 #1)
    unlike = {o for o in options if o[2:].replace("-", "_") not in keys}
    assert unlike == {"--structeval-gate", "--structeval-save-baseline"}
    assert "`--structeval-gate` (repeatable) has\n`structeval_gates`" in table


def test_cli_synopsis_matches_the_parser() -> None:
    evaluate = section_text("`structeval evaluate`")
    synopsis = next(b for b in read_blocks(evaluate) if b.code.startswith("structeval evaluate"))
    subparsers = build_parser()._subparsers
    assert subparsers is not None
    (action,) = subparsers._group_actions
    for command, text in zip(
        ("evaluate", "compare"), synopsis.code.split("structeval compare"), strict=True
    ):
        documented = set(re.findall(r"--[a-z][a-z-]+", text))
        parser = action.choices[command]  # type: ignore[index]
        defined = {s for a in parser._actions for s in a.option_strings if s.startswith("--")}
        assert documented == defined - {"--help"}, command


def test_the_mode_options_table_lists_every_option_of_every_mode() -> None:
    from pytest_structeval.modes import schema, similarity, strict

    start = TEXT.index("Options, with their defaults per mode")
    table = TEXT[start : TEXT.index("\n\n", TEXT.index("| option |", start))]
    rows = {
        name
        for line in table.splitlines()[2:]
        for name in re.findall(r"`([a-z_]+)`", line.split("|")[1])
    }
    columns = {"strict": strict.OPTIONS, "similarity": similarity.OPTIONS, "schema": schema.OPTIONS}
    every = {name for names in columns.values() for name in names}
    # ``answer_schema`` is taken by ``score`` for every mode, before the scorer sees options.
    assert rows == every | {"answer_schema"}
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        for name in re.findall(r"`([a-z_]+)`", cells[0]):
            for mode, cell in zip(columns, cells[1:4], strict=True):
                taken = name in columns[mode] or name == "answer_schema"
                assert (not cell.startswith("—")) == taken, (name, mode, cell)


def test_the_development_layout_names_every_module() -> None:
    """The layout under Development lists each module of the package (it had left out
    goldline, signatures, terminate and the schema's Unicode tables: claims37)."""
    layout = next(b for b in read_blocks(section_text("Development")) if b.lang == "text").code
    package = ROOT / "pytest_structeval"
    top = sorted(p.name for p in package.glob("*.py"))
    unlisted = [name for name in top if not re.search(rf"^  {re.escape(name)} ", layout, re.M)]
    assert unlisted == [], f"modules missing from the README's Development layout: {unlisted}"
    for folder in ("modes", "schema"):
        block = re.split(r"\n  (?=\S)", layout[layout.index(f"  {folder}/") :], maxsplit=1)[0]
        names = sorted(p.stem for p in (package / folder).glob("*.py") if p.stem != "__init__")
        missing = [n for n in names if not re.search(rf"\b{n}\b", block)]
        assert missing == [], f"{folder}/ modules missing from the layout: {missing}"


@pytest.mark.parametrize(
    "name",
    [
        "parse_answer",
        "score",
        "assert_json_matches",
        "JsonMatches",
        "SchemaCheck",
        "validate_gold",
        "registry.register_scorer",
    ],
)
def test_the_documented_signatures_are_the_functions(name: str) -> None:
    """Each of these is shown with its whole signature; ``assert_json_matches`` was shown
    without its ``registry`` (claims37), and ``SchemaCheck``, ``validate_gold`` and
    ``register_scorer`` with their keyword-only parameters as positional ones (fixmisc37)."""
    import ast

    import pytest_structeval
    from pytest_structeval.registry import Registry
    from pytest_structeval.schema import validate_gold

    functions = {
        "validate_gold": validate_gold,
        "registry.register_scorer": Registry().register_scorer,
    }
    function = functions.get(name) or getattr(pytest_structeval, name)
    # (the whole signatures: calls in the text, "score(..., mode=...)", elide with "...")
    calls = set(re.findall(rf"`{re.escape(name)}\(([^`]*\*[^`]*)\)`", TEXT))
    whole = {re.sub(r"\s+", " ", call) for call in calls if "..." not in call}
    assert len(whole) == 1, f"README shows {name}'s signature {len(whole)} times, with its *"
    (documented,) = whole
    shown: list[tuple[str, object]] = []
    for token in documented.split(", "):
        key, eq, default = token.partition("=")
        shown.append((key, ast.literal_eval(default) if eq else inspect.Parameter.empty))
    parameters = inspect.signature(function).parameters.values()
    actual: list[tuple[str, object]] = []
    for parameter in parameters:
        if parameter.kind is parameter.KEYWORD_ONLY and "*" not in [k for k, _ in actual]:
            actual.append(("*", inspect.Parameter.empty))
        prefix = "**" if parameter.kind is parameter.VAR_KEYWORD else ""
        actual.append((prefix + parameter.name, parameter.default))
    assert shown == actual
