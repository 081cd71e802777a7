"""Secret scrubbing: every path that stores or sends text (ingest, ask, sleep, forget) masks secrets here first.

The public entry points live in :mod:`memctl.scrub.core` (``scrub``, ``scrub_texts``, ``find_secrets``).
"""
