"""docs/architecture.md is the contract between the modules, "as built": these checks keep it so.

The module map must name every module and tell truly whether each imports pytest when it is
imported. In the Contracts section's ```python blocks, every ``def`` whose parameters are
written out (not elided with ``...``) must have the parameters of the code: names, order,
kind (positional-only, keyword-only, ``*args``, ``**kwargs``), which have defaults, and the
defaults written as literals or as names of the defining module; every class and UPPER_CASE
name written there must exist, a constant written ``NAME = literal`` must have that value, and
a ``@dataclass(...)`` class must have the flags written and name all its fields. Annotations
and return types are not compared: the document abbreviates them. (After 37 sessions it had
drifted: ``score``'s threshold written keyword-only, ``score_run`` and ``RecordScorer``
missing parameters, ``Scenario``, ``Trajectory``, ``JoinResult`` and ``WalkPolicy`` missing
fields: contract38.)
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pytest_structeval"
DOC = ROOT / "docs" / "architecture.md"
TEXT = DOC.read_text(encoding="utf-8")
PYTEST_MODULES = ("pytest", "_pytest")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULE_FILES = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))
MODULES: dict[str, ModuleType] = {
    name: importlib.import_module(_module_name(PACKAGE / name)) for name in MODULE_FILES
}


def section(title: str) -> str:
    """The text under the ``## title`` heading, up to the next ``## `` heading."""
    start = TEXT.index(f"\n## {title}\n")
    end = TEXT.find("\n## ", start + 1)
    return TEXT[start : end if end != -1 else len(TEXT)]


# --- the module map ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    files: tuple[str, ...]  # the module files the row is about
    owns: str
    imports_pytest: str


