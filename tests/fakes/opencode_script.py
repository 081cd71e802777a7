"""Scripted conversations that drive the real OpenCode binary for fixtures.

``chat_script(request) -> ScriptedTurn | None`` follows the contract in
``tests/fakes/scripted.py``. Every ``/v1/chat/completions`` request OpenCode
sends is matched to a *scenario* by the text of its first user message (each
scenario's first prompt is unique), to a *turn* by its last user message (the
prompt it answers) and to a *step* by the number of assistant messages after
that user message (one per tool round trip). The absolute project directory
comes from the ``Working directory:`` line OpenCode puts in its system prompt,
so tool arguments can use the absolute paths OpenCode's tools require.

Title-generation requests arrive without ``tools``: they get the scenario's
fixed title. Anything unknown gets ``None`` (the server's default answer).

The generator ``tests/fixtures/make_opencode_fixture.py`` takes its prompts,
project layout and planted secrets from this module, so the two cannot drift.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from tests.fakes.scripted import ScriptedToolCall, ScriptedTurn
from tests.fixtures.quality_set import SESSIONS as QUALITY_SESSIONS, TOPICS as QUALITY_TOPICS, Session as QualitySession

# --------------------------------------------------------------------------
# Planted FAKE secrets. Every value matches the real format of its kind but is
# clearly fake (FAKE / EXAMPLE in it). Tests assert that none survives
# normalisation anywhere. Written to planted_secrets.json by the generator.
# --------------------------------------------------------------------------


def _b64url(obj: dict[str, Any]) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


GITHUB_TOKEN = "ghp_" + "FAKE0ghp0token0" + "EXAMPLE0000000000000A"  # ghp_ + 36
AWS_ACCESS_KEY_ID = "AKIA" + "FAKE0EXAMPLE0KEY"  # AKIA + 16 [A-Z0-9]
AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY0000"[:40]
OPENAI_API_KEY = "sk-proj-" + "FAKE0openai0key0EXAMPLE0" + "T3BlbkFJ" + "FAKE0openai0key0EXAMPLE0"
SLACK_WEBHOOK = "https://hooks.slack.com/services/T0FAKE0000/B0FAKE0000/FAKE0slack0webhook0EXAMPLE"
PEM_BODY = "MIIEpAIBAAKCAQEAFAKE0pem0body0EXAMPLE0000000000000000000000000000000"
PEM_BLOCK = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
JWT = (
    _b64url({"alg": "HS256", "typ": "JWT"})
    + "."
    + _b64url({"sub": "fake-user-0001", "name": "Fake Example", "iat": 1700000000})
    + "."
    + "FAKE0jwt0signature0EXAMPLE0000000000000000"
)
URL_CRED_PASSWORD = "hunter2-FAKE-pass"
URL_WITH_CREDENTIALS = f"https://deploybot:{URL_CRED_PASSWORD}@git.example.com/acme/app.git"
BEARER_TOKEN = "FAKE0bearer0token0EXAMPLE0123456789abcdef"
DOTENV_PASSWORD = "Tr0ub4dor-FAKE-3"
DB_PASSWORD = "S3cr3t-FAKE-pw"
DATABASE_URL = f"postgres://admin:{DB_PASSWORD}@db.example.com:5432/app"

assert len(GITHUB_TOKEN) == 40 and re.fullmatch(r"ghp_[A-Za-z0-9]{36}", GITHUB_TOKEN)
assert re.fullmatch(r"AKIA[0-9A-Z]{16}", AWS_ACCESS_KEY_ID)
assert len(AWS_SECRET_ACCESS_KEY) == 40

PLANTED_SECRETS: list[dict[str, str]] = [
    {"kind": "github_token", "value": GITHUB_TOKEN, "where": "tool output (cat), assistant text"},
    {"kind": "aws_access_key_id", "value": AWS_ACCESS_KEY_ID, "where": "tool input (bash), tool output (cat)"},
    {"kind": "aws_secret_access_key", "value": AWS_SECRET_ACCESS_KEY, "where": "tool input (bash)"},
    {"kind": "openai_api_key", "value": OPENAI_API_KEY, "where": "user prompt, tool input (grep), reasoning"},
    {"kind": "slack_webhook", "value": SLACK_WEBHOOK, "where": "tool output (cat)"},
    {"kind": "private_key", "value": PEM_BLOCK, "where": "tool output (cat)"},
    {"kind": "private_key_body", "value": PEM_BODY, "where": "tool output (cat)"},
    {"kind": "jwt", "value": JWT, "where": "tool output (cat)"},
    {"kind": "url_credentials", "value": URL_WITH_CREDENTIALS, "where": "tool output (cat)"},
    {"kind": "url_credentials_password", "value": URL_CRED_PASSWORD, "where": "tool output (cat)"},
    {"kind": "bearer_token", "value": BEARER_TOKEN, "where": "tool output (cat)"},
    {"kind": "password", "value": DOTENV_PASSWORD, "where": "tool input (write .env), tool output (cat .env)"},
    {"kind": "database_url", "value": DATABASE_URL,
     "where": "user prompt, tool input (write .env), tool output (cat .env)"},
    {"kind": "database_password", "value": DB_PASSWORD,
     "where": "user prompt, tool input (write .env), tool output (cat .env)"},
]

SECRETS_FILE = (
    "# service credentials (FAKE values for tests)\n"
    f"GITHUB_TOKEN={GITHUB_TOKEN}\n"
    f"AWS_ACCESS_KEY_ID={AWS_ACCESS_KEY_ID}\n"
    f"SLACK_WEBHOOK_URL={SLACK_WEBHOOK}\n"
    f"SESSION_JWT={JWT}\n"
    f"GIT_REMOTE={URL_WITH_CREDENTIALS}\n"
    "curl_example: curl -H 'Authorization: Bearer "
    f"{BEARER_TOKEN}' https://api.example.com/v1/me\n"
    f"{PEM_BLOCK}\n"
)

# --------------------------------------------------------------------------
# Project trees the generator writes (relative path -> content). Two git
# repositories (alpha, beta) and one plain directory (scratch -> "global").
# --------------------------------------------------------------------------

CALC_PY = '''"""Tiny calculator used by the fixture project."""


def add(a, b):
    return a - b


def mul(a, b):
    # TODO: support more than two operands
    return a * b
'''

TEST_CALC_PY = '''import unittest

from calc import add, mul


class CalcTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_add_negative(self):
        self.assertEqual(add(-1, 1), 0)

    def test_mul(self):
        self.assertEqual(mul(4, 5), 20)


if __name__ == "__main__":
    unittest.main()
'''

GEN_LOG_PY = '''"""Deterministic fake service log: python3 gen_log.py SERVICE LINES"""
import sys

service, lines = sys.argv[1], int(sys.argv[2])
levels = ["INFO", "INFO", "INFO", "WARN", "INFO", "ERROR", "INFO", "DEBUG"]
for i in range(lines):
    level = levels[(i * 7 + len(service)) % len(levels)]
    status = 500 if level == "ERROR" else (429 if level == "WARN" else 200)
    print(f"2026-01-01T00:{(i // 60) % 60:02d}:{i % 60:02d}Z {service} {level:5} "
          f"req={i:06d} path=/v1/{service}/items/{(i * 37) % 1000} status={status} "
          f"latency_ms={(i * 13) % 997}")
'''

ALPHA_FILES: dict[str, str] = {
    "README.md": "# alpha\n\nA tiny calculator library used as an OpenCode fixture project.\n",
    "calc.py": CALC_PY,
    "test_calc.py": TEST_CALC_PY,
    "gen_log.py": GEN_LOG_PY,
    "utils.py": "def clamp(x, lo, hi):\n    # TODO: validate lo <= hi\n    return max(lo, min(hi, x))\n",
    "docs/notes.md": "# Notes\n\n- TODO: write a proper user guide\n",
}

DEPLOY_SH = """#!/usr/bin/env bash
# Deploy the build to the (fake) bucket. Reads AWS_* from the environment.
set -eu
if [ "${1:-}" = "--dry-run" ]; then
  echo "dry run: would sync ./build to s3://acme-fake-bucket/app"
  echo "using access key id ${AWS_ACCESS_KEY_ID:-<unset>}"
  exit 0
