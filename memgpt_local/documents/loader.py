"""Loading files and folders into an agent's archival memory as sources.

``collect_files`` turns the user's paths into the list of files to read (folders walked,
``recursive`` or not, filtered by glob patterns). ``DocumentLoader.load`` reads each file,
compares the hash of its bytes with the stored source of the same path (unchanged: nothing
to do), chunks it, embeds the chunks of several files in one embedder call and writes them
in one transaction per batch: a changed file's old source and passages are deleted and the
new ones inserted in that same transaction, so a search never sees half a document. An
unreadable file is skipped with a warning; it never stops the load. Afterwards the agent is
told about the new material by a document-upload event in its context.
"""

from __future__ import annotations

import fnmatch
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from memgpt_local import events
from memgpt_local.documents.chunking import Chunk, Chunker, tokens_for
from memgpt_local.documents.readers import Document, UnreadableFileError, content_hash, extract, read_bytes
from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.memory import NewPassage, Store
from memgpt_local.schemas import Source

Status = Literal["new", "replaced", "unchanged", "skipped"]
BATCH_PASSAGES = 256  # chunks embedded in one call and written in one transaction
MAX_EVENTS = 5  # more loaded sources than this are announced in one event


@dataclass(frozen=True)
class FileOutcome:
    path: Path
    status: Status
    passages: int = 0
    reason: str | None = None  # why a file was skipped

    def warning(self) -> str:
        return f"warning: skipped {self.path}: {self.reason}"


@dataclass(frozen=True)
class LoadProgress:
    files_done: int
    files_total: int
    chunks: int  # chunks cut so far
    passages: int  # passages stored so far
    elapsed_s: float

    @property
    def passages_per_s(self) -> float:
        return self.passages / self.elapsed_s if self.elapsed_s > 0 else 0.0


@dataclass
class LoadReport:
    outcomes: list[FileOutcome] = field(default_factory=list)
    elapsed_s: float = 0.0
    events: int = 0  # document-upload events appended to the agent's context

    def _with(self, *statuses: Status) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status in statuses]

    @property
    def loaded(self) -> list[FileOutcome]:
        return self._with("new", "replaced")

    @property
    def skipped(self) -> list[FileOutcome]:
        return self._with("skipped")

    @property
    def unchanged(self) -> list[FileOutcome]:
        return self._with("unchanged")

    @property
    def passages(self) -> int:
        return sum(o.passages for o in self.loaded)

    def count(self, status: Status) -> int:
        return len(self._with(status))

    def summary(self) -> str:
        rate = self.passages / self.elapsed_s if self.elapsed_s > 0 else 0.0
        files = len(self.loaded)
        return (
            f"loaded {files} file{'s' if files != 1 else ''} ({self.count('new')} new, "
            f"{self.count('replaced')} replaced) as {self.passages} "
            f"passage{'s' if self.passages != 1 else ''}; "
            f"{self.count('unchanged')} unchanged, {self.count('skipped')} skipped; "
            f"{self.elapsed_s:.1f} s, {rate:.0f} passages/s"
        )


def _matches(path: Path, root: Path, globs: Sequence[str]) -> bool:
    if not globs:
        return True
    relative = path.relative_to(root).as_posix()
    return any(fnmatch.fnmatch(path.name, g) or fnmatch.fnmatch(relative, g) for g in globs)


