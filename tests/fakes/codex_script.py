"""Scripted conversations that drive the real Codex CLI (``codex exec``) for fixtures.

``responses_script(body) -> ScriptedTurn | None`` follows the contract in
``tests/fakes/scripted.py`` for the fake server's ``POST /v1/responses``
route (``tests/fakes/openai_responses.py``). A request is matched to a
*scenario* by the first user prompt of its ``input`` that is not context
Codex injects (environment context, AGENTS.md…), to a *turn* by the last such
prompt, and to a *step* by the number of tool outputs after that prompt (one
per tool round trip). A subagent's request is recognised by its task prompt
(the marker :data:`SUBAGENT_MARKER`), so it can be answered even when its
input starts with a copy of the parent's history (``fork_context``).

Planted FAKE secrets come from the OpenCode script (same values, so the
scrubber is tested on the same kinds): one in a user prompt, the rest in a
file a shell tool prints. The generator ``tests/fixtures/make_codex_fixture.py``
takes prompts, projects and secrets from here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from tests.fakes import opencode_script as O
from tests.fakes.openai_responses import CustomToolCall, input_text
from tests.fakes.scripted import ScriptedToolCall, ScriptedTurn

PROMPT_SECRET = O.OPENAI_API_KEY
DEPLOY_ENV = (
    "# deploy settings (FAKE values for tests)\n"
    f"AWS_ACCESS_KEY_ID={O.AWS_ACCESS_KEY_ID}\n"
    f"GITHUB_TOKEN={O.GITHUB_TOKEN}\n"
    f"DATABASE_URL={O.DATABASE_URL}\n"
    f"SLACK_WEBHOOK_URL={O.SLACK_WEBHOOK}\n"
    f"{O.PEM_BLOCK}\n"
)
PLANTED_SECRETS: list[dict[str, str]] = [
    {"kind": "openai_api_key", "value": O.OPENAI_API_KEY, "where": "user prompt (beta_secrets)"},
    {"kind": "aws_access_key_id", "value": O.AWS_ACCESS_KEY_ID, "where": "tool output (cat deploy.env)"},
    {"kind": "github_token", "value": O.GITHUB_TOKEN, "where": "tool output (cat deploy.env)"},
    {"kind": "database_url", "value": O.DATABASE_URL, "where": "tool output (cat deploy.env)"},
    {"kind": "database_password", "value": O.DB_PASSWORD, "where": "tool output (cat deploy.env)"},
    {"kind": "slack_webhook", "value": O.SLACK_WEBHOOK, "where": "tool output (cat deploy.env)"},
    {"kind": "private_key_body", "value": O.PEM_BODY, "where": "tool output (cat deploy.env)"},
]

PROJECTS: dict[str, dict[str, str] | None] = {
    "alpha": {"calc.py": O.CALC_PY, "test_calc.py": O.TEST_CALC_PY},
    "beta": {"app.py": "# TODO: read settings from deploy.env\nprint('beta app')\n", "deploy.env": DEPLOY_ENV},
    "scratch": None,  # a plain directory, not a repository
}

SUBAGENT_MARKER = "[subagent task]"

Ctx = dict[str, Any]
Step = Callable[[Ctx], ScriptedTurn]


@dataclass(frozen=True)
class Scenario:
    """One Codex thread: ``project``, user ``turns`` (the first starts it, the others resume it),
    and per turn the model's ``steps``; ``how`` is ``exec`` (new), ``fork`` (``codex exec fork`` of
    scenario ``of``) or ``spawned`` (a subagent: no command, answered through the parent)."""

    name: str
    project: str
    turns: list[str]
    steps: list[list[Step]]
    how: str = "exec"
    of: str = ""
    flags: tuple[str, ...] = ()
    archive: bool = False
    turn_projects: tuple[str, ...] = ()
    summary: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def project_of(self, turn: int) -> str:
        """The project directory turn ``turn`` runs in (``turn_projects`` when given, else ``project``)."""
        return self.turn_projects[turn] if turn < len(self.turn_projects) else self.project


def _text(text: str, reasoning: str = "") -> Step:
    return lambda ctx: ScriptedTurn(text=text, reasoning=reasoning)


def _shell(cmd: str, reasoning: str = "") -> Step:
    """A shell call in the request's dialect: ``exec_command`` (0.171), else the early ``shell`` tool (0.20)."""
    def step(ctx: Ctx) -> ScriptedTurn:
        if "exec_command" in ctx["tools"] or "shell" not in ctx["tools"]:
            call = ScriptedToolCall("exec_command", {"cmd": cmd})
        else:
            call = ScriptedToolCall("shell", {"command": ["bash", "-lc", cmd]})
        return ScriptedTurn(reasoning=reasoning, tool_calls=[call])
    return step