fi
echo "refusing to deploy without --dry-run in the fixture" >&2
exit 1
"""

BETA_FILES: dict[str, str] = {
    "README.md": "# beta\n\nDeployment scripts for the acme app (fixture project).\n",
    "deploy.sh": DEPLOY_SH,
    "config/secrets.txt": SECRETS_FILE,
    "app.py": "def handler(event):\n    return {'ok': True, 'event': event}\n",
}

SCRATCH_FILES: dict[str, str] = {
    "notes.txt": "scratch notes - not a git repository\n",
}

PROJECTS: dict[str, dict[str, Any]] = {
    "alpha": {"git": True, "files": ALPHA_FILES},
    "beta": {"git": True, "files": BETA_FILES},
    "scratch": {"git": False, "files": SCRATCH_FILES},
}

# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------

Step = Callable[["Ctx"], ScriptedTurn]


@dataclass
class Ctx:
    """What a step may look at: the project dir and the request itself."""

    workdir: str
    request: dict[str, Any]
    tool_results: list[str]  # contents of tool messages after the current user prompt

    def path(self, rel: str) -> str:
        return self.workdir.rstrip("/") + "/" + rel


@dataclass
class Scenario:
    name: str
    project: str  # key of PROJECTS
    title: str
    turns: list[tuple[str, list[Step]]]  # (user prompt, steps)
    description: str = ""
    child_of: str | None = None  # subagent sessions: started by the parent's task tool
    # how the generator starts the first turn: {"files": [...]} -> ``run -f``,
    # {"command": name} -> ``run --command name`` (prompt = the command's arguments)
    start: dict[str, Any] = field(default_factory=dict)
    # extra matcher for sessions whose first user message is not a prompt we
    # typed (a /command with subtask: true); called with the request messages
    match: Callable[[list[dict[str, Any]]], bool] | None = None
    # run this scenario's last turn after every other scenario (the fixture's
    # final OpenCode run, whose writes are the ones left in the -wal)
    defer_last_turn: bool = False

    @property
    def prompts(self) -> list[str]:
        return [p for p, _ in self.turns]


def _text(text: str, reasoning: str = "") -> Step:
    return lambda ctx: ScriptedTurn(text=text, reasoning=reasoning)


def fit_arguments(request: dict[str, Any], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Shape tool-call ``arguments`` to the tool's JSON schema in ``request``, as a real
    model reads the schema it is given.

    The scripts are written against OpenCode's message-v2 tools (``filePath``;
    bash takes ``command`` and ``description``). The tools OpenCode's HTTP API
    offers in the dev build 0.0.0-dev-202609212252 take ``path`` instead of
    ``filePath`` and bash has no ``description``: ``filePath`` becomes ``path``
    when only ``path`` exists, and keys the schema does not declare are dropped.
    A tool the request does not offer (or one without ``properties``) keeps its
    arguments unchanged.
    """
    schema = next((tool.get("function", {}).get("parameters") for tool in request.get("tools") or []
                   if isinstance(tool, dict) and tool.get("function", {}).get("name") == name), None)
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return arguments
    fitted: dict[str, Any] = {}
    for key, value in arguments.items():
        if key == "filePath" and "filePath" not in props and "path" in props:
            key = "path"
        if key in props:
            fitted[key] = value
    return fitted


