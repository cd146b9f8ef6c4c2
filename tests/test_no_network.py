"""No network, proven: a whole session in subprocesses with every socket connection
attempt recorded by a ``sitecustomize`` on PYTHONPATH; none may happen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SITECUSTOMIZE = """
import os, socket, traceback

_LOG = os.environ["MEMGPT_NETLOG"]


def _record(kind, address):
    with open(_LOG, "a", encoding="utf-8") as handle:
        stack = "".join(traceback.format_stack(limit=6)).replace("\\n", " | ")
        handle.write(f"{os.getpid()} {kind} {address!r} {stack}\\n")


_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex
_create_connection = socket.create_connection


def connect(self, address):
    _record("connect", address)
    return _connect(self, address)


def connect_ex(self, address):
    _record("connect_ex", address)
    return _connect_ex(self, address)


def create_connection(address, *args, **kwargs):
    _record("create_connection", address)
    return _create_connection(address, *args, **kwargs)


socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
socket.create_connection = create_connection
with open(_LOG, "a", encoding="utf-8") as handle:
    handle.write(f"{os.getpid()} started\\n")
"""

# One step per turn (send_message only) and a window that needs no eviction: the test is
# about sockets, so it keeps the model's work small.
CONFIG = (
    "[model]\nn_ctx_cap = 4096\nn_threads = 2\n\n[agent]\nheartbeat_cap = 1\n"
    "reply_reserve_tokens = 120\nmessage_max_chars = 200\nthought_max_chars = 80\n"
)


@pytest.fixture
def recorded_env(tmp_path, data_home):
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE)
    log = tmp_path / "net.log"
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(hooks), os.environ.get("PYTHONPATH", "")]),
        MEMGPT_NETLOG=str(log),
        MEMGPT_LOCAL_HOME=str(data_home),
    )
    for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # the package must set them itself
        env.pop(key, None)
    return env, log


def cli(env, *args, timeout=600):
    done = subprocess.run(
        [sys.executable, "-m", "memgpt_local", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.stdout


def connections(log: Path) -> tuple[int, list[str]]:
    lines = log.read_text().splitlines() if log.exists() else []
    started = sum(1 for line in lines if line.endswith(" started"))
    return started, [line for line in lines if not line.endswith(" started")]


@pytest.mark.real_model
@pytest.mark.slow
def test_a_whole_session_opens_no_socket(recorded_env, smollm_path, data_home, tmp_path):
    env, log = recorded_env
    (data_home / "config.toml").write_text(CONFIG)
    doc = tmp_path / "notes.md"
    doc.write_text("# Trip\n\nThe ferry to Helsinki leaves at 7:30 from the old harbour.\n")
    cli(env, "agents", "create", "ada")
    loaded = subprocess.run(
        [sys.executable, "-m", "memgpt_local", "load", "--help"], env=env, capture_output=True, text=True
    )
    if loaded.returncode == 0:
        cli(env, "load", doc, "--agent", "ada")
    else:
        lines = tmp_path / "p.jsonl"
        lines.write_text(json.dumps({"text": doc.read_text()}) + "\n")
        cli(env, "archival", "insert", "--agent", "ada", "--file", lines)
    for text in ("Hi, I am Ada and I live in Tartu.", "When does my ferry leave?", "Thanks, bye."):
        cli(env, "send", "--agent", "ada", "--model", smollm_path, "--json", text)
    assert "ferry" in cli(env, "archival", "search", "--agent", "ada", "ferry to Helsinki")
    assert "Tartu" in cli(env, "recall", "search", "--agent", "ada", "Tartu")
    exported = json.loads(cli(env, "export", "--agent", "ada"))
    assert len(exported["messages"]) >= 6
    started, attempts = connections(log)
    assert started >= 9  # the hook ran in every process
    assert attempts == [], "\n".join(attempts)


def test_embedder_sets_the_hub_offline(recorded_env):
    env, log = recorded_env
    code = (
        "import os, memgpt_local.memory.embed as e\n"
        "from memgpt_local.config import EmbedderSettings\n"
        "v = e.make_embedder(EmbedderSettings()).embed(['hello'])\n"
        "import huggingface_hub.constants as c\n"
        "print(os.environ['HF_HUB_OFFLINE'], os.environ['TRANSFORMERS_OFFLINE'], "
        "c.HF_HUB_OFFLINE, v.shape)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "1", "True", "(1,", "384)"]
    started, attempts = connections(log)
    assert started == 1 and attempts == []


def test_the_hook_does_record(recorded_env):
    env, log = recorded_env
    code = "import socket\ns = socket.socket()\nprint(s.connect_ex(('127.0.0.1', 9)))\n"
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60)
    _, attempts = connections(log)
    assert len(attempts) == 1 and "127.0.0.1" in attempts[0]
