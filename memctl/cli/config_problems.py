"""The message of an invalid configuration: each bad setting with the source that set it.

Sources and their precedence are :meth:`memctl.config.Settings.settings_customise_sources`'s: flags over
the environment over the config file. A field's environment variables are pydantic-settings' rule: its
validation aliases when it has any, else ``env_prefix`` + the field name; matched without regard to case
(``case_sensitive`` is off) and an empty variable does not count (``env_ignore_empty``).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

from memctl.settings_origin import (
    env_names as _env_names,
    env_prefix as _prefix,
    environment_variable,
    field_keys as _field_keys,
    file_settings as _file_settings,
)

if TYPE_CHECKING:
    from pydantic import ValidationError


def _environment_setting(names: list[str], environ: Mapping[str, str]) -> Optional[str]:
    """``NAME=value`` (value shell-quoted) of the first of ``names`` set non-empty in ``environ``, else None."""
    found = environment_variable(names, environ)
    return f"{found[0]}={shlex.quote(found[1])}" if found else None


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


def _closest_setting(key: str) -> str:
    """`` (did you mean workers?)`` naming the setting closest to the unknown ``key`` (``difflib``), or ``""``."""
    import difflib

    from memctl.config import Settings

    close = difflib.get_close_matches(key.lower().replace("-", "_"), list(Settings.model_fields), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


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
        message = error["msg"] + (_closest_setting(loc[0]) if error.get("type") == "extra_forbidden" and loc else "")
        problems.append(f"{origin}: {where}: {message}" if origin else f"{where}: {message}")
    environment = any(_environment_setting(_env_names(n, f, _prefix()), environ) for n, f in Settings.model_fields.items())
    sources = [label for label, applies in (("flags", bool(flags)), ("environment", environment),
                                             (str(config_file), bool(file_settings) or config_file.is_file())) if applies]
    header = f"invalid configuration ({', '.join(sources)})" if sources else "invalid configuration"
    return f"{header}: {'; '.join(problems)}"
