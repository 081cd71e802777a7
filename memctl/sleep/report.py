"""The sleep run's report: ``<home>/reports/sleep-<timestamp>.html`` + ``.json``, written as it goes.

Both files are rewritten atomically after every phase change, so a browser
(the HTML refreshes itself every 3 s while the run is going) or a script
watching the JSON sees the run progress live, and a killed run leaves a
report that says how far it got. Rendering uses Jinja2 with autoescaping:
memory texts and proposal contents are untrusted and must never become markup.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jinja2

from memctl.atomic import atomic_write_json, atomic_write_text

PHASES = ("load", "promote", "cluster", "consolidate", "rebuild", "done")

# The page is a package file (memctl/sleep/report.html.j2). Autoescaping: memory texts and proposals are untrusted.
_TEMPLATE = jinja2.Environment(loader=jinja2.PackageLoader("memctl.sleep", ""), autoescape=True, trim_blocks=True,
                               lstrip_blocks=True).get_template("report.html.j2")


@dataclass
class PhaseRecord:
    """One phase: status pending | running | done | failed, duration, counts, errors."""

    name: str
    status: str = "pending"
    seconds: float | None = None
    counts: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    _started: float | None = None


class SleepReport:
    """Accumulates a run's phases and details and rewrites the HTML and JSON files on every change."""

    def __init__(self, reports_dir: Path, home: Path, engine: str = "local") -> None:
        now = datetime.now(timezone.utc)
        stamp = now.strftime("%Y%m%dT%H%M%SZ")
        self.html_path = Path(reports_dir) / f"sleep-{stamp}.html"
        self.json_path = Path(reports_dir) / f"sleep-{stamp}.json"
        self.started = now.strftime("%Y-%m-%d %H:%M:%S UTC")
        self.home = str(home)
        self.engine = engine  # memctl.sleep.engines.select: where consolidation ran
        self.flyte_url: str | None = None  # the Flyte run's console URL; None in local mode and on the local engine
        self.status = "running"
        self.phases = {name: PhaseRecord(name) for name in PHASES}
        self.details: dict[str, list] = {"promoted": [], "rejected": [], "held": [], "clusters": [], "topics": []}
        self.summary: dict[str, Any] = {}
        self.wall_s: float | None = None

    def start(self, phase: str) -> None:
        record = self.phases[phase]
        record.status, record._started = "running", time.monotonic()
        self.write()

    def finish(self, phase: str, **counts: Any) -> None:
        record = self.phases[phase]
        record.counts.update(counts)
        record.seconds = time.monotonic() - (record._started or time.monotonic())
        record.status = "failed" if record.errors else "done"
        self.write()

    def error(self, phase: str, message: str) -> None:
        self.phases[phase].errors.append(message)

    def engine_run(self, url: str | None) -> None:
        """Record the engine's own record of the run (a Flyte run URL; None when there is none)."""
        self.flyte_url = url
        self.write()

    def add(self, section: str, item: dict) -> None:
        self.details[section].append(item)

    def complete(self, summary: dict[str, Any], wall_s: float, status: str) -> None:
        self.summary, self.wall_s, self.status = summary, wall_s, status
        self.write()

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "started": self.started, "home": self.home, "wall_s": self.wall_s,
                "engine": self.engine, "flyte_url": self.flyte_url,
                "summary": self.summary,
                "phases": [{k: v for k, v in asdict(p).items() if not k.startswith("_")} for p in self.phases.values()],
                **self.details}

    def write(self) -> None:
        """Rewrite both files atomically."""
        s = self.summary
        cards = [("promoted", s.get("promoted", len(self.details["promoted"]))),
                 ("rejected", s.get("rejected", len(self.details["rejected"]))),
                 ("held for review", s.get("held", len(self.details["held"]))),
                 ("review queue", s.get("review_queue", "…")),
                 ("clusters consolidated", s.get("clusters_consolidated", "…")),
                 ("memories merged", s.get("memories_merged", "…")),
                 ("clusters failed", len(s["clusters_failed"]) if "clusters_failed" in s
                  else sum(str(c.get("outcome", "")).startswith("failed") for c in self.details["clusters"])),
                 ("topics rebuilt", len(s["topics_rebuilt"]) if "topics_rebuilt" in s else "…"),
                 ("model calls", s.get("model_calls", "…")), ("cache hits", s.get("cache_hits", "…"))]
        html = _TEMPLATE.render(status=self.status, started=self.started, home=self.home, wall_s=self.wall_s,
                                engine=self.engine, flyte_url=self.flyte_url,
                                cards=cards, phases=list(self.phases.values()), **self.details)
        atomic_write_text(self.html_path, html)
        atomic_write_json(self.json_path, self.as_dict())
