"""The fake Ollama server speaks the real wire formats (checked with real clients)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Literal, Optional

import httpx
import jsonschema
import ollama
import openai
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import BaseModel, Field

from tests.fakes.ollama_server import (
    SCHEMA_PROMPT_MARKER,
    FakeOllama,
    distill_reply,
    embed_text,
    extract_entities,
    instance_for_schema,
)
from tests.fakes.scripted import ScriptedToolCall, ScriptedTurn

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ models


class Node(BaseModel):
    id: str
    name: str = ""
    type: str
    description: str


class Edge(BaseModel):
    source_node_id: str
    target_node_id: str
    relationship_name: str
    description: Optional[str] = Field(None, description="one sentence")


class KnowledgeGraph(BaseModel):
    """Same shape as cognee.shared.data_models.KnowledgeGraph (non-Gemini)."""

    nodes: list[Node] = Field(..., default_factory=list)
    edges: list[Edge] = Field(..., default_factory=list)


class Summary(BaseModel):
    summary: str
    description: str


class Rating(BaseModel):
    rating: Literal["helpful", "harmful"]
    score: int = Field(ge=1, le=5)


class Analysis(BaseModel):
    query_to_answer: Optional[str] = None
    ratings: list[Rating] = Field(default_factory=list)
    mode: Literal["a", "b"] = "b"
    tags: list[str] = Field(min_length=2, max_length=3)
    nested: Summary


TEXT = "Alice fixed the Kuzu lock in memctl/store.py while Bob reviewed LanceDB and get_graph_counts."
TRANSCRIPT = (
    "title: Fix the store lock\n"
    "user: please fix the lock in memctl/store.py, it deadlocks under load\n"
    "assistant: looking\n"
    "[tool: bash] pytest -q tests/test_store.py\n"
    "[tool: edit] memctl/store.py\n"
    "[tool: bash] pytest -q\n"
)


# ------------------------------------------------------------------ helpers


def sse_events(resp: httpx.Response) -> list[Any]:
    events: list[Any] = []
    for line in resp.iter_lines():
        if not line:
            continue
        assert line.startswith("data: "), line
        data = line[len("data: "):]
        events.append(data if data == "[DONE]" else json.loads(data))
    return events


# ------------------------------------------------------------------ pure helpers


def test_embed_text_is_unit_norm_deterministic_and_similarity_aware() -> None:
    a = embed_text("the kuzu graph database lock", 768)
    b = embed_text("the kuzu graph database lock", 768)
    c = embed_text("kuzu graph lock problem", 768)
    d = embed_text("banana smoothie recipe with oats", 768)
    assert a == b and len(a) == 768
    assert math.isclose(sum(x * x for x in a), 1.0, rel_tol=1e-9)
    cos = lambda u, v: sum(x * y for x, y in zip(u, v))  # noqa: E731
    assert cos(a, c) > cos(a, d) + 0.2
    assert math.isclose(sum(x * x for x in embed_text("", 16)), 1.0, rel_tol=1e-9)


def test_extract_entities_files_identifiers_and_names() -> None:
    ents = extract_entities(TEXT)
    names = [n for n, _ in ents]
    assert names[:3] == ["Alice", "Kuzu", "memctl/store.py"]
    assert ("memctl/store.py", "File") in ents
    assert ("get_graph_counts", "Identifier") in ents
    assert len(ents) <= 6


def test_distill_rule_junk_and_note() -> None:
    assert distill_reply("user: hi\nassistant: hello! how can I help?") == "JUNK"
    assert distill_reply("user: ping ping test ok thanks " * 20) == "JUNK"  # greetings only
    assert distill_reply("user: explain the thing") == "JUNK"  # < 40 words, no tools
    note = distill_reply(TRANSCRIPT)
    assert note.startswith("# Fix the store lock\n")
    assert "- Request: please fix the lock in memctl/store.py" in note
    assert "bash ×2" in note and "edit" in note
    assert "`memctl/store.py`" in note and "`tests/test_store.py`" in note
    long_question = "user: " + " ".join(f"word{i}" for i in range(45))
    assert distill_reply(long_question).startswith("# Session notes")
    assert distill_reply('{"tool": "grep", "input": "x"}').startswith("# Session notes")


MEMCTL_TRANSCRIPT = """# OpenCode session: Speed up the store

