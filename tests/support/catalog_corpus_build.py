"""Build tests/fixtures/catalog_corpus.json: secrets and near-misses we did not write by hand.

Three sources, each named in every instance's ``origin``:

* ``rule-pattern``: one positive per rule of the pinned engine's catalog
  (``kingfisher_sdk.Rules(confidence="low")``: Betterleaks and Veles rules),
  generated from the rule's own regex with ``rstr.Xeger`` on a seeded RNG. A
  candidate is kept only when it respects the rule's conditions as far as they
  can be read: the regex matches it again (Python ``re``, after ``(?i)`` moved to
  the front and ``\\z`` spelled ``\\Z``), the secret group has more Shannon
  entropy than the rule's ``min_entropy`` and than every ``entropy(...) <= X``
  bound of its Betterleaks filter (+0.3 margin: a generated string sits near
  the bound), it is 8-400 characters and not a documentation placeholder. Rules
  that need a companion rule (``depends_on_rule``), are invisible helpers or find
  identifiers (client ids, instance URLs: memctl keeps them readable), and
  patterns Python cannot read, are listed as skipped. Whether the engine then
  finds the instance is not checked here: that is what the tests measure.
* ``betterleaks-tps``: the literal true-positive strings of the Betterleaks rule
  sources (``cmd/generate/config/rules/*.go``: ``tps := []string{"…"}`` and
  ``GenerateSampleSecret(s)("name", "literal")``, placed as ``name_token = "literal"``
  as Betterleaks' generator does).
* ``betterleaks-fps``: the literal false-positive strings of the same files (their
  placeholders, wrong prefixes, wrong lengths): the near-misses, up to 200 characters.
  Plus ``placeholder-of-rule``: each generated positive with its secret's body after
  the issuer prefix replaced by ``x`` runs (the catalogs' documentation convention).

Deterministic: same engine version, same Betterleaks commit, same output.

    python -m tests.support.catalog_corpus_build --betterleaks-repo /path/to/betterleaks.git [--rev HEAD]

``--betterleaks-repo`` may be a bare git directory (read with ``git show``).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "catalog_corpus.json"
_ENTROPY_MARGIN = 0.3


def shannon(value: str) -> float:
    """Shannon entropy in bits per character, as Betterleaks' ``entropy()`` computes it."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values()) if value else 0.0


def python_regex(pattern: str) -> re.Pattern[str] | None:
    """The rule regex in Python syntax, or None when Python cannot read it."""
    flags = 0
    if re.search(r"(?<!^)\(\?i\)", pattern):
        pattern = pattern.replace("(?i)", "")
        flags |= re.IGNORECASE
    if re.search(r"(?<!^)\(\?s\)", pattern):
        pattern = pattern.replace("(?s)", "")
        flags |= re.DOTALL
    pattern = pattern.replace(r"\z", r"\Z")
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return re.compile(pattern, flags)
    except (re.error, OverflowError, RecursionError):
        return None


def entropy_bounds(node: object) -> list[float]:
    """Every ``X`` of ``entropy(...) <= X`` / ``< X`` in a Betterleaks filter AST."""
    out: list[float] = []
    if isinstance(node, dict):
        if node.get("kind") == "binary" and node.get("operator") in ("<=", "<"):
            left, right = node.get("left"), node.get("right")
            if (isinstance(left, dict) and left.get("kind") == "call"
                    and left.get("callee", {}).get("value") == "entropy" and isinstance(right, dict)):
                try:
                    out.append(float(right.get("value")))
                except (TypeError, ValueError):
                    pass
        for value in node.values():
            out.extend(entropy_bounds(value))
    elif isinstance(node, list):
        for value in node:
            out.extend(entropy_bounds(value))
    return out


def secret_of(match: re.Match[str], group: int) -> tuple[int, int]:
    """Span of the rule's secret in a match: its declared group, else the first group that took part."""
    if group and group <= (match.re.groups or 0) and match.group(group) is not None:
        return match.span(group)
    for index in range(1, (match.re.groups or 0) + 1):
        if match.group(index):
            return match.span(index)
    return match.span(0)


