"""Tests for memctl.ingest.transcript: normalize, scrub, bound, fold children, sample, threshold.

Sessions are built by hand with OpenCode 1.18 message-v2 part shapes (see
tests/fixtures/README.md "Data shapes"); the last tests also run the real
fixture database through the connector when it is present.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from memctl.config import Settings
from memctl.connectors.model import Part, Session, SessionInfo
from memctl.ingest.transcript import CHARS_PER_TOKEN, build_transcript
from memctl.scrub.core import find_secrets

T0 = 1_796_008_727_000
GH_TOKEN = "ghp_R8mK2vQ9xT4bN7cL1pZ6wY3sD5fH0jG2aE8u"
OPENAI_KEY = "sk-proj-4fJ9xQ2mL7vK1tR8pZ3cN6bW0yH5dF2jS9aE4uT7gB1kX8nM"
AWS_KEY_ID = "AKIAZ7Q3LP4RM2NX8KVB"  # AWS's documented AKIA…EXAMPLE stays (a placeholder)
FIXTURE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "opencode-1.18"


def make_settings(**overrides) -> Settings:
    values = dict(
        max_text_chars=4000,
        max_reasoning_chars=600,
        max_tool_input_chars=1500,
        max_tool_output_chars=2500,
        transcript_budget_chars=48000,
        head_fraction=0.4,
        min_user_chars=20,
        min_substance_chars=200,
    )
    values.update(overrides)
    return Settings(**values)


def info(session_id: str = "ses_root", *, title: str = "Fix the parser", parent: str | None = None,
         created: int = T0, directory: str = "/home/dev/app") -> SessionInfo:
    return SessionInfo(
        id=session_id, title=title, directory=directory, project_id="c27d62d6ee48a212f9d239e4ce29184f051979f3",
        project_worktree="/home/dev/app", parent_id=parent, time_created=created,
        time_updated=created + 60_000, version="1.18.34",
    )


class PartFactory:
    """Numbers parts in order so ids and times are chronological."""

    def __init__(self, start: int = 0) -> None:
        self.n = start

    def __call__(self, role: str, type_: str, **data) -> Part:
        self.n += 1
        return Part(
            id=f"prt_{self.n:06d}", message_id=f"msg_{self.n:06d}", role=role, type=type_,
            data={"type": type_, **data}, time_created=T0 + self.n * 1000,
        )

    def user(self, text: str, **extra) -> Part:
        return self("user", "text", text=text, **extra)

    def assistant(self, text: str) -> Part:
        return self("assistant", "text", text=text, time={"start": 1, "end": 2})

    def tool(self, name: str, *, status: str = "completed", input=None, output: str = "", title: str = "",
             metadata=None, error: str = "", attachments=None) -> Part:
        state: dict = {"status": status, "input": input if input is not None else {}}
        if status == "completed":
            state.update(output=output, title=title or name, metadata=metadata or {}, time={"start": 1, "end": 2})
            if attachments is not None:
                state["attachments"] = attachments
        elif status == "error":
            state.update(error=error, time={"start": 1, "end": 2})
        elif status == "running":
            state.update(title=title, metadata=metadata or {}, time={"start": 1})
        else:
            state.update(raw="")
        return self("assistant", "tool", tool=name, callID=f"call_{self.n}", state=state)

    def lifecycle(self) -> list[Part]:
        return [
            self("assistant", "step-start", snapshot="4ebedb2aa9d20a63c1b2e795ecd4f35141ad57c2"),
            self("assistant", "step-finish", reason="stop", snapshot="4ebedb2a", cost=0,
                 tokens={"total": 10, "input": 5, "output": 5, "reasoning": 0, "cache": {"write": 0, "read": 0}}),
        ]


def simple_session(parts: list[Part], children: list[Session] | None = None, **info_kw) -> Session:
    return Session(info=info(**info_kw), parts=parts, children=children or [])


def body_of(text: str) -> str:
    return text.split("## Transcript\n\n", 1)[1]


# --- lifecycle --------------------------------------------------------------


def test_lifecycle_parts_are_dropped_and_counted() -> None:
    p = PartFactory()
    parts = [
        p.user("Please fix the failing parser test in tests/test_parser.py"),
        *p.lifecycle(),
        p("assistant", "snapshot", snapshot="SNAPSHOT_HASH_abc"),
        p("assistant", "retry", attempt=1, error={"name": "APIError", "data": {"message": "RETRY_ERR"}}, time={"created": 1}),
        p("assistant", "agent", name="AGENT_NAME_explore"),
        p("user", "text", text="SYNTHETIC_READ_CALL", synthetic=True),
        p("user", "text", text="IGNORED_TEXT", ignored=True),
        p("assistant", "compaction", auto=True),
        p.assistant("Done: the parser now keeps the last token."),
    ]
    tr = build_transcript(simple_session(parts), make_settings())
    assert tr.dropped_lifecycle == 7
    for hidden in ("SNAPSHOT_HASH", "RETRY_ERR", "AGENT_NAME", "SYNTHETIC_READ_CALL", "IGNORED_TEXT", "4ebedb2a"):
        assert hidden not in tr.text
    assert "[context compacted automatically]" in tr.text
    assert tr.entries == 3  # user text, compaction marker, assistant text


def test_empty_text_and_unknown_types() -> None:
    p = PartFactory()
    parts = [p.user("   "), p("assistant", "future-part", payload="NEW_SHAPE"), p.user("Please refactor the config loader module")]
    tr = build_transcript(simple_session(parts), make_settings())
    assert tr.unknown_parts == {"future-part": 1}
    assert "NEW_SHAPE" not in tr.text
    assert tr.entries == 1


# --- bounds -------------------------------------------------------------------


def truncated_count(text: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"… \[truncated ([\d,]+) chars\]", text)]


def test_text_is_bounded_head_and_tail_with_cut_message() -> None:
    p = PartFactory()
    long_text = "START " + "word " * 3000 + " FINISH"
    tr = build_transcript(simple_session([p.user(long_text)]), make_settings(max_text_chars=1000))
    body = body_of(tr.text)
    assert "START" in body and "FINISH" in body
    cuts = truncated_count(body)
    assert len(cuts) == 1
    assert abs(cuts[0] - (len(long_text.strip()) - 1000)) <= 300  # cut snaps to line/word bounds only a little
    assert tr.truncated == 1


def test_reasoning_keeps_only_the_head() -> None:
    p = PartFactory()
    reasoning = "FIRST_THOUGHT " + "because " * 500 + "LAST_THOUGHT"
    parts = [p.user("Why does the cache miss on every request?"), p("assistant", "reasoning", text=reasoning, time={"start": 1})]
    tr = build_transcript(simple_session(parts), make_settings(max_reasoning_chars=200))
    assert "**Reasoning (hint):** FIRST_THOUGHT" in tr.text
    assert "LAST_THOUGHT" not in tr.text
    assert truncated_count(tr.text) == [len(reasoning) - 200]


def test_tool_input_and_output_bounded_separately_keeping_the_error_at_the_end() -> None:
    p = PartFactory()
    content = "HEAD_OF_FILE\n" + "x = 1\n" * 2000
    log = "collected 120 items\n" + "test_ok PASSED\n" * 3000 + "E   AssertionError: TAIL_ERROR\n"
    parts = [
        p.user("Write the module and run the tests please"),
        p.tool("write", input={"filePath": "/home/dev/app/m.py", "content": content}, output="Wrote file successfully."),
        p.tool("bash", input={"command": "pytest -q", "description": "Run tests"}, output=log),
    ]
    settings = make_settings(max_tool_input_chars=300, max_tool_output_chars=500)
    tr = build_transcript(simple_session(parts), settings)
    assert "HEAD_OF_FILE" in tr.text and "TAIL_ERROR" in tr.text and "collected 120 items" in tr.text
    cuts = truncated_count(tr.text)
    assert len(cuts) == 2
    assert tr.truncated == 2
    write_entry = tr.text.split("**Tool `write`**")[1].split("**Tool `bash`**")[0]
    assert len(write_entry) < 300 + 200
    bash_entry = tr.text.split("**Tool `bash`**")[1]
    assert len(bash_entry) < 500 + 300


def test_tool_error_and_non_final_status() -> None:
    p = PartFactory()
    parts = [
        p.user("Apply the fix to calc.py and tell me if it works"),
        p.tool("edit", status="error", input={"filePath": "/a/calc.py", "oldString": "a-b", "newString": "a+b"},
               error="Could not find oldString in the file."),
        p.tool("bash", status="running", input={"command": "sleep 100"}),
        p.tool("read", status="pending", input={}),
    ]
    tr = build_transcript(simple_session(parts), make_settings())
    assert "**Tool `edit`** — error" in tr.text
    assert "Error:\n```\nCould not find oldString in the file.\n```" in tr.text
    assert "(no output: the call was running when the session was recorded)" in tr.text
    assert "(no output: the call was pending when the session was recorded)" in tr.text
    assert tr.tool_calls == 3


def test_cut_never_leaves_half_a_secret() -> None:
    p = PartFactory()
    # The token sits exactly where the head cut falls; it is scrubbed first.
    for offset in range(-30, 30, 3):
        filler = "a" * (700 + offset)
        output = filler + GH_TOKEN + " " + "b" * 5000
        tr = build_transcript(simple_session([p.user("Show me the environment variables"), p.tool("bash", output=output)]),
                              make_settings(max_tool_output_chars=1000))
        for i in range(len(GH_TOKEN) - 8):
            assert GH_TOKEN[i : i + 8] not in tr.text, offset


def test_cut_never_splits_a_redaction_marker() -> None:
    p = PartFactory()
    output = ("password=hunter2 " * 200).strip()
    tr = build_transcript(simple_session([p.user("Show me the config file contents"), p.tool("bash", output=output)]),
                          make_settings(max_tool_output_chars=333))
    body = body_of(tr.text)
    assert "hunter2" not in body
    for fragment in re.findall(r"\[REDACTED:[^\]]*\]?|REDACTED:\w*\]", body):
        assert re.fullmatch(r"\[REDACTED:password\]", fragment), fragment


def test_huge_output_scrubbed_in_windows_still_redacts_near_the_kept_ends() -> None:
    p = PartFactory()
    output = f"start {GH_TOKEN}\n" + "line of build output\n" * 20_000 + f"end password=hunter2\n{AWS_KEY_ID}\n"
    tr = build_transcript(simple_session([p.user("Run the full build and show me"), p.tool("bash", output=output)]),
                          make_settings())
    assert GH_TOKEN not in tr.text and "hunter2" not in tr.text and AWS_KEY_ID not in tr.text
    assert tr.redactions == {"aws_access_key": 1, "github_token": 1, "password": 1}
    assert truncated_count(tr.text)[0] > 400_000


def test_long_token_straddling_a_scrub_window_edge_is_redacted_whole() -> None:
    p = PartFactory()
    header = base64.urlsafe_b64encode(b'{"alg":"RS256","typ":"JWT"}').decode().rstrip("=")
    claims = {"sub": "user-1", "groups": [f"group-{i}" for i in range(400)]}
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    jwt = f"{header}.{payload}.SIGNATURE0abcdefghijklmnopqrstuvwxyz0123456789"
    assert len(jwt) > 4000
    output = "noise " * 5000 + jwt + "\nexit 0\n"
    tr = build_transcript(simple_session([p.user("Print the id token from the login flow"), p.tool("bash", output=output)]),
                          make_settings(max_tool_output_chars=2500))
    assert "SIGNATURE0abcdef" not in tr.text and payload[-200:] not in tr.text
    assert tr.redactions == {"jwt": 1}


def test_private_key_in_the_middle_of_a_huge_output_forces_a_full_scrub() -> None:
    p = PartFactory()
    pem_lines = [f"MIIEowIBAAKCAQEA{i:04d}" + "Qk" * 30 for i in range(3000)]
    output = "key dump\n-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(pem_lines)  # cut mid-block, no END
    tr = build_transcript(simple_session([p.user("Print the deploy key file please"), p.tool("bash", output=output)]),
                          make_settings())
    assert "MIIEowIBAAKCAQEA" not in tr.text
    assert tr.redactions == {"private_key": 1}


# --- files, patches, subtasks ------------------------------------------------------


def test_file_parts_show_name_and_mime_never_the_data_url() -> None:
    p = PartFactory()
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20).decode()
    parts = [
        p.user("What is wrong in this screenshot?"),
        p("user", "file", mime="image/png", filename="screenshot.png", url=f"data:image/png;base64,{png}"),
        p("user", "file", mime="text/plain", url="file:///home/dev/app/deploy.sh",
          source={"type": "file", "path": "/home/dev/app/deploy.sh", "text": {"value": "@deploy.sh", "start": 0, "end": 10}}),
        p.tool("read", input={"filePath": "/home/dev/app/shot.png"}, output="Image read successfully",
               attachments=[{"type": "file", "mime": "image/png", "filename": "shot.png", "url": f"data:image/png;base64,{png}"}]),
    ]
    tr = build_transcript(simple_session(parts), make_settings())
    assert "**Attached file:** screenshot.png (image/png)" in tr.text
    assert "**Attached file:** /home/dev/app/deploy.sh (text/plain)" in tr.text
    assert "Attachments: shot.png (image/png)" in tr.text
    assert png[:40] not in tr.text and "base64" not in tr.text and "data:" not in tr.text


def test_patch_parts_list_changed_files() -> None:
    p = PartFactory()
    files = [f"/home/dev/app/src/mod{i}.py" for i in range(70)]
    parts = [p.user("Rename the helpers across the codebase"), p("assistant", "patch", hash="4ebedb2a", files=files[:2]),
             p("assistant", "patch", hash="5fcedb3b", files=files)]
    tr = build_transcript(simple_session(parts), make_settings())
    assert "**Files changed (2):** /home/dev/app/src/mod0.py, /home/dev/app/src/mod1.py" in tr.text
    assert "**Files changed (70):**" in tr.text
    listed = tr.text.split("**Files changed (70):** ")[1].split("\n")[0]
    more = int(re.search(r"… and (\d+) more$", listed).group(1))
    assert listed.count("/home/dev/app/src/mod") + more == 70
    assert len(listed) <= 1500 + 40  # bounded by max_tool_input_chars
    assert "4ebedb2a" not in tr.text


def test_subtask_prompt_is_kept_and_counts_as_user_text() -> None:
    p = PartFactory()
    prompt = "Find TODO comments in app.py and report them as file:line."
    parts = [p("user", "subtask", agent="explore", description="Find TODO comments (runs as a subtask)",
               command="find-todos", model={"providerID": "local", "modelID": "stub"}, prompt=prompt)]
    tr = build_transcript(simple_session(parts), make_settings())
    assert "**Subtask for agent `explore`:** Find TODO comments (runs as a subtask)" in tr.text
    assert f"Prompt: {prompt}" in tr.text and "Command: find-todos" in tr.text
    assert tr.user_chars == len(prompt)


# --- subagent children ---------------------------------------------------------------


def child_session(child_id: str, title: str, created: int, start: int, answer: str) -> Session:
    p = PartFactory(start)
    parts = [p.user(f"Task prompt for {child_id}"), *p.lifecycle(),
             p.tool("grep", input={"pattern": "TODO"}, output="Found 1 matches"), p.assistant(answer)]
    return Session(info=info(child_id, title=title, parent="ses_root", created=created), parts=parts)


def task_call(p: PartFactory, child_id: str, *, by_metadata: bool = True) -> Part:
    output = f'<task id="{child_id}" state="completed">\n<task_result>\nresult\n</task_result>\n</task>'
    metadata = {"parentSessionId": "ses_root", "sessionId": child_id, "truncated": False} if by_metadata else {}
    return p.tool("task", input={"description": "Find TODOs", "prompt": "Search for TODO", "subagent_type": "explore"},
                  output=output, title="Find TODOs", metadata=metadata)


def test_child_folded_right_after_its_task_call() -> None:
    p = PartFactory()
    child = child_session("ses_child1", "Find TODOs (@explore subagent)", T0 + 5_000, 500, "CHILD_ANSWER")
    parts = [p.user("Use a subagent to find all TODO comments"), task_call(p, "ses_child1"), p.assistant("PARENT_SUMMARY")]
    tr = build_transcript(simple_session(parts, [child]), make_settings())
    text = tr.text
    i_task = text.index("**Tool `task`**")
    i_open = text.index("### Subagent session ses_child1: Find TODOs (@explore subagent)")
    i_child = text.index("CHILD_ANSWER")
    i_close = text.index("### End of subagent session ses_child1")
    i_parent = text.index("PARENT_SUMMARY")
    assert i_task < i_open < i_child < i_close < i_parent
    assert "**User (parent agent's task prompt):** Task prompt for ses_child1" in text
    assert tr.child_session_ids == ["ses_child1"]
    assert tr.dropped_lifecycle == 2 and tr.tool_calls == 2
    assert tr.user_chars == len("Use a subagent to find all TODO comments")  # child's prompt is not the user's


def test_child_found_through_task_output_when_metadata_is_missing() -> None:
    p = PartFactory()
    child = child_session("ses_child2", "Explore", T0 + 999_000, 500, "CHILD_ANSWER")
    parts = [p.user("Use a subagent to find all TODO comments"), task_call(p, "ses_child2", by_metadata=False),
             p.assistant("PARENT_SUMMARY")]
    tr = build_transcript(simple_session(parts, [child]), make_settings())
    assert tr.text.index("**Tool `task`**") < tr.text.index("CHILD_ANSWER") < tr.text.index("PARENT_SUMMARY")


def test_unreferenced_child_is_placed_by_creation_time() -> None:
    p = PartFactory()
    parts = [p.user("First question about the parser module"), p.assistant("FIRST_ANSWER"),
             p.user("Second question about the cache module"), p.assistant("SECOND_ANSWER")]
    # Created between the first answer (T0+2000) and the second question (T0+3000).
    child = child_session("ses_orphan", "Orphan", T0 + 2_500, 500, "ORPHAN_ANSWER")
    tr = build_transcript(simple_session(parts, [child]), make_settings())
    t = tr.text
    assert t.index("FIRST_ANSWER") < t.index("### Subagent session ses_orphan") < t.index("ORPHAN_ANSWER") < t.index("Second question")


def test_nested_children_and_empty_child() -> None:
    p = PartFactory()
    grandchild = child_session("ses_grand", "Grand", T0 + 7_000, 900, "GRAND_ANSWER")
    cp = PartFactory(600)
    child = Session(
        info=info("ses_mid", title="Mid", parent="ses_root", created=T0 + 5_000),
        parts=[cp.user("Mid task"), task_call(cp, "ses_grand"), cp.assistant("MID_ANSWER")],
        children=[grandchild],
    )
    empty = Session(info=info("ses_empty", title="Empty", parent="ses_root", created=T0 + 90_000),
                    parts=PartFactory(800).lifecycle())
    parts = [p.user("Delegate the investigation to a subagent"), task_call(p, "ses_mid"), p.assistant("ROOT_ANSWER")]
    tr = build_transcript(simple_session(parts, [child, empty]), make_settings())
    t = tr.text
    assert (t.index("### Subagent session ses_mid") < t.index("### Subagent session ses_grand") < t.index("GRAND_ANSWER")
            < t.index("### End of subagent session ses_grand") < t.index("MID_ANSWER")
            < t.index("### End of subagent session ses_mid") < t.index("ROOT_ANSWER"))
    assert "### Subagent session ses_empty: Empty\n\n_(no content parts)_\n\n### End of subagent session ses_empty" in t
    assert tr.child_session_ids == ["ses_mid", "ses_grand", "ses_empty"]


def test_resumed_task_refers_back_to_the_child() -> None:
    p = PartFactory()
    child = child_session("ses_child1", "Explore", T0 + 5_000, 500, "CHILD_ANSWER")
    parts = [p.user("Use a subagent to find all TODO comments"), task_call(p, "ses_child1"), task_call(p, "ses_child1")]
    tr = build_transcript(simple_session(parts, [child]), make_settings())
    assert tr.text.count("### Subagent session ses_child1") == 1
    assert "_(continues subagent session ses_child1, shown above)_" in tr.text


# --- sampling ----------------------------------------------------------------------


def many_turns(n: int, p: PartFactory | None = None) -> list[Part]:
    p = p or PartFactory()
    parts = []
    for i in range(n):
        parts.append(p.user(f"QUESTION_{i:03d}: " + "please look at this module " * 10))
        parts.append(p.assistant(f"ANSWER_{i:03d}: " + "the module does this and that " * 10))
    return parts


def test_sampling_keeps_head_and_tail_with_marker_and_respects_budget() -> None:
    budget = 6000
    tr = build_transcript(simple_session(many_turns(60)), make_settings(transcript_budget_chars=budget, head_fraction=0.4))
    body = body_of(tr.text)
    marker = re.search(r"\[… omitted (\d+) entries \(([\d,]+) chars\) from the middle of the session …\]", body)
    assert marker, body[:500]
    assert int(marker.group(1)) == tr.omitted_entries > 0
    assert int(marker.group(2).replace(",", "")) == tr.omitted_chars
    assert tr.entries + tr.omitted_entries == 120
    assert len(body) <= budget + 200
    assert "QUESTION_000" in body and "ANSWER_059" in body  # setup and outcome
    head, tail = body.split(marker.group(0))
    assert len(head) <= budget * 0.4 + 10
    assert "QUESTION_030" not in body


def test_no_sampling_under_budget() -> None:
    tr = build_transcript(simple_session(many_turns(3)), make_settings())
    assert "omitted" not in tr.text and tr.omitted_entries == 0 and tr.omitted_chars == 0 and tr.entries == 6


def test_sampling_tail_starting_inside_a_subagent_section_reopens_it_as_continued() -> None:
    p = PartFactory()
    root_turns = many_turns(30, p)
    child = Session(info=info("ses_long_child", title="Long child", parent="ses_root", created=T0 + 900_000),
                    parts=many_turns(40, PartFactory(10_000)))
    parts = [*root_turns, task_call(p, "ses_long_child"), p.assistant("ROOT_DONE")]
    tr = build_transcript(simple_session(parts, [child]), make_settings(transcript_budget_chars=5000))
    body = body_of(tr.text)
    omitted = body.index("[… omitted")
    reopened = body.index("### Subagent session ses_long_child: Long child (continued)")
    assert omitted < reopened < body.index("### End of subagent session ses_long_child") < body.index("ROOT_DONE")
    assert "### Subagent session ses_long_child: Long child\n" not in body  # its start was omitted
    assert len(body) <= 5000 + 300


def test_sampling_inside_one_subagent_section_keeps_it_open() -> None:
    p = PartFactory()
    child = Session(info=info("ses_long_child", title="Long child", parent="ses_root", created=T0 + 2_500),
                    parts=many_turns(40, PartFactory(10_000)))
    parts = [p.user("Investigate the flaky test with a subagent"), task_call(p, "ses_long_child"), p.assistant("ROOT_DONE")]
    tr = build_transcript(simple_session(parts, [child]), make_settings(transcript_budget_chars=5000))
    body = body_of(tr.text)
    assert (body.index("### Subagent session ses_long_child: Long child\n") < body.index("[… omitted")
            < body.index("### End of subagent session ses_long_child") < body.index("ROOT_DONE"))
    assert body.count("### Subagent session ses_long_child") == 1
    assert body.count("### End of subagent session ses_long_child") == 1


# --- substance threshold ------------------------------------------------------------


def test_threshold_skips_a_bare_greeting() -> None:
    p = PartFactory()
    parts = [p.user("hi"), *p.lifecycle(), p.assistant("Hello! How can I help?")]
    tr = build_transcript(simple_session(parts), make_settings())
    assert tr.skip_reason == "below substance threshold: 2 user chars (min 20), 24 content chars (min 200), 0 tool calls"
    assert tr.user_chars == 2 and tr.substance_chars == 24


def test_empty_session_is_skipped() -> None:
    p = PartFactory()
    tr = build_transcript(simple_session(p.lifecycle()), make_settings())
    assert tr.skip_reason == "empty session: no content parts (2 lifecycle parts dropped)"
    assert tr.entries == 0 and "_(no content parts)_" in tr.text


def test_short_prompt_with_real_tool_work_is_not_skipped() -> None:
    p = PartFactory()
    parts = [p.user("fix it"), p.tool("bash", input={"command": "pytest -q"}, output="F" * 50 + "\n1 failed, 49 passed" + "." * 200)]
    tr = build_transcript(simple_session(parts), make_settings())
    assert tr.user_chars == 6 and tr.tool_calls == 1 and tr.substance_chars >= 200
    assert tr.skip_reason is None


def test_long_user_prompt_alone_is_not_skipped() -> None:
    p = PartFactory()
    tr = build_transcript(simple_session([p.user("Please migrate the billing service to the new queue")]), make_settings())
    assert tr.skip_reason is None


# --- secrets ------------------------------------------------------------------------


def test_secrets_redacted_everywhere_including_header() -> None:
    p = PartFactory()
    child = child_session("ses_child1", f"Check token {GH_TOKEN} (@explore subagent)", T0 + 5_000, 500, "ok")
    parts = [
        p.user(f"Deploy with DB_PASSWORD=hunter2 and key {OPENAI_KEY}"),
        p("assistant", "reasoning", text=f"The user gave {OPENAI_KEY}; use it.", time={"start": 1}),
        p.tool("bash", input={"command": f"AWS_ACCESS_KEY_ID={AWS_KEY_ID} ./deploy.sh",
                              "env": {"Authorization": "Bearer abcdef0123456789xyz"}},
               output=f"export GITHUB_TOKEN={GH_TOKEN}\npostgres://admin:S3cr3t-pw@db:5432/app", title=f"deploy {AWS_KEY_ID}"),
        p.tool("bash", status="error", input={"command": "curl"}, error=f"401 for token {GH_TOKEN}"),
        task_call(p, "ses_child1"),
    ]
    session = Session(
        info=info(title=f"Rotate {GH_TOKEN}", directory="/home/dev/password=hunter2/app"),
        parts=parts, children=[child],
    )
    tr = build_transcript(session, make_settings())
    for secret in (GH_TOKEN, OPENAI_KEY, AWS_KEY_ID, "hunter2", "S3cr3t-pw", "abcdef0123456789xyz"):
        assert secret not in tr.text, secret
    assert "# OpenCode session: Rotate [REDACTED:github_token]" in tr.text
    assert "- Directory: /home/dev/password=[REDACTED:password]\n" in tr.text
    assert "### Subagent session ses_child1: Check token [REDACTED:github_token] (@explore subagent)" in tr.text
    assert tr.redactions == {
        "aws_access_key": 2, "bearer_token": 1, "github_token": 4, "openai_key": 2, "password": 2, "url_credentials": 1,
    }
    assert find_secrets(tr.text) == []


# --- determinism and metadata ---------------------------------------------------------


def build_rich_session() -> Session:
    p = PartFactory()
    child = child_session("ses_child1", "Explore", T0 + 5_000, 500, "CHILD_ANSWER")
    parts = [
        p.user(f"Fix it, token {GH_TOKEN}"), *p.lifecycle(),
        p("assistant", "reasoning", text="think " * 300, time={"start": 1}),
        p.tool("bash", input={"command": "ls", "z": 1, "a": 2}, output="out\n" * 3000),
        task_call(p, "ses_child1"),
        p("assistant", "patch", hash="h", files=["/a.py"]),
        *many_turns(80, p),
    ]
    return simple_session(parts, [child])


def test_deterministic_bytes_and_sha() -> None:
    settings = make_settings(transcript_budget_chars=9000)
    first = build_transcript(build_rich_session(), settings)
    second = build_transcript(build_rich_session(), settings)
    assert first.text == second.text and first.sha256 == second.sha256
    assert first.sha256 == hashlib.sha256(first.text.encode("utf-8")).hexdigest()
    assert first == second


def test_header_and_token_estimate() -> None:
    tr = build_transcript(build_rich_session(), make_settings())
    assert tr.text.startswith("# OpenCode session: Fix the parser\n\n- Source id: ses_root\n- Directory: /home/dev/app\n")
    assert "- Project: /home/dev/app (c27d62d6ee48a212f9d239e4ce29184f051979f3)" in tr.text
    assert "- Started: 2026-11-30 03:18:47Z; last updated: 2026-11-30 03:19:47Z" in tr.text
    assert tr.estimated_tokens == len(tr.text) // CHARS_PER_TOKEN
    assert tr.source_id == "ses_root"


def test_global_project_header() -> None:
    session = Session(info=SessionInfo(id="ses_g", title="", directory="/tmp/scratch", project_id="global",
                                       project_worktree="/", parent_id=None, time_created=T0, time_updated=T0,
                                       version="1.18.34"), parts=[PartFactory().user("write a hello world script in bash")])
    tr = build_transcript(session, make_settings())
    # an empty title is derived from the first user text, like a placeholder
    assert "# OpenCode session: write a hello world script in bash" in tr.text
    assert (tr.title, tr.original_title) == ("write a hello world script in bash", None)
    assert "- Project: none — global (global)" in tr.text


def test_malformed_part_data_is_tolerated() -> None:
    p = PartFactory()
    parts = [
        p.user("Please check the malformed tool records below"),
        Part(id="x1", message_id="m", role="assistant", type="tool", data={"type": "tool"}, time_created=T0),
        Part(id="x2", message_id="m", role="assistant", type="tool", data={"tool": "bash", "state": "weird"}, time_created=T0),
        Part(id="x3", message_id="m", role="assistant", type="text", data={"text": 12345}, time_created=T0),
        Part(id="x4", message_id="m", role="assistant", type="patch", data={"files": None}, time_created=T0),
        Part(id="x5", message_id="m", role="user", type="file", data={}, time_created=T0),
    ]
    tr = build_transcript(simple_session(parts), make_settings())
    assert "**Tool `unknown`** — unknown" in tr.text
    assert "**Assistant:** 12345" in tr.text
    assert "**Attached file:** (unnamed) (unknown type)" in tr.text


# --- the real OpenCode 1.18 fixture ----------------------------------------------------


@pytest.fixture
def fixture_sessions(tmp_path: Path):
    from memctl.connectors.opencode.source import OpenCodeSource

    for name in ("opencode.db", "opencode.db-wal", "opencode.db-shm"):
        shutil.copy2(FIXTURE_DIR / name, tmp_path / name)
    source = OpenCodeSource(tmp_path / "opencode.db")
    try:
        yield list(source.iter_sessions())
    finally:
        source.close()


def test_real_fixture_no_planted_secret_survives(fixture_sessions) -> None:
    planted = json.loads((FIXTURE_DIR / "planted_secrets.json").read_text())
    settings = make_settings()
    assert fixture_sessions
    for session in fixture_sessions:
        tr = build_transcript(session, settings)
        for secret in planted:
            assert secret["value"] not in tr.text, (session.info.title, secret["kind"])
        assert find_secrets(tr.text) == [], session.info.title
        assert "data:" not in tr.text


def test_real_fixture_shapes(fixture_sessions) -> None:
    by_title = {s.info.title: build_transcript(s, make_settings()) for s in fixture_sessions}
    greeting = by_title["Greeting"]
    assert greeting.skip_reason and greeting.skip_reason.startswith("below substance threshold: 2 user chars")
    subagent = by_title["Find TODO comments via subagent"]
    assert len(subagent.child_session_ids) == 1
    t = subagent.text
    assert t.index("**Tool `task`**") < t.index(f"### Subagent session {subagent.child_session_ids[0]}") < t.index("### End of subagent")
    secrets = by_title["Deploy config with credentials"]
    # the .env it writes is a credential file: its values go by value (its JWT, Slack webhook and bearer token too)
    assert {"github_token", "aws_access_key", "aws_secret_key", "openai_key", "private_key",
            "url_credentials", "password", "credential_file"} <= set(secrets.redactions)
    subtask = by_title["TODO search in app code"]
    assert "**Subtask for agent `explore`:**" in subtask.text and subtask.child_session_ids
    explain = by_title["deploy.sh explanation"]
    assert "**Attached file:** deploy.sh (text/plain)" in explain.text
    assert "Called the Read tool" not in explain.text  # synthetic parts dropped


# --- compacted tool outputs, rows not understood, orphans, placeholder titles ---------------


@pytest.mark.parametrize(("tool", "title", "output"), [
    ("bash", "npm test", "PRUNED_OUTPUT line\n" * 4000),
    ("read", "src/app/server.py", "PRUNED_OUTPUT 1\tdef main():\n" * 2000),
    ("grep", "TODO", "PRUNED_OUTPUT src/a.py:3: # TODO\n" * 500),
    ("webfetch", "https://docs.example/api", "PRUNED_OUTPUT <html>" * 3000),
])
def test_compacted_tool_outputs_are_left_out_with_a_one_line_marker(tool: str, title: str, output: str) -> None:
    p = PartFactory()
    compacted = p.tool(tool, input={"arg": "COMPACTED_INPUT"}, output=output, title=title)
    compacted.data["state"]["time"]["compacted"] = T0 + 99
    compacted.data["state"]["attachments"] = [{"type": "file", "filename": "shot.png", "mime": "image/png", "url": "x"}]
    kept = p.tool("bash", input={"command": "ls"}, output="KEPT_OUTPUT", title="ls")
    tr = build_transcript(simple_session([p.user("Run the checks and summarise the failures please"), compacted, kept]),
                          make_settings())
    assert "PRUNED_OUTPUT" not in tr.text and "COMPACTED_INPUT" not in tr.text and "shot.png" not in tr.text
    assert f"**Tool `{tool}`** — completed — {title} — output compacted by OpenCode, left out\n" in tr.text
    assert "KEPT_OUTPUT" in tr.text
    assert (tr.compacted_outputs, tr.tool_calls) == (1, 2)


@pytest.mark.parametrize(("make", "kind", "shown"), [
    (lambda p: p("assistant", "plan-patch", beforeContent="UNKNOWN_BODY"), "unknown_part_types", False),
    (lambda p: p("assistant", "future-thing", text="UNKNOWN_BODY"), "unknown_part_types", False),
    (lambda p: p("assistant", "tool", tool="bash", callID="c1"), "tool_parts_without_state", True),
    (lambda p: p("assistant", "tool", tool="bash", callID="c1", state="broken"), "tool_parts_without_state", True),
    (lambda p: p("assistant", "tool", tool="bash", callID="c1", state={"status": "queued", "input": {}}),
     "unknown_tool_status", True),
])
def test_rows_not_understood_are_counted_by_kind(make, kind: str, shown: bool) -> None:
    p = PartFactory()
    parts = [p.user("Please look at the odd rows in this session and tell me what they are"), make(p), make(p)]
    tr = build_transcript(simple_session(parts), make_settings())
    assert tr.read_warnings == {kind: 2}
    assert "UNKNOWN_BODY" not in tr.text
    assert ("**Tool `bash`**" in tr.text) == shown


def test_well_formed_sessions_have_no_read_warnings() -> None:
    p = PartFactory()
    parts = [p.user("Fix the parser"), *p.lifecycle(), p.tool("bash", output="ok"), p.tool("edit", status="error",
             error="no match"), p.tool("read", status="running"), p.tool("task", status="pending"), p.assistant("done")]
    assert build_transcript(simple_session(parts), make_settings()).read_warnings == {}


def test_an_orphaned_subagent_session_says_so_in_its_header() -> None:
    p = PartFactory()
    session = simple_session([p.user("(task prompt) find TODO comments in src and list them")],
                             parent="ses_parent_gone", title="Find TODOs (@explore subagent)")
    tr = build_transcript(session, make_settings())
    assert "- Parent session: ses_parent_gone (not in the history any more: an orphaned subagent session)" in tr.text
    plain = build_transcript(simple_session([p.user("find TODO comments in src")]), make_settings())
    assert "Parent session" not in plain.text


@pytest.mark.parametrize(("title", "placeholder", "heading", "kept_title", "original"), [
    ("New session - 2026-11-29T22:06:41.000Z", True, "Fix the flaky retry test in pkg/fake",
     "Fix the flaky retry test in pkg/fake", "New session - 2026-11-29T22:06:41.000Z"),
    ("Fix the parser", False, "Fix the parser", "Fix the parser", None),
    ("", False, "Fix the flaky retry test in pkg/fake", "Fix the flaky retry test in pkg/fake", None),
])
def test_placeholder_root_titles_come_from_the_first_user_text(title, placeholder, heading, kept_title, original) -> None:
    p = PartFactory()
    session = Session(info=replace(info(title=title), title_is_placeholder=placeholder),
                      parts=[p.assistant("Hello"), p.user("Fix the flaky retry test in pkg/fake"),
                             p.user("and then the second ask")])
    tr = build_transcript(session, make_settings())
    assert tr.text.startswith(f"# OpenCode session: {heading}\n")
    assert (tr.title, tr.original_title) == (kept_title, original)


def test_placeholder_child_titles_come_from_their_task_prompt() -> None:
    p = PartFactory()
    child_info = replace(info("ses_child", parent="ses_root"), title="Child session - 2026-11-29T22:06:42.000Z",
                         title_is_placeholder=True)
    child = Session(info=child_info, parts=[p.user("Find TODO comments in src/ and list them by file"),
                                            p.assistant("3 TODOs")])
    root = simple_session([p.user("Find the TODO comments with a subagent please"), p.assistant("done")], [child])
    tr = build_transcript(root, make_settings())
    assert "### Subagent session ses_child: Find TODO comments in src/ and list them by file\n" in tr.text
    assert "Child session - 2026" not in tr.text
