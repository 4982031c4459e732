"""Remembered comparator verdicts: ask an expensive judge (an LLM, usually) once per distinct
question, and replay its answers in CI with no network and no key.

:func:`cached_comparator` wraps a comparator, per-field or batch, so that each verdict it
gives is kept in a :class:`VerdictCache` folder, one small JSON file per question, named by a
hash of (``version``, gold, extracted, params) with the values as the comparator sees them
(after transforms). Files are written atomically and never shared between questions, so
pytest-xdist workers can fill one cache at once. The mode says what happens:

- ``use`` (the default): a remembered verdict is used, a new question is asked and kept;
- ``refresh``: every question is asked again and its verdict replaces the kept one;
- ``replay``: nothing is asked; a question without a kept verdict fails its field with a
  reason (``VerdictMissing``), so a CI job proves it ran on recorded verdicts only.

A cache created without a mode follows the run's: ``--structeval-verdicts`` (CLI
``--verdicts``), else the ``STRUCTEVAL_VERDICTS`` environment variable, else ``use``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # (schema mode's half of the engine is imported on first use)
    from .schema.batch import BatchItem
    from .schema.comparators import ComparatorResult

__all__ = [
    "ENV_MODE",
    "MODES",
    "VerdictCache",
    "VerdictMissing",
    "cached_comparator",
    "run_mode",
    "set_run_mode",
]

MODES: Final = ("use", "refresh", "replay")
ENV_MODE: Final = "STRUCTEVAL_VERDICTS"
_MAX_FILE_BYTES: Final = 10_000_000
_NAMED: Final = 3
_run_mode: str | None = None


class VerdictMissing(LookupError):
    """Replay mode met a question no verdict was kept for."""


def set_run_mode(mode: str | None) -> None:
    """The mode of caches created without one (the plugin and the CLI set it from their
    option); None falls back to ``STRUCTEVAL_VERDICTS``, then ``use``."""
    global _run_mode
    _run_mode = None if mode is None else _checked(mode, "the verdicts mode")


def run_mode() -> str:
    """The mode a cache created without one uses now."""
    if _run_mode is not None:
        return _run_mode
    return _checked(os.environ.get(ENV_MODE) or "use", ENV_MODE)


def _checked(mode: Any, what: str) -> str:
    if mode not in MODES:
        raise ValueError(f"{what} must be one of {', '.join(MODES)}, got {mode!r}")
    return str(mode)


class VerdictCache:
    """A folder of kept verdicts. ``mode`` fixes the mode for this cache; without it the
    run's mode applies (see the module docstring). ``hits``, ``asked`` and ``missing`` count
    this process's lookups."""

    def __init__(self, path: str | os.PathLike[str], *, mode: str | None = None) -> None:
        self.path = Path(path)
        self._mode = None if mode is None else _checked(mode, "mode")
        self.hits = self.asked = self.missing = 0

    @property
    def mode(self) -> str:
        return self._mode if self._mode is not None else run_mode()

    def key(self, version: str, gold: Any, extracted: Any, params: Mapping[str, Any]) -> str:
        """The hash naming a question: the same values give the same key in any process."""
        question = [version, gold, extracted, dict(params)]
        return hashlib.sha256(_canonical(question).encode("utf-8")).hexdigest()

    def get(self, key: str) -> ComparatorResult | None:
        """The verdict kept under ``key``; None when there is none, or it cannot be read."""
        from .files import read_text
        from .schema.comparators import ComparatorResult, read_verdict

        try:
            data = json.loads(read_text(os.fspath(self._file(key)), _MAX_FILE_BYTES))
            verdict = ComparatorResult(
                data["score"], str(data.get("comparator") or ""), data.get("reason"), data["skip"]
            )
            read_verdict(verdict)  # a hand-edited file with a bad score is no verdict
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return None
        return verdict

    def put(self, key: str, verdict: ComparatorResult, question: Sequence[Any]) -> None:
        """Keep ``verdict`` under ``key``, with the question beside it for a reader."""
        from .report import save_file

        record = {
            "version": question[0],
            "gold": question[1],
            "extracted": question[2],
            "params": question[3],
            "score": verdict.score,
            "reason": verdict.reason,
            "skip": verdict.skip,
            "comparator": verdict.comparator,
        }
        save_file(self._file(key), (_canonical(record, indent=2) + "\n").encode("utf-8"))

    def _file(self, key: str) -> Path:
        return self.path / key[:2] / f"{key}.json"


