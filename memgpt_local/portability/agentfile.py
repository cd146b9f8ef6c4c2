"""The agent document: export an agent as one versioned JSON file and import it back.

The document (``format: memgpt-local-agent``, ``version: 1``) holds the agent's settings
(name, model, system prompt, creation time, state), its core memory blocks, its recursive
summary, every message in order (with ``in_context`` marking the main context's FIFO queue
and ``summarized`` those folded into the summary), every source and every archival
passage (a loaded document's passages name their source by path). Timestamps are the
stored UTC strings. No row id appears in it: messages are ordered by position, passages
by position, sources by path. So export -> import -> export gives the same bytes except
``exported_at`` (and ``agent.name`` under ``import --as``). Vectors are not exported: import
rebuilds them with the local embedder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from memgpt_local import __version__
from memgpt_local.errors import InvalidInputError
from memgpt_local.memory.agents import check_name
from memgpt_local.memory.archival import NewPassage
from memgpt_local.memory.db import from_db_time, to_db_time
from memgpt_local.memory.protocol import Store
from memgpt_local.schemas import CoreBlock, MessageRole, NewMessage, utcnow

FORMAT = "memgpt-local-agent"
VERSION = 1
MAX_BYTES = 512 * 1024 * 1024


class Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _stamp(value: str) -> str:
    """A timestamp in the stored form (UTC, microseconds); rejects anything else."""
    try:
        return to_db_time(from_db_time(value))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not an ISO-8601 timestamp: {value!r}") from exc


Stamp = Annotated[str, AfterValidator(_stamp)]


class AgentPart(Part):
    name: str
    created_at: Stamp
    model: str | None = None
    system_prompt: str = ""
    summary: str = ""
    state: dict[str, Any] = Field(default_factory=dict)


class BlockPart(Part):
    label: str = Field(min_length=1)
    value: str
    limit: int = Field(gt=0)
    read_only: bool = False


class MessagePart(Part):
    role: MessageRole
    content: str
    function_name: str | None = None
    function_args: dict[str, Any] | None = None
    request_heartbeat: bool = False
    created_at: Stamp
    in_context: bool = False
    summarized: bool = False


class SourcePart(Part):
    path: str = Field(min_length=1)
    content_hash: str
    created_at: Stamp


class PassagePart(Part):
    text: str = Field(min_length=1)
    source: str | None = None  # the path of its source
    chunk_index: int | None = Field(None, ge=0)
    char_start: int | None = Field(None, ge=0)
    char_end: int | None = Field(None, ge=0)
    created_at: Stamp


class AgentDocument(Part):
    format: Literal["memgpt-local-agent"]
    version: int
    generator: str
    exported_at: str
    embedder: dict[str, Any]  # informational: what the vectors were made with
    agent: AgentPart
    core_memory: list[BlockPart]
    messages: list[MessagePart]
    sources: list[SourcePart]
    passages: list[PassagePart]

    def check_references(self) -> None:
        paths = [s.path for s in self.sources]
        if len(set(paths)) != len(paths):
            raise InvalidInputError("the agent file lists a source twice")
        labels = [b.label for b in self.core_memory]
        if len(set(labels)) != len(labels):
            raise InvalidInputError("the agent file lists a core memory block twice")
        unknown = {p.source for p in self.passages if p.source is not None} - set(paths)
        if unknown:
            raise InvalidInputError(f"passages name unknown sources: {sorted(unknown)[:3]}")


def export_agent(store: Store, name: str) -> AgentDocument:
    agent = store.agents.get(name)
    sources = store.sources.list(agent.id)
    by_id = {s.id: s.path for s in sources}
    embedder_name, dim = store.stored_embedder()
    return AgentDocument(
        format=FORMAT,
        version=VERSION,
        generator=f"memgpt-local {__version__}",
        exported_at=to_db_time(utcnow()),
        embedder={"name": embedder_name, "dim": dim},
        agent=AgentPart(
            name=agent.name,
            created_at=to_db_time(agent.created_at),
            model=agent.model,
            system_prompt=agent.system_prompt,
            summary=agent.summary,
            state=agent.state,
        ),
        core_memory=[BlockPart(**b.model_dump()) for b in store.core.blocks(agent.id)],
        messages=[
            MessagePart(
                role=m.role,
                content=m.content,
                function_name=m.function_name,
                function_args=m.function_args,
                request_heartbeat=m.request_heartbeat,
                created_at=to_db_time(m.created_at),
                in_context=m.in_context,
                summarized=m.summarized,
            )
            for m in store.recall.all(agent.id)
        ],
        sources=sorted(
            (
                SourcePart(path=s.path, content_hash=s.content_hash, created_at=to_db_time(s.created_at))
                for s in sources
            ),
            key=lambda s: s.path,
        ),
        passages=[
            PassagePart(
                text=p.text,
                source=by_id.get(p.source_id) if p.source_id else None,
                chunk_index=p.chunk_index,
                char_start=p.char_start,
                char_end=p.char_end,
                created_at=to_db_time(p.created_at),
            )
            for p in store.archival.all(agent.id)
        ],
    )


def dumps(document: AgentDocument) -> str:
    """The document as JSON text: fixed key order, 2-space indent, UTF-8, newline-ended."""
    return json.dumps(document.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"


def read_document(path: Path) -> AgentDocument:
    """Parse and validate an agent file; ``InvalidInputError`` says what is wrong."""
    try:
        if Path(path).stat().st_size > MAX_BYTES:
            raise InvalidInputError(f"{path} is larger than {MAX_BYTES // 2**20} MiB")
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        if isinstance(exc, InvalidInputError):
            raise
        raise InvalidInputError(
            f"cannot read {path} as JSON: {exc}", "give a file written by `memgpt-local export`"
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInputError(
            f"{path} is not a memgpt-local agent file", "give a file written by `memgpt-local export`"
        )
    if isinstance(data.get("version"), int) and data["version"] > VERSION:
        raise InvalidInputError(
            f"{path} has format version {data['version']}, newer than this memgpt-local reads ({VERSION})",
            "upgrade memgpt-local",
        )
    try:
        document = AgentDocument.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "document"
        raise InvalidInputError(f"{path}: {where}: {err['msg']}", "nothing was imported") from exc
    if document.version != VERSION:
        raise InvalidInputError(f"{path} has unknown format version {document.version}")
    document.check_references()
    return document


def import_agent(store: Store, document: AgentDocument, name: str | None = None) -> str:
    """Create the agent of ``document`` (named ``name`` if given) in one transaction,
    with vectors from the store's embedder; return its name."""
    part = document.agent
    name = check_name(name or part.name)
    blocks = [CoreBlock(**b.model_dump()) for b in document.core_memory]
    messages = [
        NewMessage(
            role=m.role,
            content=m.content,
            function_name=m.function_name,
            function_args=m.function_args,
            request_heartbeat=m.request_heartbeat,
            created_at=from_db_time(m.created_at),
            in_context=m.in_context,
        )
        for m in document.messages
    ]
    with store.transaction():
        agent = store.agents.create(
            name,
            system_prompt=part.system_prompt,
            model=part.model,
            blocks=blocks,
            created_at=from_db_time(part.created_at),
        )
        store.agents.set_summary(agent.id, part.summary)
        store.agents.set_state(agent.id, part.state)
        stored = store.recall.append(agent.id, messages)
        store.recall.set_summarized(agent.id, [s.id for s, m in zip(stored, document.messages) if m.summarized])
        source_ids = {
            s.path: store.sources.add(agent.id, s.path, s.content_hash, created_at=from_db_time(s.created_at)).id
            for s in document.sources
        }
        store.archival.insert_many(
            agent.id,
            [
                NewPassage(
                    text=p.text,
                    source_id=source_ids[p.source] if p.source else None,
                    chunk_index=p.chunk_index,
                    char_start=p.char_start,
                    char_end=p.char_end,
                    created_at=from_db_time(p.created_at),
                )
                for p in document.passages
            ],
        )
    return name
