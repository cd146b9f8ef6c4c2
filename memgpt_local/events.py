"""Events that drive the agent, and the text each one shows the model.

Every event becomes one message in recall storage (role ``user`` for user text, ``system``
for everything else) so the main context can be rebuilt exactly after a restart. Values that
change over time (the clock, memory counts) are written into the event's own text when it
is created, never into the system prompt, so the rendered prompt only grows at its end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from memgpt_local.schemas import NewMessage, utcnow
from memgpt_local.schemas import human_time as stamp


@dataclass(frozen=True)
class MemoryCounts:
    recall: int
    archival: int


def _status(counts: MemoryCounts | None) -> str:
    if counts is None:
        return ""
    return f" | recall memory: {counts.recall} messages, archival memory: {counts.archival} passages"


def user_message(text: str, when: datetime | None = None) -> NewMessage:
    """The user's words, stored as typed (the header is added when rendered)."""
    return NewMessage(role="user", content=text, created_at=when or utcnow())


def render_user(content: str, created_at: datetime) -> str:
    return f"[user message | {stamp(created_at)}]\n{content}"


def system_event(kind: str, text: str, counts: MemoryCounts | None = None, when: datetime | None = None) -> NewMessage:
    when = when or utcnow()
    return NewMessage(role="system", content=f"[{kind} | {stamp(when)}{_status(counts)}]\n{text}", created_at=when)


def describe_gap(gap: timedelta) -> str:
    seconds = int(gap.total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return "less than a minute"


LOGIN_FACTS = 8  # core-memory lines a login event lists


NAME_LABELS = ("name", "first name", "full name")


def is_name_line(line: str) -> bool:
    """Whether a core-memory line holds the user's name ("Name: Lena Maier")."""
    return line.partition(":")[0].strip().lower() in NAME_LABELS


def login_facts(lines: Sequence[str], limit: int = LOGIN_FACTS, keep: str | None = None) -> list[str]:
    """The core-memory lines a login lists: the name first (the greeting uses it; listing only
    the newest six lines left "Name: ..." out once a user had said eight things), then the
    newest of the others, in their saved order; ``keep`` (the line to greet with) among them."""
    named = [ln for ln in lines if is_name_line(ln)][:1]
    others = [ln for ln in lines if ln not in named]
    newest = others[max(0, len(others) - (limit - len(named))) :]
    if keep is not None and keep in others and keep not in newest and newest:
        newest = [ln for ln in others if ln == keep or ln in newest[1:]]
    return named + newest


def login(
    last_login: datetime | None,
    counts: MemoryCounts | None = None,
    now: datetime | None = None,
    known: list[str] | None = None,
    ask_about: str | None = None,
) -> NewMessage:
    """A login; ``known`` are lines of the human block, quoted so a greeting can use them (a
    small model told only "greet them by name, it is in your core memory" said "Hello! How can
    I help you today?" with the name there). ``ask_about`` is the one of them to ask about, said
    last (with the whole list and "mention one thing", a 1.5B model still wrote "Hello, Tomasz!
    How can I help you today?" the day after his sister's visit was saved)."""
    now = now or utcnow()
    if last_login is None and not known:
        text = "The user logged in for the first time. You do not know their name: greet them and ask it."
    else:
        since = f" Last login was {describe_gap(now - last_login)} ago." if last_login else ""
        text = f"The user logged in.{since}"
        if known:
            text += (
                " Greet the user by their name and mention one thing you know about them."
                " What your core memory says about the user (their facts, not yours):\n" + "\n".join(known)
            )
            if ask_about:
                text += f"\nMention this one in your greeting: {ask_about}."
        else:
            text += " You do not know their name yet: greet them and ask it."
    return system_event("login", text, counts, now)


def kind_of(content: str, role: str) -> str:
    """The kind of an event as stored: "user message", or the tag of a system event ("login")."""
    if role == "user":
        return "user message"
    if content.startswith("[") and " |" in content:
        return content[1 : content.index(" |")]
    return role


def memory_pressure(used_tokens: int, n_ctx: int, when: datetime | None = None) -> NewMessage:
    pct = round(100 * used_tokens / n_ctx)
    return system_event(
        "memory pressure warning",
        f"For you, not the user: the context window is {pct}% full ({used_tokens}/{n_ctx} tokens). Older "
        "messages will soon be moved out of view into a summary; every message stays searchable. Save "
        "details you will need with archival_memory_insert if they are not saved yet, then go on with "
        "the conversation: answer the user's last message as usual and do not mention this notice.",
        when=when,
    )


def document_upload(source: str, passages: int, counts: MemoryCounts | None = None) -> NewMessage:
    return system_event(
        "document upload",
        f"The user added {source!r} to archival memory ({passages} passages). "
        "Use archival_memory_search to read it when it is relevant.",
        counts,
    )


def timed_heartbeat(counts: MemoryCounts | None = None) -> NewMessage:
    return system_event(
        "timed heartbeat",
        "No user activity for a while. You may reflect and organise your memory, or do nothing "
        "by calling pause_heartbeats.",
        counts,
    )


def manual_heartbeat() -> NewMessage:
    return system_event("heartbeat", "Heartbeat requested by the user: continue.")


def notes_request(text: str) -> NewMessage:
    """The question of a fact-notes pass (shown to the model once, never stored)."""
    return system_event("memory check", text)


def memory_update(label: str, changes: list[str], when: datetime | None = None) -> NewMessage:
    """What a fact-notes pass wrote into core memory, for the model to see from now on."""
    return system_event(
        "memory update",
        f"Core memory ({label}) was updated from the user's message:\n" + "\n".join(changes),
        when=when,
    )


def function_result(name: str, ok: bool, result: str, when: datetime | None = None) -> NewMessage:
    when = when or utcnow()
    status = "OK" if ok else "ERROR"
    return NewMessage(
        role="function",
        function_name=name,
        content=f"[{name} returned {status} | {stamp(when)}]\n{result}",
        created_at=when,
    )
