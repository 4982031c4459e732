"""``field_patterns``: array element paths pooled under their pattern in the aggregate, so
per-field accuracy over list elements is one figure per field."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.htmlreport import render_html
from pytest_structeval.paths import index_pattern, key_path
from pytest_structeval.report import Aggregate, RunRecord


@pytest.mark.parametrize(
    ("path", "pattern"),
    [
        ("answer.items[0].n", "answer.items[*].n"),
        ("answer[3]", "answer[*]"),
        ("answer.x[-1].y[2]", "answer.x[*].y[*]"),
        ('answer["we.ird"][0]', 'answer["we.ird"][*]'),
        ('answer["a[0]"]', None),  # a key that holds brackets is no index
        ("answer.items", None),
        ("answer", None),
    ],
)
def test_index_pattern(path: str, pattern: str | None) -> None:
    assert index_pattern(path) == pattern


@given(st.lists(st.one_of(st.integers(-3, 30), st.text(max_size=4)), min_size=1, max_size=5))
def test_a_pattern_keeps_every_key_and_stars_every_index(tokens: list[int | str]) -> None:
    path = pattern = "answer"
    for token in tokens:
        if isinstance(token, int):
            path, pattern = f"{path}[{token}]", f"{pattern}[*]"
        else:
            path, pattern = key_path(path, token), key_path(pattern, token)
    has_index = any(isinstance(token, int) for token in tokens)
    assert index_pattern(path) == (pattern if has_index else None)


def report_of(*pairs: tuple[object, object]) -> dict[str, object]:
    aggregate = Aggregate.empty()
    for n, (gold, model) in enumerate(pairs):
        result = score(gold, model)
        aggregate.add(
            RunRecord.from_result(result, scorer="strict", run_id=f"r{n}", scenario_id=str(n))
        )
    return aggregate.report("T")


def test_the_aggregate_pools_array_elements_across_runs() -> None:
    gold = {"items": [{"n": 1, "id": "a"}, {"n": 2, "id": "b"}]}
    report = report_of(
        (gold, {"items": [{"n": 1, "id": "a"}, {"n": 9, "id": "b"}]}),
        (gold, {"items": [{"n": 1, "id": "a"}, {"n": 2, "id": "b"}]}),
    )
    patterns = report["field_patterns"]
    assert patterns == {
        "answer.items[*].id": {"count": 4, "mean_score": 1.0, "failing": 0},
        "answer.items[*].n": {
            "count": 4,
            "mean_score": patterns["answer.items[*].n"]["mean_score"],
            "failing": 1,
        },  # type: ignore[index]
    }
    assert 0.5 < patterns["answer.items[*].n"]["mean_score"] < 1.0  # type: ignore[index]
    assert "answer.items[1].n" in report["field_scores"]  # type: ignore[operator]
    page = render_html(report)
    assert "Array fields, elements pooled (2, worst first)" in page
    assert "answer.items[*].n" in page