def cached_comparator(
    fn: Callable[..., Any], cache: VerdictCache, *, version: str
) -> Callable[..., Any]:
    """``fn`` (a per-field comparator ``fn(gold, extracted, params)`` or a batch one,
    ``fn.is_batch``) with its verdicts kept in ``cache``. ``version`` names the judge (model,
    prompt): change it and every question is asked anew. Register the result with
    ``register_comparator`` as you would ``fn``."""
    from .schema.batch import is_batch

    if not isinstance(version, str) or not version:
        raise ValueError(f"version must be a non-empty string, got {version!r}")
    if is_batch(fn):
        return _BatchJudge(fn, cache, version)

    def judged(gold: Any, extracted: Any, params: Mapping[str, Any]) -> Any:
        key = cache.key(version, gold, extracted, params)
        mode = cache.mode
        if mode != "refresh":
            kept = cache.get(key)
            if kept is not None:
                cache.hits += 1
                return kept
        if mode == "replay":
            cache.missing += 1
            raise VerdictMissing(
                "no kept verdict, and replay mode asks no judge (record one with "
                f"--structeval-verdicts use; cache {cache.path})"
            )
        cache.asked += 1
        reply = fn(gold, extracted, params)
        _keep(cache, key, reply, (version, gold, extracted, dict(params)))
        return reply

    judged.__name__ = getattr(fn, "__name__", "judged")
    judged.__doc__ = fn.__doc__
    return judged


class _BatchJudge:
    """A batch comparator asked only about the items no verdict was kept for."""

    is_batch = True

    def __init__(self, fn: Callable[..., Any], cache: VerdictCache, version: str) -> None:
        self.fn = fn
        self.cache = cache
        self.version = version

    def __call__(self, items: list[BatchItem]) -> list[Any]:
        cache = self.cache
        questions = [
            (self.version, it.gold_compared, it.extracted_compared, dict(it.params)) for it in items
        ]
        keys = [cache.key(*question) for question in questions]
        out: list[Any] = [None] * len(items)
        mode = cache.mode
        unknown: list[int] = []
        for index, key in enumerate(keys):
            kept = None if mode == "refresh" else cache.get(key)
            if kept is None:
                unknown.append(index)
            else:
                cache.hits += 1
                out[index] = kept
        if not unknown:
            return out
        if mode == "replay":
            cache.missing += len(unknown)
            paths = ", ".join(items[i].path for i in unknown[:_NAMED])
            more = f", +{len(unknown) - _NAMED} more" if len(unknown) > _NAMED else ""
            raise VerdictMissing(
                f"no kept verdict for {len(unknown)} of {len(items)} fields ({paths}{more}), and "
                "replay mode asks no judge (record them with --structeval-verdicts use; cache "
                f"{cache.path})"
            )
        cache.asked += len(unknown)
        replies = self.fn([items[i] for i in unknown])
        if not isinstance(replies, list) or len(replies) != len(unknown):
            got = len(replies) if isinstance(replies, list) else type(replies).__name__
            raise ValueError(f"the batch comparator answered {got} for {len(unknown)} fields")
        for index, reply in zip(unknown, replies, strict=True):
            out[index] = reply
            if reply is not None:
                _keep(cache, keys[index], reply, questions[index])
        return out


def _keep(cache: VerdictCache, key: str, reply: Any, question: Sequence[Any]) -> None:
    """Keep a valid verdict; an invalid one is left for the caller to report, not kept."""
    from .schema.comparators import ComparatorResult, read_verdict

    try:
        score, reason, skip = read_verdict(reply)
    except ValueError:
        return
    name = reply.comparator if isinstance(reply, ComparatorResult) else ""
    cache.put(key, ComparatorResult(score, name, reason, skip), question)


def _canonical(value: Any, indent: int | None = None) -> str:
    """JSON with sorted keys (values that are not JSON as their ``repr``), so a question
    hashes the same in every process."""
    try:
        return _dumps(value, indent)
    except ValueError:  # an int past Python's digit limit for str(): written in hex
        return _dumps(_hex_ints(value), indent)
    except TypeError:  # keys of mixed types cannot be sorted
        return json.dumps(repr(value), indent=indent)


def _dumps(value: Any, indent: int | None) -> str:
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, default=repr, indent=indent, allow_nan=True
    )


def _hex_ints(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return {"int": hex(value)}
    if isinstance(value, Mapping):
        return {k: _hex_ints(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_hex_ints(v) for v in value]
    return value
