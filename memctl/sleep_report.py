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

_TEMPLATE = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True).from_string("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
{% if status == "running" %}<meta http-equiv="refresh" content="3">{% endif %}
<title>memctl sleep {{ started }}</title>
<style>
 body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1d2330; max-width: 70rem; }
 h1 { font-size: 1.4rem; margin-bottom: .2rem; } h2 { font-size: 1.1rem; margin-top: 1.8rem; }
 .muted { color: #667; } table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
 th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #e3e6ec; vertical-align: top; }
 th { background: #f4f6fa; font-weight: 600; }
 .st { font-weight: 600; border-radius: .6rem; padding: .05rem .5rem; font-size: 12px; }
 .done { background: #e3f6e8; color: #17692e; } .running { background: #fff4d6; color: #8a5a00; }
 .failed { background: #fde4e4; color: #9b1c1c; } .pending { background: #eef0f4; color: #667; }
 .cards { display: flex; flex-wrap: wrap; gap: .8rem; margin-top: 1rem; }
 .card { border: 1px solid #e3e6ec; border-radius: .5rem; padding: .6rem .9rem; min-width: 9rem; }
 .card b { display: block; font-size: 1.5rem; } pre { white-space: pre-wrap; margin: 0; font-size: 12px; }
 code { font-size: 12px; }
</style></head><body>
<h1>memctl sleep <span class="st {{ status }}">{{ status }}</span></h1>
<div class="muted">started {{ started }} · data home <code>{{ home }}</code>{% if wall_s is not none %} · {{ "%.1f"|format(wall_s) }} s{% endif %}</div>
<div class="cards">
{% for label, value in cards %}<div class="card"><b>{{ value }}</b>{{ label }}</div>{% endfor %}
</div>
<h2>Phases</h2>
<table><tr><th>phase</th><th>status</th><th>seconds</th><th>counts</th><th>errors</th></tr>
{% for p in phases %}<tr><td>{{ p.name }}</td><td><span class="st {{ p.status }}">{{ p.status }}</span></td>
<td>{{ "%.2f"|format(p.seconds) if p.seconds is not none else "" }}</td>
<td>{% for k, v in p.counts.items() %}{{ k }}: {{ v }}{% if not loop.last %} · {% endif %}{% endfor %}</td>
<td>{% for e in p.errors %}<div>{{ e }}</div>{% endfor %}</td></tr>{% endfor %}
</table>
{% if promoted %}<h2>Promoted ({{ promoted|length }})</h2>
<table><tr><th>proposal</th><th>session</th><th>to</th><th>memory</th></tr>
{% for r in promoted %}<tr><td><code>{{ r.id }}</code></td><td>{{ r.session }}</td><td><code>{{ r.path }}</code></td><td><pre>{{ r.content }}</pre></td></tr>{% endfor %}
</table>{% endif %}
{% if rejected %}<h2>Rejected ({{ rejected|length }})</h2>
<table><tr><th>proposal</th><th>session</th><th>reason</th><th>detail</th><th>staged text (first 300 chars)</th></tr>
{% for r in rejected %}<tr><td><code>{{ r.id }}</code></td><td>{{ r.session }}</td><td><code>{{ r.reason }}</code></td><td>{{ r.detail }}</td><td><pre>{{ r.preview }}</pre></td></tr>{% endfor %}
</table>{% endif %}
{% if clusters %}<h2>Clusters ({{ clusters|length }})</h2>
<table><tr><th>scope</th><th>members</th><th>result</th><th>merged memory</th></tr>
{% for c in clusters %}<tr><td><code>{{ c.scope }}</code></td><td>{% for m in c.members %}<div><code>{{ m }}</code></div>{% endfor %}</td>
<td>{{ c.outcome }}</td><td><pre>{{ c.text or "" }}</pre></td></tr>{% endfor %}
</table>{% endif %}
{% if topics %}<h2>Rebuilt topics</h2>
<table><tr><th>topic</th><th>added</th><th>removed</th><th>seconds</th><th>result</th></tr>
{% for t in topics %}<tr><td>{{ t.topic }}</td><td>{{ t.added }}</td><td>{{ t.removed }}</td><td>{{ "%.1f"|format(t.seconds) }}</td>
<td>{% if t.error %}<span class="st failed">failed</span> {{ t.error }}{% else %}<span class="st done">cognified</span>{% endif %}</td></tr>{% endfor %}
</table>{% endif %}
</body></html>
""")


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

    def __init__(self, reports_dir: Path, home: Path) -> None:
        now = datetime.now(timezone.utc)
        stamp = now.strftime("%Y%m%dT%H%M%SZ")
        self.html_path = Path(reports_dir) / f"sleep-{stamp}.html"
        self.json_path = Path(reports_dir) / f"sleep-{stamp}.json"
        self.started = now.strftime("%Y-%m-%d %H:%M:%S UTC")
        self.home = str(home)
        self.status = "running"
        self.phases = {name: PhaseRecord(name) for name in PHASES}
        self.details: dict[str, list] = {"promoted": [], "rejected": [], "clusters": [], "topics": []}
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

    def add(self, section: str, item: dict) -> None:
        self.details[section].append(item)

    def complete(self, summary: dict[str, Any], wall_s: float, status: str) -> None:
        self.summary, self.wall_s, self.status = summary, wall_s, status
        self.write()

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "started": self.started, "home": self.home, "wall_s": self.wall_s,
                "summary": self.summary,
                "phases": [{k: v for k, v in asdict(p).items() if not k.startswith("_")} for p in self.phases.values()],
                **self.details}

    def write(self) -> None:
        """Rewrite both files atomically."""
        s = self.summary
        cards = [("promoted", s.get("promoted", len(self.details["promoted"]))),
                 ("rejected", s.get("rejected", len(self.details["rejected"]))),
                 ("clusters consolidated", s.get("clusters_consolidated", "…")),
                 ("memories merged", s.get("memories_merged", "…")),
                 ("clusters failed", len(s["clusters_failed"]) if "clusters_failed" in s
                  else sum(str(c.get("outcome", "")).startswith("failed") for c in self.details["clusters"])),
                 ("topics rebuilt", len(s["topics_rebuilt"]) if "topics_rebuilt" in s else "…"),
                 ("model calls", s.get("model_calls", "…")), ("cache hits", s.get("cache_hits", "…"))]
        html = _TEMPLATE.render(status=self.status, started=self.started, home=self.home, wall_s=self.wall_s,
                                cards=cards, phases=list(self.phases.values()), **self.details)
        atomic_write_text(self.html_path, html)
        atomic_write_json(self.json_path, self.as_dict())