def _call(cid: str, name: str, args: Callable[[Ctx], dict[str, Any]] | dict[str, Any],
          reasoning: str = "", text: str = "") -> Step:
    def step(ctx: Ctx) -> ScriptedTurn:
        a = fit_arguments(ctx.request, name, args(ctx) if callable(args) else args)
        return ScriptedTurn(text=text, reasoning=reasoning,
                            tool_calls=[ScriptedToolCall(name=name, arguments=a, id=cid)])
    return step


def _calls(calls: list[tuple[str, str, Callable[[Ctx], dict[str, Any]]]], reasoning: str = "") -> Step:
    def step(ctx: Ctx) -> ScriptedTurn:
        return ScriptedTurn(reasoning=reasoning, tool_calls=[
            ScriptedToolCall(name=n, arguments=fit_arguments(ctx.request, n, a(ctx)), id=cid)
            for cid, n, a in calls])
    return step


# custom slash commands written into the generator's opencode.json
COMMANDS: dict[str, dict[str, Any]] = {
    "find-todos": {
        "description": "Find TODO comments (runs as a subtask)",
        "template": "Find TODO comments in $ARGUMENTS and report them as file:line.",
        "agent": "explore",
        "subtask": True,
    },
}

SUBAGENT_PROMPT = (
    "Search the repository for TODO comments. Report every match as file:line "
    "followed by the comment text, and nothing else. Do not modify any file."
)

