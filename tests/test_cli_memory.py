"""The memory CLI: agents, archival, recall, reembed, and their error paths."""

from __future__ import annotations

import json

import pytest

from memgpt_local.cli.main import cli


@pytest.fixture(autouse=True)
def shared_embedder(embedder, monkeypatch):
    """Reuse the session's loaded model instead of loading it in every command."""
    monkeypatch.setattr("memgpt_local.memory.embed.make_embedder", lambda settings: embedder)


def run(runner, *args, ok=True, **kw):
    result = runner.invoke(cli, list(args), catch_exceptions=False, **kw)
    assert (result.exit_code == 0) == ok, (result.output, result.stderr)
    return result


def test_agents_lifecycle(cli_runner, tmp_path):
    persona = tmp_path / "persona.txt"
    persona.write_text("I am a pirate assistant.\n")
    assert "created agent sam" in run(cli_runner, "agents", "create", "sam", "--persona", str(persona)).output
    run(cli_runner, "agents", "create", "kim")
    assert run(cli_runner, "agents", "list").output.splitlines()[0].startswith("kim")
    shown = run(cli_runner, "agents", "show", "sam").output
    assert "I am a pirate assistant." in shown and "Nothing is known about the user yet." in shown
    data = json.loads(run(cli_runner, "agents", "show", "sam", "--json").output)
    assert data["name"] == "sam" and data["passages"] == 0
    run(cli_runner, "agents", "delete", "sam", input="n\n", ok=False)
    run(cli_runner, "agents", "delete", "sam", "--yes")
    assert [a["name"] for a in json.loads(run(cli_runner, "agents", "list", "--json").output)] == ["kim"]


def test_errors_are_one_line(cli_runner, tmp_path):
    for args in (
        ["agents", "show", "ghost"],
        ["agents", "create", "bad name"],
        ["archival", "search", "--agent", "ghost", "x"],
    ):
        result = run(cli_runner, *args, ok=False)
        assert result.exit_code == 1
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
        assert "Traceback" not in result.output
    run(cli_runner, "agents", "create", "a")
    result = run(cli_runner, "archival", "search", "--agent", "a", "   ", ok=False)
    assert "empty" in result.stderr
    result = run(cli_runner, "archival", "search", "--agent", "a", "x", "--page", "0", ok=False)
    assert result.exit_code == 2
    blocked = tmp_path / "file"
    blocked.write_text("")
    result = run(cli_runner, "--data-dir", str(blocked / "sub"), "agents", "list", ok=False)
    assert result.stderr.startswith("error: cannot create the data directory")


def test_archival_insert_and_search(cli_runner, tmp_path):
    run(cli_runner, "agents", "create", "a")
    run(cli_runner, "archival", "insert", "--agent", "a", "The lighthouse keeper is named Oskar.")
    lines = tmp_path / "p.jsonl"
    lines.write_text("\n".join(json.dumps({"text": f"lighthouse fact {i}"}) for i in range(7)) + "\n")
    assert "inserted 7" in run(cli_runner, "archival", "insert", "--agent", "a", "--file", str(lines)).output
    out = run(cli_runner, "archival", "search", "--agent", "a", "who is the lighthouse keeper").output
    assert out.startswith("showing 1-5 of") and "Oskar" in out
    data = json.loads(
        run(
            cli_runner, "archival", "search", "--agent", "a", "lighthouse", "--page", "2", "--json", "--mode", "text"
        ).output
    )
    assert data["total"] == 8 and data["page"] == 2 and len(data["items"]) == 3
    result = run(
        cli_runner, "archival", "search", "--agent", "a", "lighthouse", "--mode", "text", "--page", "3", ok=False
    )
    assert "past the last page (2)" in result.stderr
    run(cli_runner, "archival", "insert", "--agent", "a", ok=False)


def test_bad_line_imports_nothing(cli_runner, tmp_path):
    run(cli_runner, "agents", "create", "a")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"text": "fine"}) + "\n" + "{not json\n")
    result = run(cli_runner, "archival", "insert", "--agent", "a", "--file", str(bad), ok=False)
    assert "line 2" in result.stderr and "nothing was imported" in result.stderr
    chat = tmp_path / "chat.jsonl"
    chat.write_text(
        json.dumps({"role": "user", "content": "hi", "timestamp": "2024-01-01T10:00:00Z"})
        + "\n\n"
        + json.dumps({"role": "robot", "content": "x"})
        + "\n"
    )
    result = run(cli_runner, "recall", "import", "--agent", "a", str(chat), ok=False)
    assert "line 3" in result.stderr and "role" in result.stderr
    data = json.loads(run(cli_runner, "agents", "show", "a", "--json").output)
    assert data["messages"] == 0 and data["passages"] == 0


def test_recall_import_search_and_dates(cli_runner, tmp_path, data_home, embedder):
    run(cli_runner, "agents", "create", "a")
    chat = tmp_path / "chat.jsonl"
    chat.write_text(
        "\n".join(
            json.dumps(m)
            for m in [
                {
                    "role": "user",
                    "content": "I adopted a greyhound called Biscuit",
                    "timestamp": "2024-02-10T09:00:00Z",
                },
                {"role": "assistant", "content": "Biscuit is a great name!", "timestamp": "2024-02-10T09:01:00+00:00"},
                {"role": "user", "content": "Booked flights to Oslo", "timestamp": "2024-03-01T18:30:00"},
            ]
        )
        + "\n"
    )
    assert "imported 3" in run(cli_runner, "recall", "import", "--agent", "a", str(chat)).output
    data = json.loads(run(cli_runner, "recall", "search", "--agent", "a", "my new dog", "--json").output)
    assert "greyhound" in data["items"][0]["text"] and data["items"][0]["created_at"].startswith("2024-02-10T09:00")
    out = run(cli_runner, "recall", "dates", "--agent", "a", "2024-03-01", "2024-03-31").output
    assert "Oslo" in out and "Biscuit" not in out
    assert (
        "not a date" in run(cli_runner, "recall", "dates", "--agent", "a", "2024-02-30", "2024-03-01", ok=False).stderr
    )
    from memgpt_local.memory import open_store

    with open_store(data_home / "memory.db", embedder) as store:
        assert store.recall.in_context(store.agents.get("a").id) == []


def test_reembed_command(cli_runner, data_home, monkeypatch):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
    from fake_embedder import HashEmbedder

    run(cli_runner, "agents", "create", "a")
    run(cli_runner, "archival", "insert", "--agent", "a", "orchids need little water")
    fake = HashEmbedder()
    monkeypatch.setattr("memgpt_local.memory.embed.make_embedder", lambda settings: fake)
    result = run(cli_runner, "archival", "search", "--agent", "a", "orchids", ok=False)
    assert "memgpt-local reembed" in result.stderr
    out = run(cli_runner, "reembed").output
    assert "re-embedded 1 text(s): all-MiniLM-L6-v2 (384 d) -> hash-words (16 d)" in out
    assert "orchids" in run(cli_runner, "archival", "search", "--agent", "a", "orchids").output


@pytest.mark.parametrize("group", ["agents", "archival", "recall"])
def test_every_command_has_help(cli_runner, group):
    commands = cli.commands[group].commands
    for name in commands:
        result = run(cli_runner, group, name, "--help")
        assert "Usage:" in result.output and len(commands[name].help or "") > 10
    assert run(cli_runner, "reembed", "--help").output