- Source id: ses_123
- Directory: /home/dev/proj
- Project: /home/dev/proj

## Transcript

**User:** the store is slow, please add an index to /home/dev/proj/memctl/store.py

**Reasoning (hint):** I will use the tool to read it first

**Tool `read`** — completed — memctl/store.py
Input:
```json
{"filePath": "/home/dev/proj/memctl/store.py"}
```
Output:
```
def write_text(): the user said hello hello hello
```

**Tool `edit`** — completed
Input:
```json
{"filePath": "/home/dev/proj/memctl/store.py", "oldString": "a", "newString": "b"}
```

**Assistant:** Done, added the index.
"""


def test_distill_reads_memctl_transcript_format() -> None:
    note = distill_reply(MEMCTL_TRANSCRIPT)
    assert note.startswith("# Speed up the store\n")
    assert "- Request: the store is slow, please add an index to /home/dev/proj/memctl/store.py" in note
    assert "- Tools used: edit, read\n" in note  # "use the tool to" is not a tool call
    assert "`/home/dev/proj/memctl/store.py`" in note
    chat = "# OpenCode session: hi\n\n## Transcript\n\n**User:** hello\n\n**Assistant:** Hi! How can I help?\n"
    assert distill_reply(chat) == "JUNK"


@pytest.mark.parametrize("model", [KnowledgeGraph, Summary, Analysis, Rating])
def test_instance_for_schema_is_valid(model: type[BaseModel]) -> None:
    schema = model.model_json_schema()
    inst = instance_for_schema(schema, TEXT)
    jsonschema.validate(inst, schema)
    model.model_validate(inst)


def test_knowledge_graph_instance_is_meaningful() -> None:
    kg = KnowledgeGraph.model_validate(instance_for_schema(KnowledgeGraph.model_json_schema(), TEXT))
    ids = {n.id for n in kg.nodes}
    assert {"Alice", "Kuzu", "memctl/store.py"} <= ids
    assert kg.edges and all(e.source_node_id in ids and e.target_node_id in ids for e in kg.edges)
    summary = Summary.model_validate(instance_for_schema(Summary.model_json_schema(), TEXT))
    assert "Alice fixed the Kuzu lock" in summary.summary


_leaf = st.one_of(
    st.just({"type": "string"}),
    st.just({"type": "integer", "minimum": 3, "maximum": 9}),
    st.just({"type": "number", "exclusiveMinimum": 0}),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.just({"enum": ["x", "y"]}),
    st.just({"const": 7}),
    st.just({"type": "string", "minLength": 40, "maxLength": 50}),
    st.just({"type": "string", "format": "date-time"}),
    st.just({"anyOf": [{"type": "string"}, {"type": "null"}]}),
    st.just({"type": ["integer", "null"]}),
)
_schemas = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.builds(lambda items, lo: {"type": "array", "items": items, "minItems": lo}, inner, st.integers(0, 3)),
        st.builds(
            lambda props: {"type": "object", "properties": props, "required": sorted(props)[:1],
                           "additionalProperties": False},
            st.dictionaries(st.sampled_from(["id", "name", "summary", "kind", "n", "items"]), inner, max_size=4),
        ),
        st.builds(lambda a, b: {"anyOf": [a, b]}, inner, inner),
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas)
def test_instance_for_random_schemas_is_valid(schema: dict[str, Any]) -> None:
    wrapped = {"$defs": {"T": schema}, "type": "object", "properties": {"root": {"$ref": "#/$defs/T"}},
               "required": ["root"]}
    jsonschema.validate(instance_for_schema(wrapped, TEXT), wrapped)


# ------------------------------------------------------------------ native API


def test_metadata_routes_with_ollama_client(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    names = [m.model for m in client.list().models]
    assert names == ["llama3.1:8b", "nomic-embed-text:latest"]
    show = client.show("nomic-embed-text")
    assert show.modelinfo["nomic-bert.embedding_length"] == 768
    assert "embedding" in show.capabilities
    assert client.show("llama3.1:8b").modelinfo["llama.context_length"] == 131072
    with pytest.raises(ollama.ResponseError) as err:
        client.show("nope:1b")
    assert err.value.status_code == 404
    assert err.value.error == 'model "nope:1b" not found, try pulling it first'
    assert client.ps().models == []
    assert httpx.get(fake_ollama.url + "/").text == "Ollama is running"
    assert httpx.get(fake_ollama.url + "/api/version").json()["version"]
    assert httpx.get(fake_ollama.url + "/nope").status_code == 404


def test_chat_stream_and_non_stream(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    messages = [{"role": "system", "content": "Distill this."}, {"role": "user", "content": TRANSCRIPT}]
    resp = client.chat(model="llama3.1:8b", messages=messages)
    assert resp.done and resp.done_reason == "stop"
    assert resp.message.role == "assistant"
    assert resp.message.content == distill_reply(TRANSCRIPT)
    assert resp.eval_count and resp.prompt_eval_count
    parts = list(client.chat(model="llama3.1:8b", messages=messages, stream=True))
    assert len(parts) > 2 and parts[-1].done and not any(p.done for p in parts[:-1])
    assert "".join(p.message.content for p in parts) == resp.message.content
    junk = client.chat(model="llama3.1:8b", messages=[{"role": "user", "content": "user: hello"}])
    assert junk.message.content == "JUNK"


def test_think_knob_wraps_distill_replies(fake_ollama: FakeOllama) -> None:
    fake_ollama.think = True
    client = ollama.Client(host=fake_ollama.url)
    content = client.chat(model="m", messages=[{"role": "user", "content": "user: hi"}]).message.content
    assert content.startswith("<think>") and content.endswith("</think>\nJUNK")
    split = client.chat(model="m", messages=[{"role": "user", "content": "user: hi"}], think=True).message
    assert split.content == "JUNK" and split.thinking and "<think>" not in split.thinking
    parts = list(client.generate(model="m", prompt=TRANSCRIPT, think=True, stream=True))
    assert parts[0].thinking and "".join(p.response for p in parts) == distill_reply(TRANSCRIPT)


def test_generate_stream_and_non_stream(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    resp = client.generate(model="llama3.1:8b", prompt=TRANSCRIPT)
    assert resp.done and resp.response == distill_reply(TRANSCRIPT)
    streamed = "".join(p.response for p in client.generate(model="llama3.1:8b", prompt=TRANSCRIPT, stream=True))
    assert streamed == resp.response


def test_embed_and_legacy_embeddings(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    out = client.embed(model="nomic-embed-text", input=["alpha beta", "gamma"])
    assert len(out.embeddings) == 2 and all(len(v) == 768 for v in out.embeddings)
    assert out.embeddings[0] == embed_text("alpha beta")
    assert client.embed(model="nomic-embed-text", input="x").embeddings[0] == embed_text("x")
    assert client.embeddings(model="nomic-embed-text", prompt="alpha beta").embedding == embed_text("alpha beta")
    small = FakeOllama(embedding_dim=32).start()
    try:
        assert len(ollama.Client(host=small.url).embed(model="e", input="x").embeddings[0]) == 32
    finally:
        small.stop()


def test_structured_output_native_format_schema(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    schema = KnowledgeGraph.model_json_schema()
    resp = client.chat(model="llama3.1:8b", messages=[{"role": "user", "content": TEXT}], format=schema)
    data = json.loads(resp.message.content)
    jsonschema.validate(data, schema)
    assert "Alice" in {n["id"] for n in data["nodes"]}
    gen = client.generate(model="llama3.1:8b", prompt=TEXT, format=Summary.model_json_schema())
    jsonschema.validate(json.loads(gen.response), Summary.model_json_schema())


def test_structured_output_schema_in_prompt_litellm_form(fake_ollama: FakeOllama) -> None:
    """litellm's ollama route: ``### System:``/``### User:`` prompt, format json."""
    schema = KnowledgeGraph.model_json_schema()
    prompt = (f"### System:\nExtract a graph.\n\n{SCHEMA_PROMPT_MARKER}\n```json\n{json.dumps(schema, indent=2)}\n```\n"
              f"Do not include any text outside the JSON object.\n\n### User:\n{TEXT}\n\n")
    body = httpx.post(fake_ollama.url + "/api/generate",
                      json={"model": "llama3.1:8b", "prompt": prompt, "format": "json", "stream": False}).json()
    data = json.loads(body["response"])
    jsonschema.validate(data, schema)
    ids = {n["id"] for n in data["nodes"]}
    assert "Alice" in ids and "Extract" not in ids  # entities come from the user part only


