"""Loading documents into archival memory: counts, search with citations, reloads,
replacement, removal, the upload event and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_sql import STORE_KINDS, is_postgres, rows, scalar, table_names, word_count
from test_documents import make_pdf

from memgpt_local.cli.common import App
from memgpt_local.cli.main import cli
from memgpt_local.documents.chunking import Chunker, tokens_for
from memgpt_local.documents.loader import MAX_EVENTS, DocumentLoader, collect_files, find_source
from memgpt_local.errors import InvalidInputError, NotFoundError


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    """Every test here runs on the memory file and on a Postgres database."""
    return request.param


MANUAL = """# Espresso machine manual

Thank you for choosing the Brewmaster 3000. Read this manual before first use.

## Descaling

Descale the machine every 6 weeks with citric acid: dissolve 30 grams in one litre of
water, run it through the steam wand, then rinse twice with clean water.

## Warranty

The warranty covers the pump and the boiler for 24 months. Keep your receipt.
Damage from limescale is not covered, so remember to descale.

## Troubleshooting

If the machine blinks red three times, the water tank is empty. Refill it and press
the power button for two seconds.
"""


@pytest.fixture
def agent_id(store) -> int:
    return store.agents.create("sam").id


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Mixed files: 3 loadable (PDF, markdown, code in a subfolder), 5 to skip."""
    root = tmp_path / "docs"
    (root / "src").mkdir(parents=True)
    (root / "manual.md").write_text(MANUAL, encoding="utf-8")
    (root / "parking.pdf").write_bytes(
        make_pdf(["Parking: the car is on level 3, spot 12,", "next to the blue pillar."])
    )
    (root / "src" / "tool.py").write_text('def greet():\n    return "hi"\n', encoding="utf-8")
    (root / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (root / "dump.log").write_bytes(b"header\x00\x01\x02\xff binary")
    (root / "empty.txt").write_bytes(b"")
    (root / "latin1.txt").write_bytes("Crème brûlée".encode("latin-1"))
    (root / ".hidden.md").write_text("# secret\n", encoding="utf-8")
    return root


def load(store, agent_id: int, paths, **kw):
    files = collect_files([Path(p) for p in paths], recursive=kw.pop("recursive", True), globs=kw.pop("globs", ()))
    warn = kw.pop("warn", None)
    return DocumentLoader(store, agent_id, **kw).load(files, warn=warn)


def table_counts(store) -> dict[str, int]:
    return {n: store.db.scalar(f'SELECT count(*) FROM "{n}"') for n in table_names(store)}


def test_collect_files_walks_filters_and_fails_on_missing(folder: Path) -> None:
    top = collect_files([folder])
    assert {p.name for p in top} == {"manual.md", "parking.pdf", "photo.png", "dump.log", "empty.txt", "latin1.txt"}
    assert {p.name for p in collect_files([folder], recursive=True, globs=["*.py"])} == {"tool.py"}
    named = collect_files([folder / "manual.md", folder, folder / "manual.md"], globs=["*.pdf"])
    assert [p.name for p in named] == ["manual.md", "parking.pdf"]
    with pytest.raises(NotFoundError, match="no such file or folder: .*nope"):
        collect_files([folder, folder / "nope"])


def test_mixed_folder_loads_with_the_right_counts(store, agent_id: int, folder: Path) -> None:
    warnings, ticks = [], []
    files = collect_files([folder], recursive=True)
    report = DocumentLoader(store, agent_id).load(files, warn=warnings.append, progress=ticks.append)
    assert [t.files_done for t in ticks[: len(files)]] == list(range(1, len(files) + 1))
    assert ticks[-1].passages == report.passages and ticks[-1].chunks == report.passages
    assert report.count("new") == 3 and report.count("skipped") == 4
    reasons = {o.path.name: o.reason for o in report.skipped}
    assert reasons["photo.png"].startswith("unsupported file type '.png'")
    assert reasons["dump.log"] == "binary file"
    assert reasons["empty.txt"] == "empty file"
    assert reasons["latin1.txt"].startswith("not valid UTF-8")
    assert [w.path.name for w in warnings] == [o.path.name for o in report.skipped]
    assert all(w.warning().count("\n") == 0 for w in warnings)
    sources = {Path(s.path).name: s for s in store.sources.list(agent_id)}
    assert set(sources) == {"manual.md", "parking.pdf", "tool.py"}
    assert sum(s.passages for s in sources.values()) == report.passages
    assert store.archival.count(agent_id) == report.passages
    assert "loaded 3 files (3 new, 0 replaced)" in report.summary()
    assert "4 skipped" in report.summary()


def test_passages_record_source_chunk_and_span(store, agent_id: int, folder: Path, embedder) -> None:
    chunker = Chunker(tokens_for(embedder), size=40, overlap=8)
    load(store, agent_id, [folder / "manual.md"], chunker=chunker)
    source = store.sources.find(agent_id, str((folder / "manual.md").resolve()))
    found = rows(store, "SELECT id FROM passages WHERE source_id = ? ORDER BY chunk_index", (source.id,))
    passages = [store.archival.get(agent_id, r["id"]) for r in found]
    assert len(passages) == source.passages > 3
    for n, passage in enumerate(passages):
        assert passage.chunk_index == n and passage.citation == f"manual.md#chunk-{n}"
        assert MANUAL[passage.char_start : passage.char_end] == passage.text


def test_question_finds_its_chunk_with_citation(store, agent_id: int, folder: Path, embedder) -> None:
    chunker = Chunker(tokens_for(embedder), size=48, overlap=8)
    load(store, agent_id, [folder], chunker=chunker)
    page = store.archival.search(agent_id, "How long is the warranty on the boiler?", page_size=3)
    hit = next(h for h in page.items if "24 months" in h.text)
    assert hit.citation.startswith("manual.md#chunk-")
    page = store.archival.search(agent_id, "where did I park the car", page_size=3, mode="vector")
    assert any(h.citation == "parking.pdf#chunk-0" for h in page.items)


def test_citations_reach_the_model_and_the_cli(
    store, store_location, agent_id: int, folder: Path, cli_runner, monkeypatch, embedder
) -> None:
    from memgpt_local.config import AgentSettings
    from memgpt_local.functions.execute import FunctionExecutor
    from memgpt_local.schemas import FunctionCall

    load(store, agent_id, [folder / "parking.pdf"])
    executor = FunctionExecutor(store, agent_id, AgentSettings())
    outcome = executor.run(
        FunctionCall(thought="t", function="archival_memory_search", arguments={"query": "parking level"})
    )
    assert "parking.pdf#chunk-0" in outcome.text
    monkeypatch.setattr(App, "embedder", lambda self: embedder)
    if is_postgres(store):
        where = ["--store", store_location]
    else:
        monkeypatch.setattr(App, "db_path", property(lambda self: store.path))
        where = []
    result = cli_runner.invoke(cli, [*where, "archival", "search", "--agent", "sam", "parking level"])
    assert result.exit_code == 0, result.output
    assert "[parking.pdf#chunk-0]" in result.output


def test_reload_is_idempotent(store, agent_id: int, folder: Path) -> None:
    load(store, agent_id, [folder])
    before = table_counts(store)
    again = load(store, agent_id, [folder])
    assert again.count("unchanged") == 3 and again.count("new") == again.count("replaced") == 0
    assert again.passages == 0 and again.events == 0
    assert table_counts(store) == before


def test_changed_file_replaces_its_passages(store, agent_id: int, folder: Path) -> None:
    load(store, agent_id, [folder])
    manual = folder / "manual.md"
    old = store.sources.find(agent_id, str(manual.resolve()))
    manual.write_text(MANUAL.replace("24 months", "36 months"), encoding="utf-8")
    report = load(store, agent_id, [folder])
    assert report.count("replaced") == 1 and report.count("unchanged") == 2
    new = store.sources.find(agent_id, str(manual.resolve()))
    assert new.content_hash != old.content_hash
    assert not scalar(store, "SELECT count(*) FROM passages WHERE source_id = ?", (old.id,))
    texts = [r["text"] for r in rows(store, "SELECT text FROM passages WHERE source_id = ?", (new.id,))]
    assert len(texts) == new.passages and any("36 months" in t for t in texts)
    assert not any("24 months" in t for t in texts)
    assert store.archival.search(agent_id, "24", mode="text").total == 0
    assert store.integrity_check() == "ok"


def test_removal_leaves_no_row_behind(store, agent_id: int, folder: Path) -> None:
    baseline = table_counts(store)
    load(store, agent_id, [folder], announce=False)
    assert store.archival.count(agent_id) > 0
    for source in store.sources.list(agent_id):
        assert store.sources.delete(agent_id, source.id) == source.passages
    after = table_counts(store)
    structural = ("_chunks", "_chunks00", "_info", "_data", "_idx", "_config")
    changed = {n: (baseline.get(n), c) for n, c in after.items() if c != baseline.get(n) and not n.endswith(structural)}
    assert changed == {}
    sqlite_tables = ("passages_fts_docsize", "passage_embeddings", "passage_bits", "passage_bits_rowids")
    for table in ("passages", "sources", *(() if is_postgres(store) else sqlite_tables)):
        assert after[table] == 0, table
    assert word_count(store, "passage", "warranty") == word_count(store, "passage", "parking") == 0


def test_upload_event_lands_in_the_agent_context(store, folder: Path) -> None:
    from agent_helpers import make_runner

    runner = make_runner(store, [])
    agent_id = store.agents.get("sam").id
    report = load(store, agent_id, [folder / "manual.md"])
    assert report.events == 1
    last = store.recall.in_context(agent_id)[-1]
    assert last.role == "system" and "[document upload" in last.content
    assert "'manual.md'" in last.content and f"({report.passages} passages)" in last.content
    assert any("manual.md" in m.content and "document upload" in m.content for m in runner.render())


def test_many_files_are_announced_once(store, agent_id: int, tmp_path: Path) -> None:
    for n in range(MAX_EVENTS + 1):
        (tmp_path / f"note{n}.txt").write_text(f"note number {n}", encoding="utf-8")
    report = load(store, agent_id, [tmp_path], globs=["note*.txt"])
    assert report.count("new") == MAX_EVENTS + 1 and report.events == 1
    assert f"{MAX_EVENTS + 1} documents" in store.recall.in_context(agent_id)[-1].content


def test_find_source_by_id_path_or_name(store, agent_id: int, folder: Path) -> None:
    load(store, agent_id, [folder])
    manual = store.sources.find(agent_id, str((folder / "manual.md").resolve()))
    assert find_source(store, agent_id, str(manual.id)).id == manual.id
    assert find_source(store, agent_id, str(folder / "manual.md")).id == manual.id
    assert find_source(store, agent_id, "manual.md").id == manual.id
    with pytest.raises(NotFoundError):
        find_source(store, agent_id, "nothing.md")
    (folder / "src" / "manual.md").write_text("# other manual\n", encoding="utf-8")
    load(store, agent_id, [folder])
    with pytest.raises(InvalidInputError, match="2 sources are named"):
        find_source(store, agent_id, "manual.md")


# --------------------------------------------------------------------------- CLI


def test_cli_load_list_and_remove(cli_runner, folder: Path, monkeypatch, embedder) -> None:
    monkeypatch.setattr(App, "embedder", lambda self: embedder)
    assert cli_runner.invoke(cli, ["agents", "create", "sam"]).exit_code == 0
    result = cli_runner.invoke(cli, ["load", str(folder), "--agent", "sam", "-r"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert sum(line.startswith("warning: skipped ") for line in lines) == 4
    assert lines[-1].startswith("loaded 3 files (3 new, 0 replaced) as ")
    listed = cli_runner.invoke(cli, ["sources", "list", "--agent", "sam"])
    assert listed.exit_code == 0 and "manual.md" in listed.output and "tool.py" in listed.output
    removed = cli_runner.invoke(cli, ["sources", "rm", "--agent", "sam", "manual.md"])
    assert removed.exit_code == 0 and removed.output.startswith("removed ")
    listed = cli_runner.invoke(cli, ["sources", "list", "--agent", "sam", "--json"])
    assert "manual.md" not in listed.output and "tool.py" in listed.output


def test_cli_progress_bar_on_a_terminal(cli_runner, tmp_path: Path, monkeypatch, embedder) -> None:
    from memgpt_local.cli import load_cmds

    monkeypatch.setattr(App, "embedder", lambda self: embedder)
    monkeypatch.setattr(load_cmds, "progress_enabled", lambda: True)
    (tmp_path / "a.md").write_text("# A\n\nsome text\n", encoding="utf-8")
    (tmp_path / "b.txt").write_bytes(b"")
    assert cli_runner.invoke(cli, ["agents", "create", "sam"]).exit_code == 0
    result = cli_runner.invoke(cli, ["load", str(tmp_path), "--agent", "sam"])
    assert result.exit_code == 0, result.output
    assert f"warning: skipped {tmp_path / 'b.txt'}: empty file\n" in result.output
    assert "loading" in result.output  # the bar
    last = result.output.rstrip().splitlines()[-1].split("\r")[-1].strip()
    assert last.startswith("loaded 1 file (1 new, 0 replaced) as 1 passage;")


@pytest.mark.parametrize(
    "args",
    [
        ["load", "{folder}/missing.md", "--agent", "sam"],
        ["load", "{folder}", "--agent", "nobody"],
        ["load", "{folder}", "--agent", "sam", "--glob", "*.nothing"],
        ["sources", "list", "--agent", "nobody"],
        ["sources", "rm", "--agent", "sam", "nothing.md"],
    ],
)
def test_cli_errors_are_one_line(cli_runner, folder: Path, args: list[str]) -> None:
    assert cli_runner.invoke(cli, ["agents", "create", "sam"]).exit_code == 0
    result = cli_runner.invoke(cli, [a.format(folder=folder) for a in args])
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and result.output.count("\n") == 1
    assert "Traceback" not in result.output
