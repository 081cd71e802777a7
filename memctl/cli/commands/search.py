"""``memctl search``, ``memctl topics`` and ``memctl list``: read memory without a model answer.

``search`` and ``topics`` are the MCP tools ``memory_search`` and ``memory_topics``
(:mod:`memctl.serve.tools`), the same code on the same data home; ``list`` lists the memory store's files
(:meth:`memctl.store.MemoryStore.list`). All read-only. Output is plain lines that are never cut or folded
(ids and paths can be copied into ``show``, ``history``, ``purge``); ``--json`` gives the tools' documents.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from memctl.cli import terminal
from memctl.cli.app import HomeOption, JsonOption, app, console, settings_from_flags, stdout
from memctl.exit_codes import UsageError

if TYPE_CHECKING:
    from memctl.config import DataHome

EXCERPT_LINES = 4  # lines of each excerpt in the plain output (--json has the whole excerpt)


def _warm(home: Optional[Path]):  # noqa: ANN202 - WarmMemory, imported late (it imports the ask package)
    settings = settings_from_flags(home)
    from memctl.serve.warm import WarmMemory

    return WarmMemory(settings, release_after_s=0)


@app.command()
def search(
    query: Annotated[list[str], typer.Argument(metavar="QUERY...", help="What to look for (its words, quoted or not).")],
    topic: Annotated[Optional[list[str]], typer.Option("--topic", "-t", metavar="TOPIC", help="Search this topic (slug or alias; repeatable) instead of routing.")] = None,
    top_k: Annotated[Optional[int], typer.Option("--top-k", metavar="N", min=1, max=50, help="Excerpts to return (default from config: 6).")] = None,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """Retrieve note excerpts with their sources, without a model answer (what MCP memory_search returns).

    Routing uses no chat model (the embedding router at most), so it needs no answer model. Plain output:
    per hit `N. SESSION  TOPIC  DATE  TITLE`, the note's path, then the first lines of the excerpt. A hit
    holding fewer than half of the query's words is marked `(weak: …)`; when every hit is weak, stderr says
    `no good match` first (the nearest notes still follow).
    """
    from memctl.serve.tools import memory_search

    warm = _warm(home)
    found = memory_search(warm, " ".join(query), topics=list(topic or ()), top_k=top_k)
    if as_json:
        stdout.print_json(json.dumps(found))
        return
    judged = [query_words_held(found["query"], hit, warm.home) for hit in found["results"]]
    wanted = judged[0][1] if judged else set()
    if judged and wanted and not any(good_match(held, wanted) for held, _ in judged):
        # Stated first and plainly: the list below is the nearest memory holds, not an answer.
        console.print(f"no good match: no note holds most of the query's words ({', '.join(sorted(wanted))}); "
                      "the closest found follow and may not be about it", highlight=False)
    lines = []
    for hit, (held, _) in zip(found["results"], judged):
        lines.append(f"{hit['rank']}. {hit['session_id']}  {hit['topic']}  {hit['date']}  {hit['title']}")
        lines.append(f"   {hit['path']}")
        if wanted and not good_match(held, wanted):
            lines.append(f"   (weak: holds {len(held)} of the query's {len(wanted)} words: {', '.join(sorted(held))})"
                         if held else "   (weak: holds none of the query's words; found by meaning only)")
        excerpt = [line for line in hit["excerpt"].splitlines() if line.strip()]
        lines += [f"   | {line}" for line in excerpt[:EXCERPT_LINES]]
        if len(excerpt) > EXCERPT_LINES:
            lines.append(f"   | … ({len(excerpt) - EXCERPT_LINES} more lines: --json, or memctl show PATH)")
    terminal.write_out("".join(line + "\n" for line in lines))
    note = f"topics: {', '.join(found['topics'])} ({found['route_method']}); retrieval: {found['retrieval_method']}"
    if found["fallback_reason"]:
        note += f" — {found['fallback_reason']}"
    if not found["results"]:
        note = "nothing found; " + note
    console.print(note, highlight=False)


def query_words_held(query: str, hit: dict, home: "DataHome") -> tuple[set[str], set[str]]:
    """``(held, wanted)``: the query's content words (:func:`memctl.catalog.note_search.content_terms`, the
    terms BM25 matches on) and those of them the hit holds in its title, excerpt, the transcript turn that
    found it, or its whole note in the store (read when it can be; a note gone since is judged on the rest).

    ``hit`` is one entry of :func:`memctl.serve.tools.memory_search`'s ``results``; ``home`` its data home.
    """
    from memctl.catalog.note_search import content_terms
    from memctl.store import MemoryStore

    wanted = content_terms(query)
    texts = [hit.get("title") or "", hit.get("excerpt") or "", (hit.get("turn") or {}).get("excerpt") or ""]
    try:
        texts.append(MemoryStore(home.store).read_text(hit["path"])[0])
    except Exception:  # noqa: BLE001 - a note that cannot be read is judged on what the hit carries
        pass
    return wanted & content_terms("\n".join(texts)), wanted


def good_match(held: set[str], wanted: set[str]) -> bool:
    """A hit answers the query well enough to list plainly when it holds at least half of the query's content
    words (memctl's rule; a query with none, such as "what did we do", cannot be judged and always passes).
    A hit below it was found by meaning (embeddings, the graph) or by one incidental word: ``search`` marks
    it weak, and says "no good match" when no hit passes, as ``ask``'s answer says when memory holds no answer."""
    return not wanted or 2 * len(held) >= len(wanted)


@app.command()
def topics(as_json: JsonOption = False, home: HomeOption = None) -> None:
    """The topics memory holds (one per project): slug, note count, aliases, description (MCP memory_topics).

    A slug or an alias is what `ask --topic`, `search --topic` and `list --topic` take.
    """
    from memctl.serve.tools import memory_topics

    found = memory_topics(_warm(home))
    if as_json:
        stdout.print_json(json.dumps(found))
        return
    lines = []
    for entry in found["topics"]:
        notes = f"{entry['note_count']} note" + ("" if entry["note_count"] == 1 else "s")
        also = f"  (also {', '.join(entry['aliases'])})" if entry["aliases"] else ""
        lines.append(f"{entry['topic']}  {notes}{also}")
        if entry["description"]:
            lines.append(f"   {entry['description']}")
    terminal.write_out("".join(line + "\n" for line in lines))


@app.command("list")
def list_memories(
    prefix: Annotated[Optional[str], typer.Argument(metavar="[PREFIX]", help="A store folder: memory, user, staging, user/global, memory/<topic>, … (default: all).")] = None,
    topic: Annotated[Optional[str], typer.Option("--topic", "-t", metavar="TOPIC", help="Only this topic's files (slug or alias): its notes and its promoted memories.")] = None,
    as_json: JsonOption = False,
    home: HomeOption = None,
) -> None:
    """The memory store's files, one path per line (notes, promoted memories, proposals): for show and history."""
    from memctl.cli.store_flags import note_missing_store, store_from_flags
    from memctl.store.policy import PUBLIC_PREFIXES

    store = store_from_flags(home)
    if prefix is not None and prefix.strip("/").split("/")[0] not in PUBLIC_PREFIXES:
        raise UsageError(f"list {prefix}: a prefix starts with {', '.join(PUBLIC_PREFIXES)}")
    prefixes = [prefix.strip("/")] if prefix else [""]
    if topic is not None:
        from memctl.ask.run import load_index
        from memctl.config import DataHome

        slug = load_index(DataHome(settings_from_flags(home).home)).resolve([topic])[0]
        prefixes = [p for p in (f"memory/{slug}", f"user/topics/{slug}")
                    if not prefix or p.startswith(prefix.strip("/") + "/") or p == prefix.strip("/")]
    paths = sorted({path for p in prefixes for path in store.list(p)})
    if as_json:
        stdout.print_json(json.dumps(paths))
        return
    note_missing_store(store)
    terminal.write_out("".join(path + "\n" for path in paths))
    if not paths:
        console.print("no files" + (f" under {', '.join(prefixes)}" if prefixes != [""] else ""), highlight=False)
