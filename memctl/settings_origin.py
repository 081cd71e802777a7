"""Where each setting came from, and the environment that carries the non-default ones to another program.

Sources and precedence are :meth:`memctl.config.Settings.settings_customise_sources`'s: flags over the
environment over the config file over the defaults. A field's environment variables follow
pydantic-settings' rule: its validation aliases when it has any (``OLLAMA_HOST``), else ``env_prefix`` +
the field name (``MEMCTL_HOME``); matched without regard to case (``case_sensitive`` is off), and an empty
variable does not count (``env_ignore_empty``).

Used by ``memctl config show`` and ``doctor`` (the origin of each value) and by every place that writes a
command for another program to run (``mcp install``, ``schedule install``): such a program may start
memctl with only the environment it was given, so every setting that came from the environment or a flag
travels with the command (:func:`carried_environment`).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from memctl.config import Settings


def field_keys(name: str, field: "FieldInfo") -> list[str]:
    """Every key a field is read under: its name, then its validation aliases (``AliasChoices`` or one)."""
    from pydantic import AliasChoices

    alias = field.validation_alias
    choices = alias.choices if isinstance(alias, AliasChoices) else [alias] if alias else []
    return [name, *(choice for choice in choices if isinstance(choice, str) and choice != name)]


def env_prefix() -> str:
    """``Settings``' environment prefix (``MEMCTL_``)."""
    from memctl.config import Settings

    return Settings.model_config.get("env_prefix") or ""


def env_names(name: str, field: "FieldInfo", prefix: Optional[str] = None) -> list[str]:
    """The environment variables pydantic-settings reads for a field, in its order of preference."""
    aliases = field_keys(name, field)[1:]
    return aliases if aliases else [(env_prefix() if prefix is None else prefix) + name]


def environment_variable(names: list[str], environ: Mapping[str, str]) -> Optional[tuple[str, str]]:
    """``(variable, value)`` of the first of ``names`` set non-empty in ``environ`` (any case), else None."""
    for wanted in names:
        for key, value in environ.items():
            if key.casefold() == wanted.casefold() and value != "":
                return key, value
    return None


def file_settings(config_file: Path) -> dict:
    """The config file's top-level keys and values; empty when it is absent or unreadable."""
    try:
        with config_file.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, ValueError):
        return {}


@dataclass(frozen=True)
class Origin:
    """One setting's effective value and its source.

    ``source`` is ``"flag"``, ``"environment"``, ``"config file"``, ``"model_backend"`` or ``"default"``;
    ``where`` names it
    (``--home``, ``MEMCTL_HOME``, the file's path; empty for a default).
    """

    name: str
    value: object
    source: str
    where: str

    def as_dict(self) -> dict:
        value = self.value
        shown = str(value) if isinstance(value, Path) else value
        return {"name": self.name, "value": shown, "source": self.source, "where": self.where}


def origins(settings: "Settings", flags: Mapping[str, object], config_file: Path,
            environ: Mapping[str, str] = os.environ, backend: Mapping[str, str] | None = None) -> list[Origin]:
    """Every field of ``settings`` with where its value came from, in the fields' order.

    ``flags``: the keyword arguments given to ``Settings`` (field name -> value, ``None`` = not given).
    ``backend``: fields a model backend set for this run (field name -> the backend's name, e.g.
    ``"embedded"``): their source is ``"model_backend"``, whatever the user configured.
    """
    from memctl.config import Settings

    in_file = file_settings(config_file)
    found = []
    for name, field in Settings.model_fields.items():
        value = getattr(settings, name)
        keys = field_keys(name, field)
        variable = environment_variable(env_names(name, field), environ)
        if backend and name in backend:
            found.append(Origin(name, value, "model_backend", f"{backend[name]} (for this run)"))
        elif flags.get(name) is not None:
            found.append(Origin(name, value, "flag", "--" + name.replace("_", "-")))
        elif variable:
            found.append(Origin(name, value, "environment", variable[0]))
        elif any(k in in_file for k in keys):
            found.append(Origin(name, value, "config file", str(config_file)))
        else:
            found.append(Origin(name, value, "default", ""))
    return found


def origin_of(name: str, settings: "Settings", flags: Mapping[str, object], config_file: Path,
              environ: Mapping[str, str] = os.environ) -> Origin:
    """:func:`origins`' entry for the field ``name``.

    Raises:
        KeyError: no such field.
    """
    return {o.name: o for o in origins(settings, flags, config_file, environ)}[name]


def _as_environment_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def carried_environment(settings: "Settings", environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment another program needs to start memctl with these settings.

    ``MEMCTL_HOME`` (always, absolute), ``MEMCTL_CONFIG`` when set, and every setting that differs from its
    default and did not come from the config file (a flag or a variable; the config file is read by the
    started memctl too), under the variable pydantic-settings reads for it (``OLLAMA_HOST``,
    ``MEMCTL_<NAME>``). Sorted by variable.
    """
    from memctl.config import DataHome, Settings, config_file_path

    config_file = config_file_path()
    in_file = file_settings(config_file)
    carried = {"MEMCTL_HOME": str(DataHome(settings.home).root)}
    if environ.get("MEMCTL_CONFIG"):
        carried["MEMCTL_CONFIG"] = str(config_file.absolute())
    defaults = Settings.model_construct()
    for name, field in Settings.model_fields.items():
        value = getattr(settings, name)
        if name == "home" or value is None or value == getattr(defaults, name, None):
            continue
        variable = environment_variable(env_names(name, field), environ)
        if variable is None and any(k in in_file for k in field_keys(name, field)):
            continue  # from the config file: the started memctl reads it as well
        carried[env_names(name, field)[0].upper()] = _as_environment_value(value)
    return dict(sorted(carried.items()))


__all__ = ["Origin", "carried_environment", "env_names", "environment_variable", "field_keys", "file_settings",
           "origin_of", "origins"]