_SVC_NOTE = (" The generator cycles through levels with a fixed stride, so ERROR (HTTP 500) "
             "appears on one request in eight and WARN (HTTP 429) on one in eight; latency "
             "grows by 13 ms per request modulo 997 ms, so slow requests cluster at the end "
             "of each cycle rather than at random.")

LONG_TEXTS = [
    "The api log has 100 requests. ERROR lines carry status 500, WARN lines are 429 rate "
    "limits, everything else is 200." + _SVC_NOTE,
    "billing and auth look exactly like api: periodic 500s and 429s, latency up to ~990 ms. "
    "The only difference is the starting phase of the level cycle, which depends on the "
    "length of the service name." + _SVC_NOTE,
    "That is 2500 ids; OpenCode cut the tool output at its 2000-line limit and saved the "
    "full output to a file, so only the tail is visible here. The ids are contiguous from "
    "0001 to 2500 with no gaps in the visible part.",
    "The search log shows the same stride: errors every eight requests and no bursts."
    + _SVC_NOTE,
    "Each service has 25 ERROR lines per 200 requests (12.5%). The first 35 lines of each "
    "log are printed above; they confirm that the first error appears at a different "
    "offset per service." + _SVC_NOTE,
    "worker: 100 requests, the same 12.5% error rate and 429s." + _SVC_NOTE,
    "db: 100 requests, again 12.5% errors; no service is worse than the others." + _SVC_NOTE,
    "Summary of the investigation:\n\n"
    "1. All services (api, billing, auth, search, worker, db) show a steady 12.5% error "
    "rate (HTTP 500) plus 12.5% HTTP 429 responses.\n"
    "2. The pattern comes from the shared log generator (`gen_log.py`), which picks the "
    "level with a fixed stride; it is not caused by any single service.\n"
    "3. Latency is a saw-tooth (13 ms steps modulo 997 ms), not load related.\n"
    "4. The id listing for search was cut by OpenCode at 2000 lines; the full output is "
    "in OpenCode's tool-output directory.\n\n"
    "Next step: replace the synthetic generator with real access logs before drawing "
    "conclusions about production.",
]

