"""`memgpt-local serve` as a real server process: the HTTP API, its errors and guards, the
OpenAI-compatible endpoints through the official `openai` client, and one turn of the real
smollm2-135m streamed as server-sent events."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from store_sql import STORE_KINDS

TOKEN = "a-test-token-0123456789"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`memgpt-local serve` in a process of its own; with ``store_url``, on that database
    (``--store``), and ``client_env`` makes a `send` or `chat` use the same one."""

    def __init__(self, home: Path, *args: str, store_url: str | None = None):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "MEMGPT_LOCAL_HOME": str(home)}
        self.client_env = {**env, **({"MEMGPT_LOCAL_STORE": store_url} if store_url else {})}
        where = ["--store", store_url] if store_url else []
        command = [sys.executable, "-m", "memgpt_local", "serve", "--port", str(self.port), *where, *args]
        self.log = home / "server.log"
        self.process = subprocess.Popen(command, env=env, stdout=self.log.open("w"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise AssertionError(f"the server did not start: {self.log.read_text()}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def _script(path: Path, replies: list[str]) -> str:
    steps: list = []
    for reply in replies:
        steps.append(
            {
                "thought": "",
                "function": "send_message",
                "arguments": {"message": reply},
                "request_heartbeat": False,
            }
        )
        steps.append('{"facts": []}')
    path.write_text(json.dumps(steps))
    return f"scripted:{path}"


@pytest.fixture(params=STORE_KINDS)
def scripted_server(request: pytest.FixtureRequest, data_home: Path, tmp_path: Path) -> Iterator[Server]:
    """A server with a scripted model, on the memory file and on a Postgres database."""
    model = _script(tmp_path / "script.json", ["Hello Dana!", "Bees are great.", "Still here."])
    store_url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    server = Server(data_home, "--model", model, "--token", TOKEN, store_url=store_url)
    yield server
    server.stop()


def _client(server: Server, **headers: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}", **headers}, timeout=60)


def test_agents_turns_core_memory_and_search_over_http(scripted_server: Server):
    with _client(scripted_server) as http:
        assert http.get("/api/agents").json() == []
        created = http.post("/api/agents", json={"name": "dana", "human": "Name: Dana"})
        assert created.status_code == 201 and created.json()["name"] == "dana"
        assert http.post("/api/agents", json={"name": "dana"}).status_code == 400  # exists: one-line error

        turn = http.post("/api/agents/dana/messages", json={"message": "Hi! I'm Dana and I keep bees."}).json()
        assert turn["messages"] == ["Hello Dana!"] and turn["steps"][0]["function"] == "send_message"

        blocks = {b["label"]: b["value"] for b in http.get("/api/agents/dana/memory/core").json()}
        assert blocks["human"] == "Name: Dana"
        edited = http.put("/api/agents/dana/memory/core/human", json={"value": "Name: Dana\nKeeps: bees"})
        assert edited.status_code == 200 and edited.json()["value"] == "Name: Dana\nKeeps: bees"
        over = http.put("/api/agents/dana/memory/core/human", json={"value": "x" * 5000})
        assert over.status_code == 400 and "limit" in over.json()["error"]

        hits = http.get("/api/agents/dana/search/recall", params={"q": "bees"}).json()
        assert hits["total"] >= 1 and "bees" in hits["hits"][0]["text"].lower()
        assert http.get("/api/agents/dana/search/archival", params={"q": "bees"}).json()["total"] == 0

        shown = http.get("/api/agents/dana").json()
        assert shown["messages"] >= 3 and {b["label"] for b in shown["blocks"]} == {"persona", "human"}
        assert "/api/agents/{name}/messages" in http.get("/openapi.json").json()["paths"]

        assert http.delete("/api/agents/dana").status_code == 204
        missing = http.get("/api/agents/dana")
        assert missing.status_code == 404 and missing.json()["error"].startswith("no agent")


def test_a_turn_streams_as_server_sent_events(scripted_server: Server):
    with _client(scripted_server) as http:
        http.post("/api/agents", json={"name": "dana"})
        body = {"message": "Tell me about bees.", "stream": True}
        with http.stream("POST", "/api/agents/dana/messages", json=body) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            events = [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "step" and kinds[-1] == "done" and "call" in kinds
    assert "".join(e["delta"] for e in events if e["type"] == "message") == "Hello Dana!"
    assert events[-1]["messages"] == ["Hello Dana!"]


def test_errors_are_one_json_line_and_the_guards_hold(scripted_server: Server):
    url = scripted_server.url
    assert httpx.get(f"{url}/api/agents").status_code == 401  # no token
    assert httpx.get(f"{url}/api/agents", headers={"Authorization": "Bearer wrong-token-000000"}).status_code == 401
    with _client(scripted_server) as http:
        assert http.get("/api/health").json()["ok"] is True
        page = http.get("/api/agents", headers={"Origin": "http://evil.example"})
        assert page.status_code == 403 and "not accepted" in page.json()["error"]
        assert http.get("/api/agents", headers={"Origin": scripted_server.url}).status_code == 200
        big = http.post("/api/agents", content=b"x" * (2 << 20), headers={"Content-Type": "application/json"})
        assert big.status_code == 413

        def chunks() -> Iterator[bytes]:  # no length announced: counted as it arrives
            for _ in range(40):
                yield b"x" * 65536

        assert http.post("/api/agents", content=chunks()).status_code == 413
        bad = http.post("/api/agents", json={"nom": "x"})
        assert bad.status_code == 422 and bad.json()["error"].startswith("name:")
        empty = http.post("/api/agents", json={"name": "dana"}) and http.post(
            "/api/agents/dana/messages", json={"message": "  "}
        )
        assert empty.status_code == 400 and empty.json() == {"error": "the message is empty", "fix": "send some text"}
        for response in (bad, empty):
            assert "Traceback" not in response.text


def test_binding_beyond_loopback_needs_a_token(data_home: Path):
    result = subprocess.run(
        [sys.executable, "-m", "memgpt_local", "serve", "--host", "0.0.0.0", "--port", str(_free_port())],
        env={**os.environ, "MEMGPT_LOCAL_HOME": str(data_home)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "pass --token" in result.stderr


def test_the_openai_client_talks_to_an_agent(scripted_server: Server):
    from openai import NotFoundError, OpenAI

    with _client(scripted_server) as http:
        http.post("/api/agents", json={"name": "dana"})
    client = OpenAI(base_url=f"{scripted_server.url}/v1", api_key=TOKEN)
    assert [m.id for m in client.models.list()] == ["dana"]
    reply = client.chat.completions.create(
        model="dana",
        messages=[{"role": "system", "content": "ignored"}, {"role": "user", "content": "Hi there"}],
    )
    assert reply.choices[0].message.content == "Hello Dana!" and reply.choices[0].finish_reason == "stop"
    stream = client.chat.completions.create(model="dana", messages=[{"role": "user", "content": "Bees?"}], stream=True)
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream)
    assert text == "Bees are great."
    with pytest.raises(NotFoundError):
        client.chat.completions.create(model="nobody", messages=[{"role": "user", "content": "Hi"}])


def test_an_openai_stream_never_sends_a_draft_that_was_held_back(data_home: Path, tmp_path: Path):
    from openai import OpenAI

    said = "I keep three beehives on my roof in Leeds."
    steps = [
        {"thought": "", "function": "send_message", "arguments": {"message": said}, "request_heartbeat": False},
        {"thought": "", "function": "send_message", "arguments": {"message": "Bees!"}, "request_heartbeat": False},
        '{"facts": []}',
    ]
    (tmp_path / "held.json").write_text(json.dumps(steps))
    server = Server(data_home, "--model", f"scripted:{tmp_path / 'held.json'}", "--token", TOKEN)
    try:
        with _client(server) as http:
            http.post("/api/agents", json={"name": "dana"})
        client = OpenAI(base_url=f"{server.url}/v1", api_key=TOKEN)
        stream = client.chat.completions.create(model="dana", messages=[{"role": "user", "content": said}], stream=True)
        assert "".join(chunk.choices[0].delta.content or "" for chunk in stream) == "Bees!"  # the copy was held
    finally:
        server.stop()


@pytest.mark.real_model
def test_a_real_model_turn_streams_through_the_server(data_home: Path, smollm_path: Path):
    (data_home / "config.toml").write_text(
        "[model]\nn_ctx_cap = 2048\nn_threads = 2\n\n[agent]\nheartbeat_cap = 1\nreply_reserve_tokens = 160\n"
        "message_max_chars = 120\nthought_max_chars = 60\n"
    )
    server = Server(data_home, "--model", str(smollm_path))
    try:
        with httpx.Client(base_url=server.url, timeout=300) as http:
            http.post("/api/agents", json={"name": "dana"})
            body = {"message": "Hi! I'm Dana and I keep three beehives in Leeds.", "stream": True}
            with http.stream("POST", "/api/agents/dana/messages", json=body) as response:
                events = [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]
            assert events[-1]["type"] == "done", events[-1]
            deltas = [e for e in events if e["type"] in ("thought", "message")]
            assert len(deltas) > 3  # streamed piece by piece, not as one block
            shown = http.get("/api/agents/dana").json()
            assert shown["messages"] >= 3
    finally:
        server.stop()
    assert list((data_home / "memory.db.kv").iterdir())  # the agent's KV state was saved


def test_send_runs_its_turn_on_the_running_server(scripted_server: Server, data_home: Path):
    from memgpt_local.server.discovery import running_server

    info = running_server(data_home)
    assert info is not None and info.url == scripted_server.url and info.token == TOKEN
    assert (data_home / "server.json").stat().st_mode & 0o077 == 0  # the token file is the owner's only
    env = scripted_server.client_env
    sent = subprocess.run(
        [sys.executable, "-m", "memgpt_local", "send", "--agent", "dana", "Hi there"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout == "Hello Dana!\n"  # the agent was created on the server, as in-process send does
    as_json = subprocess.run(
        [sys.executable, "-m", "memgpt_local", "send", "--agent", "dana", "--json", "And bees?"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    record = json.loads(as_json.stdout)
    assert record["messages"] == ["Bees are great."] and set(record) == {"steps", "messages", "core_memory"}
    with _client(scripted_server) as http:
        assert [m["text"] for m in http.get("/api/agents/dana/messages").json() if m["role"] == "user"] == [
            "Hi there",
            "And bees?",
        ]
    scripted_server.stop()
    assert not (data_home / "server.json").exists()  # withdrawn at exit


def test_a_server_file_left_by_a_dead_process_is_ignored_and_removed(data_home: Path):
    from memgpt_local.server.discovery import ServerInfo, announce, running_server

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    announce(data_home, ServerInfo(url=f"http://127.0.0.1:{_free_port()}", pid=int(gone.stdout)))
    assert running_server(data_home) is None and not (data_home / "server.json").exists()


def test_forget_shows_its_plan_then_removes_for_good_and_export_writes_the_agent(scripted_server: Server):
    with _client(scripted_server) as http:
        http.post("/api/agents", json={"name": "dana", "human": "Name: Dana\nBees: three hives"})
        http.post("/api/agents/dana/messages", json={"message": "My bees swarmed today!"})
        document = json.loads(http.get("/api/agents/dana/export").text)
        assert any("swarmed" in m["content"] for m in document["messages"])

        plan = http.post("/api/agents/dana/forget", json={"search": "bees"}).json()
        assert not plan["applied"] and "1 message(s)" in plan["plan"][0]
        assert http.get("/api/agents/dana/search/recall", params={"q": "swarmed"}).json()["total"] >= 1
        done = http.post("/api/agents/dana/forget", json={"search": "bees", "apply": True}).json()
        assert done["applied"] and done["messages"] == 1 and done["core_lines"] == 1
        assert http.get("/api/agents/dana/search/recall", params={"q": "swarmed"}).json()["total"] == 0
        blocks = {b["label"]: b["value"] for b in http.get("/api/agents/dana/memory/core").json()}
        assert blocks["human"] == "Name: Dana"
        two = http.post("/api/agents/dana/forget", json={"search": "x", "all": True})
        assert two.status_code == 400 and "exactly one" in two.json()["error"]


def test_chat_runs_on_the_running_server_with_its_slash_commands(scripted_server: Server, data_home: Path):
    with _client(scripted_server) as http:  # a known user: the login's greeting begins "Hello Dana!"
        assert http.post("/api/agents", json={"name": "dana", "human": "Name: Dana"}).status_code in (200, 201)
    chat = subprocess.run(
        [sys.executable, "-m", "memgpt_local", "chat", "--agent", "dana"],
        env=scripted_server.client_env,
        input="Tell me about bees.\n/memory\n/nosuch\n/exit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert chat.returncode == 0, chat.stderr
    out = chat.stdout
    assert f"on the server at {scripted_server.url}" in out
    assert "assistant: Hello Dana!" in out and "assistant: Bees are great." in out  # login, then the message
    assert "[persona]" in out and "[human]" in out  # /memory ran on the server
    assert "unknown command /nosuch" in chat.stderr
    with _client(scripted_server) as http:
        users = [m["text"] for m in http.get("/api/agents/dana/messages").json() if m["role"] == "user"]
    assert users == ["Tell me about bees."]


def test_without_a_token_only_loopback_host_names_are_answered(data_home: Path, tmp_path: Path):
    server = Server(data_home, "--model", _script(tmp_path / "s.json", ["Hi."]))
    try:
        assert httpx.get(f"{server.url}/api/agents").status_code == 200
        rebound = httpx.get(f"{server.url}/api/agents", headers={"Host": f"attacker.example:{server.port}"})
        assert rebound.status_code == 403 and "127.0.0.1" in rebound.json()["error"]  # DNS rebinding
        local = httpx.get(f"{server.url}/api/agents", headers={"Host": f"localhost:{server.port}"})
        assert local.status_code == 200
    finally:
        server.stop()
