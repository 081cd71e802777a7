"""The message of an invalid configuration: each bad setting with the source that set it.

Sources and their precedence are :meth:`memctl.config.Settings.settings_customise_sources`'s: flags over
the environment over the config file. A field's environment variables are pydantic-settings' rule: its
validation aliases when it has any, else ``env_prefix`` + the field name; matched without regard to case
(``case_sensitive`` is off) and an empty variable does not count (``env_ignore_empty``).
"""

from __future__ import annotations

import os
import shlex
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

if TYPE_CHECKING:
    from pydantic import ValidationError
    from pydantic.fields import FieldInfo


def _field_keys(name: str, field: "FieldInfo") -> list[str]:
    """Every key a field is read under: its name, then its validation aliases (``AliasChoices`` or one)."""
    from pydantic import AliasChoices

    alias = field.validation_alias
    choices = alias.choices if isinstance(alias, AliasChoices) else [alias] if alias else []
    return [name, *(choice for choice in choices if isinstance(choice, str) and choice != name)]


def _env_names(name: str, field: "FieldInfo", prefix: str) -> list[str]:
    """The environment variables pydantic-settings reads for a field, in its order of preference."""
    aliases = _field_keys(name, field)[1:]
    return aliases if aliases else [prefix + name]


def _environment_setting(names: list[str], environ: Mapping[str, str]) -> Optional[str]:
    """``NAME=value`` (value shell-quoted) of the first of ``names`` set non-empty in ``environ``, else None."""
    for wanted in names:
        for key, value in environ.items():
            if key.casefold() == wanted.casefold() and value != "":
                return f"{key}={shlex.quote(value)}"
    return None


def _file_settings(config_file: Path) -> dict:
    """The config file's top-level keys and values; empty when it is absent (it has parsed by now)."""
    if not config_file.is_file():
        return {}
    with config_file.open("rb") as handle:
        return tomllib.load(handle)


def _origin(key: str, flags: Mapping[str, object], environ: Mapping[str, str], file_settings: dict,
            config_file: Path) -> tuple[Optional[str], str]:
    """Where the value under ``key`` (pydantic's error location) came from, and the key to show.

    Returns ``(origin, shown)``: origin ``--flag=value``, ``VARIABLE=value``, the config file's path or None;
    shown is the field's name, or the key as written in the file when the file set it.
    """
    from memctl.config import Settings

    name = next((n for n, f in Settings.model_fields.items() if key in _field_keys(n, f)), None)
    keys = _field_keys(name, Settings.model_fields[name]) if name else [key]
    shown = name or key
    given = [k for k in keys if k in flags]
    if given:
        return f"--{given[0].replace('_', '-')}={shlex.quote(str(flags[given[0]]))}", shown
    if name:
        setting = _environment_setting(_env_names(name, Settings.model_fields[name], _prefix()), environ)
        if setting:
            return setting, shown
    written = [k for k in keys if k in file_settings]
    if written:
        return str(config_file), written[0]
    return None, shown


def _prefix() -> str:
    from memctl.config import Settings

    return Settings.model_config.get("env_prefix") or ""


def invalid_configuration(exc: "ValidationError", flags: Mapping[str, object], config_file: Path,
                          environ: Mapping[str, str] = os.environ) -> str:
    """One line for a :class:`~pydantic.ValidationError` of :class:`memctl.config.Settings`.

    ``flags``: the keyword arguments given to ``Settings`` (field name -> value); ``config_file``: the TOML
    file ``Settings`` read (listed only when it exists). The line is ``invalid configuration (<sources that
    gave values>): <problem>; <problem>…``, each problem ``<origin>: <key>: <pydantic's message>``, the
    origin being ``--flag=value``, ``VARIABLE=value`` or the config file's path, whichever set the key and
    ranks highest; a problem no source can be found for (a rule across fields) has no origin.
    """
    from memctl.config import Settings

    file_settings = _file_settings(config_file)
    problems = []
    for error in exc.errors():
        loc = [str(part) for part in error["loc"]]
        origin, shown = _origin(loc[0], flags, environ, file_settings, config_file) if loc else (None, "settings")
        where = ".".join([shown, *loc[1:]])
        problems.append(f"{origin}: {where}: {error['msg']}" if origin else f"{where}: {error['msg']}")
    environment = any(_environment_setting(_env_names(n, f, _prefix()), environ) for n, f in Settings.model_fields.items())
    sources = [label for label, applies in (("flags", bool(flags)), ("environment", environment),
                                             (str(config_file), bool(file_settings) or config_file.is_file())) if applies]
    header = f"invalid configuration ({', '.join(sources)})" if sources else "invalid configuration"
    return f"{header}: {'; '.join(problems)}"
