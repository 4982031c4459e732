"""The names that mark scenarios on disk: ``scenario_<id>/`` folders and scenario files.

One definition for the engine, the collector and the plugin module; standard library only,
so the plugin can test a name without importing the engine.
"""

from __future__ import annotations

from typing import Final

__all__ = ["SCENARIO_FILE_SUFFIXES", "scenario_folder_id"]

SCENARIO_FILE_SUFFIXES: Final = (".json", ".jsonl", ".yaml", ".yml")
"""Scenario files: ``.jsonl`` holds one scenario per line, the others a list or one object."""

_PREFIX: Final = "scenario_"


def scenario_folder_id(name: str) -> str | None:
    """The id in a ``scenario_<id>`` name (prefix in any case), or ``None`` for other names."""
    size = len(_PREFIX)
    if len(name) > size and name[:size].casefold() == _PREFIX:
        return name[size:]
    return None