SCENARIOS: list[Scenario] = [
    # 1. junk ---------------------------------------------------------------
    Scenario(
        name="junk_hi", project="alpha", title="Greeting",
        description="junk: a bare greeting and nothing else",
        turns=[("hi", [_text("Hello! How can I help?")])],
    ),
    Scenario(
        name="junk_ping", project="beta", title="Quick check-in",
        description="junk-ish: three turns of ping / are you there, no activity; the third "
                    "turn is the fixture's last OpenCode run, so it exists only in the -wal",
        defer_last_turn=True,
        turns=[
            ("ping", [_text("pong")]),
            ("are you there?", [_text("Yes, I'm here. What would you like to work on?")]),
            ("ok nevermind, thanks", [_text("No problem! Ping me whenever you need something.")]),
        ],
    ),
    # 2. multi-step tool session -------------------------------------------
    Scenario(
        name="tools_fix_add", project="alpha", title="Fix add() bug in calc.py",
        description="read, grep, a failing edit (tool state error), edit (patch part), bash "
                    "test run, reasoning, summary; second turn writes CHANGELOG.md (write tool) "
                    "and runs git status",
        turns=[
            ("The add() function in calc.py returns wrong results. Find the bug, fix it "
             "and run the tests.", [
                _call("call_fix_read", "read", lambda c: {"filePath": c.path("calc.py")},
                      reasoning="The user says add() is wrong. Let me read calc.py first."),
                _call("call_fix_grep", "grep", {"pattern": "add\\(", "include": "*.py"},
                      reasoning="add() returns a - b. Check the call sites before changing it."),
                _call("call_fix_edit_bad", "edit", lambda c: {
                    "filePath": c.path("calc.py"),
                    "oldString": "return a-b",
                    "newString": "return a+b"},
                    reasoning="Only the tests use add(); subtracting is the bug. Fix it to a + b."),
                _call("call_fix_edit", "edit", lambda c: {
                    "filePath": c.path("calc.py"),
                    "oldString": "def add(a, b):\n    return a - b",
                    "newString": "def add(a, b):\n    return a + b"},
                    reasoning="The edit failed: the file has spaces around the operator. Retry with "
                              "the exact text."),
                _call("call_fix_test", "bash", {
                    "command": "python3 -m unittest -v test_calc",
                    "description": "Run the calculator unit tests"},
                    reasoning="Now run the unit tests to confirm the fix."),
                _text("Fixed the bug in `calc.py:5`: `add()` returned `a - b` instead of "
                      "`a + b`. All 3 tests in `test_calc.py` pass now.",
                      reasoning="All three tests pass. Summarise for the user."),
            ]),
            ("Thanks. Please also add a CHANGELOG.md entry for the fix.", [
                _call("call_fix_changelog", "write", lambda c: {
                    "filePath": c.path("CHANGELOG.md"),
                    "content": "# Changelog\n\n## Unreleased\n\n- Fix `add()` returning the "
                               "difference instead of the sum.\n"},
                    reasoning="Create CHANGELOG.md with an Unreleased section."),
                _call("call_fix_status", "bash", {
                    "command": "git status --short", "description": "Show changed files"}),
                _text("Added `CHANGELOG.md` with an entry for the `add()` fix. Changed files: "
                      "`calc.py`, `CHANGELOG.md`."),
            ]),
        ],
    ),
    # 5. subagent (parent) -------------------------------------------------
    Scenario(
        name="subagent_todos", project="alpha", title="Find TODO comments via subagent",
        description="parent: task tool spawns a child session (explore agent); result comes back",
        turns=[
            ("Use a subagent to find all TODO comments in this repo, then summarize them for me.", [
                _call("call_sub_task", "task", {
                    "description": "Find TODO comments",
                    "prompt": SUBAGENT_PROMPT,
                    "subagent_type": "explore"},
                    reasoning="Delegate the search to an explore subagent as requested."),
                _text("There are 3 TODOs: `calc.py:9` (support more than two operands in "
                      "`mul`), `utils.py:2` (validate lo <= hi in `clamp`) and "
                      "`docs/notes.md:3` (write a user guide).",
                      reasoning="The subagent reported three TODOs. Summarise them."),
            ]),
        ],
    ),
    Scenario(
        name="subagent_child", project="alpha", title="Find TODO comments",
        child_of="subagent_todos",
        description="child session created by the task tool (parent_id set)",
        turns=[
            (SUBAGENT_PROMPT, [
                _call("call_child_grep", "grep", {"pattern": "TODO"},
                      reasoning="Grep the whole repository for TODO."),
                _text("calc.py:9: # TODO: support more than two operands\n"
                      "utils.py:2: # TODO: validate lo <= hi\n"
                      "docs/notes.md:3: - TODO: write a proper user guide"),
            ]),
        ],
    ),
    # 4. long session ------------------------------------------------------
    Scenario(
        name="long_logs", project="alpha", title="Analyze service logs",
        description="long: 8 turns, ~6-12 KB bash outputs (one cut by OpenCode's 2000-line "
                    "limit), parallel tool calls; meant to exceed a ~48k char transcript budget",
        turns=[
            ("Run the log generator for the api service (100 lines) and tell me what errors you see.", [
                _call("call_long_1", "bash", {"command": "python3 gen_log.py api 100",
                                              "description": "Generate api log"},
                      reasoning="Run the generator and look at levels and status codes."),
                _text(LONG_TEXTS[0]),
            ]),
            ("Now do the same for billing and auth, 60 lines each.", [
                _calls([
                    ("call_long_2a", "bash", lambda c: {"command": "python3 gen_log.py billing 60",
                                                        "description": "Generate billing log"}),
                    ("call_long_2b", "bash", lambda c: {"command": "python3 gen_log.py auth 60",
                                                        "description": "Generate auth log"}),
                ], reasoning="Two independent commands: run them in parallel."),
                _text(LONG_TEXTS[1]),
            ]),
            ("List all 2500 request ids of the search service, zero padded.", [
                _call("call_long_3", "bash", {"command": "seq -w 1 2500",
                                              "description": "List search request ids"}),
                _text(LONG_TEXTS[2]),
            ]),
            ("Show me 100 lines of the search log.", [
                _call("call_long_4", "bash", {"command": "python3 gen_log.py search 100",
                                              "description": "Generate search log"}),
                _text(LONG_TEXTS[3]),
            ]),
            ("Count the ERROR lines per service for api, billing and search (200 lines each) "
             "and print the first 35 raw lines of each.", [
                _call("call_long_5", "bash", {
                    "command": "mkdir -p logs && for s in api billing search; do python3 gen_log.py $s 200 > logs/$s.txt; "
                               "echo \"== $s: $(grep -c ERROR logs/$s.txt) errors\"; head -35 logs/$s.txt; done",
                    "description": "Count errors per service"}),
                _text(LONG_TEXTS[4]),
            ]),
            ("Generate 100 lines for the worker service.", [
                _call("call_long_6", "bash", {"command": "python3 gen_log.py worker 100",
                                              "description": "Generate worker log"}),
                _text(LONG_TEXTS[5]),
            ]),
            ("And 100 lines for the db service.", [
                _call("call_long_7", "bash", {"command": "python3 gen_log.py db 100",
                                              "description": "Generate db log"}),
                _text(LONG_TEXTS[6]),
            ]),
            ("Summarize the whole investigation in a few paragraphs.", [
                _text(LONG_TEXTS[7], reasoning="Collect the findings from all turns."),
            ]),
        ],
    ),
    # 6. second project + global ------------------------------------------
    Scenario(
        name="beta_explain", project="beta", title="deploy.sh explanation",
        description="second project: user attaches deploy.sh (file part + synthetic read "
                    "text parts), bash git log, short explanation",
        start={"files": ["deploy.sh"]},
        turns=[
            ("What does this script do, and when was it added?", [
                _call("call_beta_log", "bash", {"command": "git log --format='%h %ad %s' --date=short",
                                                "description": "Show git history"},
                      reasoning="The attached file is deploy.sh; check the history for when it came in."),
                _text("`deploy.sh` syncs `./build` to `s3://acme-fake-bucket/app`; it only "
                      "works with `--dry-run` in this repo and reads the AWS keys from the "
                      "environment. It was added in the initial commit (2026-01-01)."),
            ]),
        ],
    ),
    # 5b. /command with subtask: true -> user message with a `subtask` part ----
    Scenario(
        name="subtask_command", project="beta", title="TODO search in app code",
        description="`run --command find-todos`: subtask part in the user message, OpenCode "
                    "runs the task tool itself, then a synthetic user message asks for a summary",
        start={"command": "find-todos", "arguments": "app.py"},
        match=lambda msgs: any(
            '"command":"find-todos"' in (tc.get("function") or {}).get("arguments", "").replace(" ", "")
            for m in msgs if m.get("role") == "assistant" for tc in (m.get("tool_calls") or [])),
        turns=[
            ("Summarize the task tool output above and continue with your task.", [
                _text("The subagent found no TODO comments in `app.py`; nothing to do there."),
            ]),
        ],
    ),
    Scenario(
        name="subtask_child", project="beta", title="TODO search in app code",
        child_of="subtask_command",
        description="child session of the /find-todos subtask (explore agent)",
        turns=[
            (COMMANDS["find-todos"]["template"].replace("$ARGUMENTS", "app.py"), [
                _call("call_subtask_grep", "grep", {"pattern": "TODO", "include": "app.py"}),
                _text("No TODO comments in app.py."),
            ]),
        ],
    ),
    # 3. secrets -----------------------------------------------------------
    Scenario(
        name="secrets", project="beta", title="Deploy config with credentials",
        description="planted FAKE secrets in prompt, tool input, tool output, reasoning and text",
        turns=[
            (f"Deploy is failing. Set up a .env with DATABASE_URL={DATABASE_URL} and "
             f"password={DOTENV_PASSWORD}, do a dry-run deploy with my AWS keys, and check "
             f"whether my OpenAI key {OPENAI_API_KEY} leaked into the repo. Also look at "
             "config/secrets.txt.", [
                _call("call_sec_env", "write", lambda c: {
                    "filePath": c.path(".env"),
                    "content": f"DATABASE_URL={DATABASE_URL}\npassword={DOTENV_PASSWORD}\n"},
                    reasoning="Write the .env the user asked for."),
                _call("call_sec_deploy", "bash", {
                    "command": f"AWS_ACCESS_KEY_ID={AWS_ACCESS_KEY_ID} "
                               f"AWS_SECRET_ACCESS_KEY={AWS_SECRET_ACCESS_KEY} bash deploy.sh --dry-run",
                    "description": "Dry-run deploy with AWS credentials"}),
                _call("call_sec_grep", "grep", {"pattern": OPENAI_API_KEY},
                      reasoning=f"Search for the OpenAI key {OPENAI_API_KEY} in the repo."),
                _call("call_sec_cat", "bash", {
                    "command": "cat config/secrets.txt .env",
                    "description": "Show secrets file and .env"}),
                _text(f"The dry run works. Your OpenAI key is not in the repo, but "
                      f"`config/secrets.txt` holds live-looking credentials (GitHub token "
                      f"{GITHUB_TOKEN}, a Slack webhook, a private key and a JWT). Move them to "
                      "a secret manager and add `.env` and `config/secrets.txt` to `.gitignore`."),
            ]),
        ],
    ),
    Scenario(
        name="global_script", project="scratch", title="hello.sh script creation",
        description="non-git dir (global project): write a script and run it",
        turns=[
            ("Create a script hello.sh that prints 'hello from scratch' and run it.", [
                _call("call_glob_write", "write", lambda c: {
                    "filePath": c.path("hello.sh"),
                    "content": "#!/usr/bin/env bash\necho 'hello from scratch'\n"},
                    reasoning="Write the script, then run it with bash."),
                _call("call_glob_run", "bash", {"command": "bash hello.sh",
                                                "description": "Run hello.sh"}),
                _text("Created `hello.sh`; running it prints `hello from scratch`."),
            ]),
        ],
    ),
]

