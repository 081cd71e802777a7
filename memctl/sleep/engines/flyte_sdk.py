"""The optional Flyte 2 SDK (extra ``memctl[flyte]``, package ``flyte``): is it installed, import it with
memctl's pins, read a Flyte config. Imports nothing of flyte until asked, so the local engine never loads it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

FLYTE_EXTRA_HINT = "pip install -c constraints.txt -e '.[flyte]' in memctl's checkout (the extra of memctl-local)"


def flyte_installed() -> bool:
    """Whether the optional Flyte 2 SDK (package ``flyte``) can be imported, without importing it."""
    import sys

    if "flyte" in sys.modules:
        return sys.modules["flyte"] is not None  # None: an import that is known to fail
    return importlib.util.find_spec("flyte") is not None


def import_flyte():
    """``import flyte`` with memctl's pins: Flyte's crash reporting (Sentry) off — memctl is offline-first —
    and ``sys.excepthook`` kept (importing flyte replaces it; memctl's CLI reports its own errors).

    Raises:
        ImportError: the extra is not installed.
    """
    import os
    import sys

    os.environ["FLYTE_DISABLE_TELEMETRY"] = "true"
    hook = sys.excepthook
    try:
        import flyte
    finally:
        sys.excepthook = hook
    return flyte


def flyte_config_endpoint(path: Path) -> str | None:
    """The admin endpoint a Flyte/Union config file names (read with ``flyte.config.auto``, as
    ``flyte.init_from_config`` reads it); None when it names none.

    Raises:
        FileNotFoundError: no such file.
        Exception: whatever Flyte's reader raises for a malformed file.
    """
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    import_flyte()
    from flyte.config import auto

    return auto(path).platform.endpoint or None
