"""Operational metrics of one saved trajectory: turns, tool calls, tokens, duration, cost.

The figures and the price table are AssetOpsBench's (``evaluation/metrics.py``), so reports stay
comparable. Unlike the reference, every turn shape seen in real runs is read the same way (chat
turns with ``tool_calls``, plan-execute steps with ``tool``, either as a bare list or under
``turns``), and malformed counters are ignored instead of crashing the run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

__all__ = ["PRICE_PER_1M", "estimate_cost", "model_key", "ops_metrics"]

PRICE_PER_1M: Final[Mapping[str, tuple[float, float]]] = MappingProxyType(
    {
        # USD per 1M tokens (input, output): the reference's rough public list prices.
        "claude-opus-4-5": (15.0, 75.0),
        "claude-opus-4-1": (15.0, 75.0),
        "claude-sonnet-4-6": (3.0, 15.0),
        "claude-haiku-4-5": (1.0, 5.0),
        "gpt-5": (10.0, 30.0),
        "gpt-4.1": (3.0, 12.0),
        "gpt-4o": (2.5, 10.0),
        "llama-4-maverick": (0.27, 0.85),
    }
)

# Placeholders plan-execute runners write for a step that called no tool.
_NO_TOOL: Final = frozenset({"none", "null", "n/a"})
# A trailing date: -20250929, or OpenAI's -2024-08-06 (ASCII digits only).
_DATE_SUFFIX: Final = re.compile(r"-(?:[0-9]{6,}|[0-9]{4}-[0-9]{2}-[0-9]{2})$")


def model_key(model: str) -> str:
    """The price-table key: last path segment, lowercased, a trailing date (``-YYYYMMDD``, or
    OpenAI's ``-YYYY-MM-DD``: ``gpt-4o-2024-08-06`` is ``gpt-4o``) dropped."""
    tail = model.rsplit("/", 1)[-1].lower()
    return _DATE_SUFFIX.sub("", tail)


def estimate_cost(model: str, tokens_in: int, tokens_out: int) -> float | None:
    """Estimated USD cost, or ``None`` when the model is unknown or no tokens were counted."""
    if not model or (tokens_in == 0 and tokens_out == 0):
        return None
    rate = PRICE_PER_1M.get(model_key(model))
    if rate is None:
        return None
    try:
        cost = (tokens_in * rate[0] + tokens_out * rate[1]) / 1_000_000
    except OverflowError:  # token counts no float can hold
        return None
    return round(cost, 6) if math.isfinite(cost) else None


def _count(value: Any) -> int:
    """A token counter as a non-negative int; anything else (bool, junk, negative) counts 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and math.isfinite(value) and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return 0


def _tokens(turn: Mapping[str, Any], names: tuple[str, str]) -> int:
    """Tokens from ``turn[name]`` or, failing that, from a ``usage`` mapping (OpenAI names too)."""
    direct = turn.get(names[0])
    if direct is not None:
        return _count(direct)
    usage = turn.get("usage")
    if isinstance(usage, Mapping):
        for name in names:
            if usage.get(name) is not None:
                return _count(usage.get(name))
    return 0


def _duration(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):  # (isfinite would raise past the float range)
        return value if value >= 0 else None
    return value if math.isfinite(value) and value >= 0 else None


def _total(durations: list[float | int]) -> float | int | None:
    """Sum of durations: exact for ints, correctly rounded (``fsum``) once a float is present;
    ``None`` when the sum is past the float range (no run lasts that long: junk counters)."""
    if not durations:
        return None
    if all(isinstance(d, int) for d in durations):
        return sum(durations)
    try:
        return math.fsum(durations)
    except OverflowError:
        return None


def _tool_names(turn: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    calls = turn.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            if not isinstance(call, Mapping):
                continue
            name = call.get("name")
            function = call.get("function")
            if name is None and isinstance(function, Mapping):
                name = function.get("name")
            if isinstance(name, str) and name:
                names.append(name)
    step_tool = turn.get("tool")
    if isinstance(step_tool, str) and step_tool and step_tool.strip().lower() not in _NO_TOOL:
        names.append(step_tool)
    return names


def ops_metrics(trajectory: Any, model: str) -> dict[str, Any]:
    """Per-run ops: ``turn_count``, ``tool_call_count``, ``unique_tools``, tokens, duration, cost.

    ``trajectory`` is ``{"turns": [...]}`` or a bare list of turns/steps; anything else gives
    zero counts. ``duration_ms`` is the sum of the turns' durations, ``None`` when none has one.
    """
    turns = trajectory.get("turns") if isinstance(trajectory, Mapping) else trajectory
    if not isinstance(turns, list):
        turns = []
    tokens_in = tokens_out = 0
    durations: list[float | int] = []
    tools: list[str] = []
    for turn in turns:
        if not isinstance(turn, Mapping):
            continue
        tokens_in += _tokens(turn, ("input_tokens", "prompt_tokens"))
        tokens_out += _tokens(turn, ("output_tokens", "completion_tokens"))
        duration = _duration(turn.get("duration_ms"))
        if duration is not None:
            durations.append(duration)
        tools.extend(_tool_names(turn))
    return {
        "turn_count": len(turns),
        "tool_call_count": len(tools),
        "unique_tools": sorted(set(tools)),
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "duration_ms": _total(durations),
        "est_cost_usd": estimate_cost(
            model if isinstance(model, str) else "", tokens_in, tokens_out
        ),
    }
