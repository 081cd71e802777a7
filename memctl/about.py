"""memctl's own name and version as installed: the distribution is ``memctl-local`` (the name ``memctl``
on PyPI belongs to another project), the command and the import package stay ``memctl``."""

from __future__ import annotations

DISTRIBUTION = "memctl-local"
_EARLIER = ("memctl",)  # the distribution's name before (an install made from an older checkout)


def installed_version() -> str:
    """The installed distribution's version (``pyproject.toml``'s ``version``), or ``"unknown"`` when this
    source tree runs without being installed."""
    from importlib.metadata import PackageNotFoundError, version

    for name in (DISTRIBUTION, *_EARLIER):
        try:
            return version(name)
        except PackageNotFoundError:
            continue
    return "unknown"
