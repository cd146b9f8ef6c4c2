"""Fuzzing with hypothesis: the completion parser, every CLI command's arguments, search
queries, import files (recall, archival, agent), config files and GGUF headers.

Every input must end in a result or in the project's own error type: never a traceback,
never an exit status other than 0, 1 or 2, and never a change to data that was there
before. The budget comes from a hypothesis profile chosen by ``MEMGPT_FUZZ``: ``ci``
(default, about 1,100 inputs in all) or ``full`` (about 11,000;
`python scripts/fuzz_campaign.py` runs it and reports the counts). With
``MEMGPT_FUZZ_REPORT=FILE`` each test appends ``name inputs`` to FILE.
"""

from __future__ import annotations

import json
import os
import struct
from collections import Counter
from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from privacy_helpers import seed_agent

from memgpt_local.cli.main import cli
from memgpt_local.config import load_settings
from memgpt_local.errors import BadModelFileError, CallParseError, ConfigError, InvalidInputError, MemGPTLocalError
from memgpt_local.functions.specs import DEFAULT_FUNCTIONS
from memgpt_local.memory import open_store
from memgpt_local.memory.importing import read_chat_jsonl, read_passages_jsonl
from memgpt_local.portability.agentfile import dumps, export_agent, import_agent, read_document
from memgpt_local.runtime.gguf import read_gguf_info
from memgpt_local.runtime.grammar import parse_call

SCALE = {"ci": 1, "full": 10}[os.environ.get("MEMGPT_FUZZ", "ci")]
COUNTS: Counter[str] = Counter()


def budget(n: int):
    return settings(max_examples=n * SCALE, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    target = os.environ.get("MEMGPT_FUZZ_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            for name, n in sorted(COUNTS.items()):
                handle.write(f"{name} {n}\n")


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="module")
def fuzz_store(fuzz_dir, embedder):
    """One store for a whole module: a 'precious' agent whose data must never change."""
    store = open_store(fuzz_dir / "memory.db", embedder)
    seed_agent(store, "precious")
    yield store
    assert store.integrity_check() == "ok"
    store.close()


def snapshot(store) -> tuple:
    agent = store.agents.get("precious")
    return (
        agent.summary,
        [b.value for b in store.core.blocks(agent.id)],
        [(m.id, m.content) for m in store.recall.all(agent.id)],
        [(p.id, p.text) for p in store.archival.all(agent.id)],
    )


# ------------------------------------------------------------------ the completion parser

KEYS = st.sampled_from(["thought", "function", "arguments", "request_heartbeat", "x", ""])
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=8), inner, max_size=5),
    max_leaves=12,
)
CALLS = st.fixed_dictionaries(
    {"function": st.sampled_from([f.name for f in DEFAULT_FUNCTIONS]) | JSONISH},
    optional={
        "thought": JSONISH,
        "request_heartbeat": JSONISH,
        "arguments": st.dictionaries(
            st.sampled_from(
                [
                    "message",
                    "query",
                    "page",
                    "label",
                    "content",
                    "old_content",
                    "new_content",
                    "start_date",
                    "end_date",
                    "minutes",
                ]
            ),
            JSONISH,
            max_size=4,
        )
        | JSONISH,
    },
)