def _code_cell(source: str, reasoning: str = "") -> Step:
    return lambda ctx: ScriptedTurn(reasoning=reasoning, tool_calls=[CustomToolCall("exec", {}, input=source)])


@dataclass
class NamespacedCall(ScriptedToolCall):
    """A function call of a namespaced tool (Codex's ``multi_agent_v1`` tools)."""

    namespace: str = ""


def _spawn(message: str) -> Step:
    return lambda ctx: ScriptedTurn(text="", tool_calls=[NamespacedCall(
        "spawn_agent", {"message": message, "fork_context": True}, namespace="multi_agent_v1")])


def _wait_spawned(ctx: Ctx) -> ScriptedTurn:
    agent = ""
    try:
        out = json.loads(ctx["last_output"])
        agent = str(out.get("agent_id") or out.get("id") or out.get("agent_path") or "")
    except (ValueError, AttributeError):
        m = re.search(r"[0-9a-f]{8}-[0-9a-f-]{27}", ctx["last_output"])
        agent = m.group(0) if m else ""
    return ScriptedTurn(tool_calls=[NamespacedCall("wait_agent", {"targets": [agent], "timeout_ms": 60000},
                                                   namespace="multi_agent_v1")])


CODE_CELL = ('const r = await tools.exec_command({cmd: "grep -n TODO *.py"});\n'
             'text(typeof r === "string" ? r : JSON.stringify(r));\n')

SCENARIOS: list[Scenario] = [
    Scenario("alpha_tests", "alpha",
             ["Run the calc tests and tell me what fails.", "Show me the last commit, please."],
             [[_shell("python3 -m unittest test_calc 2>&1 | tail -n 4", "Running the unit tests first."),
               _text("test_add fails: add() subtracts instead of adding. Change `a - b` to `a + b` in calc.py.")],
              [_shell("git log --oneline -1"), _text("The last commit is the initial one: `init alpha`.")]]),
    Scenario("alpha_fork", "alpha", ["Instead, explain why mul() has a TODO."],
             [[_text("mul() only takes two operands; the TODO asks for a variadic version (`*args`).")]],
             how="fork", of="alpha_tests"),
    Scenario("beta_secrets", "beta",
             [f"Check deploy.env and wire the API key {PROMPT_SECRET} into the app."],
             [[_shell("cat deploy.env", "Reading the deploy settings."),
               _text("deploy.env holds AWS, GitHub, database and Slack settings; read them from the environment "
                     "instead of hard-coding the key in app.py.")]]),
    Scenario("beta_code_mode", "beta", ["Find the TODO comments with a script."],
             [[_code_cell(CODE_CELL, "A small exec cell can grep for me."),
               _text("One TODO: app.py line 1 wants settings read from deploy.env.")]],
             flags=("--enable", "code_mode")),
    Scenario("beta_subagent", "beta", ["Ask a helper agent to count the lines of app.py."],
             [[_spawn(f"{SUBAGENT_MARKER} Count the lines of app.py and report the number."), _wait_spawned,
               _text("The helper counted 2 lines in app.py.")]]),
    Scenario("beta_helper", "beta", [f"{SUBAGENT_MARKER} Count the lines of app.py and report the number."],
             [[_shell("wc -l app.py"), _text("app.py has 2 lines.")]], how="spawned", of="beta_subagent"),
    Scenario("scratch_hello", "scratch", ["hello there"], [[_text("Hello! What shall we work on?")]],
             archive=True),
    Scenario("alpha_long_output", "alpha", ["Print the numbers 1 to 6000, one per line."],
             [[_shell("seq 1 6000"), _text("Printed 1..6000 (Codex kept the head and tail of the output).")]]),
    # resumed from another directory: the second turn's turn_context names beta
    Scenario("alpha_then_beta", "alpha", ["Which tests does alpha have?", "And what does beta's app.py print?"],
             [[_shell("ls test_*.py"), _text("alpha has test_calc.py.")],
              [_shell("cat app.py"), _text("beta's app.py prints 'beta app'.")]],
             turn_projects=("alpha", "beta")),
    # a context window small enough that Codex compacts between the turns (and after the second)
    Scenario("alpha_compact", "alpha", ["Summarise what calc.py does.", "Now what does test_calc.py check?"],
             [[_text("calc.py defines add() (buggy: it subtracts) and mul() (two operands, a TODO).")],
              [_text("test_calc.py checks add(2, 3) == 5, add(-1, 1) == 0 and mul(4, 5) == 20.")]],
             flags=("-c", "model_auto_compact_token_limit=3000", "-c", "model_context_window=12000"),
             summary="SUMMARY: the user asked about calc.py (add subtracts, mul has a TODO) and its tests."),
]
BY_NAME = {s.name: s for s in SCENARIOS}

