"""Every test in this folder is end to end: it gets the ``e2e`` marker here, by folder, so a new file cannot forget it.

``./test.sh --fast`` (``-m "not e2e and not slow"``) leaves them out; ``./test.sh`` runs them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the items collected from this folder ``e2e`` (the hook sees the whole session's items)."""
    for item in items:
        if Path(item.path).resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.e2e)
