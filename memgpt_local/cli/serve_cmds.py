"""`memgpt-local serve`: the HTTP API, the OpenAI-compatible endpoints, one process for every agent."""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import sys
from pathlib import Path

import click

from memgpt_local.cli.common import App, with_app


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_token(token: str | None, token_file: Path | None) -> str | None:
    if token_file is not None:
        token = token_file.read_text(encoding="utf-8").strip()
        if not token:
            raise click.UsageError(f"{token_file} is empty: put the token in it")
    if token is not None and len(token) < 16:
        raise click.UsageError("the token is too short: use 16 characters or more (e.g. `openssl rand -hex 16`)")
    return token


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8283, show_default=True, type=click.IntRange(1, 65535), help="Port to listen on.")
@click.option("--token", envvar="MEMGPT_LOCAL_TOKEN", help="Require this bearer token (env MEMGPT_LOCAL_TOKEN).")
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True, path_type=Path), help="Read the token here.")
@click.option("--model", default=None, help="Model for every agent (default: each agent's own, else model.default).")
@click.option("--max-warm", default=3, show_default=True, type=click.IntRange(1, 64), help="Agents kept loaded.")
@with_app
def serve(
    app: App, host: str, port: int, token: str | None, token_file: Path | None, model: str | None, max_warm: int
) -> None:
    """Serve every agent over HTTP: the API (/docs), and OpenAI-compatible /v1 endpoints.

    Listens on loopback only unless --host says otherwise, and then requires a token. An
    encrypted memory file asks for its passphrase here, at start, never over HTTP. With
    --store postgresql://..., the memory lives in that database.
    """
    import uvicorn

    from memgpt_local.cli.session import open_backend
    from memgpt_local.server.api import create_app
    from memgpt_local.server.discovery import ServerInfo, announce, withdraw
    from memgpt_local.server.hub import AgentHub

    token = read_token(token, token_file)
    if not is_loopback(host) and token is None:
        raise click.UsageError(
            f"--host {host} lets other machines reach your memory: pass --token or --token-file as well"
        )
    store = app.store()  # the passphrase of an encrypted file is asked now
    read_store = app.open_store()

    def warn(text: str) -> None:
        click.secho(f"warning: {text}", err=True, dim=True)

    hub = AgentHub(
        store,
        read_store,
        app.settings,
        app.state_anchor,
        lambda name: open_backend(name, app, interactive=False),
        model=model,
        encrypted=app.db_key() is not None,
        max_warm=max_warm,
        warn=warn,
    )
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    click.echo(f"memgpt-local serving {app.store_name} on {url} (web UI: /, API pages: /docs)", err=True)
    announce(
        app.data_dir, ServerInfo(url=url, pid=os.getpid(), token=token, store=app.store_name)
    )  # `send` finds it here
    # uvicorn stops gracefully on SIGTERM, then raises the signal again: exit through `finally`
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        uvicorn.run(create_app(hub, token=token), host=host, port=port, log_level="warning")
    finally:
        withdraw(app.data_dir, os.getpid())
        hub.close()
        read_store.close()


@click.command("mcp")
@click.option("--agent", "agent_name", default="default", show_default=True, help="Agent whose memory is shared.")
@with_app
def mcp_command(app: App, agent_name: str) -> None:
    """Serve an agent's memory to MCP clients over stdio (search, insert, core memory).

    Add it to a tool's MCP servers as the command `memgpt-local mcp --agent NAME`. No model is
    loaded; an encrypted memory file needs its passphrase in the keyring or MEMGPT_LOCAL_PASSPHRASE.
    """
    from memgpt_local.server.mcp_stdio import build_server

    build_server(app.store(), agent_name).run("stdio")


def register(cli: click.Group) -> None:
    cli.add_command(serve)
    cli.add_command(mcp_command)
