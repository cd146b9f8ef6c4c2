"""The remote backend against a real OpenAI-compatible server: llama-cpp-python's own
``llama_cpp.server`` running smollm2-135m in a subprocess."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import jsonschema
import pytest

from memgpt_local.errors import ContextOverflowError, ModelError
from memgpt_local.functions.specs import DEFAULT_FUNCTIONS
from memgpt_local.runtime.grammar import build_call_grammar, parse_call, render_call
from memgpt_local.runtime.remote import RemoteBackend, call_schema, is_remote
from memgpt_local.schemas import ChatMessage, FunctionCall

N_CTX = 4096


def test_a_call_grammars_json_schema_admits_what_the_grammar_admits():
    grammar = build_call_grammar(DEFAULT_FUNCTIONS, thought_max_chars=300)
    schema = call_schema(grammar)
    calls = [
        FunctionCall(thought="greet", function="send_message", arguments={"message": "Hi Dana!"}),
        FunctionCall(thought="look", function="conversation_search", arguments={"query": "bees", "page": 0}),
        FunctionCall(
            thought="save", function="core_memory_append", arguments={"label": "human", "content": "Name: Dana"}
        ),
    ]
    for call in calls:
        spec = next(s for s in DEFAULT_FUNCTIONS if s.name == call.function)
        import json

        jsonschema.validate(json.loads(render_call(call, spec, heartbeat=True)), schema)
    with pytest.raises(jsonschema.ValidationError):  # a function that is not offered
        jsonschema.validate({"thought": "x", "function": "rm_rf", "arguments": {}, "request_heartbeat": False}, schema)
    with pytest.raises(jsonschema.ValidationError):  # a thought over its bound
        jsonschema.validate({"thought": "x" * 301, "function": "send_message", "arguments": {"message": "hi"}}, schema)
    assert is_remote("http://127.0.0.1:8080/v1") and not is_remote("qwen2.5-coder-1.5b")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# llama_cpp.server as `python -m llama_cpp.server` runs it, loading its model the way the
# in-process backend does: without extra buffer types where the build carries AMX kernels,
# which crash in decode on a CPU with AMX (see runtime/llama.amx_compiled)
SERVER_LAUNCHER = """
import runpy, sys
from memgpt_local.runtime.llama import amx_compiled, model_params
sys.argv = ["llama_cpp.server", *sys.argv[1:]]
with model_params(use_extra_buffers=not amx_compiled()):
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""


@pytest.fixture(scope="module")
def model_server(smollm_path: Path, tmp_path_factory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    args = ["--model", str(smollm_path), "--n_ctx", str(N_CTX), "--port", str(port), "--n_threads", "2"]
    command = [sys.executable, "-c", SERVER_LAUNCHER, *args, "--verbose", "False"]
    process = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise AssertionError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.real_model
def test_a_server_step_is_a_valid_call_streamed_and_counted_high(model_server: str, real_backend):
    with pytest.raises(ModelError, match="remote_n_ctx"):  # llama_cpp.server does not report its window
        RemoteBackend(model_server)
    backend = RemoteBackend(model_server, n_ctx=N_CTX)
    try:
        assert backend.n_ctx == N_CTX and backend.counting == "text"
        long = "Dana keeps three beehives on her roof in Leeds and drinks lapsang souchong. " * 20
        for messages in (
            [ChatMessage(role="system", content="You help."), ChatMessage(role="user", content="Hi! I'm Dana.")],
            [ChatMessage(role="system", content=long), ChatMessage(role="user", content=long)],
        ):
            exact = real_backend.count_tokens(messages)  # the same model in process, its template applied
            assert exact <= backend.count_tokens(messages) <= 1.6 * exact + 40
        grammar = build_call_grammar(DEFAULT_FUNCTIONS)
        pieces: list[str] = []
        prompt = [
            ChatMessage(role="system", content="Answer with one function call as JSON."),
            ChatMessage(role="user", content="Hi! I'm Dana and I keep bees."),
        ]
        completion = backend.complete(prompt, grammar=grammar, max_tokens=150, on_text=pieces.append)
        call = parse_call(completion.text, DEFAULT_FUNCTIONS)  # the server applied the grammar
        assert call.function in {s.name for s in DEFAULT_FUNCTIONS}
        assert len(pieces) > 3 and "".join(pieces) == completion.text  # streamed piece by piece
        with pytest.raises(ContextOverflowError):
            backend.complete(prompt, grammar=grammar, max_tokens=N_CTX)
    finally:
        backend.close()


@pytest.mark.real_model
def test_send_runs_a_whole_turn_on_the_server(model_server: str, data_home: Path):
    (data_home / "config.toml").write_text(f"[model]\nremote_n_ctx = {N_CTX}\n")
    env = {**os.environ, "MEMGPT_LOCAL_HOME": str(data_home)}
    command = [sys.executable, "-m", "memgpt_local", "send", "--model", model_server, "Hi! I'm Dana."]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()  # the turn's reply (smollm2-135m's words are its own)
    shown = subprocess.run(
        [sys.executable, "-m", "memgpt_local", "recall", "search", "--agent", "default", "Dana"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert "Dana" in shown.stdout, shown.stdout + shown.stderr
    dead = subprocess.run(
        [sys.executable, "-m", "memgpt_local", "send", "--model", "http://127.0.0.1:9/v1", "Hi"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dead.returncode != 0 and "cannot reach the model server" in dead.stderr and "Traceback" not in dead.stderr
