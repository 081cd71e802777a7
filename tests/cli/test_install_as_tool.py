"""memctl installs as a tool under a distribution name that is ours (the name `memctl` on PyPI is another
project's), with `memctl` as the command, and the README's install lines install this checkout."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from memctl.about import DISTRIBUTION

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
VALUE_OPTIONS = ("-c", "--constraints", "--pip-args")
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_distribution_is_not_named_memctl_and_the_command_is() -> None:
    assert PYPROJECT["project"]["name"] == DISTRIBUTION != "memctl"
    assert PYPROJECT["project"]["scripts"] == {"memctl": "memctl.cli.main:main"}


def test_every_readme_install_line_installs_this_checkout() -> None:
    lines = [line.strip() for line in README.splitlines()
             if re.match(r"\s*(pip|pipx|uv tool|\S*/pip|\S*python -m pip) install\b", line)]
    assert any(line.startswith("pipx install . ") for line in lines)
    assert any(line.startswith("uv tool install . ") for line in lines)
    for line in lines:
        words = shlex.split(line.split(" #")[0])
        words = words[words.index("install") + 1:]
        targets = [w for i, w in enumerate(words) if not w.startswith("-")
                   and not (i and words[i - 1] in VALUE_OPTIONS)]
        assert targets and all(t.startswith(".") for t in targets), line  # `.` / `.[extra]`: this checkout
    assert not re.search(r"pip install '?memctl\b(?!-local)", README.replace("never `pip install memctl`", ""))


def test_the_built_wheel_is_ours_and_installs_the_memctl_command(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "memctl", source / "memctl", ignore=shutil.ignore_patterns("__pycache__"))
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                             "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name.startswith(DISTRIBUTION.replace("-", "_") + "-")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert f"Name: {DISTRIBUTION}\n" in metadata
    assert "memctl = memctl.cli.main:main" in entry_points
    assert "memctl/prompts/distill.md" in names
