"""``memctl mcp uninstall --opencode``: the edit that takes memctl's MCP server out of OpenCode's config.

The entry ``mcp install`` wrote (:mod:`memctl.serve.opencode_config`: ``mcp.memctl`` in OpenCode 1.x's
shape, ``mcp.servers.memctl`` in v2's) is removed by :func:`memctl.serve.jsonc_edit.remove_member`, every
other byte of the file kept; the file is written atomically with its mode kept.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from memctl.serve.jsonc_edit import parse, remove_member
from memctl.serve.opencode_config import InstallPlan, config_file, entry_path

UNINSTALL_PRINT = ("# Claude Code\nclaude mcp remove memctl\n\n"
                   "# Other MCP clients: delete the \"memctl\" entry under \"mcpServers\" in their config\n")


class UninstallPlan(InstallPlan):
    """The edit of one config file without memctl (``before``/``after``; unchanged when memctl is absent)."""

    def diff(self) -> str:
        """Unified diff (``a/`` = the file now, ``b/`` = without memctl); empty when nothing changes."""
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                            fromfile=f"{self.path} (now)", tofile=f"{self.path} (without memctl)"))


def plan_uninstall(directory: Path) -> UninstallPlan:
    """The edit that removes memctl (either shape) from ``directory``'s OpenCode config; nothing is written.

    Raises:
        memctl.serve.jsonc_edit.JsoncError: the file is not JSON/JSONC (2).
        OSError: the file cannot be read.
    """
    path = config_file(directory)
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    parse(before)  # a broken file is reported, never edited
    after = before
    for shape in ("v1", "v2"):
        after = remove_member(after, entry_path(shape))
    shapes = [s for s in ("v1", "v2") if remove_member(before, entry_path(s)) != before]
    return UninstallPlan(path=path, before=before, after=after, shape="/".join(shapes) or "none",
                         shape_reason="where memctl was found")