@budget(300)
@given(
    st.one_of(
        st.text(max_size=200),
        CALLS.map(json.dumps),
        CALLS.map(lambda c: json.dumps(c)[: len(json.dumps(c)) // 2]),
        st.integers(1, 3000).map(lambda n: "[" * n),
        JSONISH.map(json.dumps),
    )
)
def test_parse_call_never_crashes(text):
    COUNTS["parse_call"] += 1
    try:
        call = parse_call(text, DEFAULT_FUNCTIONS)
    except CallParseError as exc:
        assert str(exc).startswith("Error: ")
    else:
        assert call.function in {f.name for f in DEFAULT_FUNCTIONS}


# ------------------------------------------------------------------ every CLI command

SKIP = {("eval",), ("chat",), ("models", "pull"), ("serve",), ("mcp",)}  # benchmarks, interactive, downloads, servers


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> dict[tuple, click.Command]:
    found = {}
    for name, command in group.commands.items():
        path = prefix + (name,)
        if any(path[: len(s)] == s for s in SKIP):
            continue
        found[path] = command
        if isinstance(command, click.Group):
            found.update(command_paths(command, path))
    return found


COMMANDS = command_paths(cli)


def words(command: click.Command) -> list[str]:
    names = [n for p in command.params for n in getattr(p, "opts", []) if n.startswith("-")]
    return [n for n in names if n not in ("--yes", "-y")]


TOKENS = st.one_of(
    st.sampled_from(
        [
            "precious",
            "ghost",
            "1",
            "0",
            "-1",
            "999999999999999999999",
            "2024-01-05",
            "2024-13-45",
            "",
            " ",
            "--",
            "-",
            "hybrid",
            "text",
            "vector",
            "a b",
            "scripted:missing.json",
            "missing.gguf",
            "\x01",
            "é",
            "*" * 300,
        ]
    ),
    st.text(st.characters(blacklist_characters="\x00"), max_size=20),
)  # argv never holds NUL


@st.composite
def argvs(draw):
    path = draw(st.sampled_from(sorted(COMMANDS)))
    options = words(COMMANDS[path]) + ["--help", "--json", "--data-dir"]
    tail = draw(st.lists(st.one_of(st.sampled_from(options), TOKENS), max_size=6))
    return list(path) + tail


@pytest.fixture
def cli_env(fuzz_store, fuzz_dir, embedder, monkeypatch):
    from memgpt_local.errors import PullError

    def no_pull(*args, **kwargs):
        raise PullError("downloads are off while fuzzing")

    monkeypatch.setattr("memgpt_local.memory.embed.make_embedder", lambda settings: embedder)
    monkeypatch.setattr("memgpt_local.runtime.pull.pull_model", no_pull)
    monkeypatch.setenv("MEMGPT_LOCAL_HOME", str(fuzz_dir))
    monkeypatch.chdir(fuzz_dir)
    return fuzz_store


@budget(150)
@given(argv=argvs())
def test_cli_arguments_never_crash(cli_env, cli_runner, argv):
    COUNTS["cli_argv"] += 1
    before = snapshot(cli_env)
    result = cli_runner.invoke(cli, argv, input="")
    assert result.exit_code in (0, 1, 2), (argv, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), (argv, repr(result.exception))
    assert "Traceback" not in result.output + result.stderr
    after = snapshot(cli_env)
    assert after[:2] == before[:2] and set(before[2]) <= set(after[2]) and set(before[3]) <= set(after[3]), argv


# ------------------------------------------------------------------ search queries


@budget(150)
@given(
    query=st.text(max_size=80)
    | st.sampled_from(['"', "AND", "NEAR(a b)", "a:b", "*", "-x", "^", "(", "' OR 1=1 --", "\x00"]),
    mode=st.sampled_from(["hybrid", "text", "vector"]),
    page=st.integers(-2, 3),
    size=st.integers(-1, 60),
    kind=st.sampled_from(["recall", "archival"]),
)
def test_search_queries(fuzz_store, query, mode, page, size, kind):
    COUNTS["search"] += 1
    agent = fuzz_store.agents.get("precious")
    search = getattr(fuzz_store, kind).search
    try:
        result = search(agent.id, query, page=page, page_size=size, mode=mode)
    except InvalidInputError:
        return
    assert len(result.items) <= size and result.total >= 0


# ------------------------------------------------------------------ import files

LINE_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["user", "assistant", "system", "function", "bot"]) | JSONISH,
        "content": st.text(max_size=40) | JSONISH,
        "text": st.text(max_size=40) | JSONISH,
        "timestamp": st.sampled_from(["2024-01-05T10:00:00", "2024-01-05", "yesterday", ""]) | JSONISH,
    },
)
LINES = st.lists(st.one_of(LINE_VALUES.map(json.dumps), st.text(max_size=30), JSONISH.map(json.dumps)), max_size=6)


