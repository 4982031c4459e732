"""The parser on real data: LLM-judge outputs with the upstream harness's own parse, the
DeepSynth gold strings (three of them malformed), AssetOpsBench gold files and agent answers."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval.errors import AnswerParseError
from pytest_structeval.parse import Parsed, parse_answer, parse_answer_detailed
from tests.realdata import require_data

pytestmark = pytest.mark.realdata


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_hpml_judge_outputs_agree_with_the_reference_parse(
    capsys: pytest.CaptureFixture[str], record_property: Callable[[str, object], None]
) -> None:
    rows = read_jsonl(require_data("raw_answers", "hpml_judge.jsonl"))
    assert len(rows) == 3692
    methods: Counter[str] = Counter()
    disagreements = []
    for row in rows:
        parsed = parse_answer_detailed(row["raw"], strict=True)
        methods[parsed.method] += 1
        if parsed.value != row["gold"]:
            disagreements.append(row["id"])
    agreement = 1 - len(disagreements) / len(rows)
    record_property("hpml_judge_agreement", agreement)
    with capsys.disabled():
        print(
            f"\nhpml_judge: parse agrees with the reference on {len(rows) - len(disagreements)}"
            f"/{len(rows)} raw outputs ({agreement:.2%}); methods {dict(methods)}"
        )
    assert agreement >= 0.99, f"disagreements: {disagreements[:10]}"
    # Every fenced output was read from its fence, every bare one by the JSON fast path.
    shapes = Counter(row["raw_shape"] for row in rows)
    assert methods == {"json": shapes["bare_structured"], "fence:json+json": shapes["fenced"]}


MALFORMED = {
    31: {
        "company_name": "Groupe Cargolux Airlines International",
        "percentage_change": 70.2,
        "cause": "Acquisition/integration of Luxcargo Handling",
    },
    36: {"Electric": 1353.7, "Hydrogen Fuel Cell": 74.2, "Plug-in Hybrid": 458.9},
    43: {
        "Burkina Faso": 2.2,
        "Central African Republic": 6.0,
        "Jamaica": 2.3,
        "Kosovo (under United Nations \nSecurity Council Resolution 1244/99)": 2.8,
        "Poland": 3.8,
    },
}


def test_deepsynth_gold_all_parse_to_structures() -> None:
    rows = read_jsonl(require_data("deepsynth", "gold_dev.jsonl"))
    assert len(rows) == 40
    for row in rows:
        parsed = parse_answer_detailed(row["gold_raw"], strict=True)
        number = row["question_number"]
        if number in MALFORMED:
            assert row["gold_parse_note"] == "neither"
            assert parsed == Parsed(MALFORMED[number], "repaired", True), number
        else:
            assert parsed.value == json.loads(row["gold_raw"]), number
            assert parsed.method == "json", number


def test_exactly_the_malformed_deepsynth_golds_warn() -> None:
    """The data's three messy golds, and no other, say they needed a repair (realdata18)."""
    import warnings

    from pytest_structeval import GoldWarning, score
    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()  # (a gold warns once per session)
    rows = read_jsonl(require_data("deepsynth", "gold_dev.jsonl"))
    warned = {}
    for row in rows:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert score(row["gold_raw"], row["gold_raw"], "similarity").passed
        for w in caught:
            if issubclass(w.category, GoldWarning):
                warned[row["question_number"]] = str(w.message).split("): ")[0]
    # each names the repair it took: what to fix in the data
    assert warned == {
        31: "the gold answer needed a repair to read (closed a '{' left open at the end",
        36: "the gold answer needed a repair to read (read an object's `key, value` items as "
        "`key: value`",
        43: "the gold answer needed a repair to read (escaped a raw control character inside a "
        "string",
    }
    assert set(warned) == set(MALFORMED)


def test_the_other_real_golds_give_no_gold_warning() -> None:
    """The 65 AssetOpsBench gold files and DeepSynth's lite answers (its dev golds: the test
    above) read whole: none is read as a part of itself, as YAML data (against an answer
    that is data) or with a repeated key (goldyaml35), and only the three malformed lite
    answers warn, of their repairs."""
    import warnings

    from pytest_structeval import GoldWarning, score
    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()
    texts = [
        (path.name, path.read_text(encoding="utf-8"))
        for path in sorted(require_data("assetops").glob("*/scenarios/*/groundtruth.txt"))
    ]
    lite = json.loads(require_data("deepsynth", "DEEPSYNTH_lite.json").read_text(encoding="utf-8"))
    texts += [(item["Question Number"], item["Answers"]) for item in lite]
    assert len(texts) == 105
    warned = []
    for name, text in texts:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            score(text, text, "similarity")
            score(text, "{}", "similarity")  # (an answer that is data: fixwarn37 #2)
        warned += [(name, str(w.message)) for w in caught if issubclass(w.category, GoldWarning)]
    assert {name for name, _ in warned} == set(MALFORMED)
    assert all("needed a repair" in message for _, message in warned)


def test_deepsynth_lite_answers_match_the_dev_gold() -> None:
    lite = json.loads(require_data("deepsynth", "DEEPSYNTH_lite.json").read_text(encoding="utf-8"))
    dev = {
        r["question_number"]: r["gold_raw"]
        for r in read_jsonl(require_data("deepsynth", "gold_dev.jsonl"))
    }
    assert len(lite) == 40
    for item in lite:
        value = parse_answer(item["Answers"], strict=True)
        assert type(value) in (dict, list)
        assert value == parse_answer(dev[item["Question Number"]])


def test_assetops_gold_files_parse_as_their_json() -> None:
    files = sorted(require_data("assetops").glob("*/scenarios/*/groundtruth.txt"))
    assert len(files) == 65  # 4 IBM gold answers + 61 smart-grid rubrics
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert parse_answer_detailed(text, strict=True).value == json.loads(text), path


def test_assetops_agent_answers_never_crash_the_parser() -> None:
    files = sorted(require_data("assetops", "hpml_smartgrid", "trajectories").glob("*.json"))
    assert len(files) == 1247
    methods: Counter[str] = Counter()
    for path in files:
        answer = json.loads(path.read_text(encoding="utf-8"))["answer"]
        try:
            methods[parse_answer_detailed(answer).method] += 1
        except AnswerParseError as exc:  # pragma: no cover - the assertion below reports it
            pytest.fail(f"{path.name}: {exc}")
    # Almost all of these answers are markdown prose: they must stay text, not collapse into
    # a stray number or an empty list mentioned in passing.
    assert methods["text"] + methods["final-answer+text"] > 1150
    assert methods["final-answer+text"] == 84  # "... the final answer (to the question) is:"
    assert methods["empty"] == 31  # blank answers: counted apart from prose
    assert methods["count"] == 0
