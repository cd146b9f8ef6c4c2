"""`chat` when `memgpt-local serve` runs for the data dir: the turns and slash commands run on
the server (its model and the agent's KV cache are warm, and its turns are the only ones that
touch the agent), and this process prints what it streams back."""

from __future__ import annotations

import urllib.parse

import click

from memgpt_local.agent import commands
from memgpt_local.cli.stream import EventPrinter
from memgpt_local.errors import MemGPTLocalError
from memgpt_local.server.discovery import ServerInfo, ensure_agent, post_stream


def remote_chat(server: ServerInfo, agent_name: str, *, verbose: bool, login: bool) -> None:
    agent = f"/api/agents/{urllib.parse.quote(agent_name, safe='')}"
    printer = EventPrinter(verbose=verbose)

    def stream(path: str, body: dict) -> None:
        try:
            for event in post_stream(server, path, body):
                printer.show(event)
        except MemGPTLocalError as exc:
            click.echo(f"error: {exc}", err=True)

    ensure_agent(server, agent_name)
    click.secho(f"memgpt-local: agent {agent_name!r} on the server at {server.url}. /help for commands.", bold=True)
    if login:
        stream(f"{agent}/messages", {"event": "login", "stream": True})
    while True:
        try:
            line = input("> ").strip()
        except EOFError:
            click.echo()
            return
        if not line:
            continue
        slash = commands.parse_slash(line)
        if slash is None:
            stream(f"{agent}/messages", {"message": line, "stream": True})
            continue
        name, arg = slash
        if name in ("exit", "quit"):
            return
        if name == "help":
            click.echo(commands.help_text())
            continue
        stream(f"{agent}/commands/{urllib.parse.quote(name, safe='')}", {"arg": arg})