COMPACTION_PROMPT = "You are performing a CONTEXT CHECKPOINT COMPACTION"
SUMMARY_PREFIX = "Another language model started to solve this problem"
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<skills_instructions>",
             "<turn_aborted>", "<subagent_notification>", "<permissions instructions>")


def _tools(body: dict[str, Any]) -> set[str]:
    """Names of the (top-level) tools a request offers."""
    return {str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict) and t.get("name")}


def _prompts(body: dict[str, Any]) -> list[tuple[int, str]]:
    out = []
    for i, item in enumerate(body.get("input") or []):
        if isinstance(item, dict) and item.get("type", "message") == "message" and item.get("role") == "user":
            text = input_text(item).strip()
            if text and not text.startswith(_INJECTED):
                out.append((i, text))
    return out


def _find(prompts: list[tuple[int, str]]) -> tuple[Scenario, int] | None:
    """The scenario and turn of the last prompt (a subagent's marker wins: its input may copy the parent's)."""
    _, last = prompts[-1]
    for s in SCENARIOS:
        for t, turn in enumerate(s.turns):
            if turn == last and (s.how == "spawned" or SUBAGENT_MARKER not in last):
                return s, t
    return None


def responses_script(body: dict[str, Any]) -> ScriptedTurn | None:
    """Answer one Responses request of a scripted scenario; None for anything else (titles, unknown)."""
    if "input" not in body:
        return None
    prompts = _prompts(body)
    if not prompts:
        return None
    compaction = prompts[-1][1].startswith(COMPACTION_PROMPT)
    hand_off = prompts[-1][1].startswith(SUMMARY_PREFIX)
    real = [p for p in prompts if not p[1].startswith((COMPACTION_PROMPT, SUMMARY_PREFIX))]
    if (compaction or hand_off) and real:
        found = _find(real)
        if found is None:
            return None
        scenario, turn = found
        if compaction:  # Codex asks for the hand-off summary
            return ScriptedTurn(text=scenario.summary or f"SUMMARY: working on {scenario.name}.")
        # continuing after a compaction: finish the turn without another tool call
        return scenario.steps[turn][-1]({"scenario": scenario.name, "last_output": "", "tools": _tools(body)})
    found = _find(prompts)
    if found is None:
        return None
    scenario, turn = found
    at = prompts[-1][0]
    after = [it for it in (body.get("input") or [])[at + 1:] if isinstance(it, dict)]
    outputs = [it for it in after if it.get("type") in ("function_call_output", "custom_tool_call_output")]
    steps = scenario.steps[turn]
    step = min(len(outputs), len(steps) - 1)
    last_output = ""
    if outputs:
        raw = outputs[-1].get("output")
        last_output = raw if isinstance(raw, str) else json.dumps(raw)
    return steps[step]({"scenario": scenario.name, "last_output": last_output, "tools": _tools(body)})
