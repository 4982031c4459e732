"""The public API as a user's type checker sees it: ``mypy --strict`` on small user modules.

Every module of ``USER_CODE`` is checked in one mypy run (a few seconds), in a process of its
own: mypy's API raises the recursion limit of the process that calls it for good, and a later
test relies on ``re``'s parser running out of it. mypy is a dev-only tool: without it (the
floor CI job leaves it out) these tests skip.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import subprocess
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

import pytest

import pytest_structeval

USER_CODE: dict[str, str] = {}
"""Module name -> source of the user modules that are type-checked together."""


def user_code(name: str, source: str) -> str:
    USER_CODE[name] = textwrap.dedent(source).lstrip()
    return name


@pytest.fixture(scope="module")
def mypy_says(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """What ``mypy --strict`` reports on each user module: its lines without the file name
    (``3: error: ...``, ``5: note: Revealed type is ...``)."""
    pytest.importorskip("mypy")
    root: Path = tmp_path_factory.mktemp("typing")
    for name, source in USER_CODE.items():
        (root / f"{name}.py").write_text(source, encoding="utf-8")
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--python-version",
            "3.10",
            "--hide-error-context",
            "--no-error-summary",
            "--no-pretty",
            *(f"{name}.py" for name in USER_CODE),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,  # (no config file of the project's: a user's defaults)
    )
    assert checked.returncode in (0, 1), checked.stdout + checked.stderr
    said: dict[str, list[str]] = {name: [] for name in USER_CODE}
    for line in checked.stdout.splitlines():
        file, _, rest = line.partition(".py:")
        assert file in said, line  # (nothing about the package's own files)
        said[file].append(rest)
    return said


def errors(lines: list[str]) -> list[str]:
    return [line for line in lines if ": error:" in line]


# --- 1. the package's names: every public one typed, a misspelt one an error ----------------

TYPOS = user_code(
    "typos",
    """
    import pytest_structeval
    from pytest_structeval import JsonMatcher, scroe

    print(JsonMatcher, scroe, pytest_structeval.AssertJsonMatch)
    """,
)

PUBLIC = user_code(
    "public",
    "import pytest_structeval\n\n"
    + "".join(f"reveal_type(pytest_structeval.{name})\n" for name in pytest_structeval.__all__),
)


def test_a_misspelt_import_is_a_type_error(mypy_says: dict[str, list[str]]) -> None:
    """The lazy loader (a module ``__getattr__``) told type checkers that the package has
    every attribute, typed ``Any``: ``from pytest_structeval import scroe`` passed mypy and
    pyright, strict or not, and failed at runtime (typing34 #1)."""
    said = errors(mypy_says[TYPOS])
    assert any(
        line.startswith('2: error: Module "pytest_structeval" has no attribute "JsonMatcher"')
        for line in said
    ), said
    assert any('has no attribute "scroe"; maybe "score"?' in line for line in said), said
    assert any(line.startswith("4: error:") and '"AssertJsonMatch"' in line for line in said), said


def test_every_public_name_has_its_type(mypy_says: dict[str, list[str]]) -> None:
    said = mypy_says[PUBLIC]
    assert not errors(said), said
    revealed = [line for line in said if "Revealed type is" in line]
    assert len(revealed) == len(pytest_structeval.__all__), said
    assert not [line for line in revealed if line.endswith('Revealed type is "Any"')], said


# --- 2. the structeval fixture's ids and labels ----------------------------------------------

NUMPY = importlib.util.find_spec("numpy") is not None

FIXTURE_IDS = user_code(
    "fixture_ids",
    textwrap.dedent("""
    import decimal
    import pathlib
    import uuid

    from pytest_structeval import StructevalFixture


    def test_ids(structeval: StructevalFixture) -> None:
        structeval.score({"a": 1}, '{"a": 1}', run_id=7, scenario_id=uuid.UUID(int=1))
        structeval.assert_matches(1, 1, runner=2, model_name=pathlib.Path("m"), run_id=7.5)
        structeval.score(1, 1, scenario_type=decimal.Decimal(3), scenario_id="q1")
        structeval.score(1, 1, run_id=[1])  # line 12: the one error
    """)
    + (
        "\n\ndef test_numpy(structeval: StructevalFixture) -> None:\n"
        "    import numpy\n\n"
        "    structeval.score(1, 1, run_id=numpy.int64(7), runner=numpy.float32(2.5))\n"
        if NUMPY
        else ""
    ),
)


def test_the_fixture_takes_the_ids_the_readme_documents(mypy_says: dict[str, list[str]]) -> None:
    """Numbers of any library, paths and UUIDs, which the runtime takes (as the README
    says), were type errors: the five were typed ``str | None`` (typing34 #2)."""
    said = errors(mypy_says[FIXTURE_IDS])
    assert len(said) == 1, said
    assert said[0].startswith('12: error: Argument "run_id" to "score" of "StructevalFixture"')


# --- 3. batch comparators --------------------------------------------------------------------

BATCH = user_code(
    "batch",
    """
    from pytest_structeval import default_registry
    from pytest_structeval.schema import (
        BatchComparator,
        BatchItem,
        ComparatorResult,
        CompoundComparator,
        VerdictCache,
        batch_comparator,
        cached_comparator,
        register_comparator,
    )


    @batch_comparator
    def judge(items: list[BatchItem]) -> list[float]:
        return [float(i.gold_compared == i.extracted_compared) for i in items]


    @batch_comparator
    def verdicts(items: list[BatchItem]) -> list[ComparatorResult | None]:
        return [ComparatorResult(1.0, "verdicts") for _ in items]


    class FullName(CompoundComparator):
        def compare(self, gold: dict[str, object], extracted: dict[str, object]) -> float:
            return float(gold == extracted)


    registry = default_registry().copy()
    register_comparator("judge", judge, registry=registry)
    registry.register_comparator("kept", cached_comparator(judge, VerdictCache("v"), version="1"))
    reveal_type(judge)
    reveal_type(judge([]))
    marked: list[BatchComparator[list[ComparatorResult | None]]] = [verdicts, FullName(["a"], "a")]


    @batch_comparator
    def wrong(items: list[BatchItem]) -> str:  # not one verdict per item
        return "yes"
    """,
)


def test_a_batch_comparator_has_a_typed_form(mypy_says: dict[str, list[str]]) -> None:
    """The README's ``fn.is_batch = True`` is an error for mypy (strict or not) and pyright
    (setting an attribute on a function): ``@batch_comparator`` marks one, typed as a
    ``BatchComparator`` (typing34 #3)."""
    said = mypy_says[BATCH]
    assert len(errors(said)) == 1, said  # the one that returns a str
    assert 'of "batch_comparator" cannot be "str"' in errors(said)[0], said
    revealed = [line.partition("Revealed type is ")[2] for line in said if "Revealed" in line]
    assert len(revealed) == 2, said
    assert revealed[0].startswith('"pytest_structeval.schema.batch.BatchComparator['), said
    assert "list[" in revealed[0], said
    assert revealed[1].startswith('"builtins.list[') or revealed[1].startswith('"list['), said
    assert "float]" in revealed[1], said


# --- 4. results are not hashable ---------------------------------------------------------------

HASHING = user_code(
    "hashing",
    """
    from collections.abc import Hashable

    from pytest_structeval import FieldResult, ScoreResult, score
    from pytest_structeval.schema import FieldResult as SchemaFieldResult

    result: ScoreResult = score({"a": []}, {"a": []})
    field: FieldResult = result.fields[0]
    schema_field = SchemaFieldResult("a", "match", 1.0, [], [], None)
    whole: Hashable = result  # line 9
    one: Hashable = field  # line 10
    schema_one: Hashable = schema_field  # line 11
    same: bool = result == score({"a": []}, {"a": []}) and field == result.fields[0]
    """,
)


def test_type_checkers_know_results_are_not_hashable(mypy_says: dict[str, list[str]]) -> None:
    """A ``ScoreResult`` (its ``metrics`` is a dict) never hashed and a ``FieldResult`` with
    a list or ``{}`` leaf does not, but both were typed hashable: a set of results passed
    mypy and pyright and raised at runtime (typing34 #4). Equality is unchanged."""
    said = errors(mypy_says[HASHING])
    assert [line.split(":")[0] for line in said] == ["9", "10", "11"], said
    assert all('variable has type "Hashable"' in line for line in said), said


# --- 5. runtime introspection of the annotations ---------------------------------------------

DOCUMENTED = (
    "pytest_structeval",
    "pytest_structeval.align",
    "pytest_structeval.api",
    "pytest_structeval.cli",
    "pytest_structeval.errors",
    "pytest_structeval.hookspecs",
    "pytest_structeval.parse",
    "pytest_structeval.paths",
    "pytest_structeval.plugin",
    "pytest_structeval.registry",
    "pytest_structeval.results",
    "pytest_structeval.schema",
    "pytest_structeval.verdicts",
)


def _annotated(module_name: str) -> list[tuple[str, Any]]:
    """The public functions (fixtures too) and classes of a module (its ``__all__``, else its
    public names), with the public methods, properties and ``__init__``/``__call__`` of each
    class."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None) or [n for n in vars(module) if n[0] != "_"]
    found: list[tuple[str, Any]] = []
    for name in names:
        obj = getattr(module, name)
        if not getattr(obj, "__module__", "").startswith("pytest_structeval"):
            continue
        obj = getattr(obj, "__wrapped__", obj)  # (a fixture, on pytest 8.4 and later)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        found.append((f"{module_name}.{name}", obj))
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if member[0] == "_" and member not in ("__init__", "__call__"):
                    continue
                value = value.fget if isinstance(value, property) else value
                if inspect.isfunction(value):
                    found.append((f"{module_name}.{name}.{member}", value))
    return found


@pytest.mark.parametrize("module_name", DOCUMENTED)
def test_every_annotation_of_the_public_api_resolves_at_runtime(module_name: str) -> None:
    """Names imported for type checkers only (``ScoreResult``, ``Registry``, ``AlignSpec``,
    ...) made ``typing.get_type_hints`` and ``inspect.signature(eval_str=True)`` raise
    ``NameError`` on 14 public objects, the fixture's methods and ``SchemaNode`` among them:
    autodoc, pydantic or a signature tool failed on them (typing34 #5)."""
    failed = []
    for label, obj in _annotated(module_name):
        try:
            typing.get_type_hints(obj)
            if not inspect.isclass(obj):
                inspect.signature(obj, eval_str=True)
        except Exception as exc:  # (NameError, or any other failure to resolve)
            failed.append(f"{label}: {type(exc).__name__}: {exc}")
    assert failed == []


# --- 6. declared attribute types ---------------------------------------------------------------


def _undeclared_attributes(cls: type) -> list[str]:
    """The public attributes a method of ``cls`` sets on ``self`` without a declared type
    (``self.x: T = ...`` in a method, or ``x: T`` in a class body of its MRO)."""
    declared = {name for klass in cls.__mro__ for name in getattr(klass, "__annotations__", {})}
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute):
            declared.add(node.target.attr)
    undeclared = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            for one in target.elts if isinstance(target, ast.Tuple) else [target]:
                if (
                    isinstance(one, ast.Attribute)
                    and isinstance(one.value, ast.Name)
                    and one.value.id == "self"
                    and one.attr[0] != "_"
                    and one.attr not in declared
                ):
                    undeclared.append(f"{cls.__module__}.{cls.__qualname__}.{one.attr}")
    return undeclared


def test_the_public_classes_declare_their_attributes_types() -> None:
    """``pyright --verifytypes`` scored the package 89%: ``Registry.scorers`` (and so every
    signature taking a ``Registry``: ``score``, the fixtures, the hook), ``JsonMatches.gold``,
    ``VerdictCache.path``, ``CompoundComparator.fields`` and ``TypeDefaults.revision`` had
    types inferred, not declared, which checkers and IDEs that trust declarations only read
    as unknown (typing34 #6)."""
    classes = {
        obj
        for module_name in DOCUMENTED
        for _, obj in _annotated(module_name)
        if inspect.isclass(obj)
    }
    classes.add(type(pytest_structeval.default_registry().scorers))  # (a public attribute's)
    undeclared = sorted(name for cls in classes for name in _undeclared_attributes(cls))
    assert undeclared == []


# --- 7. scorers return a ScoreResult -----------------------------------------------------------

SCORERS = user_code(
    "scorers",
    """
    from typing import Any

    from pytest_structeval import ScoreResult, default_registry, score


    def within_one(gold: Any, model: Any, **options: Any) -> ScoreResult:
        return score(gold, model, "strict", numeric_tolerance={"abs": 1}, **options)


    def ratio(gold: Any, model: Any, **options: Any) -> float:
        return 1.0 if gold == model else 0.0


    registry = default_registry().copy()
    registry.register_scorer("within_one", within_one)
    registry.register_scorer("ratio", ratio)  # line 16
    reveal_type(registry.get_scorer("strict")(1, 1))
    """,
)


def test_a_scorer_is_typed_as_returning_a_score_result(mypy_says: dict[str, list[str]]) -> None:
    """Scorers were ``Callable[..., Any]``: one returning a float passed both checkers and
    failed at its first use (``TypeError: scorer 'ratio' returned float``) (typing34 #7)."""
    said = mypy_says[SCORERS]
    assert [line.split(":")[0] for line in errors(said)] == ["16"], said
    assert 'Argument 2 to "register_scorer" of "Registry"' in errors(said)[0], said
    revealed = [line for line in said if "Revealed type is" in line]
    assert len(revealed) == 1, said
    assert revealed[0].endswith('"pytest_structeval.results.ScoreResult"'), said