def identifier_rule(rule_id: str) -> bool:
    """A rule that finds what names an account (client id, instance URL), which memctl keeps readable."""
    from memctl.scrub.catalog import _IDENTIFIER_KIND

    return bool(_IDENTIFIER_KIND.search(rule_id))


_PLACEHOLDER = re.compile(r"(?i)x{6,}|\*{4,}|example|<|\{\{|\$\{|(.)\1{7,}")


def family(kind: str) -> str:
    """Vendor family of a kind: its first snake_case word (``github_pat`` -> ``github``)."""
    return kind.split("_", 1)[0]


def rule_positives(seed: int = 23) -> tuple[list[dict], list[dict], list[str]]:
    """``(positives, placeholder near-misses, skipped rule ids)`` from the engine's own rules."""
    import kingfisher_sdk
    import rstr

    from memctl.scrub.catalog import kind_of_rule

    rules = kingfisher_sdk.Rules(confidence="low")
    positives: list[dict] = []
    near: list[dict] = []
    skipped: list[str] = []
    for meta in sorted(rules.metadata(), key=lambda m: m["id"]):
        detail = rules.detail(meta["id"])
        if not detail["visible"] or detail["depends_on_rule"] or identifier_rule(meta["id"]):
            skipped.append(meta["id"])
            continue
        regex = python_regex(detail["pattern"])
        if regex is None:
            skipped.append(meta["id"])
            continue
        bound = max([detail["min_entropy"], *entropy_bounds(detail.get("betterleaks_filter"))]) + _ENTROPY_MARGIN
        rng = random.Random(seed * 1_000_003 + zlib.crc32(meta["id"].encode()))
        xeger = rstr.Rstr(rng)
        found = None
        for _ in range(300):
            try:
                candidate = xeger.xeger(regex)
            except (ValueError, IndexError, RecursionError, TypeError):
                break
            if "\n" in candidate or "\x00" in candidate or not candidate.isprintable():
                continue
            match = regex.search(candidate)
            if match is None:
                continue
            start, end = secret_of(match, detail["betterleaks_secret_group"])
            secret = candidate[start:end]
            if not 8 <= len(secret) <= 400 or shannon(secret) <= bound or _PLACEHOLDER.search(secret):
                continue
            found = (candidate, start, end)
            break
        if found is None:
            skipped.append(meta["id"])
            continue
        candidate, start, end = found
        kind = kind_of_rule(meta["id"])
        positives.append({"kind": kind, "family": family(kind), "rule": meta["id"], "snippet": candidate,
                          "values": [candidate[start:end]], "origin": "rule-pattern"})
        secret = candidate[start:end]
        keep = next((i for i, c in enumerate(secret) if c.isdigit() or (c.isalpha() and i >= 4)), 4)
        keep = min(max(keep, 3), len(secret) // 3)
        stand_in = secret[:keep] + "x" * (len(secret) - keep)
        near.append({"kind": f"placeholder_{kind}", "snippet": candidate[:start] + stand_in + candidate[end:],
                     "origin": f"placeholder-of-rule:{meta['id']}"})
    return positives, near, skipped


_GO_STRING = r'(?:"(?:[^"\\\n]|\\.)*"|`[^`]*`)'
_RULE_ID = re.compile(r'RuleID:\s*"([^"]+)"')
_FUNC = re.compile(r"^func ", re.MULTILINE)


def _go_literal(token: str) -> str:
    if token.startswith("`"):
        return token[1:-1]
    return json.loads(token) if "\\x" not in token else token[1:-1]


def _block(body: str, opener: str) -> str:
    """The text of ``opener … {`` up to its matching ``}``."""
    start = body.find(opener)
    if start < 0:
        return ""
    depth, i = 0, body.index("{", start)
    for j in range(i, len(body)):
        if body[j] == "{":
            depth += 1
        elif body[j] == "}":
            depth -= 1
            if depth == 0:
                return body[i + 1 : j]
    return ""


def betterleaks_examples(repo: str, rev: str) -> tuple[list[dict], list[dict], str]:
    """``(positives, near-misses, commit)`` from the literal tps/fps of the Betterleaks rule sources."""
    from memctl.scrub.catalog import kind_of_rule

    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, text=True, check=True).stdout

    commit = git("rev-parse", rev).strip()
    names = [n for n in git("ls-tree", "-r", "--name-only", commit, "cmd/generate/config/rules/").split()
             if n.endswith(".go") and not n.endswith("_test.go")]
    positives: list[dict] = []
    near: list[dict] = []
    for name in sorted(names):
        source = git("show", f"{commit}:{name}")
        for body in _FUNC.split(source)[1:]:
            ids = _RULE_ID.findall(body)
            if not ids or identifier_rule("betterleaks." + ids[0]):
                continue
            kind = kind_of_rule(ids[0])
            origin = f"betterleaks@{commit[:12]}:{name}"
            tps = _block(body, "tps := []string{")
            for line in tps.splitlines():
                stripped = line.strip().rstrip(",")
                if re.fullmatch(_GO_STRING, stripped):
                    literal = _go_literal(stripped)
                    if 8 <= len(literal) <= 400 and "\n" not in literal:
                        positives.append({"kind": kind, "family": family(kind), "rule": "betterleaks." + ids[0],
                                          "snippet": literal, "values": [], "origin": origin})
            for call in re.finditer(r'GenerateSampleSecrets?\("([\w-]+)",\s*(' + _GO_STRING + r")\)", body):
                literal = _go_literal(call.group(2))
                if len(literal) >= 8:
                    positives.append({"kind": kind, "family": family(kind), "rule": "betterleaks." + ids[0],
                                      "snippet": f'{call.group(1)}_token = "{literal}"', "values": [literal],
                                      "origin": origin})
            fps = _block(body, "fps := []string{")
            for token in re.findall(_GO_STRING, fps):
                literal = _go_literal(token)
                if 4 <= len(literal) <= 200:
                    near.append({"kind": f"fps_{kind}", "snippet": literal, "origin": origin})
    return positives, near, commit


