"""Schema-driven evaluation (being built)."""
