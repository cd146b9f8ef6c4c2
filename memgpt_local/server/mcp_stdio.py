"""`memgpt-local mcp --agent NAME`: the agent's memory as an MCP server over stdio, so other
local AI tools (editors, desktop assistants) share the same private memory.

Tools: ``archival_memory_search``, ``archival_memory_insert``, ``conversation_search`` and
``core_memory_read``. They read and write the memory file directly, as the CLI does; no model
is loaded. Results are numbered lines with the entry's time and, for documents, its citation
(``notes.md#chunk-3``), in pages of five.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memgpt_local.errors import InvalidInputError, MemGPTLocalError
from memgpt_local.schemas import SearchPage
from memgpt_local.schemas import human_time as stamp

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memgpt_local.memory.protocol import Store

WHO = {"user": "the user said", "assistant": "the assistant said"}


def format_page(page: SearchPage, what: str) -> str:
    if not page.items:
        return f"no {what} found"
    lines = [f"{what}: {page.describe()}"]
    for n, hit in enumerate(page.items, start=page.page * page.page_size + 1):
        cite = f", {hit.citation}" if hit.citation else ""
        who = f" {WHO[hit.role]}:" if hit.role in WHO else ""
        lines.append(f"{n}. [{stamp(hit.created_at)}{cite}]{who} {hit.text}")
    if page.page + 1 < page.pages:
        lines.append(f"(more: page={page.page + 2})")
    return "\n".join(lines)


def _page(page: int) -> int:
    if page < 1:
        raise InvalidInputError("pages start at 1", "pass page=1 or more")
    return page - 1


def _told(tool: Callable[..., str]) -> Callable[..., str]:
    """A tool whose ``MemGPTLocalError`` reaches the client as its error sentence (and fix),
    not as "Error executing tool" with a traceback in the server's log."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(tool)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        try:
            return tool(*args, **kwargs)
        except MemGPTLocalError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper


def build_server(store: Store, agent_name: str) -> MCPServer:
    """The MCP server for one agent's memory in ``store``."""
    from mcp.server.mcpserver import MCPServer

    agent = store.agents.get(agent_name)
    server = MCPServer(
        "memgpt-local",
        instructions=f"Long-term memory of the memgpt-local agent {agent.name!r}: search it before guessing "
        "what the user said or stored, and insert what should be remembered.",
    )

    @server.tool()
    @_told
    def archival_memory_search(query: str, page: int = 1) -> str:
        """Search archival memory (notes and loaded documents) by words and meaning."""
        return format_page(store.archival.search(agent.id, query, page=_page(page)), "archival passages")

    @server.tool()
    @_told
    def archival_memory_insert(content: str) -> str:
        """Save a note in archival memory, to be found by later searches."""
        if not content.strip():
            raise InvalidInputError("the note is empty", "pass some text as content")
        passage = store.archival.insert(agent.id, content.strip())
        return f"saved as archival passage {passage.id}"

    @server.tool()
    @_told
    def conversation_search(query: str, page: int = 1) -> str:
        """Search every message of the conversation with the user (recall memory)."""
        return format_page(store.recall.search(agent.id, query, page=_page(page)), "messages")

    @server.tool()
    @_told
    def core_memory_read() -> str:
        """The agent's core memory: its persona and what it knows about the user."""
        return "\n\n".join(f"[{b.label}]\n{b.value}" for b in store.core.blocks(agent.id))

    return server
