"""Chat timing: idle heartbeats, pause_heartbeats, and events from other processes."""

from __future__ import annotations

import pytest
from agent_helpers import call, make_runner, say
from store_sql import STORE_KINDS

from memgpt_local import events
from memgpt_local.cli.session import ChatSession


@pytest.fixture(params=STORE_KINDS)
def store_kind(request) -> str:
    """Every test here runs on the memory file and on a Postgres database."""
    return request.param


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_idle_timer_sends_a_timed_heartbeat_and_pause_suppresses_it(store):
    runner = make_runner(store, [call("pause_heartbeats", minutes=60)])
    clock = Clock()
    session = ChatSession(runner, idle_minutes=1, clock=clock)
    assert session.due_event() is None
    clock.now = 61
    assert session.due_event() == "heartbeat"
    assert session.run_due()
    assert any(m.content.startswith("[timed heartbeat") for m in store.recall.in_context(runner.agent_id))
    assert session.heartbeats_paused()
    clock.now = 200
    assert session.due_event() is None  # paused for an hour by the agent


def test_idle_timer_off_by_default(store):
    runner = make_runner(store, [])
    clock = Clock()
    session = ChatSession(runner, clock=clock)
    clock.now = 10_000
    assert session.due_event() is None


def test_an_event_written_by_another_process_is_picked_up(store):
    runner = make_runner(store, [say("I see the new document.")])
    session = ChatSession(runner, clock=Clock())
    assert session.due_event() is None
    # e.g. `memgpt-local load` in another process appends the upload event to the queue
    with store.transaction():
        store.recall.append(runner.agent_id, [events.document_upload("notes.md", 4)])
    assert session.due_event() == "pending"
    session.run_due()
    assert session.due_event() is None
    assert runner.store.recall.in_context(runner.agent_id)[-2].function_name == "send_message"
