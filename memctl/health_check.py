"""One line of an environment check, and how long a probe may wait: shared by ``memctl doctor`` and the cycles'
own checks (the Flyte engine's, :mod:`memctl.sleep.engines.doctor`), so that neither imports the other."""

from __future__ import annotations

from dataclasses import asdict, dataclass

PROBE_TIMEOUT_S = 5.0  # seconds a doctor probe (a model server's /api/tags, /api/version) may take


@dataclass
class Check:
    """One doctor line: ``status`` is ok | warn | fail; ``fix`` says what to do."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def as_dict(self) -> dict:
        """The line as a JSON object (``doctor --json``): ``name``, ``status``, ``detail``, ``fix``."""
        return asdict(self)
