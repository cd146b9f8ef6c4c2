"""Playing conversation scripts through the agent, and scoring what a user would notice.

Each script runs in a fresh store, session by session: a login (timed as the script says),
then the user's messages, each through ``AgentRunner.run_turn`` exactly as the chat runs it.
One JSON line per script goes to ``OUT/chat.jsonl`` (resumable: finished scripts are skipped).

What is scored, per script and summed over a run:

- facts: of the facts stated in a session, the share the ``human`` block shows at the end of
  it (every key word of the fact in the block); a change counts when the new value is there
  and the old one is gone;
- messages per user turn, duplicate messages (the same text, or nearly, as an earlier one of
  the session), copied ones (a sentence of an earlier reply said again) and degenerate ones
  (a sentence three times, or a run of 8 words twice);
- answers: a question is correct when the reply holds an accepted answer and no out-of-date
  one; an answer is *invented* when it is neither correct nor a "don't know"; a question about
  something never said is correct only as a "don't know";
- greetings: after the first session, whether the login greeting names the user, and whether
  it mentions something known about them;
- retrieval: for questions whose turn searched, whether a search result held the answer;
- seconds and generated tokens per user turn, and seconds until its last reply went out (what
  the user waited; the fact notes and an eviction after the reply come later); seconds per
  login (the greeting, and an eviction after it).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgpt_local import events
from memgpt_local.agent.loop import AgentRunner, StepObserver
from memgpt_local.agent.turn import StepRecord, TurnResult
from memgpt_local.config import AgentSettings
from memgpt_local.eval.chat import ChatScript, Profile, Session, UserTurn
from memgpt_local.eval.scoring import contains, contains_any
from memgpt_local.memory.core import default_blocks
from memgpt_local.text import denies, near_duplicate, normalize_space, sentences, words

if TYPE_CHECKING:
    from memgpt_local.memory import MemoryStore
    from memgpt_local.memory.embed import Embedder
    from memgpt_local.runtime.base import Backend

RESULTS_FILE = "chat.jsonl"
AGENT = "chat-eval"
Log = Callable[[str], None]
RunnerFactory = Callable[..., AgentRunner]


def duplicate(message: str, earlier: Sequence[str]) -> bool:
    """The same message as an earlier one, or nearly (90% of its characters)."""
    return any(near_duplicate(message, e) for e in earlier)


def degenerate(message: str) -> bool:
    """One sentence three times, or a run of eight words twice, inside one message."""
    sentences = [normalize_space(s).lower() for s in re.split(r"(?<=[.!?])\s+", message) if len(s.split()) >= 3]
    if any(sentences.count(s) >= 3 for s in set(sentences)):
        return True
    tokens = words(message)
    grams = [tuple(tokens[i : i + 8]) for i in range(len(tokens) - 7)]
    return len(grams) != len(set(grams))


def fact_in(block: str, keys: Sequence[str]) -> bool:
    return all(contains(block, k) for k in keys)


def greeting_knows(user: Profile, message: str, session: int) -> bool:
    """Whether a greeting after the first session names something known about the user."""
    return session > 0 and any(w and contains(message, w) for w in user.known_words())


@dataclass
class TurnScore:
    """What one user turn did."""

    session: int
    kind: str
    text: str
    messages: list[str]
    seconds: float
    generated: int
    searched: bool
    retrieved: bool | None
    notes: list[str]
    verdict: str | None = None  # questions: correct / invented / idk / wrong-idk
    reply_seconds: float | None = None  # until its last reply went out (None: no reply)
    held: list[dict[str, str]] = field(default_factory=list)  # drafts a policy kept from the user

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def held_drafts(result: TurnResult) -> list[dict[str, str]]:
    """Each draft a policy held back in the turn: which policy, and what the user would have read."""
    held = []
    for step in result.steps:
        if step.hold is not None and step.call is not None:
            draft = step.call.arguments.get("message")
            held.append({"policy": step.hold.reason, "draft": draft if isinstance(draft, str) else ""})
    return held


def judge(turn: UserTurn, reply: str) -> str | None:
    """correct, invented, idk (said it did not know an answer that was in memory) or None.
    The answer counts only in a sentence that does not deny: "I'm sorry, but I don't have any
    information about Tufaiobury." names the town and says it does not know it (until stop 26
    such replies were scored correct)."""
    if turn.kind == "absent":
        return "correct" if denies(reply) else "invented"
    if turn.kind != "question":
        return None
    affirmed = " ".join(s for s in sentences(reply) if not denies(s))
    if contains_any(affirmed, turn.answers) and not contains_any(reply, turn.wrong):
        return "correct"
    return "idk" if denies(reply) else "invented"


class ReplyClock(StepObserver):
    """When a turn's replies went out (``time.perf_counter``), for the seconds a user waited."""

    def __init__(self) -> None:
        self.sent: list[float] = []

    def step_finished(self, record: StepRecord) -> None:
        if record.outcome.user_message and record.hold is None:
            self.sent.append(time.perf_counter())


