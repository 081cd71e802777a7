"""Forgetting and purging: ``memctl forget PATH``, ``memctl purge --session ID``, ``memctl purge --text``.

Modules, one job each: :mod:`~memctl.forget.plan` (what will be removed, for ``--dry-run``),
:mod:`~memctl.forget.journal` (the crash-safe intent journal), :mod:`~memctl.forget.needles`
(the byte forms of a value), :mod:`~memctl.forget.scan` (which files hold them),
:mod:`~memctl.forget.derived` (indexes, caches and Cognee after a removal),
:mod:`~memctl.forget.memory`, :mod:`~memctl.forget.session`, :mod:`~memctl.forget.text`
(the three operations).
"""
