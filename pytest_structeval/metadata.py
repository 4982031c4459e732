"""AssetOpsBench's ``evaluation_metadata`` in a scenario config, read as the scorer options it
means, so a scenario written for upstream scores the same here without being rewritten.

Upstream's per-key modes (``keys.<key>.mode``) and mode-answer terms map as follows:

- ``measure`` (within ±1): ``options={"answer.<key>": {"numeric_tolerance": {"abs": 1}}}``;
- ``timestamp`` with ``tolerance_s``: ``{"timestamp_tolerance": tolerance_s}``;
- ``set_match`` (order-free): ``align={"answer.<key>": "unordered"}``, or with ``match_on``
  one field, ``{"key": field}``;
- ``set_contained`` with ``n`` (exactly n distinct elements out of the gold's):
  ``align={"answer.<key>": {"method": "contained", "count": n}}``;
- ``required_terms`` and ``optional_terms``: the options of the same names (see
  ``modes/car.py``).

What has no counterpart (``match_on`` several fields, an unknown mode, key or field) is an
error of the scenario rather than a rule silently dropped. The scenario's own ``options``
entry for the same path replaces the metadata's (a glob of its own does not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .errors import OptionsError
from .keys import key_text
from .modes import parse_align_option
from .paths import ROOT, key_path

__all__ = ["METADATA_KEYS", "with_metadata"]

_TERMS: Final = ("required_terms", "optional_terms")
_FIELDS: Final = {
    "measure": {"mode"},
    "timestamp": {"mode", "tolerance_s"},
    "set_match": {"mode", "match_on"},
    "set_contained": {"mode", "n"},
}
METADATA_KEYS: Final = ("keys", *_TERMS)
"""The keys an ``evaluation_metadata`` mapping may hold."""
_WHERE: Final = "scenario config: evaluation_metadata"


def with_metadata(
    options: Mapping[str, Any], metadata: Any, where: str = _WHERE
) -> tuple[dict[str, Any], list[str]]:
    """``options`` with what ``metadata`` (a config's ``evaluation_metadata``) asks for added,
    and the problems found in it, each starting with ``where`` (where the metadata was read)."""
    out = dict(options)
    if not isinstance(metadata, Mapping):
        return out, [f"{where} must be a mapping, got {type(metadata).__name__}"]
    errors = [
        f"{where}: unknown key {key!r} (known: {', '.join(METADATA_KEYS)})"
        for key in metadata
        if key not in METADATA_KEYS
    ]
    for name in _TERMS:
        if metadata.get(name) is None:
            continue
        if out.get(name) is not None:
            errors.append(f"{where}: {name} given here and in options: keep one list")
        else:
            out[name] = metadata[name]
    keys = metadata.get("keys")
    if keys is None:
        return out, errors
    if not isinstance(keys, Mapping):
        return out, [*errors, f"{where}.keys must be a mapping of keys to their mode"]
    per_path: dict[str, Any] = {}
    align: dict[str, Any] = {}
    for key, spec in keys.items():
        at = f"{where}.keys.{key}"
        mode = spec.get("mode") if isinstance(spec, Mapping) else None
        path = key_path(ROOT, key_text(key))  # a YAML 2023 names the gold's "2023"
        fields = _FIELDS.get(mode) if isinstance(mode, str) else None
        unknown = sorted(map(str, set(spec) - fields)) if fields is not None else []
        if unknown:
            errors.append(
                f"{at}: unknown field(s) {', '.join(unknown)} for mode {mode} "
                f"(known: {', '.join(sorted(fields or ()))})"
            )
            continue
        if mode == "measure":
            per_path[path] = {"numeric_tolerance": {"abs": 1}}
        elif mode == "timestamp":
            if spec.get("tolerance_s") is None:
                errors.append(f"{at}: mode timestamp needs tolerance_s (seconds)")
            else:
                per_path[path] = {"timestamp_tolerance": spec["tolerance_s"]}
        elif mode == "set_match":
            match_on = spec.get("match_on")
            if isinstance(match_on, (list, tuple)) and len(match_on) == 1:
                match_on = match_on[0]
            if match_on is None:
                align[path] = "unordered"
            elif isinstance(match_on, str):
                align[path] = {"key": match_on}
            else:
                errors.append(
                    f"{at}: set_match on {match_on!r}: records pair on one key field here "
                    "(align {key: field}); pair them on one, or by similarity (hungarian)"
                )
        elif mode == "set_contained":
            n = spec.get("n")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                errors.append(
                    f"{at}: mode set_contained needs n, how many of the gold's elements the "
                    f"answer takes (a whole number >= 1), got {n!r}"
                )
            else:
                align[path] = {"method": "contained", "count": n}
        else:
            errors.append(
                f"{at}: unknown mode {mode!r} (known: measure, timestamp, set_match, set_contained)"
            )
    if per_path:
        own = out.get("options")
        out["options"] = {**per_path, **own} if isinstance(own, Mapping) else own or per_path
    if align:
        own = out.get("align")
        try:
            whole = None if own is None else parse_align_option(own)[1]
        except OptionsError:  # the scorer says what is wrong with it
            whole = None
        if own is None:
            out["align"] = align
        elif whole is None:
            out["align"] = {**align, **own} if isinstance(own, Mapping) else own
        else:
            errors.append(
                f"{where}: set_match/set_contained pair {', '.join(align)} while "
                "options.align gives one alignment for every array: write options.align per "
                "path instead"
            )
    return out, errors
