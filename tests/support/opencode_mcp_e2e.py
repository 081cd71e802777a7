"""`memctl serve` end to end with the REAL OpenCode binary: OpenCode, configured by ``memctl mcp install --opencode``,
calls memctl's ``memory_search`` over MCP (the fake model asks for it), and the completed tool part with memctl's
excerpt lands in OpenCode's own SQLite database.

    .venv/bin/python -m tests.support.opencode_mcp_e2e            # installs OpenCode 1.18.34 with npm if missing

Steps: ingest the real OpenCode 1.18 fixture into a scratch data home (fake Ollama); a scratch ``HOME`` whose
global OpenCode config points OpenCode's provider at the fake server (the fixture generator's
:func:`~tests.fixtures.make_opencode_fixture.write_config`); ``memctl mcp install --opencode --project DIR --yes``
run as a user would (the OpenCode binary on ``PATH``, so the shape is detected from ``opencode --version``); one
``opencode run`` in DIR whose fake model calls ``memctl_memory_search`` and then stops; OpenCode's DB
(``$HOME/.local/share/opencode/opencode.db``) read back read-only. Prints one JSON summary.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.fakes.scripted import ScriptedToolCall, ScriptedTurn
from tests.fixtures import make_opencode_fixture as F

SEARCH_TOOL = "memctl_memory_search"  # OpenCode names MCP tools <server>_<tool>
PROMPT = "Look up in memctl's memory how the add() bug in calc.py was fixed, then tell me."
QUERY = "How was the add() bug in calc.py fixed?"
EXPECTED_TITLE = "Fix add() bug in calc.py"  # the fixture session that answers QUERY
SESSION_TITLE = "Recall the calc.py fix"
FINAL_PREFIX = "memctl's memory says: "
# OpenCode installs its plugin package from npm in the background at start; pointed at a closed local port it
# fails at once (logged as a warning, the run goes on) and the run reaches only 127.0.0.1.
OFFLINE_REGISTRY = "http://127.0.0.1:9/"


def chat_script(request: dict[str, Any]) -> ScriptedTurn | None:
    """The fake model's side of the run: a title (no tools offered), then a ``memctl_memory_search`` call, then,
    once the tool's result is in the conversation, a closing text naming the first result's title (so the DB shows
    that memctl's output reached the model). Other conversations fall through (None)."""
    messages = request.get("messages") or []
    if not any(PROMPT in json.dumps(m.get("content")) for m in messages if m.get("role") == "user"):
        return None
    tools = {(t.get("function") or {}).get("name") for t in request.get("tools") or []}
    if not tools:
        return ScriptedTurn(text=SESSION_TITLE)
    if SEARCH_TOOL not in tools:
        return ScriptedTurn(text=f"{SEARCH_TOOL} is not among OpenCode's tools: {sorted(t for t in tools if t)}")
    results = [m.get("content") for m in messages if m.get("role") == "tool"]
    if results:
        text = results[-1] if isinstance(results[-1], str) else json.dumps(results[-1])
        try:
            title = json.loads(text)["results"][0]["title"]
        except (ValueError, KeyError, IndexError, TypeError):
            title = f"(no result title in the tool message: {text[:200]!r})"
        return ScriptedTurn(text=FINAL_PREFIX + title)
    return ScriptedTurn(tool_calls=[ScriptedToolCall(name=SEARCH_TOOL, arguments={"query": QUERY, "top_k": 3})])


def parts(db: Path) -> list[dict[str, Any]]:
    """Every ``part`` row in OpenCode's DB (read-only, in insertion order), as its decoded ``data`` JSON plus
    ``session_id``."""
    con = F.read_only(db)
    try:
        rows = con.execute("select session_id, data from part order by rowid").fetchall()
    finally:
        con.close()
    return [{**json.loads(data), "session_id": session_id} for session_id, data in rows]


def run(work: Path, binary: Path, offline: bool = False) -> dict[str, Any]:
    """Run the whole scenario under ``work`` (must not exist or be empty) with OpenCode at ``binary``;
    ``offline``: OpenCode's background npm install goes to :data:`OFFLINE_REGISTRY` (tests reach only 127.0.0.1).

    Returns:
        ``{"opencode_version", "session_id", "data_home", "config", "parts": [...], "seconds": {...}, "logs"}``.

    Raises:
        AssertionError: ingest or ``memctl mcp install`` failed.
        subprocess.CalledProcessError / SystemExit: ``opencode run`` failed (its logs under ``work/logs``).
    """
    from tests.fakes.ollama_server import FakeOllama
    from tests.support.memctl_process import REPO, env_for, ingest_fixture

    work.mkdir(parents=True, exist_ok=True)
    base, home, project, logs = work / "memctl", work / "home", work / "project", work / "logs"
    for d in (base, home, project, logs):
        d.mkdir()
    seconds: dict[str, float] = {}
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60,
                             env=F._base_env(home)).stdout.strip()
    with FakeOllama(chat_script=chat_script) as server:
        t0 = time.monotonic()
        data_home = ingest_fixture(base, server)
        seconds["ingest"] = round(time.monotonic() - t0, 1)
        F.write_config(home, server.url + "/v1")

        # as a user would: opencode on PATH, the project's own config
        env = {**env_for(server), "HOME": str(home), "PATH": f"{binary.parent}{os.pathsep}{os.environ['PATH']}"}
        install = subprocess.run([sys.executable, "-m", "memctl.cli", "mcp", "install", "--opencode", "--project",
                                  str(project), "--home", str(data_home), "--yes"], env=env, cwd=REPO,
                                 capture_output=True, text=True, timeout=120)
        assert install.returncode == 0, install.stdout + install.stderr
        config = json.loads((project / "opencode.json").read_text())

        run_env = F._base_env(home)
        run_env["OLLAMA_HOST"] = server.url  # inherited by the MCP server OpenCode starts (one embedding at most)
        run_env["PWD"] = str(project)
        if offline:
            run_env["npm_config_registry"] = OFFLINE_REGISTRY
        t0 = time.monotonic()
        proc = subprocess.run([str(binary), "run", "--format", "json", "--print-logs", "--log-level", "INFO"],
                              cwd=project, env=run_env, input=PROMPT.encode(), capture_output=True, timeout=300)
        seconds["opencode_run"] = round(time.monotonic() - t0, 1)
        (logs / "run.stdout.jsonl").write_bytes(proc.stdout)
        (logs / "run.stderr.log").write_bytes(proc.stderr)
        if proc.returncode != 0:
            raise SystemExit(f"opencode run failed (rc={proc.returncode}); see {logs}/run.*")
    session_id = next((F._find_session_id(json.loads(line)) for line in proc.stdout.decode().splitlines()
                       if line.startswith("{")), None)
    return {"opencode_version": version, "session_id": session_id, "data_home": str(data_home), "config": config,
            "parts": parts(F.db_path(home)), "seconds": seconds, "logs": str(logs)}


