"""Every real JSON Schema of ../shared/data/schemas (JSONSchemaBench) goes through the pipeline.

resolve -> annotate -> parse must succeed for each; the only acceptable failure is a clear
``ExternalReferenceError``. ``validate_gold`` must not crash on the schemas' valid test data.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval.errors import GoldValidationError
from pytest_structeval.schema.io import load_schema
from pytest_structeval.schema.resolve import ExternalReferenceError, resolve_schema_references
from pytest_structeval.schema.tree import SchemaNode, SchemaWarning, parse_eval_schema
from pytest_structeval.schema.validate import validate_gold
from pytest_structeval.schema.xeval import annotate_xeval
from tests.realdata import require_data

pytestmark = pytest.mark.realdata

EXPECTED_SCHEMAS = 396


@dataclass
class Case:
    path: Path
    tags: list[str]
    schema: dict[str, Any] | None  # resolved and annotated; None for an external ref
    warnings: list[str]  # SchemaWarning messages of resolving and annotating


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    """Each indexed schema, resolved and annotated once for the tests of this module."""
    root = require_data("schemas")
    lines = (root / "index.jsonl").read_text(encoding="utf-8").splitlines()
    out = []
    for row in (json.loads(line) for line in lines if line.strip()):
        path = root / row["path"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SchemaWarning)
            try:
                resolved: dict[str, Any] | None = resolve_schema_references(load_schema(path))
            except ExternalReferenceError:
                resolved = None
            annotated = resolved and annotate_xeval(resolved)
        messages = [str(w.message) for w in caught if issubclass(w.category, SchemaWarning)]
        out.append(Case(path, row["tags"], annotated, messages))
    return out


def _count(node: SchemaNode) -> int:
    total, stack = 0, [node]
    while stack:
        current = stack.pop()
        total += 1
        stack.extend(current.properties.values())
        stack.extend(n for n in (current.items, current.values) if n is not None)
    return total


def test_every_real_schema_resolves_annotates_and_parses(
    cases: list[Case], capsys: pytest.CaptureFixture[str]
) -> None:
    outcomes: Counter[str] = Counter()
    ref_features: Counter[str] = Counter()
    total_nodes = 0
    for case in cases:
        if case.schema is None:
            outcomes["external refs"] += 1
            continue
        total_nodes += _count(parse_eval_schema(case.schema))
        assert resolve_schema_references(case.schema) == case.schema, case.path  # a fixed point
        outcomes["parsed"] += 1
        ref_features.update(tag for tag in case.tags if tag.startswith("ref:"))
    with capsys.disabled():
        print(
            f"\n{len(cases)} schemas: {outcomes['parsed']} parsed, "
            f"{outcomes['external refs']} external refs; {total_nodes} nodes; "
            f"ref features parsed: {dict(sorted(ref_features.items()))}"
        )
    assert len(cases) == EXPECTED_SCHEMAS
    # The corpus's external refs sit only under additionalProperties maps or name the
    # document's own id, so none of them is fatal: a map whose value schema reaches one is
    # left unscored, with a warning that says so.
    assert outcomes == Counter({"parsed": EXPECTED_SCHEMAS})
    warned = [(case.path.name, m) for case in cases for m in case.warnings]
    assert all("external reference" in m and "left unscored" in m for _, m in warned), warned
    assert len({name for name, _ in warned}) == 1  # one document (a draft-04 meta-schema)
    assert ref_features["ref:external"] == 3
    assert ref_features["ref:root_recursive"] == 27
    assert ref_features["ref:self_recursive_def"] == 48


def test_validate_gold_never_crashes_on_valid_test_data(
    cases: list[Case], capsys: pytest.CaptureFixture[str]
) -> None:
    outcomes: Counter[str] = Counter()
    unlabelled: list[str] = []
    for case in cases:
        if case.schema is None:
            continue
        tests = json.loads(case.path.read_text(encoding="utf-8"))["tests"]
        for data in (t["data"] for t in tests if t.get("valid")):
            try:
                found = validate_gold([data], case.schema)
            except GoldValidationError as exc:  # a gold key outside the schema: fine, but located
                outcomes["errors"] += 1
                if not str(exc).startswith("gold[0]: "):
                    unlabelled.append(str(exc))
            else:
                outcomes["warned" if found else "clean"] += 1
    with capsys.disabled():
        print(f"\nvalid test records: {dict(sorted(outcomes.items()))}")
    assert unlabelled == []
    assert sum(outcomes.values()) > 500
    assert outcomes["clean"] + outcomes["warned"] > 5 * outcomes["errors"]


def test_a_scenario_naming_a_real_schema_file_scores_as_the_schema_option(
    cases: list[Case], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """realdata31 #1: a scenario's ``schema:`` file is read into a mapping, and its
    JSONSchemaBench wrapper was then scored as a schema of its own (the whole answer one
    exact leaf: 23 of 25 real pairs scored 0.0). Gold: a file's first valid test record;
    answer: its second, so most pairs score between 0 and 1."""
    from pytest_structeval import score
    from pytest_structeval.cli import main

    expected: dict[str, float] = {}
    for n, case in enumerate(c for c in cases if c.schema is not None):
        valid = [t["data"] for t in json.loads(case.path.read_bytes())["tests"] if t["valid"]]
        if len(valid) < 2 or not isinstance(valid[0], dict):
            continue
        folder = tmp_path / "sc" / f"scenario_{n}"
        folder.mkdir(parents=True)
        (folder / "groundtruth.json").write_text(json.dumps(valid[0]), encoding="utf-8")
        (folder / "scenario.yaml").write_text(
            f"mode: schema\nschema: {json.dumps(str(case.path))}\n", encoding="utf-8"
        )
        run = {"run_id": f"r{n}", "answer": json.dumps(valid[1])}
        (folder / "trajectory.json").write_text(json.dumps(run), encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SchemaWarning)
            expected[f"r{n}"] = score(valid[0], valid[1], mode="schema", schema=case.path).score
    assert len(expected) > 100
    reports = tmp_path / "reports"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)  # (three external references)
        main(["evaluate", "--scenarios", str(tmp_path / "sc"), "--reports-dir", str(reports)])
    capsys.readouterr()
    got = {
        run: json.loads((reports / f"{run}.json").read_bytes())["score"]["score"]
        for run in expected
    }
    assert got == expected
    assert sum(0 < s < 1 for s in got.values()) > len(got) // 3  # the fields are scored
