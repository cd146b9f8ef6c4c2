"""Helpers for the privacy tests: a CLI runner bound to the session embedder, raw-byte
checks of the memory file, and an agent with memory of every kind."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from memgpt_local.cli.main import cli
from memgpt_local.schemas import CoreBlock, NewMessage

SECRET = "Quetzalcoatl4711"


def run(runner, *args, ok=True, **kw):
    result = runner.invoke(cli, [str(a) for a in args], catch_exceptions=False, **kw)
    assert (result.exit_code == 0) == ok, (result.output, result.stderr)
    assert "Traceback" not in result.output + result.stderr
    return result


def raw_bytes(db: Path) -> bytes:
    """The memory file and its WAL/journal, as bytes on disk."""
    parts = [Path(str(db) + s) for s in ("", "-wal", "-journal")]
    return b"".join(p.read_bytes() for p in parts if p.exists())


def mentions(db: Path, text: str) -> bool:
    data = raw_bytes(db)
    return any(v.encode() in data for v in (text, text.lower(), text.upper()))


def seed_agent(store, name: str = "alice", secret: str = SECRET):
    """An agent with: an evicted (summarized) part holding ``secret``, an in-context part,
    a function call/result pair, passages (one holding ``secret``), a core line with it."""
    old = datetime(2024, 1, 5, 12, 0, tzinfo=timezone.utc)
    agent = store.agents.create(
        name,
        blocks=[
            CoreBlock(label="persona", value="I am a careful assistant.", limit=2000),
            CoreBlock(label="human", value=f"Name: Ada\nPassword hint: {secret}\nLikes tea", limit=2000),
        ],
    )
    evicted = store.recall.append(
        agent.id,
        [
            NewMessage(role="user", content=f"my password is {secret}", created_at=old, in_context=False),
            NewMessage(
                role="user", content="I was born in Tartu", created_at=old + timedelta(minutes=1), in_context=False
            ),
        ],
    )
    store.recall.set_summarized(agent.id, [m.id for m in evicted])
    store.agents.set_summary(agent.id, f"Ada was born in Tartu. Her password is {secret}.")
    store.recall.append(
        agent.id,
        [
            NewMessage(role="user", content="what is my favourite drink?", in_context=True),
            NewMessage(
                role="assistant",
                content="she likes tea",
                function_name="send_message",
                function_args={"message": "You like tea."},
                in_context=True,
            ),
            NewMessage(role="function", content='{"status": "OK"}', in_context=True),
        ],
    )
    store.archival.insert(agent.id, f"The vault code is {secret}.", created_at=old)
    store.archival.insert(agent.id, "The lighthouse keeper is named Oskar.")
    return store.agents.get(name)
