"""Remembered comparator verdicts: ask an expensive judge (an LLM, usually) once per distinct
question, and replay its answers in CI with no network and no key.

:func:`cached_comparator` wraps a comparator, per-field or batch, so that each verdict it
gives is kept in a :class:`VerdictCache` folder, one small JSON file per question, named by a
hash of (``version``, gold, extracted, params) with the values as the comparator sees them
(after transforms; every value is encoded with its type, so ``[1]`` and ``(1,)``, ``{1: x}``
and ``{"1": x}`` are different questions, and sets hash the same in every process). A
compound comparator's verdicts depend on sibling fields, so its question is the whole call.
Files are written atomically and never shared between questions, so pytest-xdist workers
can fill one cache at once. The mode says what happens:

- ``use`` (the default): a remembered verdict is used, a new question is asked and kept;
- ``refresh``: each question is asked again (once per cache object) and its verdict replaces
  the kept one;
- ``replay``: nothing is asked; a question without a kept verdict is a mismatch whose reason
  says so, so a CI job proves it ran on recorded verdicts only.

A cache created without a mode follows the run's: ``--structeval-verdicts`` (CLI
``--verdicts``), else the ``STRUCTEVAL_VERDICTS`` environment variable, else ``use``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .errors import ComparatorWarning
from .results import ComparatorResult, set_order

if TYPE_CHECKING:  # (schema mode's half of the engine is imported on first use)
    from .schema.batch import BatchItem

__all__ = [
    "ENV_MODE",
    "MODES",
    "NO_VERDICT",
    "VerdictCache",
    "VerdictWarning",
    "cached_comparator",
    "check_env_mode",
    "run_mode",
    "set_run_mode",
]

MODES: Final = ("use", "refresh", "replay")
NO_VERDICT: Final = "no kept verdict"
"""How the reason of a field that replay mode could not answer begins."""
ENV_MODE: Final = "STRUCTEVAL_VERDICTS"
_MAX_FILE_BYTES: Final = 10_000_000
_NAMED: Final = 3
_run_mode: str | None = None
_UNIQUE: Final = itertools.count()  # tells apart values that have no text of their own


class VerdictWarning(UserWarning):
    """A verdict could not be kept (the judge's answer is still used), or a value has no
    text that is the same in every process (its question is asked every time)."""


def set_run_mode(mode: str | None) -> str | None:
    """Set the mode of caches created without one (the plugin and the CLI set it from their
    option; None falls back to ``STRUCTEVAL_VERDICTS``, then ``use``); returns the mode set
    before, to restore."""
    global _run_mode
    before = _run_mode
    _run_mode = None if mode is None else _checked(mode, "the verdicts mode")
    return before


def run_mode() -> str:
    """The mode a cache created without one uses now."""
    if _run_mode is not None:
        return _run_mode
    return check_env_mode()


def check_env_mode() -> str:
    """``STRUCTEVAL_VERDICTS`` (``use`` when unset); ``ValueError`` naming it when it holds
    anything else than a mode, so a typo is a usage error at startup, not failing fields."""
    return _checked(os.environ.get(ENV_MODE) or "use", ENV_MODE)


def _checked(mode: Any, what: str) -> str:
    if mode not in MODES:
        raise ValueError(f"{what} must be one of {', '.join(MODES)}, got {mode!r}")
    return str(mode)


class VerdictCache:
    """A folder of kept verdicts. ``mode`` fixes the mode for this cache; without it the
    run's mode applies (see the module docstring). ``hits``, ``asked`` and ``missing`` count
    this object's questions."""

    def __init__(self, path: str | os.PathLike[str], *, mode: str | None = None) -> None:
        self.path: Path = Path(path)
        self._mode = None if mode is None else _checked(mode, "mode")
        self.hits: int = 0
        self.asked: int = 0
        self.missing: int = 0
        self._refreshed: set[str] = set()  # asked again by this object (refresh mode)

    @property
    def mode(self) -> str:
        return self._mode if self._mode is not None else run_mode()

    def key(self, *question: Any) -> str:
        """The hash naming a question: the same values give the same key in any process."""
        encoded = json.dumps(_encoded(question), ensure_ascii=True, separators=(",", ":"))
        return hashlib.sha256(encoded.encode("ascii")).hexdigest()

    def kept(self, key: str, fields: int = 1) -> list[ComparatorResult | None] | None:
        """The verdicts to use without asking (one per field of the question: ``fields``), or
        None when the judge must be asked: nothing is kept, refresh mode has not asked it
        yet, or the file holds another number of verdicts (a :class:`VerdictWarning`)."""
        if self.mode == "refresh" and key not in self._refreshed:
            return None
        found = self.read(key)
        if found is not None and len(found) != fields:
            warnings.warn(
                VerdictWarning(
                    f"kept verdict {self._file(key)} holds {len(found)} verdicts for a question "
                    f"of {fields} field{'s' * (fields != 1)}; it counts as none"
                ),
                stacklevel=3,
            )
            return None
        if found is not None:
            self.hits += len(found)  # (fields, as asked and missing count)
        return found

    def read(self, key: str) -> list[ComparatorResult | None] | None:
        """The verdicts kept under ``key``; None when there are none, or a file cannot be
        read or holds a bad verdict (a hand-edited score of 7, or ``true``, is no verdict):
        then a :class:`VerdictWarning` names the file, for a committed verdict broken by a
        merge or an edit reads otherwise as one never recorded."""
        from .files import read_text
        from .schema.comparators import read_verdict

        path = self._file(key)
        try:
            data = json.loads(read_text(os.fspath(path), _MAX_FILE_BYTES))
            verdicts: list[ComparatorResult | None] = []
            for entry in data["verdicts"]:
                if entry is None:
                    verdicts.append(None)
                    continue
                if isinstance(entry["score"], bool):
                    raise ValueError(f"score {entry['score']!r} is no number")
                verdict = ComparatorResult(
                    entry["score"], str(entry["comparator"]), entry["reason"], entry["skip"]
                )
                read_verdict(verdict)
                verdicts.append(verdict)
        except (FileNotFoundError, NotADirectoryError):  # nothing kept there
            return None
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            why = f"{type(exc).__name__}: {exc}" if isinstance(exc, (KeyError, TypeError)) else exc
            warnings.warn(
                VerdictWarning(f"kept verdict {path} cannot be used ({why}); it counts as none"),
                stacklevel=2,
            )
            return None
        return verdicts

    def keep(self, key: str, replies: Sequence[Any], question: Sequence[Any]) -> None:
        """Keep ``replies`` (one per field of ``question``) with the question beside them for
        a reader; nothing when no reply is a valid verdict (an invalid one among valid ones is
        kept as not answered). A file that cannot be written is a :class:`VerdictWarning`:
        the replies are still used."""
        from .files import save_file

        verdicts = [_plain(reply) for reply in replies]
        if all(verdict is None for verdict in verdicts):
            return  # nothing valid to keep (and refresh asks again): the dispatch reports it
        record = {"question": _readable(question), "verdicts": verdicts}
        text = json.dumps(record, ensure_ascii=True, indent=2, default=_shown) + "\n"
        try:
            save_file(self._file(key), text.encode("ascii"))
        except OSError as exc:
            warnings.warn(VerdictWarning(f"verdict not kept in {self.path}: {exc}"), stacklevel=3)
            return
        self._refreshed.add(key)

    def _file(self, key: str) -> Path:
        return self.path / key[:2] / f"{key}.json"


def cached_comparator(
    fn: Callable[..., Any], cache: VerdictCache, *, version: str
) -> Callable[..., Any]:
    """``fn`` (a per-field comparator ``fn(gold, extracted, params)`` or a batch one,
    ``fn.is_batch``) with its verdicts kept in ``cache``. ``version`` names the judge (model,
    prompt): change it and every question is asked anew. Register the result with
    ``register_comparator`` as you would ``fn`` (its ``validate_params`` stays).

    A batch judge is asked only about the fields it has not answered, so each verdict must
    depend on its own field alone (its values, params); a ``CompoundComparator``, whose
    verdicts depend on sibling fields, is kept per call instead."""
    from .schema.batch import CompoundComparator, is_batch

    if not isinstance(version, str) or not version:
        raise ValueError(f"version must be a non-empty string, got {version!r}")
    wrapped: Any
    if is_batch(fn):
        wrapped = _BatchJudge(fn, cache, version, whole=isinstance(fn, CompoundComparator))
    else:
        wrapped = _FieldJudge(fn, cache, version)
    validate = getattr(fn, "validate_params", None)
    if validate is not None:
        wrapped.validate_params = validate
    return wrapped  # type: ignore[no-any-return]


class _FieldJudge:
    """A per-field comparator asked only about values it has not judged."""

    def __init__(self, fn: Callable[..., Any], cache: VerdictCache, version: str) -> None:
        self.fn = fn
        self.cache = cache
        self.version = version
        self.__name__ = getattr(fn, "__name__", "judge")
        self.__doc__ = fn.__doc__

    def __call__(self, gold: Any, extracted: Any, params: Mapping[str, Any]) -> Any:
        cache = self.cache
        question = (self.version, gold, extracted, dict(params))
        key = cache.key(*question)
        kept = cache.kept(key)
        if kept is not None and kept[0] is not None:
            return kept[0]
        if cache.mode == "replay":
            cache.missing += 1
            return _missing(cache)
        cache.asked += 1
        reply = self.fn(gold, extracted, params)
        cache.keep(key, [reply], question)
        return reply


class _BatchJudge:
    """A batch comparator asked only about the items no verdict was kept for (``whole``: a
    compound comparator, kept per call)."""

    is_batch = True

    def __init__(
        self, fn: Callable[..., Any], cache: VerdictCache, version: str, *, whole: bool
    ) -> None:
        self.fn = fn
        self.cache = cache
        self.version = version
        self.whole = whole

    def __call__(self, items: list[BatchItem]) -> list[Any]:
        if self.whole:
            return self._whole(items)
        cache = self.cache
        questions = [
            (self.version, it.gold_compared, it.extracted_compared, dict(it.params)) for it in items
        ]
        keys = [cache.key(*question) for question in questions]
        out: list[Any] = [None] * len(items)
        unknown: list[int] = []
        for index, key in enumerate(keys):
            kept = cache.kept(key)
            if kept is not None and kept[0] is not None:
                out[index] = kept[0]
            else:
                unknown.append(index)
        if not unknown:
            return out
        if cache.mode == "replay":
            cache.missing += len(unknown)
            for index in unknown:
                out[index] = _missing(cache)
            return out
        cache.asked += len(unknown)
        replies = self.fn([items[i] for i in unknown])
        if not isinstance(replies, (list, tuple)):
            return replies  # type: ignore[no-any-return]  # (the batch dispatch reports it)
        if len(replies) > len(unknown):
            warnings.warn(ComparatorWarning.extra_results(len(replies), len(unknown)), stacklevel=2)
        for index, reply in zip(unknown, replies, strict=False):
            out[index] = reply
            if reply is not None:
                cache.keep(keys[index], [reply], questions[index])
        return out  # a short reply leaves None for the dispatch to report

    def _whole(self, items: list[BatchItem]) -> list[Any]:
        cache = self.cache
        question = (
            self.version,
            [
                (it.parent, it.name, it.gold_compared, it.extracted_compared, dict(it.params))
                for it in items
            ],
        )
        key = cache.key(*question)
        kept = cache.kept(key, len(items))
        if kept is not None and None not in kept:
            return kept
        if cache.mode == "replay":
            cache.missing += len(items)
            return [_missing(cache) for _ in items]
        cache.asked += len(items)
        replies = self.fn(items)
        answered = isinstance(replies, (list, tuple)) and len(replies) == len(items)
        if answered and all(_plain(reply) is not None for reply in replies):
            cache.keep(key, list(replies), question)
        return replies  # type: ignore[no-any-return]


def _missing(cache: VerdictCache) -> ComparatorResult:
    """A replay-mode question nobody kept a verdict for: a mismatch that says why."""
    return ComparatorResult(
        0.0,
        "",
        f"{NO_VERDICT}: replay mode asks no judge (record it with --structeval-verdicts use; "
        f"cache {cache.path})",
    )


def _plain(reply: Any) -> dict[str, Any] | None:
    """A reply as the file keeps it; None for one that is not a valid verdict."""
    from .schema.comparators import read_verdict

    try:
        score, reason, skip = read_verdict(reply)
    except ValueError:
        return None
    name = reply.comparator if isinstance(reply, ComparatorResult) else ""
    return {"score": score, "reason": reason, "skip": skip, "comparator": str(name)}


def _encoded(value: Any) -> Any:
    """``value`` as JSON data that names every type: equal values give equal data in any
    process, and values of different types never do."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return ["s", value]
    if isinstance(value, int):
        return ["i", hex(value)]  # (no decimal digit limit)
    if isinstance(value, float):
        return ["f", repr(value)]
    if isinstance(value, (list, tuple)):
        return ["l" if isinstance(value, list) else "t", [_encoded(v) for v in value]]
    if isinstance(value, Mapping):
        entries = [[_encoded(k), _encoded(v)] for k, v in value.items()]
        return ["d", sorted(entries, key=_sort_key)]
    if isinstance(value, (set, frozenset)):
        return ["set", sorted((_encoded(v) for v in value), key=_sort_key)]
    kind = type(value).__qualname__
    if type(value).__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        return ["numpy", str(getattr(value, "dtype", kind)), _encoded(value.tolist())]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return ["dataclass", kind, _encoded(fields)]
    dump = getattr(value, "model_dump", None)  # a pydantic model
    if callable(dump):
        return ["model", kind, _encoded(dump())]
    text = repr(value)
    if " at 0x" in text or "..." in text:
        warnings.warn(
            VerdictWarning(
                f"{kind} has no repr that is whole and the same in every process; its "
                "questions cannot be told apart and are asked every run (give it a __repr__)"
            ),
            stacklevel=2,
        )
        text = f"{text} #{next(_UNIQUE)}"  # never the key of another value
    return ["r", kind, text]


def _sort_key(encoded: Any) -> str:
    return json.dumps(encoded, ensure_ascii=True, separators=(",", ":"))


def _shown(value: Any) -> Any:
    """A value JSON has no form for, as a reader of the file sees it: a set as its members in
    :func:`~pytest_structeval.results.set_order` (its ``repr`` follows the hash seed, so each
    ``refresh`` rewrote a committed verdict folder), anything else as its ``repr``."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=set_order)
    return repr(value)


def _readable(value: Any) -> Any:
    """The question as plain JSON where it can be (for a reader of the file)."""
    try:
        return json.loads(json.dumps(value, ensure_ascii=True, default=_shown))
    except (TypeError, ValueError):  # huge ints, keys of mixed types
        return _encoded(value)