def _walk(root: Path, recursive: bool) -> Iterable[Path]:
    """Files under ``root`` in name order; hidden files and folders left out."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if recursive else []
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(folder) / name


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; False for names no file can have (NUL byte, too long)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def collect_files(paths: Sequence[Path], *, recursive: bool = False, globs: Sequence[str] = ()) -> list[Path]:
    """The files to load, each once (resolved); ``NotFoundError`` for a missing path.

    A file named directly is always taken; the files of a folder (its top level, or all of
    it with ``recursive``) only if they match one of ``globs`` (by name or relative path).
    """
    missing = [str(p) for p in paths if not _exists(Path(p))]
    if missing:
        raise NotFoundError(
            f"no such file or folder: {', '.join(missing)}", "check the path (globs go in --glob, quoted)"
        )
    found: dict[Path, None] = {}
    for given in map(Path, paths):
        if given.is_dir():
            root = given.resolve()
            found.update((f.resolve(), None) for f in _walk(root, recursive) if _matches(f, root, globs))
        else:
            found[given.resolve()] = None
    return list(found)


@dataclass
class _Pending:
    document: Document
    chunks: list[Chunk]
    replaces: int | None  # id of the stored source of the same path


class DocumentLoader:
    """Loads files into one agent's archival memory."""

    def __init__(
        self,
        store: Store,
        agent_id: int,
        *,
        chunker: Chunker | None = None,
        batch_passages: int = BATCH_PASSAGES,
        announce: bool = True,
    ):
        self.store = store
        self.agent_id = agent_id
        self.chunker = chunker or Chunker(tokens_for(store.embedder))
        self.batch_passages = batch_passages
        self.announce = announce

    def load(
        self,
        files: Sequence[Path],
        *,
        progress: Callable[[LoadProgress], None] | None = None,
        warn: Callable[[FileOutcome], None] | None = None,
    ) -> LoadReport:
        """Load ``files`` (from ``collect_files``); report each file's outcome."""
        report = LoadReport()
        started = time.perf_counter()
        pending: list[_Pending] = []
        chunks = waiting = 0

        def tick(files_done: int) -> None:
            if progress is not None:
                stored = sum(o.passages for o in report.outcomes if o.status != "unchanged")
                progress(LoadProgress(files_done, len(files), chunks, stored, time.perf_counter() - started))

        for done, path in enumerate(files, start=1):
            outcome, item = self._prepare(path)
            if outcome is not None:
                report.outcomes.append(outcome)
                if outcome.status == "skipped" and warn is not None:
                    warn(outcome)
            else:
                assert item is not None
                pending.append(item)
                chunks += len(item.chunks)
                waiting += len(item.chunks)
            if waiting >= self.batch_passages:
                report.outcomes.extend(self._write(pending))
                pending, waiting = [], 0
            tick(done)
        if pending:
            report.outcomes.extend(self._write(pending))
            tick(len(files))
        if self.announce:
            report.events = self._announce(report.loaded)
        report.elapsed_s = time.perf_counter() - started
        return report

    def _prepare(self, path: Path) -> tuple[FileOutcome | None, _Pending | None]:
        """Read and chunk one file, or say why there is nothing to write."""
        try:
            data = read_bytes(path)
            stored = self.store.sources.find(self.agent_id, str(path))
            if stored is not None and stored.content_hash == content_hash(data):
                return FileOutcome(path, "unchanged", stored.passages), None
            document = extract(path, data)
        except UnreadableFileError as exc:
            return FileOutcome(path, "skipped", reason=str(exc).removeprefix(f"{path}: ")), None
        chunks = self.chunker.chunk(document.text, markdown=document.kind in ("markdown", "html"))
        return None, _Pending(document, chunks, None if stored is None else stored.id)

    def _write(self, pending: list[_Pending]) -> list[FileOutcome]:
        """Embed the chunks of ``pending`` in one call and store them in one transaction."""
        vectors = self.store.embedder.embed([c.text for p in pending for c in p.chunks])
        passages: list[NewPassage] = []
        with self.store.transaction():
            for item in pending:
                if item.replaces is not None:
                    self.store.sources.delete(self.agent_id, item.replaces)
                source = self.store.sources.add(self.agent_id, str(item.document.path), item.document.content_hash)
                passages.extend(
                    NewPassage(
                        text=c.text, source_id=source.id, chunk_index=c.index, char_start=c.start, char_end=c.end
                    )
                    for c in item.chunks
                )
            self.store.archival.insert_many(self.agent_id, passages, vectors=np.ascontiguousarray(vectors))
        return [
            FileOutcome(p.document.path, "new" if p.replaces is None else "replaced", len(p.chunks)) for p in pending
        ]

    def _announce(self, loaded: list[FileOutcome]) -> int:
        """Append document-upload events (in context) so the agent sees the new material."""
        if not loaded:
            return 0
        if len(loaded) <= MAX_EVENTS:
            named = [(o.path.name, o.passages) for o in loaded]
        else:
            names = ", ".join(o.path.name for o in loaded[:3])
            named = [(f"{len(loaded)} documents ({names}, …)", sum(o.passages for o in loaded))]
        with self.store.transaction():
            for name, passages in named:
                counts = events.MemoryCounts(
                    self.store.recall.count(self.agent_id), self.store.archival.count(self.agent_id)
                )
                self.store.recall.append(self.agent_id, [events.document_upload(name, passages, counts)])
        return len(named)


def find_source(store: Store, agent_id: int, ref: str) -> Source:
    """A source by id, by path (relative to the working folder or absolute) or by file name."""
    if ref.isdigit():
        return store.sources.get(agent_id, int(ref))
    found = store.sources.find(agent_id, str(Path(ref).expanduser().resolve()))
    if found is not None:
        return found
    named = [s for s in store.sources.list(agent_id) if Path(s.path).name == ref]
    if len(named) == 1:
        return named[0]
    if named:
        raise InvalidInputError(
            f"{len(named)} sources are named {ref!r}", "give its full path or its id (see `sources list`)"
        )
    raise NotFoundError(f"no source {ref!r}", "see `memgpt-local sources list --agent NAME`")