def module_rows() -> list[Row]:
    """The rows of the module map; ``schema/`` stands for the package and each of its modules
    its cell names in backquotes."""
    rows = []
    for line in section("Module map").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| `") or len(cells) != 3:
            continue
        files: list[str] = []
        for name in re.findall(r"`([^`]+)`", cells[0]):
            if name.endswith("/"):
                files.append(name + "__init__.py")
                named = set(re.findall(r"`(\w+)`", cells[1]))
                files += [f for f in MODULE_FILES if f.startswith(name) and Path(f).stem in named]
            else:
                files.append(name)
        rows.append(Row(tuple(files), cells[1], cells[2]))
    return rows


ROWS = module_rows()


def test_the_module_map_names_every_module_and_no_other() -> None:
    named = [f for row in ROWS for f in row.files]
    assert sorted(set(MODULE_FILES) - set(named)) == [], "modules missing from the module map"
    assert sorted(set(named) - set(MODULE_FILES)) == [], "the module map names no such module"
    assert len(named) == len(set(named)), "a module named in two rows"


def _imports_pytest_at_load(path: Path) -> bool:
    """Whether the module imports pytest or _pytest as it loads: anywhere but inside a
    function or an ``if TYPE_CHECKING:`` block."""

    def imports(node: ast.AST) -> bool:
        if isinstance(node, ast.Import):
            return any(a.name.split(".")[0] in PYTEST_MODULES for a in node.names)
        if isinstance(node, ast.ImportFrom):
            return node.level == 0 and (node.module or "").split(".")[0] in PYTEST_MODULES
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return any(imports(child) for child in node.orelse)
        return any(imports(child) for child in ast.iter_child_nodes(node))

    return imports(ast.parse(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("row", ROWS, ids=[row.files[0] for row in ROWS])
def test_the_imports_pytest_column_says_what_the_module_imports(row: Row) -> None:
    answer = row.imports_pytest.split()[0]
    assert answer in ("yes", "no"), f"the imports pytest column says {row.imports_pytest!r}"
    for name in row.files:
        assert _imports_pytest_at_load(PACKAGE / name) == (answer == "yes"), (
            f"{name}: the module map says it imports pytest: {row.imports_pytest!r}"
        )


def test_no_module_marked_no_loads_pytest_when_imported() -> None:
    """What the imports column means for the plugin's cost: all the "no" modules imported
    together, in a fresh interpreter, leave pytest unloaded (an import chain through another
    module counts too)."""
    light = [name for row in ROWS if row.imports_pytest.startswith("no") for name in row.files]
    names = [_module_name(PACKAGE / f) for f in light]
    code = (
        f"import importlib, sys\nfor name in {names!r}:\n    importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {PYTEST_MODULES!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "[]"


# --- the signatures ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    heading: str
    line: int  # of the opening fence
    lines: tuple[str, ...]

    def modules(self) -> list[ModuleType]:
        """The modules the block is about first (the ``*.py`` files its heading or text names,
        a package its heading names, the schema package's modules under ``schema/``), then
        every other module."""
        said = self.heading + "\n" + "\n".join(self.lines)
        files = set(re.findall(r"([\w/]+)\.py\b", said))
        words = set(re.findall(r"\w+", self.heading))
        named = [
            module
            for name, module in MODULES.items()
            if Path(name).stem in files
            or name.removesuffix("/__init__.py") in words
            or (name.startswith("schema/") and "schema/" in self.heading)
        ]
        return named + [m for m in MODULES.values() if m not in named]


def contract_blocks() -> list[Block]:
    blocks = []
    heading = ""
    lines = section("Contracts").splitlines()
    offset = TEXT[: TEXT.index("\n## Contracts\n")].count("\n") + 1
    i = 0
    while i < len(lines):
        if lines[i].startswith("###"):
            heading = lines[i]
        if lines[i].startswith("```python"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append(Block(heading, offset + i + 1, tuple(lines[i + 1 : end])))
            i = end
        i += 1
    return blocks


BLOCKS = contract_blocks()


def _code(line: str) -> str:
    """A line without its comment: from the first ``#`` outside quotes."""
    quote = ""
    for at, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:at]
    return line


def _closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at ``start``."""
    depth = 0
    for at in range(start, len(text)):
        depth += (text[at] in "([{") - (text[at] in ")]}")
        if depth == 0:
            return at
    raise AssertionError(f"unclosed bracket in {text[start : start + 60]!r}")


@dataclass(frozen=True)
class Written:
    """One ``def`` of a block: where, its class (if a method) and its parameter text."""

    where: str
    owner: str | None
    name: str
    params: str


def written_defs(block: Block) -> list[Written]:
    """Each ``def`` of the block, a method of the class written before it on its line, or of
    the class whose (column 0) line it is indented under; comments left out."""
    found = []
    owner: str | None = None
    code = "\n".join(_code(line) for line in block.lines)
    line_start = 0
    for number, line in enumerate(code.split("\n")):
        if line[:1].strip():  # a line at column 0 starts a class, or leaves it
            heads = re.findall(r"\bclass\s+(\w+)", line)
            owner = heads[-1] if re.match(r"(@\S+(\([^)]*\))?\s+)?class\b", line) else None
        for match in re.finditer(r"\bdef\s+(\w+)\s*\(", line):
            at = line_start + match.end() - 1
            params = code[at + 1 : _closing(code, at)]
            before = re.findall(r"\bclass\s+(\w+)", line[: match.start()])
            cls = before[-1] if before else (owner if not line[:1].strip() else None)
            where = f"architecture.md:{block.line + 1 + number}"
            found.append(Written(where, cls, match.group(1), params))
        line_start += len(line) + 1
    return found


DEFS = [(block, d) for block in BLOCKS for d in written_defs(block) if "..." not in d.params]


def _find(block: Block, owner: str | None, name: str) -> Any:
    """The function (or method) the block names: of the modules it is about, first one that
    defines it (not one that imports it), else one that holds it."""
    found = []
    for module in block.modules():
        holder = vars(module).get(owner) if owner is not None else module
        if holder is not None and callable(getattr(holder, name, None)):
            defined = getattr(holder if owner else getattr(holder, name), "__module__", None)
            found.append((defined != module.__name__, getattr(holder, name)))
    assert found, f"no module defines {owner + '.' if owner else ''}{name}"
    return min(found, key=lambda pair: pair[0])[1]


_KINDS = {
    "posonlyargs": inspect.Parameter.POSITIONAL_ONLY,
    "args": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "kwonlyargs": inspect.Parameter.KEYWORD_ONLY,
}


def _written_parameters(params: str) -> list[tuple[str, Any, ast.expr | None]]:
    """(name, kind, default expression) of a parameter list as the document writes it."""
    try:
        node = ast.parse(f"def f({params}): pass").body[0]
    except SyntaxError as exc:
        raise AssertionError(f"not Python (write it so, or elide with ...): ({params})") from exc
    assert isinstance(node, ast.FunctionDef)
    args = node.args
    out: list[tuple[str, Any, ast.expr | None]] = []
    positional = [(a, "posonlyargs") for a in args.posonlyargs] + [(a, "args") for a in args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    for (arg, kind), default in zip(positional, defaults + list(args.defaults), strict=True):
        out.append((arg.arg, _KINDS[kind], default))
    if args.vararg:
        out.append((args.vararg.arg, inspect.Parameter.VAR_POSITIONAL, None))
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        out.append((arg.arg, inspect.Parameter.KEYWORD_ONLY, kw_default))
    if args.kwarg:
        out.append((args.kwarg.arg, inspect.Parameter.VAR_KEYWORD, None))
    return out


def _without_self(params: list[Any]) -> list[Any]:
    return params[1:] if params and params[0][0] in ("self", "cls") else params


@pytest.mark.parametrize(
    ("block", "written"), DEFS, ids=[f"{d.owner + '.' if d.owner else ''}{d.name}" for _, d in DEFS]
)
def test_a_written_signature_is_the_codes(block: Block, written: Written) -> None:
    function = _find(block, written.owner, written.name)
    real = _without_self(
        [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]
    )
    shown = _without_self(_written_parameters(written.params))
    where = f"{written.where} {written.name}"
    assert [(n, k.name) for n, k, _ in shown] == [(n, k.name) for n, k, _ in real], where
    names = getattr(inspect.unwrap(function), "__globals__", {})
    for (name, _, default), (_, _, actual) in zip(shown, real, strict=True):
        assert (default is None) == (actual is inspect.Parameter.empty), (
            f"{where}: {name}'s default"
        )
        if isinstance(default, ast.Name) and default.id in names:
            assert names[default.id] == actual, f"{where}: {name}={default.id}"
        elif default is not None:
            try:
                value = ast.literal_eval(default)
            except ValueError:
                continue  # (an expression the document only describes)
            assert value == actual, f"{where}: {name}={ast.unparse(default)}, not {actual!r}"


def test_every_class_and_constant_written_exists() -> None:
    missing = []
    for block in BLOCKS:
        modules = block.modules()
        for number, line in enumerate(block.lines, block.line + 1):
            code = _code(line)
            names = re.findall(r"\bclass\s+(\w+)", code) + re.findall(r"\b[A-Z][A-Z0-9_]+\b", code)
            for name in names:
                if not any(name in vars(m) for m in modules):
                    missing.append(f"architecture.md:{number} {name}")
            for name, value in re.findall(r"(?:^|;)\s*([A-Z][A-Z0-9_]+)\s*=\s*([^;]+)", code):
                try:
                    expected = ast.literal_eval(value.strip())
                except (ValueError, SyntaxError):
                    continue
                actual = next((vars(m)[name] for m in modules if name in vars(m)), None)
                if actual != expected:
                    missing.append(f"architecture.md:{number} {name} = {actual!r}, not {value}")
    assert missing == []


def _dataclasses_written() -> list[tuple[Block, str, str, str]]:
    """(block, class name, its decorator's arguments, the text written about it: its line
    and the indented lines below it)."""
    out = []
    for block in BLOCKS:
        lines = [_code(line) for line in block.lines]
        for i, line in enumerate(lines):
            flags = re.match(r"@dataclass\(([^)]*)\)\s*(?:class\s+(\w+))?", line)
            if not flags:
                continue
            start = i if flags.group(2) else i + 1
            name = flags.group(2) or re.match(r"class\s+(\w+)", lines[start]).group(1)  # type: ignore[union-attr]
            end = start + 1
            while end < len(lines) and lines[end][:1] in (" ", "\t"):
                end += 1
            out.append((block, name, flags.group(1), "\n".join(lines[start:end])))
    return out


DATACLASSES = _dataclasses_written()


@pytest.mark.parametrize(
    ("block", "name", "flags", "written"), DATACLASSES, ids=[d[1] for d in DATACLASSES]
)
def test_a_written_dataclass_is_the_codes(
    block: Block, name: str, flags: str, written: str
) -> None:
    cls = next(vars(m)[name] for m in block.modules() if isinstance(vars(m).get(name), type))
    assert dataclasses.is_dataclass(cls), f"{name} is no dataclass"
    params = vars(cls)["__dataclass_params__"]  # (set on each dataclass itself)
    said = dict(re.findall(r"(\w+)\s*=\s*(\w+)", flags))
    assert said.get("frozen", "False") == str(params.frozen), f"{name}: frozen"
    assert said.get("slots", "False") == str("__slots__" in vars(cls)), f"{name}: slots"
    words = set(re.findall(r"\w+", written))
    fields = [f.name for f in dataclasses.fields(cls) if f.init and not f.name.startswith("_")]
    assert [f for f in fields if f not in words] == [], f"fields of {name} the document leaves out"


def test_the_checks_read_the_document() -> None:
    """The parsing above finds what is there (a check that finds nothing cannot fail)."""
    assert len(ROWS) >= 50
    assert len(BLOCKS) >= 12
    assert len(DEFS) >= 120
    assert len(DATACLASSES) >= 14
