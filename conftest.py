"""Repository-level conftest: enables ``pytester`` for the plugin's own tests."""

pytest_plugins = ["pytester"]