def _tps_values(positives: list[dict]) -> None:
    """A literal tps string is a whole line holding a secret: the engine's own finding names the
    value; when it finds nothing the longest token of 16+ characters is the value (a miss stays a miss)."""
    import kingfisher_sdk

    scanner = kingfisher_sdk.Scanner(kingfisher_sdk.Rules(confidence="low"), base64=False)
    for item in positives:
        if item["values"]:
            continue
        found = [f.secret for f in scanner.scan(item["snippet"]) if f.secret in item["snippet"]]
        tokens = sorted(re.findall(r"[^\s\"'`=:,;()\[\]{}]{16,}", item["snippet"]), key=len, reverse=True)
        item["values"] = [max(found, key=len)] if found else tokens[:1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--betterleaks-repo", required=True, help="git directory of github.com/betterleaks/betterleaks")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import kingfisher_sdk

    positives, near, skipped = rule_positives()
    tps, fps, commit = betterleaks_examples(args.betterleaks_repo, args.rev)
    _tps_values(tps)
    tps = [item for item in tps if item["values"]]
    seen: set[str] = set()
    secrets = []
    for item in positives + tps:
        if item["snippet"] not in seen:
            seen.add(item["snippet"])
            secrets.append(item)
    near_misses = []
    for item in near + fps:
        if item["snippet"] not in seen:
            seen.add(item["snippet"])
            near_misses.append(item)
    data = {
        "generated_by": "python -m tests.support.catalog_corpus_build",
        "engine": f"kingfisher-secret-scanner {kingfisher_sdk.__version__}",
        "betterleaks_commit": commit,
        "sources": {
            "rule-pattern": "kingfisher_sdk built-in rules (Betterleaks + Veles), generated with rstr.Xeger",
            "betterleaks": "https://github.com/betterleaks/betterleaks cmd/generate/config/rules/*.go literals",
        },
        "skipped_rules": skipped,
        "secrets": secrets,
        "near_misses": near_misses,
    }
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(args.out)
    print(f"{len(secrets)} secrets ({len(positives)} generated, {len(secrets) - len(positives)} catalog literals), "
          f"{len(near_misses)} near-misses, {len(skipped)} rules skipped -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
