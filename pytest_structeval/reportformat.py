"""What other layers read of the report layout: its format version, how a run that never ran
is marked, and the numeric metrics of the built-in scorers, which the aggregate averages (and
totals) and gates may name.

A leaf: the report writer, the baseline reader and the gates all import it, and it imports
nothing of theirs.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "AGGREGATE_NAME",
    "DEFAULT_REPORTS_DIR",
    "FORMAT_VERSION",
    "NOT_RUN",
    "SCORER_METRICS",
    "SCORER_RATES",
    "SUMMED_METRICS",
]

DEFAULT_REPORTS_DIR: Final = "reports/structeval"
"""Where reports go when no option names a folder (the reference's layout, in pytest and
``structeval evaluate`` alike)."""
AGGREGATE_NAME: Final = "_aggregate.json"
"""The aggregate report's name in a reports folder (beside the per-run reports)."""

FORMAT_VERSION: Final = 2
"""The layout of the reports (the aggregate and the per-run files it lists): raised when a key
changes meaning or goes away, never for a new key. Baselines of a later layout are refused."""

NOT_RUN: Final = "did not run: "
"""How the ``error`` of a run pytest never scored begins (``-x``, Ctrl-C, a worker that
stopped): such a run is in the reports, so nothing is lost, but a baseline comparison
treats it as absent, never as a score of 0."""

SCORER_RATES: Final = (
    "partial_exact_match_accuracy",
    "strict_exact_match_accuracy",
    "partial_similarity_score",
    "precision",
    "recall",
    "f1",
    "schema_valid",
    "weighted_score",
    "car_score",
    "mode_match",
)
"""The built-in metrics that lie in [0, 1] (strict mode's, its mode answers', ``answer_schema``'s
validity and the ``weights`` option's score), bare or ``<metric>_avg``."""

SCORER_METRICS: Final = (
    # strict (and its mode answers' car_score and mode_match, answer_schema's schema_valid,
    # weights' weighted_score)
    *SCORER_RATES,
    "total_gold_keys",
    "total_model_keys",
    "matched_keys",
    "exact_value_matches",
    # similarity
    "matched_leaves",
    "total_leaves",
    "exact_leaves",
    "mismatched_leaves",
    "missing_leaves",
    "extra_leaves",
    # schema
    "total_fields",
    "matches",
    "mismatches",
    "omissions",
    "hallucinations",
    "skipped",
    "batch_errors",
)
"""Numeric metrics of the built-in scorers: a gate may name them bare (``f1`` = ``f1_avg``)."""

SUMMED_METRICS: Final = tuple(m for m in SCORER_METRICS if m not in SCORER_RATES)
"""The counts among them (``matched_leaves`` with its partial credit), which ``score_summary``
also totals as ``<metric>_sum``: struct_extract_eval's run reports ``total_omissions``, and
a mean rounded to four decimals hides one omission in 20,000 runs."""
