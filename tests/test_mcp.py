"""`memgpt-local mcp`: an agent's memory served over stdio, driven by the `mcp` package's own
client against a real subprocess."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from memgpt_local import events
from memgpt_local.cli.session import ensure_agent
from memgpt_local.config import Settings
from memgpt_local.memory import open_store


def _call(home: Path, calls: list[tuple[str, dict]]) -> tuple[list[str], list[str]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgpt_local", "mcp", "--agent", "dana"],
        env={**os.environ, "MEMGPT_LOCAL_HOME": str(home)},
    )

    async def run() -> tuple[list[str], list[str]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            texts = []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                texts.append("\n".join(c.text for c in result.content if hasattr(c, "text")))
            return tools, texts

    return asyncio.run(run())


def test_tools_search_insert_and_read_the_agents_memory(data_home: Path, embedder):
    store = open_store(data_home / "memory.db", embedder)
    agent = ensure_agent(store, "dana", Settings())
    store.core.set_value(agent.id, "human", "Name: Dana\nKeeps: three beehives")
    store.recall.append(agent.id, [events.user_message("My brother Tom lives in Whitby and fixes boats.")])
    store.close()

    tools, (inserted, found, recalled, core, beyond, bad) = _call(
        data_home,
        [
            ("archival_memory_insert", {"content": "The spare hive key is in the blue teapot."}),
            ("archival_memory_search", {"query": "where is the hive key"}),
            ("conversation_search", {"query": "brother Whitby"}),
            ("core_memory_read", {}),
            ("archival_memory_search", {"query": "hive key", "page": 2}),
            ("archival_memory_search", {"query": "hive key", "page": 0}),
        ],
    )
    assert tools == ["archival_memory_insert", "archival_memory_search", "conversation_search", "core_memory_read"]
    assert inserted.startswith("saved as archival passage")
    assert "blue teapot" in found.splitlines()[1]
    assert "the user said: My brother Tom lives in Whitby" in recalled
    assert "[human]\nName: Dana\nKeeps: three beehives" in core
    assert beyond == "no archival passages found"  # one passage: page 2 is empty
    assert "pages start at 1" in bad  # a bad argument comes back as the tool's error, in words

    reopened = open_store(data_home / "memory.db", embedder)
    try:
        assert reopened.archival.count(reopened.agents.get("dana").id) == 1  # the insert is stored
    finally:
        reopened.close()
