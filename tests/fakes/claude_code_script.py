"""Scripted conversations for the real Claude Code binary against the fake Messages API.

Each scenario's prompt carries a marker (``[cc:bash]``, ``[cc:agent]``,
``[cc:sub]``); :func:`anthropic_script` answers a request from the marker in
its LAST user message and from whether that message returns tool results:

* ``[cc:bash]`` → thinking + a ``Bash`` call ``cat config.env``; once its
  result is back, a text answer quoting the region;
* ``[cc:big]`` → a ``Bash`` call ``seq 1 100000`` (an output Claude Code
  moves to ``tool-results/``), then a text answer;
* ``[cc:agent]`` → a subagent call (the tool is ``Agent`` or ``Task``, as the
  request's tool list names it) whose prompt carries ``[cc:sub]``; the
  subagent runs ``ls`` with ``Bash`` and answers; the parent then answers;
* anything else (plain prompts, Claude Code's own side requests such as
  titles) → None: the fake server's default short text.

Planted secrets (FAKE, shaped like real ones so the scrubber's rules apply)
are in :data:`PLANTED`: one in ``alpha/config.env`` (a tool output) and one
in a user prompt.
"""

from __future__ import annotations

from typing import Any

from tests.fakes.anthropic_messages import last_user_blocks
from tests.fakes.scripted import ScriptedToolCall, ScriptedTurn

AWS_KEY = "AKIAQ7ZXLMV4TN2WP3RS"
GITHUB_TOKEN = "ghp_R8vJk2LmN4pQ6sT9wX1yZ3aB5cD7eF0gH2jK"

PLANTED = [
    {"kind": "aws_access_key_id", "value": AWS_KEY, "where": "tool output (alpha/config.env read with Bash)"},
    {"kind": "github_token", "value": GITHUB_TOKEN, "where": "user prompt"},
]

CONFIG_ENV = f"REGION=eu-west-1\nAWS_ACCESS_KEY_ID={AWS_KEY}\nDEPLOY_TARGET=staging\n"

SCENARIOS: list[dict[str, Any]] = [
    {"name": "bash_secret", "project": "alpha",
     "turns": ["[cc:bash] Check the deploy configuration in config.env and tell me which region staging uses."]},
    {"name": "prompt_secret", "project": "alpha",
     "turns": [f"Set up the release remote with my token {GITHUB_TOKEN} and explain how tags get pushed to it "
               "by the release workflow we discussed for the alpha service.",
               "Also note that release tags follow the vYEAR.MONTH scheme in the alpha service."],
     "resume": True},
    {"name": "subagent", "project": "beta",
     "turns": ["[cc:agent] Survey the test layout of the beta project with a subagent and report the files."]},
    {"name": "fork", "project": "beta", "fork_of": "subagent",
     "turns": ["Given that survey, propose where integration tests for beta's parser should live and why."]},
    {"name": "junk_hi", "project": "scratch", "turns": ["hi"]},
    {"name": "big_output", "project": "alpha",
     "turns": ["[cc:big] Print the numbers from 1 to 100000 with seq and tell me which one comes last."]},
    {"name": "compact", "project": "beta",
     "turns": ["Explain how beta's parser should report the line and column of a syntax error to its callers.",
               "/compact",
               "After the compaction: restate the error-reporting decision in one sentence."],
     "resume": True},
]


def _texts(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


def _agent_tool(body: dict[str, Any]) -> str:
    names = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
    return "Agent" if "Agent" in names else "Task"


def anthropic_script(body: dict[str, Any]) -> ScriptedTurn | None:
    """The reply to one Messages request (see the module doc), None for the server's default."""
    blocks = last_user_blocks(body)
    text = _texts(blocks)
    results = [b for b in blocks if b.get("type") == "tool_result"]
    first_user = _texts(last_user_blocks({"messages": [m for m in body.get("messages") or []
                                                       if m.get("role") == "user"][:1]}))
    if results:
        if "[cc:sub]" in first_user:
            return ScriptedTurn(text="The beta project has tests/test_parser.py and tests/test_cli.py.")
        if "[cc:bash]" in first_user:
            return ScriptedTurn(text="Staging deploys to eu-west-1 (REGION in config.env); the file also holds "
                                     "an AWS access key, which should move to a secret store.")
        if "[cc:big]" in first_user:
            return ScriptedTurn(text="The last number printed is 100000.")
        if "[cc:agent]" in first_user:
            return ScriptedTurn(text="The subagent found two test files: tests/test_parser.py and tests/test_cli.py.")
        return None
    if "[cc:big]" in text:
        return ScriptedTurn(tool_calls=[ScriptedToolCall("Bash", {"command": "seq 1 100000",
                                                                  "description": "Print 1 to 100000"})])
    if "[cc:bash]" in text:
        return ScriptedTurn(reasoning="The user wants the staging region; read config.env.",
                            tool_calls=[ScriptedToolCall("Bash", {"command": "cat config.env",
                                                                  "description": "Show the deploy configuration"})])
    if "[cc:sub]" in text:
        return ScriptedTurn(tool_calls=[ScriptedToolCall("Bash", {"command": "ls tests",
                                                                  "description": "List the test files"})])
    if "[cc:agent]" in text:
        return ScriptedTurn(text="I will ask a subagent to survey the tests.",
                            tool_calls=[ScriptedToolCall(_agent_tool(body), {
                                "description": "Survey beta tests", "subagent_type": "general-purpose",
                                "prompt": "[cc:sub] List the test files of the beta project."})])
    return None
