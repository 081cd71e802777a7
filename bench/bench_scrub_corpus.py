"""Benchmark: the secret corpus (recall, false redactions) and scrubber cost per session,
today's scrubber side by side with an earlier one, in one run.

* Corpus: every secret and near-miss of ``tests/scrub_corpus.py`` in every
  position an OpenCode history has (see that module). Recall = placements
  whose secret is fully masked / placements; false-redaction rate =
  near-miss placements changed at all / near-miss placements. Targets: recall
  1.00, false redactions <= 1%.
* Cost: the exact field lists ``memctl.ingest.transcript`` scrubs for each session of
  a synthetic OpenCode 1.18 database (``tests.fixtures.synthetic_opencode``,
  the sessions of ``bench_preprocess``: ~100 parts, ~40 KB), and the same
  sessions with corpus secrets and near-misses planted in their tool outputs.
  Each session is scrubbed by both versions in turn (interleaved, best of
  ``--repeat``), on one core. Target: today's cost <= 1.2x the baseline's on
  the typical sessions.

The baseline is ``memctl/scrub.py`` as of a git revision (default
``bbbabb7``), loaded from ``git show`` into a temporary module.

    .venv/bin/python -m bench.bench_scrub_corpus --sessions 200
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

import memctl.ingest.transcript as transcript_module
import memctl.scrub.core as current
from memctl.config import Settings
from memctl.connectors.opencode.source import OpenCodeSource
from tests import scrub_corpus
from tests.fixtures.synthetic_opencode import build_database

REPO = Path(__file__).resolve().parents[1]
TARGET_RATIO = 1.2


def load_baseline(revision: str, workdir: Path) -> ModuleType:
    """``memctl/scrub.py`` at ``revision`` as a module of its own (it imports only detect-secrets)."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{revision}:memctl/scrub.py"], capture_output=True, text=True, check=True
    ).stdout
    path = workdir / f"scrub_{revision}.py"
    path.write_text(source)
    name = f"scrub_baseline_{revision}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def session_fields(db: Path) -> list[list[str]]:
    """The field lists ``build_transcript`` hands to ``scrub_texts``, one list per session."""
    recorded: list[list[str]] = []
    original = transcript_module.scrub_texts

    def record(texts):
        recorded.append(list(texts))
        return original(texts)

    transcript_module.scrub_texts = record
    try:
        source = OpenCodeSource(db)
        source.check_schema()
        settings = Settings()
        for info in source.iter_root_infos():
            transcript_module.build_transcript(source.read_session(info), settings)
    finally:
        transcript_module.scrub_texts = original
    return recorded


def with_planted(sessions: list[list[str]], seed: int = 11) -> list[list[str]]:
    """Each session with three corpus secrets and three near-misses placed in its fields."""
    rng = random.Random(seed)
    positions = list(scrub_corpus.POSITIONS.values())
    out = []
    for fields in sessions:
        fields = list(fields)
        for _ in range(3):
            for snippet in (rng.choice(scrub_corpus.SECRETS).snippet, rng.choice(scrub_corpus.NEAR_MISSES).snippet):
                i = rng.randrange(len(fields))
                fields[i] = fields[i] + "\n" + rng.choice(positions)(snippet)
        out.append(fields)
    return out


def corpus_figures(module: ModuleType) -> dict:
    figures = scrub_corpus.measure(lambda text: module.scrub(text).text)
    missed_kinds = Counter(kind for kind, _, _ in figures.missed)
    return {
        "recall": round(figures.recall, 4),
        "masked": figures.masked,
        "planted": figures.planted,
        "false_redaction_rate": round(figures.false_redaction_rate, 4),
        "false_redactions": figures.false_redactions,
        "near_miss_placements": figures.near_misses,
        "missed_by_kind": dict(missed_kinds.most_common()),
    }


def cost(sessions: list[list[str]], modules: list[ModuleType], repeat: int) -> list[list[float]]:
    """``[per module][per session]`` best-of-``repeat`` ms for ``scrub_texts``, modules interleaved."""
    best = [[float("inf")] * len(sessions) for _ in modules]
    for _ in range(repeat):
        for index, fields in enumerate(sessions):
            for m, module in enumerate(modules):
                t0 = time.perf_counter()
                module.scrub_texts(fields)
                best[m][index] = min(best[m][index], (time.perf_counter() - t0) * 1000)
    return best


def summary(ms: list[float]) -> dict:
    ordered = sorted(ms)
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)], 3),
        "mean_ms": round(statistics.fmean(ordered), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5, help="timing rounds; the best round per session counts")
    parser.add_argument("--baseline", default="bbbabb7", help="git revision of the earlier memctl/scrub.py")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    with tempfile.TemporaryDirectory() as tmp:
        baseline = load_baseline(args.baseline, Path(tmp))
        typical = session_fields(build_database(Path(tmp) / "opencode.db", args.sessions))
    planted = with_planted(typical)
    corpus = {"current": corpus_figures(current), f"baseline_{args.baseline}": corpus_figures(baseline)}
    result: dict = {
        "corpus": {
            "secrets": len(scrub_corpus.SECRETS),
            "kinds": len({s.kind for s in scrub_corpus.SECRETS}),
            "near_misses": len(scrub_corpus.NEAR_MISSES),
            "held_out_secrets": len(scrub_corpus.HELD_OUT_SECRETS),
            "held_out_kinds": len({s.kind for s in scrub_corpus.HELD_OUT_SECRETS}),
            "held_out_near_misses": len(scrub_corpus.HELD_OUT_NEAR_MISSES),
            "red_team_secrets": len(scrub_corpus.RED_TEAM_SECRETS),
            "red_team_kinds": len({s.kind for s in scrub_corpus.RED_TEAM_SECRETS}),
            "red_team_near_misses": len(scrub_corpus.RED_TEAM_NEAR_MISSES),
            "positions": len(scrub_corpus.POSITIONS),
            **corpus,
        },
        "cost_per_session": {},
    }
    for name, sessions in (("typical", typical), ("with_planted_secrets", planted)):
        new_ms, old_ms = cost(sessions, [current, baseline], args.repeat)
        result["cost_per_session"][name] = {
            "sessions": len(sessions),
            "kb_per_session_median": round(statistics.median(sum(map(len, s)) for s in sessions) / 1024, 1),
            "current": summary(new_ms),
            f"baseline_{args.baseline}": summary(old_ms),
            "ratio_median": round(statistics.median(new_ms) / statistics.median(old_ms), 3),
            "ratio_total": round(sum(new_ms) / sum(old_ms), 3),
        }
    typical_ratio = result["cost_per_session"]["typical"]["ratio_total"]
    result["target"] = {
        "recall": 1.0,
        "false_redaction_rate_max": 0.01,
        "cost_ratio_max": TARGET_RATIO,
        "met": corpus["current"]["recall"] == 1.0
        and corpus["current"]["false_redaction_rate"] <= 0.01
        and typical_ratio <= TARGET_RATIO,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