# ------------------------------------------------------------------ OpenAI API


def test_openai_chat_json_schema_and_forced_tool(fake_ollama: FakeOllama) -> None:
    schema = Analysis.model_json_schema()
    body = httpx.post(fake_ollama.url + "/v1/chat/completions", json={
        "model": "llama3.1:8b", "messages": [{"role": "user", "content": TEXT}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "Analysis", "schema": schema}},
    }).json()
    assert body["object"] == "chat.completion" and body["choices"][0]["finish_reason"] == "stop"
    Analysis.model_validate_json(body["choices"][0]["message"]["content"])
    tool_body = httpx.post(fake_ollama.url + "/v1/chat/completions", json={
        "model": "m", "messages": [{"role": "user", "content": TEXT}],
        "tools": [{"type": "function", "function": {"name": "Summary", "parameters": Summary.model_json_schema()}}],
        "tool_choice": {"type": "function", "function": {"name": "Summary"}},
    }).json()
    call = tool_body["choices"][0]["message"]["tool_calls"][0]
    assert tool_body["choices"][0]["finish_reason"] == "tool_calls"
    Summary.model_validate_json(call["function"]["arguments"])


def test_openai_client_plain_chat_and_models(fake_ollama: FakeOllama) -> None:
    client = openai.OpenAI(base_url=fake_ollama.url + "/v1", api_key="x")
    resp = client.chat.completions.create(model="llama3.1:8b", messages=[{"role": "user", "content": TRANSCRIPT}])
    assert resp.choices[0].message.content == distill_reply(TRANSCRIPT)
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens
    assert [m.id for m in client.models.list()] == ["llama3.1:8b", "nomic-embed-text:latest"]
    assert client.models.retrieve("llama3.1:8b").id == "llama3.1:8b"


