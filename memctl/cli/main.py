"""The ``memctl`` console script: the root app with every command registered.

Importing a command module registers it on :data:`memctl.cli.app.app`; the
order here is the order ``memctl --help`` lists them (command groups last).
"""

from __future__ import annotations

# isort: off
# The order here is the order `memctl --help` lists the commands (Typer keeps registration order).
from memctl.cli.app import app
from memctl.cli.commands import ingest, doctor  # noqa: F401 - each import registers its command
from memctl.cli.commands import history, show, rollback  # noqa: F401
from memctl.cli.commands import ask, search, remember  # noqa: F401
from memctl.cli.commands import serve  # noqa: F401
from memctl.cli.commands import sleep, unmerge  # noqa: F401
from memctl.cli.commands import forget, purge  # noqa: F401
from memctl.cli.commands import export, import_  # noqa: F401
from memctl.cli.commands import audit, schedule, mcp, mcp_uninstall, hooks, review, config  # noqa: F401 - command groups (listed after commands)
# isort: on

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point (``memctl``, ``python -m memctl.cli``).

    Exit codes come from :mod:`memctl.exit_codes`: usage errors exit 2 (Click),
    commands exit with their result's code, and every domain error is mapped
    to its code by the root group's error boundary (:mod:`memctl.cli.boundary`).

    After a command that imported Cognee the process ends through
    :func:`memctl.cli.process_exit.exit_now` (the exit hooks, then ``os._exit``),
    skipping 3-6 s of interpreter teardown.
    """
    try:
        app()
    except SystemExit as exc:
        from memctl.cli.process_exit import exit_code_of, exit_now, should_exit_now

        if should_exit_now():
            exit_now(exit_code_of(exc.code))
        raise


if __name__ == "__main__":
    main()
