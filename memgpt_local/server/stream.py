"""A turn as a stream of events, for server-sent events and the OpenAI-compatible stream.

The turn runs in a worker thread; ``TurnStream`` is its observer and puts one dict per event
on a queue that the response reads:

- ``{"type": "step", "index": i}``: a step started;
- ``{"type": "thought", "delta": ...}`` and ``{"type": "message", "delta": ...}``: the step's
  inner thought and its reply to the user, as they are generated;
- ``{"type": "call", "function", "arguments", "ok", "result", "held"}``: what the step did;
- ``{"type": "memory", "changes": [...]}``: what fact notes wrote into core memory;
- ``{"type": "done", "messages": [...], "steps": n}`` or ``{"type": "error", "error": ...}``,
  always last.

A client that goes away does not stop the turn: it runs to its end and is stored.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from memgpt_local.agent.loop import StepObserver
from memgpt_local.agent.partial import REPLY_FUNCTIONS, PartialFieldReader, settled, unshown
from memgpt_local.agent.turn import StepRecord, TurnResult
from memgpt_local.errors import MemGPTLocalError

log = logging.getLogger("memgpt_local.server")
Event = dict[str, Any]
_END = object()


class TurnStream(StepObserver):
    """Collects a turn's events on a queue; see the module docstring."""

    def __init__(self) -> None:
        self.events: queue.Queue[Event | object] = queue.Queue()
        self._reader = PartialFieldReader()
        self._sent = {"thought": 0, "message": 0}
        self._message = ""

    def step_started(self, index: int) -> None:
        self._reader = PartialFieldReader()
        self._sent = {"thought": 0, "message": 0}
        self._message = ""  # the reply sent so far in this step
        self.events.put({"type": "step", "index": index})

    def text(self, piece: str) -> None:
        values = self._reader.feed(piece)
        for name in ("thought", "message"):
            if name not in values or (name == "message" and not self._reader.replying()):
                continue
            value, sent = values[name], self._sent[name]
            if name == "message":
                value = self._message = settled(value, self.formulas, self.formula_words, self.max_items)
            if len(value) > sent:
                self.events.put({"type": name, "delta": value[sent:]})
                self._sent[name] = len(value)

    def step_finished(self, record: StepRecord) -> None:
        if record.call is None:
            return
        if record.hold is None and record.call.function in REPLY_FUNCTIONS and self._sent["message"]:
            # the reply's last sentence, held while it might turn out a formula (``partial.settled``)
            if rest := unshown(str(record.call.arguments.get("message", "")), self._message):
                self.events.put({"type": "message", "delta": rest})
        self.events.put(
            {
                "type": "call",
                "function": record.call.function,
                "arguments": record.call.arguments,
                "ok": record.outcome.ok,
                "result": record.outcome.text,
                "held": record.hold.user_note if record.hold is not None else None,
            }
        )

    def noted(self, changes: list[str]) -> None:
        self.events.put({"type": "memory", "changes": changes})

    def run(self, turn: Callable[[TurnStream], TurnResult | str]) -> Iterator[Event]:
        """Run ``turn`` (given this observer) in a thread; yield its events as they come. A
        slash command that answers in text ends with ``{"type": "done", "output": text}``."""

        def work() -> None:
            try:
                result = turn(self)
                if isinstance(result, str):
                    self.events.put({"type": "done", "output": result, "messages": [], "steps": 0})
                else:
                    self.events.put({"type": "done", "messages": result.messages, "steps": len(result.steps)})
            except MemGPTLocalError as exc:
                self.events.put({"type": "error", "error": str(exc)})
            except Exception as exc:  # the stream must end; the server log keeps the traceback
                log.exception("turn failed")
                self.events.put(
                    {"type": "error", "error": f"internal error ({type(exc).__name__}); see the server log"}
                )
            finally:
                self.events.put(_END)

        threading.Thread(target=work, name="turn", daemon=True).start()
        while (item := self.events.get()) is not _END:
            assert isinstance(item, dict)
            yield item