def test_openai_embeddings_float_and_base64(fake_ollama: FakeOllama) -> None:
    client = openai.OpenAI(base_url=fake_ollama.url + "/v1", api_key="x")
    # the openai client asks for base64 by default and decodes it
    got = client.embeddings.create(model="nomic-embed-text", input=["alpha beta", "gamma"])
    assert [d.index for d in got.data] == [0, 1]
    assert all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7)
               for a, b in zip(got.data[0].embedding, embed_text("alpha beta")))
    plain = httpx.post(fake_ollama.url + "/v1/embeddings", json={"model": "e", "input": "gamma"}).json()
    assert plain["data"][0]["embedding"] == embed_text("gamma") and plain["object"] == "list"


def _script(req: dict[str, Any]) -> ScriptedTurn | None:
    if not req.get("tools"):
        return None  # title generation etc. → default responder
    last = req["messages"][-1]
    if last["role"] == "tool":
        return ScriptedTurn(text="All done: the tests pass.")
    return ScriptedTurn(
        reasoning="I should look at the files first.",
        text="Let me check.",
        tool_calls=[ScriptedToolCall("bash", {"command": "ls -la"}),
                    ScriptedToolCall("read", {"filePath": "/tmp/x.py"}, id="call_fixed")],
    )


def test_scripted_sse_stream_matches_openai_chunk_format() -> None:
    with FakeOllama(chat_script=_script) as fake:
        req = {"model": "stub", "stream": True, "stream_options": {"include_usage": True},
               "messages": [{"role": "user", "content": "list files"}],
               "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]}
        with httpx.stream("POST", fake.url + "/v1/chat/completions", json=req) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            events = sse_events(resp)
        assert events[-1] == "[DONE]"
        chunks = events[:-1]
        assert all(c["object"] == "chat.completion.chunk" and c["id"] == chunks[0]["id"] for c in chunks)
        usage = chunks[-1]
        assert usage["choices"] == [] and usage["usage"]["total_tokens"] > 0
        deltas = [c["choices"][0]["delta"] for c in chunks[:-1]]
        finishes = [c["choices"][0]["finish_reason"] for c in chunks[:-1]]
        assert deltas[0]["role"] == "assistant"
        assert "".join(d.get("reasoning_content", "") for d in deltas) == "I should look at the files first."
        assert "".join(d.get("content") or "" for d in deltas) == "Let me check."
        calls = [tc for d in deltas for tc in d.get("tool_calls", [])]
        assert [c["index"] for c in calls] == [0, 1]
        assert calls[0]["id"].startswith("call_") and calls[1]["id"] == "call_fixed"
        assert all(c["type"] == "function" for c in calls)
        assert json.loads(calls[0]["function"]["arguments"]) == {"command": "ls -la"}
        assert calls[1]["function"]["name"] == "read"
        assert finishes[-1] == "tool_calls" and set(finishes[:-1]) == {None}

        # a deterministic id: the same request gets the same ids
        with httpx.stream("POST", fake.url + "/v1/chat/completions", json=req) as resp:
            again = [tc for c in sse_events(resp)[:-2] for tc in c["choices"][0]["delta"].get("tool_calls", [])]
        assert [c["id"] for c in again] == [c["id"] for c in calls]

        # no include_usage → no usage chunk; tool result → stop
        req2 = dict(req, stream_options=None, messages=req["messages"] + [
            {"role": "assistant", "content": None, "tool_calls": [{"id": calls[0]["id"], "type": "function",
                                                                     "function": calls[0]["function"]}]},
            {"role": "tool", "tool_call_id": calls[0]["id"], "content": "x.py"}])
        with httpx.stream("POST", fake.url + "/v1/chat/completions", json=req2) as resp:
            ev = sse_events(resp)
        assert ev[-1] == "[DONE]" and ev[-2]["choices"][0]["finish_reason"] == "stop"
        assert all(e["choices"] for e in ev[:-1])

        # unclaimed request (no tools) → default responder, still streamed
        with httpx.stream("POST", fake.url + "/v1/chat/completions",
                          json={"model": "stub", "stream": True, "messages": [{"role": "user", "content": "hi"}]}) as r:
            text = "".join(e["choices"][0]["delta"].get("content") or "" for e in sse_events(r)[:-1])
        assert text == "JUNK"


def test_scripted_turn_with_openai_client_stream_and_non_stream() -> None:
    with FakeOllama(chat_script=_script) as fake:
        client = openai.OpenAI(base_url=fake.url + "/v1", api_key="x")
        tools = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
        msg = client.chat.completions.create(model="stub", messages=[{"role": "user", "content": "go"}],
                                             tools=tools).choices[0]
        assert msg.finish_reason == "tool_calls"
        assert [c.function.name for c in msg.message.tool_calls] == ["bash", "read"]
        stream = client.chat.completions.create(model="stub", messages=[{"role": "user", "content": "go"}],
                                                tools=tools, stream=True)
        names = [tc.function.name for ch in stream if ch.choices for tc in (ch.choices[0].delta.tool_calls or [])]
        assert names == ["bash", "read"]


# ------------------------------------------------------------------ knobs


def test_latency_and_max_concurrency() -> None:
    with FakeOllama(latency_s=0.2, max_concurrency=2) as fake:
        t0 = time.monotonic()
        threads = [threading.Thread(target=lambda: httpx.get(fake.url + "/api/tags", timeout=10)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        assert fake.peak_concurrency == 2
        assert elapsed >= 0.55  # 6 requests, 2 at a time, 0.2 s each → ≥ 0.6 s
        # The latency is read per request: a long one is waited, and once reset it is gone. The bound is far
        # from the latency, not a speed target (a loaded machine may take a second for one request).
        fake.max_concurrency = None
        fake.latency_s = 2.5
        t0 = time.monotonic()
        httpx.get(fake.url + "/api/tags", timeout=30)
        assert time.monotonic() - t0 >= 2.4
        fake.latency_s = 0.0
        t0 = time.monotonic()
        httpx.get(fake.url + "/api/tags", timeout=30)
        assert time.monotonic() - t0 < 2.0


def test_fail_next_with_routes_and_counts(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    fake_ollama.fail_next(2, status=503, routes=["/api/embed"])
    assert client.list().models  # other routes unaffected
    for _ in range(2):
        with pytest.raises(ollama.ResponseError) as err:
            client.embed(model="nomic-embed-text", input="x")
        assert err.value.status_code == 503 and "injected failure" in err.value.error
    assert client.embed(model="nomic-embed-text", input="x").embeddings
    assert fake_ollama.counts["/api/embed"] == 3 and fake_ollama.counts["/api/tags"] == 1
    path, model, body = fake_ollama.calls[-1]
    assert (path, model, body["input"]) == ("/api/embed", "nomic-embed-text", "x")
    fake_ollama.fail_next(1, status=500, routes=["/v1/"])  # prefix form
    r = httpx.post(fake_ollama.url + "/v1/chat/completions", json={"model": "m", "messages": []})
    assert r.status_code == 500 and r.json()["error"]["type"] == "api_error"
    fake_ollama.reset_counts()
    assert not fake_ollama.counts and not fake_ollama.calls and fake_ollama.model_calls() == 0


def test_hang_next_triggers_client_timeout(fake_ollama: FakeOllama) -> None:
    fake_ollama.hang_next(1, seconds=2.0)
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(fake_ollama.url + "/api/tags", timeout=0.3)
    assert httpx.get(fake_ollama.url + "/api/tags", timeout=5).status_code == 200


def test_malformed_next_invalid_and_truncated(fake_ollama: FakeOllama) -> None:
    fake_ollama.malformed_next(1, routes=["/api/chat"])
    r = httpx.post(fake_ollama.url + "/api/chat", json={"model": "m", "messages": [], "stream": False})
    assert r.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        r.json()
    fake_ollama.malformed_next(1, mode="truncated")
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(fake_ollama.url + "/api/tags")
    fake_ollama.malformed_next(1, routes=["/v1/chat/completions"])
    with httpx.stream("POST", fake_ollama.url + "/v1/chat/completions",
                      json={"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}) as r:
        lines = [ln for ln in r.iter_lines() if ln]
    with pytest.raises(json.JSONDecodeError):
        json.loads(lines[0][len("data: "):])
    assert "data: [DONE]" not in lines
    assert httpx.get(fake_ollama.url + "/api/tags").json()["models"]


def test_missing_models_like_real_ollama(fake_ollama: FakeOllama) -> None:
    fake_ollama.missing_models = {"llama3.1:8b"}
    client = ollama.Client(host=fake_ollama.url)
    for call in (lambda: client.show("llama3.1:8b"),
                 lambda: client.chat(model="llama3.1:8b", messages=[{"role": "user", "content": "x"}])):
        with pytest.raises(ollama.ResponseError) as err:
            call()
        assert err.value.status_code == 404
        assert err.value.error == 'model "llama3.1:8b" not found, try pulling it first'
    assert [m.model for m in client.list().models] == ["nomic-embed-text:latest"]
    r = httpx.post(fake_ollama.url + "/v1/chat/completions", json={"model": "llama3.1:8b", "messages": []})
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found_error"


def test_v1_api_paths_are_404_unless_allowed(fake_ollama: FakeOllama) -> None:
    body = {"model": "llama3.1:8b", "prompt": "x", "stream": False}
    assert httpx.post(fake_ollama.url + "/v1/api/generate", json=body).status_code == 404
    fake_ollama.allow_v1_api = True
    assert httpx.post(fake_ollama.url + "/v1/api/generate", json=body).json()["done"] is True
    assert fake_ollama.counts["/v1/api/generate"] == 2


def test_cli_serves_until_terminated() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.ollama_server", "--port", "0", "--latency", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert line.startswith("listening on http://127.0.0.1:")
        url = line.split()[-1]
        assert httpx.get(url + "/").text == "Ollama is running"
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


@pytest.mark.timeout(60)
def test_distill_reply_is_linear_on_marker_runs() -> None:
    """Regression: a nested quantifier in the role-marker regex backtracked forever on
    lines such as a long run of dashes (a diff or a Markdown rule in a tool output)."""
    from tests.fakes.ollama_server import distill_reply

    transcript = "**User:** fix the parser please\n" + ("-" * 80 + " x\n") * 20 + "**Tool `bash`** — completed\n"
    assert distill_reply(transcript).startswith("#")
