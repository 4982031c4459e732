"""pytest-structeval: score structured LLM answers against ground truth."""