BY_NAME = {s.name: s for s in SCENARIOS}

# --------------------------------------------------------------------------
# Request matching
# --------------------------------------------------------------------------

_WORKDIR_RE = re.compile(r"Working directory:\s*(\S+)")
_REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)


def _content_parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p.get("text", "") for p in content if isinstance(p, dict) and "text" in p]
    return []


def _content_text(content: Any) -> str:
    return "\n".join(_content_parts(content))


def _norm(text: str) -> str:
    return _REMINDER_RE.sub("", text).strip()


def _is_prompt(content: Any, prompt: str) -> bool:
    """A user message is ``prompt`` if it, or one of its text parts, is exactly it
    (attached files add synthetic text parts before the typed prompt)."""
    return any(_norm(t) == prompt for t in [_content_text(content), *_content_parts(content)])


def _find_scenario(messages: list[dict[str, Any]], scenarios: list[Scenario] = SCENARIOS) -> Scenario | None:
    """The scenario of ``scenarios`` whose first prompt is the first user message
    (or whose ``match`` accepts the conversation)."""
    for s in scenarios:
        if s.match is not None and s.match(messages):
            return s
    for m in messages:
        if m.get("role") != "user":
            continue
        for s in scenarios:
            if _is_prompt(m.get("content"), s.prompts[0]):
                return s
        if not _norm(_content_text(m.get("content"))).startswith("Generate a title"):
            return None  # the first real user message matched nothing
    return None


