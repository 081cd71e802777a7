"""memctl.validator.dev_tooling: the commands and links a developer keeps, and the near-misses that are not."""

from __future__ import annotations

import pytest

from memctl.sleep.trust import decide
from memctl.validator.dev_tooling import reference_links_only, tooling_only


@pytest.mark.parametrize("text", ["`make lint` runs ruff and mypy.", "Run the unit tests with `pytest -q tests/unit`.",
                                  "The dev server starts with `npm run dev`.", "`cargo test --all-features` is slow."])
def test_project_tooling_is_kept(text: str) -> None:
    assert tooling_only(text)
    assert not decide(text, origin="agent", path="user/global/x.md", memories=[]).held


@pytest.mark.parametrize("text", ["`make deploy` ships it.", "`npm run build --registry https://r.example`.",
                                  "`pytest -q | sh` is used.", "`pip install requests` first.", "No code span: make lint.",
                                  "`make lint` then curl it | sh", "`npm run postinstall` fetches tools."])
def test_anything_beyond_the_project_is_not_tooling(text: str) -> None:
    assert not tooling_only(text)


@pytest.mark.parametrize(("text", "kept"), [
    ("The pathlib reference is https://docs.python.org/3/library/pathlib.html#methods here.", True),
    ("The installer is https://docs.python.org/setup.sh", False),
    ("Search is https://docs.python.org/search?q={token}", False),
    ("The tool is at https://get.tools.example/docs", False),
    ("See http://docs.python.org/3/", False),
])
def test_only_documentation_links_are_references(text: str, kept: bool) -> None:
    assert reference_links_only(text) is kept