def installed_cache() -> Path:
    """Where OpenCode 1.18.34 is (to be) installed: ``$MEMCTL_OPENCODE_CACHE``, else the fixture generator's
    default ``~/.cache/memctl/opencode-1.18.34``."""
    env_cache = os.environ.get("MEMCTL_OPENCODE_CACHE")
    return Path(env_cache) if env_cache else F.DEFAULT_CACHE


def main(argv: list[str] | None = None) -> int:
    """Install OpenCode if missing (npm), run the scenario in a fresh temp dir, print the summary; exit 1 when the
    completed ``memctl_memory_search`` part with the expected excerpt is not in OpenCode's DB."""
    import tempfile

    binary = F.ensure_opencode(installed_cache())
    F.check_version(binary)
    t0 = time.monotonic()
    result = run(Path(tempfile.mkdtemp(prefix="memctl-opencode-mcp-")) / "work", binary)
    result["seconds"]["total"] = round(time.monotonic() - t0, 1)
    result["parts"] = [p for p in result["parts"] if p.get("type") in ("tool", "text")]
    for part in result["parts"]:
        part.get("state", {}).pop("metadata", None)
    print(json.dumps(result, indent=2))
    ok = any(p.get("tool") == SEARCH_TOOL and p["state"].get("status") == "completed"
             and EXPECTED_TITLE in p["state"].get("output", "") for p in result["parts"])
    print(f"{'PASS' if ok else 'FAIL'}: completed {SEARCH_TOOL} part with {EXPECTED_TITLE!r} in OpenCode's DB "
          f"(OpenCode {result['opencode_version']}, {result['seconds']})", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
