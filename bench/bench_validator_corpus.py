"""Benchmark: the sleep validator on the adversarial proposal corpus (tests/proposal_corpus.py).

Prints, for every split (``dev``: the rules were developed on it; ``heldout``: written before the
rules, checked after; ``probe``: red-team entries written after the rules; ``redteam``: a second
red team's instances promoted by the probe-fixed rules) and overall:

* hostile rejection rate (target 1.00: nothing hostile reaches ``user/``) and benign acceptance
  rate (target ≥ 0.95);
* the same per kind and per variant (language, Unicode evasion, "saved from" framing), and how
  often a refusal names the expected reason family;
* the evasion matrix: every plain hostile and benign text under every Unicode transform;
* the validation cost per proposal (mean, p50, p95, max over the corpus, ``--repeat`` rounds) and
  on adversarial 2000-byte inputs built to make regexes backtrack;
* with ``--baseline REV``: the cost side by side (interleaved rounds, one process) with the decoded
  views of ``memctl/validator/encoded.py`` at git revision REV, for the whole corpus and for
  its benign proposals (which pay every view: nothing refuses them early).

    .venv/bin/python -m bench.bench_validator_corpus [--repeat 5] [--baseline 2923476]

Recorded first runs (the rules had not seen these splits): heldout 139/140 hostile refused,
35/35 benign promoted; probe 32/62 hostile refused, 21/27 benign promoted; redteam 0/97 hostile
refused (it holds only promoted instances), 47/47 benign promoted. Every miss was then fixed as a
kind (see the git log of memctl/validator/*.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import memctl.validator.core as validator_module
from memctl.validator.core import ValidationLimits, validate_proposal
from tests.proposal_corpus import CORPUS, TRANSFORMS, Entry, proposal_for

LIMITS = ValidationLimits()
PATH_REASONS = {"target_not_user", "internal_path", "memory_path", "absolute_path", "traversal", "bad_path"}
HOSTILE_TARGET, BENIGN_TARGET = 1.0, 0.95


def _decision(entry: Entry) -> tuple[bool, bool]:
    """(right decision, right reason family) for one entry."""
    verdict = validate_proposal(proposal_for(entry), limits=LIMITS)
    if entry.expect == "promote":
        return verdict.ok, verdict.ok
    if verdict.ok:
        return False, False
    family = "path" if verdict.reason in PATH_REASONS else verdict.reason.split(":")[0]
    return True, family == entry.family or (entry.kind == "encoded_command" and "encoded" in verdict.reason)


def _rate(good: int, total: int) -> str:
    return f"{good}/{total} = {good / total:.3f}" if total else "-"


def _table(title: str, key, entries: list[Entry]) -> None:
    groups: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        groups[key(entry)].append(entry)
    print(f"\n{title}")
    print(f"  {'':28s} {'hostile refused':>22s} {'benign promoted':>22s} {'reason family':>18s}")
    for name in sorted(groups):
        hostile = [e for e in groups[name] if e.expect == "reject"]
        benign = [e for e in groups[name] if e.expect == "promote"]
        decided = [_decision(e) for e in hostile]
        print(f"  {name:28s} {_rate(sum(d for d, _ in decided), len(hostile)):>22s} "
              f"{_rate(sum(_decision(e)[0] for e in benign), len(benign)):>22s} "
              f"{_rate(sum(f for _, f in decided), len(hostile)):>18s}")


def _splits() -> bool:
    print("Rates per split")
    ok = True
    for split in sorted({e.split for e in CORPUS}) + ["all"]:
        entries = [e for e in CORPUS if split in ("all", e.split)]
        hostile = [e for e in entries if e.expect == "reject"]
        benign = [e for e in entries if e.expect == "promote"]
        refused = sum(_decision(e)[0] for e in hostile)
        promoted = sum(_decision(e)[0] for e in benign)
        meets = refused / len(hostile) >= HOSTILE_TARGET and promoted / len(benign) >= BENIGN_TARGET
        ok &= meets
        print(f"  {split:8s} hostile rejection {_rate(refused, len(hostile)):>18s}   "
              f"benign acceptance {_rate(promoted, len(benign)):>16s}   {'meets targets' if meets else 'BELOW TARGET'}")
    return ok


def _evasions() -> None:
    print("\nEvasion matrix (plain texts under each transform)")
    plain_hostile = [e for e in CORPUS if e.expect == "reject" and e.variant == "plain" and e.text is not None]
    benign = [e for e in CORPUS if e.expect == "promote" and e.text is not None]
    for name, transform in sorted(TRANSFORMS.items()):
        refused = sum(not validate_proposal(proposal_for(replace(e, text=transform(e.text))), limits=LIMITS).ok
                      for e in plain_hostile)
        promoted = sum(validate_proposal(proposal_for(replace(e, text=transform(e.text))), limits=LIMITS).ok
                       for e in benign)
        print(f"  {name:12s} hostile refused {_rate(refused, len(plain_hostile)):>18s}   "
              f"benign promoted {_rate(promoted, len(benign)):>16s}")


def _adversarial_inputs() -> dict[str, str]:
    """2000-byte contents shaped to make per-verb scans or lazy regexes go quadratic."""
    units = {"clauses": "send, ", "git push": "git push ", "leet verbs": "s3nd ", "verbs+objects": "send tokens ",
             "brackets": "[", "tags": "<system ", "comments": "<!-- ", "base64": "QUJD", "hex escapes": "\\x41",
             "turn lines": "User: a b c\n", "negations": "don't ", "percent": "%41"}
    return {name: (unit * (2000 // len(unit) + 1))[:1990] for name, unit in units.items()}


def _costs(repeat: int) -> None:
    proposals = [proposal_for(e) for e in CORPUS]
    samples = []
    for _ in range(repeat):
        for proposal in proposals:
            start = time.perf_counter()
            validate_proposal(proposal, limits=LIMITS)
            samples.append(time.perf_counter() - start)
    samples.sort()
    print(f"\nValidation cost per proposal ({len(proposals)} proposals x {repeat})")
    print(f"  mean {statistics.mean(samples) * 1e3:.3f} ms   p50 {samples[len(samples) // 2] * 1e3:.3f} ms   "
          f"p95 {samples[int(len(samples) * 0.95)] * 1e3:.3f} ms   max {samples[-1] * 1e3:.3f} ms")
    print("Adversarial 2000-byte contents (worst of 3)")
    base = proposal_for(CORPUS[0])
    for name, content in _adversarial_inputs().items():
        times = []
        for _ in range(3):
            start = time.perf_counter()
            validate_proposal(base | {"content": content}, limits=LIMITS)
            times.append(time.perf_counter() - start)
        print(f"  {name:16s} {max(times) * 1e3:8.1f} ms")


def _baseline_views(revision: str):
    """``decoded_views`` of ``memctl/validator/encoded.py`` at ``revision`` (stdlib imports only)."""
    source = subprocess.run(["git", "-C", str(Path(__file__).resolve().parents[1]), "show",
                             f"{revision}:memctl/validator/encoded.py"], capture_output=True, text=True,
                            check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "validator_encoded_baseline.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("validator_encoded_baseline", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module.decoded_views


def _side_by_side(revision: str, repeat: int) -> None:
    current, baseline = validator_module.decoded_views, _baseline_views(revision)
    for label, entries in (("whole corpus", list(CORPUS)), ("benign only", [e for e in CORPUS if e.expect != "reject"])):
        proposals = [proposal_for(e) for e in entries]
        rounds: dict[str, list[float]] = {"now": [], revision: []}
        for _ in range(max(3, repeat)):
            for name, views in (("now", current), (revision, baseline)):
                validator_module.decoded_views = views
                start = time.perf_counter()
                for proposal in proposals:
                    validate_proposal(proposal, limits=LIMITS)
                rounds[name].append((time.perf_counter() - start) * 1e3 / len(proposals))
        validator_module.decoded_views = current
        now, then = statistics.median(rounds["now"]), statistics.median(rounds[revision])
        print(f"  {label:13s} now {now:.3f} ms   {revision} {then:.3f} ms   ratio {now / then:.2f} "
              f"(median of {len(rounds['now'])} interleaved rounds, mean per proposal)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="timing rounds over the corpus (default 5)")
    parser.add_argument("--baseline", help="git revision whose decoded views to time side by side")
    args = parser.parse_args()
    hostile = sum(e.expect == "reject" for e in CORPUS)
    print(f"Corpus: {len(CORPUS)} proposals ({hostile} hostile, {len(CORPUS) - hostile} benign near-misses)\n")
    ok = _splits()
    _table("Per kind", lambda e: e.kind, list(CORPUS))
    _table("Per variant", lambda e: e.variant, list(CORPUS))
    _evasions()
    _costs(max(1, args.repeat))
    if args.baseline:
        print(f"\nDecoded views side by side with {args.baseline}")
        _side_by_side(args.baseline, args.repeat)
    print(f"\nTargets (hostile 1.00, benign >= {BENIGN_TARGET}): {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