def write(path: Path, data: str | bytes) -> Path:
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8", errors="surrogatepass")
    return path


@budget(100)
@given(lines=LINES, kind=st.sampled_from(["recall", "archival"]), raw=st.binary(max_size=40))
def test_jsonl_imports_all_or_nothing(fuzz_store, tmp_path_factory, lines, kind, raw):
    COUNTS["jsonl_import"] += 1
    path = tmp_path_factory.mktemp("jsonl") / "in.jsonl"
    write(path, "\n".join(lines) + "\n" if lines else raw)
    agent = fuzz_store.agents.get("precious")
    before = snapshot(fuzz_store)
    reader = read_chat_jsonl if kind == "recall" else read_passages_jsonl
    try:
        items = reader(path)
    except InvalidInputError:
        assert snapshot(fuzz_store) == before
        return
    store = fuzz_store.recall if kind == "recall" else fuzz_store.archival
    n = store.count(agent.id)
    try:
        if kind == "recall":
            store.append(agent.id, items)
        else:
            store.insert_many(agent.id, items)
    except InvalidInputError:
        assert store.count(agent.id) == n
        return
    assert store.count(agent.id) == n + len(items)
    # leave the precious agent as it was: remove what this example added
    added = [x.id for x in (store.all(agent.id))][n:] if kind == "archival" else None
    if kind == "archival":
        fuzz_store.archival.delete(agent.id, added)
    else:
        fuzz_store.recall.delete(
            agent.id, [m.id for m in fuzz_store.recall.all(agent.id) if (m.id, m.content) not in set(before[2])]
        )
    assert snapshot(fuzz_store) == before


@pytest.fixture(scope="module")
def exported(fuzz_store):
    return json.loads(dumps(export_agent(fuzz_store, "precious")))


def mutate(doc: dict, path: list, value) -> dict:
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
            node = node[key]
        else:
            return doc
    if isinstance(node, dict):
        node[path[-1]] = value
    elif isinstance(node, list) and node:
        node[path[-1] % len(node) if isinstance(path[-1], int) else 0] = value
    return doc


PATHS = st.lists(
    st.sampled_from(
        [
            "format",
            "version",
            "agent",
            "name",
            "created_at",
            "state",
            "core_memory",
            "messages",
            "passages",
            "sources",
            "role",
            "content",
            "limit",
            "label",
            "value",
            "source",
            "text",
            "in_context",
            "summarized",
            "function_args",
            0,
            1,
            -1,
        ]
    ),
    min_size=1,
    max_size=4,
)


@budget(100)
@given(path=PATHS, value=JSONISH, truncate=st.integers(0, 400) | st.none())
def test_agent_file_import(fuzz_store, exported, tmp_path_factory, path, value, truncate):
    COUNTS["agent_import"] += 1
    text = json.dumps(mutate(exported, path, value))
    if truncate is not None:
        text = text[:truncate]
    file = write(tmp_path_factory.mktemp("af") / "agent.json", text)
    names = [a.name for a in fuzz_store.agents.list()]
    before = snapshot(fuzz_store)
    try:
        document = read_document(file)
        created = import_agent(fuzz_store, document, "imported")
    except MemGPTLocalError:
        assert [a.name for a in fuzz_store.agents.list()] == names
    else:
        fuzz_store.agents.delete(created)
    assert snapshot(fuzz_store) == before


# ------------------------------------------------------------------ config files

