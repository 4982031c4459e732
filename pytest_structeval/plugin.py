"""pytest entry point (being built: see docs/architecture.md)."""
