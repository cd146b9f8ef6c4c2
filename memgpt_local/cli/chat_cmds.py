"""`memgpt-local chat` (interactive) and `memgpt-local send` (one scripted turn)."""

from __future__ import annotations

import functools
import json
import urllib.parse

import click

from memgpt_local import events
from memgpt_local.agent import commands
from memgpt_local.agent.loop import AgentRunner
from memgpt_local.agent.turn import TurnResult
from memgpt_local.cli.common import App, with_app
from memgpt_local.cli.session import ChatSession, open_runner, save_state
from memgpt_local.cli.stream import ConsoleObserver
from memgpt_local.errors import MemGPTLocalError
from memgpt_local.server.discovery import ServerInfo

DEFAULT_AGENT = "default"


def _user_turn(runner: AgentRunner, text: str) -> TurnResult:
    return runner.run_turn(events.user_message(text))


@click.command("chat")
@click.option(
    "--agent", "agent_name", default=DEFAULT_AGENT, show_default=True, help="Agent to talk to (created if missing)."
)
@click.option(
    "--model", default=None, help="Model name, GGUF path, or scripted:FILE.json (default: config model.default)."
)
@click.option("--verbose/--quiet", default=True, help="Show or hide inner monologue and function calls.")
@click.option("--no-login", is_flag=True, help="Do not send the login event at the start.")
@with_app
def chat(app: App, agent_name: str, model: str | None, verbose: bool, no_login: bool) -> None:
    """Chat with an agent. Type /help for commands, /exit to leave.

    When `memgpt-local serve` runs for this data dir, the chat runs on the server (--model runs
    it in this process instead).
    """
    from memgpt_local.server.discovery import running_server

    server = running_server(app.data_dir, app.store_name) if model is None else None
    if server is not None:
        from memgpt_local.cli.remote_chat import remote_chat

        remote_chat(server, agent_name, verbose=verbose, login=not no_login)
        return
    runner = open_runner(app, agent_name, model, ConsoleObserver(verbose=verbose), interactive=True)
    click.secho(
        f"memgpt-local: agent {agent_name!r}, model {runner.backend.name} ({runner.backend.n_ctx} tokens). "
        "/help for commands.",
        bold=True,
    )
    session = ChatSession(runner, idle_minutes=app.settings.agent.idle_heartbeat_minutes)
    if not no_login:
        session.run_turn(lambda: runner.run_turn(runner.login_event()))
    while True:
        line = session.read_line("> ")
        if line is None:  # end of input
            break
        if line == "":
            continue
        slash = commands.parse_slash(line)
        if slash is None:
            session.run_turn(functools.partial(_user_turn, runner, line))
            continue
        name, arg = slash
        if name in ("exit", "quit"):
            break
        if name == "help":
            click.echo(commands.help_text())
            continue
        command = commands.COMMANDS.get(name)
        if command is None:
            click.echo(f"unknown command /{name}; /help lists them", err=True)
            continue
        try:
            result = session.run_turn(functools.partial(command.run, runner, arg))
        except MemGPTLocalError as exc:
            click.echo(f"error: {exc}", err=True)
            continue
        if isinstance(result, str):
            click.echo(result)


@click.command("send")
@click.option(
    "--agent", "agent_name", default=DEFAULT_AGENT, show_default=True, help="Agent to talk to (created if missing)."
)
@click.option(
    "--model", default=None, help="Model name, GGUF path, or scripted:FILE.json (default: config model.default)."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print every step (thought, call, result, token counters) as JSON."
)
@click.option(
    "--event",
    type=click.Choice(["user", "heartbeat", "login"]),
    default="user",
    show_default=True,
    help="What the text is: a user message, or a heartbeat/login event (text ignored).",
)
@click.argument("message", required=False, default="")
@with_app
def send(app: App, agent_name: str, model: str | None, as_json: bool, event: str, message: str) -> None:
    """Run one turn (all its heartbeat steps) non-interactively and print the replies.

    When `memgpt-local serve` runs for this data dir, the turn runs there (its model and the
    agent's KV cache are warm) and prints the same; --model runs it in this process instead.
    """
    if event == "user" and not message.strip():
        raise click.UsageError("give the MESSAGE to send")
    from memgpt_local.server.discovery import running_server

    server = running_server(app.data_dir, app.store_name) if model is None else None
    if server is not None:
        _print_turn(_send_to_server(server, agent_name, event, message), as_json)
        return
    runner = open_runner(app, agent_name, model, None, interactive=False)
    if event == "user":
        turn = runner.run_turn(events.user_message(message))
    elif event == "login":
        turn = runner.run_turn(runner.login_event())
    else:
        turn = runner.run_turn(events.manual_heartbeat())
    save_state(runner)
    _print_turn(turn.as_dict(), as_json)


def _send_to_server(server: ServerInfo, agent_name: str, event: str, message: str) -> dict:
    from memgpt_local.server.discovery import ensure_agent, post

    ensure_agent(server, agent_name)
    path = f"/api/agents/{urllib.parse.quote(agent_name, safe='')}/messages"
    return post(server, path, {"message": message, "event": event})


def _print_turn(record: dict, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(record, ensure_ascii=False, indent=2))
        return
    for text in record["messages"]:
        click.echo(text)
    if not record["messages"]:
        click.echo("(the agent did not send a message this turn)", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(chat)
    cli.add_command(send)