def chat_script(request: dict[str, Any]) -> ScriptedTurn | None:
    """The answer to one request of the fixture scenarios (:data:`SCENARIOS`), None when not theirs."""
    return _answer(request, SCENARIOS)


def _answer(request: dict[str, Any], scenarios: list[Scenario]) -> ScriptedTurn | None:
    messages = request.get("messages") or []
    scenario = _find_scenario(messages, scenarios)
    if scenario is None:
        return None

    if not request.get("tools"):  # title generation (agent=title, no tools)
        return ScriptedTurn(text=scenario.title)

    system = "\n".join(_content_text(m.get("content")) for m in messages if m.get("role") == "system")
    wd = _WORKDIR_RE.search(system)
    workdir = wd.group(1) if wd else "."

    # the turn = the last user message that is one of the scenario's prompts
    turn = None
    last_user_pos = 0
    for pos in range(len(messages) - 1, -1, -1):
        m = messages[pos]
        if m.get("role") != "user":
            continue
        idx = next((i for i, p in enumerate(scenario.prompts) if _is_prompt(m.get("content"), p)), None)
        if idx is not None:
            turn, last_user_pos = idx, pos
            break
    if turn is None:
        return ScriptedTurn(text="Done.")
    after = messages[last_user_pos + 1:]
    step = sum(1 for m in after if m.get("role") == "assistant")
    tool_results = [_content_text(m.get("content")) for m in after if m.get("role") == "tool"]
    steps = scenario.turns[turn][1]
    if step >= len(steps):
        return ScriptedTurn(text="Done.")
    return steps[step](Ctx(workdir=workdir, request=request, tool_results=tool_results))