TOML_VALUES = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=False).map(repr),
    st.booleans().map(lambda b: str(b).lower()),
    st.text(max_size=12).map(json.dumps),
    st.just("[1, 2]"),
    st.just("{}"),
)
SECTIONS = {
    "model": ["default", "n_ctx_cap", "n_threads", "n_batch", "temperature", "seed"],
    "embedder": ["model", "batch_size", "device"],
    "agent": [
        "core_memory_limit",
        "warning_fraction",
        "heartbeat_cap",
        "page_size",
        "archival_search_mode",
        "nonsense",
    ],
    "bogus": ["x"],
}


@st.composite
def config_texts(draw):
    if draw(st.booleans()):
        return draw(st.text(max_size=120))
    lines = []
    for section in draw(st.lists(st.sampled_from(sorted(SECTIONS)), max_size=3, unique=True)):
        lines.append(f"[{section}]")
        for key in draw(st.lists(st.sampled_from(SECTIONS[section]), max_size=4, unique=True)):
            lines.append(f"{key} = {draw(TOML_VALUES)}")
    return "\n".join(lines) + "\n"


@budget(100)
@given(text=config_texts())
def test_config_files(tmp_path_factory, text):
    COUNTS["config"] += 1
    home = tmp_path_factory.mktemp("cfg")
    write(home / "config.toml", text)
    try:
        load_settings(home)
    except ConfigError as exc:
        assert str(home / "config.toml") in str(exc)


# ------------------------------------------------------------------ GGUF headers


def gguf_header(kv: list[tuple[str, int, bytes]], version: int = 3, n_tensors: int = 0) -> bytes:
    out = b"GGUF" + struct.pack("<IQQ", version, n_tensors, len(kv))
    for key, vtype, payload in kv:
        out += struct.pack("<Q", len(key)) + key.encode() + struct.pack("<I", vtype) + payload
    return out


def gguf_string(text: str) -> bytes:
    return struct.pack("<Q", len(text.encode())) + text.encode()


VALID_GGUF = gguf_header(
    [
        ("general.architecture", 8, gguf_string("llama")),
        ("general.alignment", 4, struct.pack("<I", 32)),
        ("llama.context_length", 4, struct.pack("<I", 2048)),
        ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2) + gguf_string("a") + gguf_string("b")),
    ],
    n_tensors=0,
)


@st.composite
def gguf_files(draw):
    kind = draw(st.sampled_from(["random", "flip", "cut", "values"]))
    if kind == "random":
        return b"GGUF" * draw(st.integers(0, 1)) + draw(st.binary(max_size=200))
    if kind == "cut":
        return VALID_GGUF[: draw(st.integers(0, len(VALID_GGUF)))]
    if kind == "flip":
        data = bytearray(VALID_GGUF)
        for _ in range(draw(st.integers(1, 6))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    vtype, payload = draw(
        st.one_of(
            st.tuples(st.integers(0, 14), st.binary(max_size=24)),
            st.sampled_from(
                [
                    (8, gguf_string("abc")),
                    (6, struct.pack("<f", 1.5)),
                    (12, struct.pack("<d", float("inf"))),
                    (5, struct.pack("<i", -32)),
                    (4, struct.pack("<I", 0)),
                    (7, b"\x01"),
                ]
            ),
        )
    )
    return gguf_header(
        [("general.architecture", 8, gguf_string("llama")), ("general.alignment", vtype, payload)],
        version=draw(st.sampled_from([2, 3, 4])),
        n_tensors=draw(st.integers(0, 3)),
    )


@budget(100)
@given(data=gguf_files())
def test_gguf_headers(tmp_path_factory, data):
    COUNTS["gguf"] += 1
    path = write(tmp_path_factory.mktemp("gguf") / "m.gguf", data)
    try:
        info = read_gguf_info(path)
    except BadModelFileError as exc:
        assert str(path) in str(exc)
    else:  # a flipped byte can leave a valid header (another architecture name)
        assert isinstance(info.architecture, str) and info.version in (2, 3)
