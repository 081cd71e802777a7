"""Cognee writes no timestamped log file per process into ``<home>/cognee/logs/``: its records go to the
rotating ``<home>/logs/library.log`` with the other libraries' output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memctl.config import DataHome, Settings
from memctl.graph.environment import cognee_env

REPO = Path(__file__).resolve().parents[2]
CHILD = """
import sys
from pathlib import Path
from memctl.config import DataHome, Settings
from memctl.graph.environment import pin_environment
home = DataHome(Path(sys.argv[1]))
pin_environment(Settings(home=home.root), home)
from cognee.shared.logging_utils import get_logger, setup_logging
setup_logging()
get_logger("memctl-test").warning("a record from cognee's logger")
print("configured")
"""


def test_cognee_is_told_to_write_no_log_file(tmp_path: Path) -> None:
    assert cognee_env(Settings(home=tmp_path), DataHome(tmp_path))["COGNEE_LOG_FILE"] == "false"


def test_cognee_logging_leaves_no_file_in_its_logs_dir(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = subprocess.run([sys.executable, "-c", CHILD, str(home)], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path)
    assert result.returncode == 0 and "configured" in result.stdout, result.stderr[-2000:]
    logs = home / "cognee" / "logs"
    assert not logs.exists() or not list(logs.glob("*.log")), sorted(p.name for p in logs.iterdir())