def scenario_for_prompt(prompt: str) -> Scenario | None:
    return _find_scenario([{"role": "user", "content": prompt}])


# --------------------------------------------------------------------------
# The retrieval quality set (tests/fixtures/quality_set.py) as OpenCode sessions:
# tests/fixtures/make_quality_fixture.py drives one `opencode run` per session.
# --------------------------------------------------------------------------

# harmless, the same in every session, and with no file name in its output: the
# note of a session then says what its request says and nothing else
QUALITY_TOOL_CALL = {"command": "git log --oneline -1", "description": "Show the last commit"}


def quality_reply(session: QualitySession) -> str:
    """The assistant's reply that closes a quality session: its title and its request, restated."""
    return f"Done: {session.title}. What changed: {session.request}"


def _quality_scenario(session: QualitySession) -> Scenario:
    replaces = f", replaces {session.replaces}" if session.replaces else ""
    return Scenario(
        name=session.key, project=session.topic, title=session.title,
        description=f"quality set, day {session.day}{replaces}",
        turns=[(session.request, [
            _call(f"call_quality_{session.key}", "bash", QUALITY_TOOL_CALL),
            _text(quality_reply(session)),
        ])],
    )


# one scenario per quality session (name = session key, project = topic slug) and
# one git repository per topic
QUALITY_SCENARIOS: list[Scenario] = [_quality_scenario(s) for s in QUALITY_SESSIONS]
QUALITY_PROJECTS: dict[str, dict[str, Any]] = {
    topic: {"git": True, "files": {"README.md": f"# {topic}\n\n{about}\n"}} for topic, about in QUALITY_TOPICS.items()}


def quality_chat_script(request: dict[str, Any]) -> ScriptedTurn | None:
    """The answer to one request of a quality session (:data:`QUALITY_SCENARIOS`): its title for
    OpenCode's title request, then the bash call, then the reply; None when not theirs."""
    return _answer(request, QUALITY_SCENARIOS)
