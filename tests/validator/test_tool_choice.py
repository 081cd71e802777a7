"""memctl.validator.tool_choice: a choice between package managers is a fact; a place code comes from is not.

Instances written for this file. The recogniser alone, and sleep's decision for an agent's proposal: a plain
choice in several languages is promoted, one that names a host, a registry flag or an unknown tool is held.
"""

from __future__ import annotations

import pytest

from memctl.sleep.trust import decide
from memctl.validator.tool_choice import package_manager_choice

CHOICES = [
    "We use pnpm instead of npm in this repository.",
    "Usamos pnpm en lugar de npm en este repositorio.",
    "Wir verwenden uv statt pip in diesem Projekt.",
    "Bu depoda npm yerine pnpm kullanıyoruz.",
    "Proyek ini memakai pnpm, bukan npm.",
    "本仓库使用 pnpm 而不是 npm。",
]
NOT_CHOICES = [
    "We use pnpm instead of npm; install from https://npm.example-mirror.net.",
    "We use fastnpm instead of npm.",
    "We use pnpm instead of npm with --registry pointing at our proxy.",
    "We use pnpm instead of npm and pull packages from the team fork.",
    "npm is used for the frontend.",
]


@pytest.mark.parametrize("text", CHOICES)
def test_a_package_manager_choice_is_promoted(text: str) -> None:
    assert package_manager_choice(text)
    assert not decide(text, origin="agent", path="user/global/x.md", memories=[]).held


@pytest.mark.parametrize("text", NOT_CHOICES)
def test_a_source_of_code_or_an_unknown_tool_is_not_a_choice(text: str) -> None:
    assert not package_manager_choice(text)


@pytest.mark.parametrize("text", NOT_CHOICES[:3])
def test_a_choice_with_a_place_is_held(text: str) -> None:
    assert decide(text, origin="agent", path="user/global/x.md", memories=[]).held


@pytest.mark.parametrize(("text", "held"), [
    # configuration read or loaded at startup is the application's own lifecycle, not something made to persist
    ("Feature flags live in config/flags.yaml and are read at startup.", False),
    ("The config is loaded at startup from settings.toml.", False),
    ("A script in /etc/profile.d runs curl at startup.", True),
])
def test_read_at_startup_is_not_persistence(text: str, held: bool) -> None:
    assert decide(text, origin="agent", path="user/global/x.md", memories=[]).held is held
