"""Pretty, streaming display of agent steps in the terminal.

The model writes one JSON object per step; ``agent.partial.PartialFieldReader`` pulls the
growing values of its ``thought`` and ``message`` strings out of the partial text so the chat
can show the reply as it is generated: the message in normal style, the inner monologue and
function calls dimmed. A draft that a policy holds back has already streamed: on a terminal it
is erased again (the user read a greeting that was then redrafted, `make run`), elsewhere (a
pipe, a log) a note under it says it was not sent.
"""

from __future__ import annotations

import json
import shutil
import sys
import unicodedata

import click

from memgpt_local.agent.loop import StepObserver
from memgpt_local.agent.partial import REPLY_FUNCTIONS, PartialFieldReader, settled, unshown
from memgpt_local.agent.queue import EvictionReport
from memgpt_local.agent.turn import StepRecord


def cells(text: str) -> int:
    """The terminal columns ``text`` takes: wide characters two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def rows(text: str, columns: int) -> int:
    """The terminal rows ``text`` takes when printed from the start of a row ``columns`` wide."""
    return sum(max(1, -(-cells(line) // max(1, columns))) for line in text.split("\n"))


class ErasableDraft:
    """The reply printed so far in a step, from the start of its row, so that a terminal can
    take it back when the draft is held."""

    def __init__(self) -> None:
        self.text = ""

    def erase(self) -> bool:
        """Clear the draft's rows and leave the cursor at the start of its first one; False
        (nothing done) when nothing was printed or the output is not a terminal."""
        if not self.text or not sys.stdout.isatty():
            return False
        up = rows(self.text, shutil.get_terminal_size().columns) - 1
        click.echo("\r" + (f"\x1b[{up}A" if up else "") + "\x1b[J", nl=False)
        self.text = ""
        return True


class ConsoleObserver(StepObserver):
    """Prints steps as they stream: ``verbose`` shows thoughts, calls and results."""

    def __init__(self, *, verbose: bool = True, assistant_name: str = "assistant"):
        self.verbose = verbose
        self.assistant_name = assistant_name
        self._reader = PartialFieldReader()
        self._shown: dict[str, int] = {}
        self._message = ""  # the reply shown so far in this step
        self._draft = ErasableDraft()

    def step_started(self, index: int) -> None:
        self._reader = PartialFieldReader()
        self._shown = {"thought": 0, "message": 0}
        self._message = ""
        self._draft = ErasableDraft()

    def _emit(self, field: str, value: str) -> None:
        shown = self._shown[field]
        if len(value) <= shown:
            return
        if shown == 0:
            prefix = "  (thinking) " if field == "thought" else f"{self.assistant_name}: "
            click.secho(
                ("\n" if field == "message" and self._shown["thought"] else "") + prefix,
                nl=False,
                dim=field == "thought",
            )
            if field == "message":
                self._draft.text = prefix
        click.secho(value[shown:], nl=False, dim=field == "thought")
        if field == "message":
            self._draft.text += value[shown:]
        self._shown[field] = len(value)

    def text(self, piece: str) -> None:
        values = self._reader.feed(piece)
        if self.verbose and "thought" in values:
            self._emit("thought", values["thought"])
        if self._reader.replying() and "message" in values:
            self._message = settled(values["message"], self.formulas, self.formula_words, self.max_items)
            self._emit("message", self._message)

    def noted(self, changes: list[str]) -> None:
        if self.verbose:
            for change in changes:
                click.secho(f"  (core memory) {change}", dim=True)

    def tidied(self, report: EvictionReport) -> None:
        click.secho(f"  (memory: moved {report.evicted} old messages into the summary)", dim=True)

    def step_finished(self, record: StepRecord) -> None:
        if record.hold is None and record.call is not None and record.call.function in REPLY_FUNCTIONS:
            final = str(record.call.arguments.get("message", ""))
            if self._shown.get("message") and not final.startswith(self._message) and self._draft.erase():
                # the loop cut what streamed ("Abena is your mother's name. Abena is" went out as its
                # first sentence; the screen kept "Abena is", a `make run` chat, stop 59): the reply
                # that went out is printed in its place
                thought = self._shown["thought"]
                self._shown.update(thought=0, message=0)
                self._emit("message", final)
                self._shown["thought"], self._message = thought, final
            elif self._shown.get("message"):
                self._emit("message", self._message + unshown(final, self._message))  # its last sentence
        streamed_message = self._shown.get("message", 0) > 0
        erased = record.hold is not None and self._draft.erase()  # the cursor is at a row's start
        if (self._shown.get("thought") or streamed_message) and not erased:
            click.echo()
        if record.outcome.user_message and not streamed_message:
            click.echo(f"{self.assistant_name}: {record.outcome.user_message}")
        if record.hold is not None:  # the draft streamed above did not go out: say so, and why
            if not record.hold.end_turn:
                click.secho(f"  (draft held back: {record.hold.user_note}; answering again)", dim=True)
            elif streamed_message:
                click.secho(f"  (not sent: {record.hold.user_note})", dim=True)
        elif self.verbose and record.call and record.call.function not in REPLY_FUNCTIONS:
            args = json.dumps(record.call.arguments, ensure_ascii=False)
            click.secho(f"  -> {record.call.function}({args})", dim=True)
            first = record.outcome.text.splitlines()[0] if record.outcome.text else ""
            click.secho(f"  <- {first}", dim=True)
        elif not record.outcome.ok:
            click.secho(f"  <- {record.outcome.text.splitlines()[0]}", dim=True)
        if record.eviction and record.eviction.evicted:
            click.secho(f"  (memory: moved {record.eviction.evicted} old messages into the summary)", dim=True)


class EventPrinter:
    """Prints a turn streamed by a server (``server/stream.py`` events) the way
    ``ConsoleObserver`` prints one run in this process."""

    def __init__(self, *, verbose: bool = True, assistant_name: str = "assistant"):
        self.verbose = verbose
        self.assistant_name = assistant_name
        self._shown = {"thought": 0, "message": 0}
        self._draft = ErasableDraft()

    def show(self, event: dict) -> None:
        kind = event["type"]
        if kind == "step":
            self._shown = {"thought": 0, "message": 0}
            self._draft = ErasableDraft()
        elif kind == "thought" and self.verbose:
            if not self._shown["thought"]:
                click.secho("  (thinking) ", nl=False, dim=True)
            click.secho(event["delta"], nl=False, dim=True)
            self._shown["thought"] += len(event["delta"])
        elif kind == "message":
            if not self._shown["message"]:
                click.echo(("\n" if self._shown["thought"] else "") + f"{self.assistant_name}: ", nl=False)
                self._draft.text = f"{self.assistant_name}: "
            click.echo(event["delta"], nl=False)
            self._draft.text += event["delta"]
            self._shown["message"] += len(event["delta"])
        elif kind == "call":
            erased = bool(event.get("held")) and self._draft.erase()
            if (self._shown["thought"] or self._shown["message"]) and not erased:
                click.echo()
            if event.get("held"):
                click.secho(f"  (not sent: {event['held']})", dim=True)
            elif self.verbose and event["function"] not in REPLY_FUNCTIONS:
                click.secho(f"  -> {event['function']}({json.dumps(event['arguments'], ensure_ascii=False)})", dim=True)
                first = event["result"].splitlines()[0] if event["result"] else ""
                click.secho(f"  <- {first}", dim=True)
            self._shown = {"thought": 0, "message": 0}
        elif kind == "memory" and self.verbose:
            for change in event["changes"]:
                click.secho(f"  (core memory) {change}", dim=True)
        elif kind == "done" and event.get("output"):
            click.echo(event["output"])
        elif kind == "error":
            click.echo(f"error: {event['error']}", err=True)
