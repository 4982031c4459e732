"""Real agent output that the answer-region rules added after the first landing must read."""

from __future__ import annotations

import json

import pytest

from pytest_structeval.parse import Parsed, parse_answer_detailed
from tests.realdata import require_data

pytestmark = pytest.mark.realdata


def test_the_boxed_smartgrid_answer_is_read_from_its_box() -> None:
    # Llama-3.1-8B ends one run with 'the final answer is: $\boxed{"No readings ..."}$'; the
    # box holds the answer, a JSON string. The whole paragraph used to be the answer.
    folder = require_data("assetops", "hpml_smartgrid", "trajectories")
    answers = [
        json.loads(path.read_text(encoding="utf-8"))["answer"] for path in folder.glob("*.json")
    ]
    boxed = [answer for answer in answers if "\\boxed{" in answer]
    assert len(boxed) == 1
    assert parse_answer_detailed(boxed[0]) == Parsed(
        "No readings for transformer='T-020' sensor='winding_temp_c'.",
        "final-answer+boxed+json",
        True,
    )


def test_the_inline_final_answer_phrase_starts_the_answer() -> None:
    # 73 Llama-3.1-8B runs end "Based on the execution results, the final answer to the
    # original question is:\n\n<answer>"; the reasoning before the phrase is not the answer.
    folder = require_data("assetops", "hpml_smartgrid", "trajectories")
    phrase = "the final answer to the original question is:"
    answers = [
        answer
        for path in sorted(folder.glob("*.json"))
        if phrase in (answer := json.loads(path.read_text(encoding="utf-8"))["answer"] or "")
    ]
    assert len(answers) == 73
    for answer in answers:
        stated = answer[answer.rindex(phrase) + len(phrase) :].strip()
        assert parse_answer_detailed(answer) == Parsed(stated, "final-answer+text", False)