class ChatEvaluation:
    """Plays scripts through ``AgentRunner`` and appends one scored line per script."""

    def __init__(
        self,
        out: Path,
        *,
        backend: Backend,
        embedder: Embedder,
        settings: AgentSettings,
        variant: str = "default",
        runner_factory: RunnerFactory = AgentRunner,
        log: Log | None = None,
    ) -> None:
        self.out = out
        self.backend = backend
        self.embedder = embedder
        self.settings = settings
        self.variant = variant
        self.runner_factory = runner_factory
        self.log = log
        self.path = out / RESULTS_FILE

    def key(self, script: ChatScript) -> str:
        return f"{script.key}|{self.variant}|{self.backend.name}|{self.backend.n_ctx}"

    def done(self) -> set[str]:
        if not self.path.exists():
            return set()
        return {json.loads(line)["key"] for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()}

    def run(self, scripts: Sequence[ChatScript]) -> list[dict[str, Any]]:
        self.out.mkdir(parents=True, exist_ok=True)
        done, new = self.done(), []
        for script in scripts:
            if self.key(script) in done:
                continue
            record = self.play(script)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            new.append(record)
        return new

    def _open(self) -> MemoryStore:
        from memgpt_local.memory import open_store

        work = self.out / "work"
        work.mkdir(parents=True, exist_ok=True)
        path = work / "chat.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        store = open_store(path, self.embedder)
        store.agents.create(AGENT, blocks=default_blocks(self.settings.core_memory_limit))
        return store

    def play(self, script: ChatScript) -> dict[str, Any]:
        store = self._open()
        try:
            clock = ReplyClock()
            runner = self.runner_factory(store, self.backend, AGENT, self.settings, observer=clock)
            turns, greetings, facts = [], [], []
            for number, session in enumerate(script.sessions):
                greetings.append(self._login(runner, script, session, number))
                sent: list[str] = [greetings[-1]["message"]]
                for position, turn in enumerate(session.turns, start=1):
                    scored = self._turn(runner, clock, number, turn, session.at + timedelta(minutes=2 * position))
                    scored_dict = scored.as_dict()
                    scored_dict["duplicates"] = sum(duplicate(m, sent) for m in scored.messages)
                    scored_dict["degenerate"] = sum(degenerate(m) for m in scored.messages)
                    sent += scored.messages
                    turns.append(scored_dict)
                    if self.log:
                        self.log(
                            f"  [{script.index}.{number}] {turn.kind}: {scored.verdict or ''} {scored.seconds:.0f}s"
                        )
                facts += self._facts(store, runner.agent_id, number, session)
            return {
                "key": self.key(script),
                "seed": script.seed,
                "index": script.index,
                "wording": script.wording,
                "variant": self.variant,
                "model": self.backend.name,
                "n_ctx": self.backend.n_ctx,
                "user": script.user.__dict__,
                "greetings": greetings,
                "turns": turns,
                "facts": facts,
                "human_block": store.core.get(runner.agent_id, "human").value,
                "evicted": int(runner.agent.state.get("evicted_messages", 0)),
            }
        finally:
            store.close()

    def _login(self, runner: AgentRunner, script: ChatScript, session: Session, number: int) -> dict[str, Any]:
        started = time.perf_counter()
        result = runner.run_turn(runner.login_event(now=session.at))
        message = "\n".join(result.messages)
        return {
            "session": number,
            "seconds": round(time.perf_counter() - started, 2),  # an eviction after the greeting included
            "message": message,
            "held": held_drafts(result),
            "names_user": contains(message, script.user.first),
            "known_fact": greeting_knows(script.user, message, number),
        }

    def _turn(self, runner: AgentRunner, clock: ReplyClock, number: int, turn: UserTurn, when: datetime) -> TurnScore:
        clock.sent.clear()
        started = time.perf_counter()
        result: TurnResult = runner.run_turn(events.user_message(turn.text, when=when))
        seconds = time.perf_counter() - started
        replied = round(clock.sent[-1] - started, 2) if clock.sent else None
        searched = [s for s in result.steps if s.outcome.searched]
        retrieved = None
        if turn.answers and searched:
            retrieved = any(contains_any(s.outcome.text, turn.answers) for s in searched)
        return TurnScore(
            session=number,
            kind=turn.kind,
            text=turn.text,
            messages=list(result.messages),
            seconds=round(seconds, 2),
            reply_seconds=replied,
            generated=sum(s.completion.generated_tokens for s in result.steps),
            searched=bool(searched),
            retrieved=retrieved,
            notes=result.notes,
            verdict=judge(turn, "\n".join(result.messages)),
            held=held_drafts(result),
        )

    @staticmethod
    def _facts(store: MemoryStore, agent_id: int, number: int, session: Session) -> list[dict[str, Any]]:
        block = store.core.get(agent_id, "human").value
        out = []
        for turn in session.turns:
            for fact in turn.states:
                kept = fact_in(block, fact.keys)
                if turn.replaces is not None:
                    kept = kept and not fact_in(block, turn.replaces.keys)
                out.append({"session": number, "label": fact.label, "kind": turn.kind, "in_block": kept})
        return out
