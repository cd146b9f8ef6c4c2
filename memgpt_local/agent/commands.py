"""Slash commands of the chat (``/memory``, ``/pop``, ``/retry`` ...), as plain functions.

Each takes the running ``AgentRunner`` and returns text for the front end (or a
``TurnResult`` when it runs steps). Every change they make is committed to the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memgpt_local import events
from memgpt_local.agent.context import transcript_line
from memgpt_local.agent.loop import AgentRunner
from memgpt_local.agent.turn import TurnResult
from memgpt_local.errors import InvalidInputError
from memgpt_local.functions.specs import FunctionKind
from memgpt_local.memory.core import default_text
from memgpt_local.schemas import ChatMessage, Message

SENT_RESULT = "Message sent."  # send_message's result (functions/handlers.py) when it went out


@dataclass(frozen=True)
class SlashCommand:
    name: str
    usage: str
    help: str
    run: Callable[[AgentRunner, str], str | TurnResult]


def _int_arg(arg: str, default: int) -> int:
    if not arg.strip():
        return default
    try:
        value = int(arg)
    except ValueError as exc:
        raise InvalidInputError(f"expected a number, got {arg!r}") from exc
    if value < 1:
        raise InvalidInputError(f"expected a positive number, got {value}")
    return value


def show_memory(runner: AgentRunner, _: str) -> str:
    lines = []
    for block in runner.store.core.blocks(runner.agent_id):
        lines.append(f"[{block.label}] {len(block.value)}/{block.limit} chars")
        lines.append(block.value or "(empty)")
    counts = runner.counts()
    in_ctx = len(runner.store.recall.in_context(runner.agent_id))
    lines.append(
        f"recall memory: {counts.recall} messages ({in_ctx} in context); archival memory: {counts.archival} passages"
    )
    if runner.agent.summary:
        lines.append(f"summary of evicted messages: {runner.agent.summary}")
    return "\n".join(lines)


def context_usage(runner: AgentRunner) -> list[tuple[str, int]]:
    """Tokens per section of the main context (each measured by the model's tokenizer). The
    chat template's own tokens count with the instructions: many templates cannot render an
    empty conversation, so nothing is measured without a system message."""
    parts = runner.parts()
    count = runner.backend.count_tokens
    system_only = count([ChatMessage(role="system", content=parts.instructions)])
    system = count([ChatMessage(role="system", content=f"{parts.instructions}\n\n{parts.core_memory}")])
    with_summary = count(parts.messages()[: 2 if parts.summary is not None else 1])
    total = count(parts.messages())
    return [
        ("system instructions", system_only),
        ("core memory", system - system_only),
        ("summary", with_summary - system),
        ("messages", total - with_summary),
        ("reply reserve", runner.settings.reply_reserve_tokens),
    ]


def show_context(runner: AgentRunner, _: str) -> str:
    window = runner.backend.n_ctx
    rows = context_usage(runner)
    used = sum(t for _, t in rows)
    width = 40
    filled = min(width, round(width * used / window))
    lines = [f"[{'#' * filled}{'.' * (width - filled)}] {used}/{window} tokens ({100 * used / window:.0f}%)"]
    lines += [f"  {name:<20} {tokens:>6}" for name, tokens in rows]
    lines.append(
        f"  warning at {runner.settings.warning_fraction:.0%}, eviction at "
        f"{runner.settings.flush_fraction:.0%} of {runner.queue.budget}"
    )
    return "\n".join(lines)


def dump(runner: AgentRunner, arg: str) -> str:
    n = _int_arg(arg, 10)
    messages = runner.store.recall.in_context(runner.agent_id)[-n:]
    return "\n".join(f"#{m.id} {transcript_line(m)}" for m in messages) or "(the context holds no messages)"


def _pop_start(messages: list[Message], n: int) -> int:
    """Where deleting the last ``n`` messages starts: one earlier when it would take a call's
    result and leave the call (after a real model's two-step turn, five messages, /pop 3 left
    the first step's call in the context without its result)."""
    start = max(0, len(messages) - n)
    if 0 < start < len(messages) and messages[start].role == "function" and messages[start - 1].role == "assistant":
        start -= 1
    return start


def pop(runner: AgentRunner, arg: str) -> str:
    n = _int_arg(arg, 3)
    messages = runner.store.recall.in_context(runner.agent_id)
    gone = messages[_pop_start(messages, n) :]
    with runner.store.transaction():
        runner.store.recall.delete(runner.agent_id, [m.id for m in gone])
    what = "message" if len(gone) == 1 else f"{len(gone)} messages"
    extra = " (one more than asked: a call goes with its result)" if len(gone) > n else ""
    return f"removed the last {what}{extra}"


def _last_user_index(runner: AgentRunner) -> tuple[list[Message], int]:
    messages = runner.store.recall.in_context(runner.agent_id)
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            return messages, i
    raise InvalidInputError("there is no user message in the context to retry")


def retry(runner: AgentRunner, _: str) -> TurnResult:
    """Drop everything after the last user message and run that user's turn again, afresh.
    Everything means storage too: a draft a guard held back left the context but stays in
    storage with its turn, and a retried turn must not keep the old one's (it did, in CI)."""
    messages, i = _last_user_index(runner)
    stored = runner.store.recall.all(runner.agent_id)
    start = next(j for j, m in enumerate(stored) if m.id == messages[i].id) + 1
    with runner.store.transaction():
        runner.store.recall.delete(runner.agent_id, [m.id for m in stored[start:]])
    return runner.run_turn(messages[i])


def _went_out(messages: list[Message], i: int) -> bool:
    """Whether the reply step ``messages[i]`` reached the user. A draft a policy held back
    (the repeat guard's stays in the context) has the hold's notice as its result instead of
    send_message's "Message sent."; a step whose result is gone (``/pop 1``) was shown."""
    result = messages[i + 1] if i + 1 < len(messages) else None
    if result is None or result.role != "function":
        return True
    return result.content.partition("\n")[2] == SENT_RESULT


def _last_step(runner: AgentRunner, kind: FunctionKind | None = None) -> Message:
    """The newest assistant step in the context (of a function of ``kind``, when given; a
    reply only when it went out)."""
    names = {f.name for f in runner.functions if kind is None or f.kind == kind}
    messages = runner.store.recall.in_context(runner.agent_id)
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message.role == "assistant" and message.function_name in names:
            if kind != "reply" or _went_out(messages, i):
                return message
    raise InvalidInputError(f"no {'assistant step' if kind is None else 'message to you'} in the context")


def rethink(runner: AgentRunner, arg: str) -> str:
    if not arg.strip():
        raise InvalidInputError("usage: /rethink NEW THOUGHT")
    step = _last_step(runner)
    with runner.store.transaction():
        runner.store.recall.update(runner.agent_id, step.id, content=arg.strip())
    return "replaced the last inner monologue"


def rewrite(runner: AgentRunner, arg: str) -> str:
    if not arg.strip():
        raise InvalidInputError("usage: /rewrite NEW MESSAGE")
    step = _last_step(runner, "reply")
    args = dict(step.function_args or {}, message=arg.strip())
    with runner.store.transaction():
        runner.store.recall.update(runner.agent_id, step.id, function_args=args)
    return "replaced the last message sent to you"


def unsave(runner: AgentRunner, arg: str) -> str:
    """Delete the lines of the ``human`` block that hold ``arg`` (any case): a wrong note ("Funk
    bass lines: a numbered list of ten", a `make run` chat, stop 46) was greeted with at every
    login, and the chat had no way to take it out."""
    needle = " ".join(arg.split()).lower()
    if not needle:
        raise InvalidInputError("usage: /unsave TEXT (the core-memory lines about the user that hold TEXT go)")
    block = runner.store.core.get(runner.agent_id, "human")
    lines = block.value.splitlines()
    gone = [line for line in lines if needle in " ".join(line.split()).lower()]
    if not gone:
        raise InvalidInputError(f"no line of core memory (human) holds {arg.strip()!r}; /memory shows them")
    kept = "\n".join(line for line in lines if line not in gone).strip()
    with runner.store.transaction():
        runner.store.core.set_value(runner.agent_id, "human", kept or default_text("human"))
    return "removed from core memory (human):\n" + "\n".join(f"  {line}" for line in gone)


def heartbeat(runner: AgentRunner, _: str) -> TurnResult:
    return runner.run_turn(events.manual_heartbeat())


def memory_warning(runner: AgentRunner, _: str) -> TurnResult:
    pressure = runner.queue.pressure()
    return runner.run_turn(events.memory_pressure(pressure.prompt_tokens, pressure.budget))


def summarize(runner: AgentRunner, _: str) -> str:
    report = runner.queue.evict(runner.agent_id, force=True)
    if not report.evicted:
        return "nothing to summarize: the context holds too few messages"
    return (
        f"evicted {report.evicted} messages into the summary ({report.tokens_before} -> {report.tokens_after} tokens)"
    )


COMMANDS: dict[str, SlashCommand] = {
    c.name: c
    for c in (
        SlashCommand("memory", "/memory", "show core memory and memory counts", show_memory),
        SlashCommand("context", "/context", "show token use per section of the context window", show_context),
        SlashCommand("dump", "/dump [n]", "show the last n messages in the context (default 10)", dump),
        SlashCommand("pop", "/pop [n]", "delete the last n messages (default 3; a call goes with its result)", pop),
        SlashCommand("unsave", "/unsave TEXT", "delete the core-memory lines about you that hold TEXT", unsave),
        SlashCommand("retry", "/retry", "drop the answer to your last message and generate it again", retry),
        SlashCommand("rethink", "/rethink TEXT", "replace the agent's last inner monologue", rethink),
        SlashCommand("rewrite", "/rewrite TEXT", "replace the agent's last message to you", rewrite),
        SlashCommand("heartbeat", "/heartbeat", "send a heartbeat event (the agent takes a step)", heartbeat),
        SlashCommand("memorywarning", "/memorywarning", "send a memory-pressure warning", memory_warning),
        SlashCommand("summarize", "/summarize", "evict the oldest half of the context into the summary", summarize),
    )
}


def help_text() -> str:
    lines = [f"  {c.usage:<16} {c.help}" for c in COMMANDS.values()]
    lines += ["  /help            show this help", "  /exit            leave the chat"]
    return "\n".join(lines)


def parse_slash(line: str) -> tuple[str, str] | None:
    """('name', 'args') for a slash command line, else None."""
    if not line.startswith("/"):
        return None
    name, _, arg = line[1:].partition(" ")
    return name.strip().lower(), arg
