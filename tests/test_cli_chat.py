"""`memgpt-local send` and `chat` driven through the CLI with a scripted model file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memgpt_local.cli.main import cli


def _script(tmp_path: Path, steps: list) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "script.json"
    path.write_text(json.dumps(steps))
    return f"scripted:{path}"


def test_send_prints_the_reply_and_json_steps(cli_runner, tmp_path):
    ok = {"thought": "", "function": "send_message", "arguments": {"message": "Ok!"}}
    first = _script(tmp_path / "first", [ok, '{"facts": []}'])
    model = _script(
        tmp_path,
        [
            {
                "thought": "look it up",
                "function": "archival_memory_search",
                "arguments": {"query": "keys", "page": 0},
                "request_heartbeat": True,
            },
            {
                "thought": "answer",
                "function": "send_message",
                "arguments": {"message": "In the blue bowl."},
                "request_heartbeat": False,
            },
            '{"facts": []}',  # fact notes: the question states nothing about the user
        ],
    )
    told = cli_runner.invoke(cli, ["send", "--model", first, "I left my keys in the blue bowl."])
    assert told.exit_code == 0, told.output
    result = cli_runner.invoke(cli, ["send", "--model", model, "--json", "where are my keys?"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [s["function"] for s in data["steps"]] == ["archival_memory_search", "send_message"]
    assert data["messages"] == ["In the blue bowl."] and data["core_memory"] == []
    assert data["steps"][0]["tokens"]["prompt"] > 0


def test_send_plain_and_errors(cli_runner, tmp_path):
    model = _script(tmp_path, [{"thought": "", "function": "send_message", "arguments": {"message": "hi!"}}])
    result = cli_runner.invoke(cli, ["send", "--model", model, "hello"])
    assert result.exit_code == 0 and result.output.strip() == "hi!"
    empty = _script(tmp_path, [])
    result = cli_runner.invoke(cli, ["send", "--model", empty, "hello"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output


def test_chat_runs_slash_commands_and_persists(cli_runner, tmp_path):
    model = _script(
        tmp_path,
        [
            {"thought": "greet", "function": "send_message", "arguments": {"message": "Hello! What's your name?"}},
            {"thought": "", "function": "send_message", "arguments": {"message": "Nice to meet you, Ada."}},
            '{"facts": ["Name: Ada", "Age: 30"]}',  # fact notes; "30" was never said
        ],
    )
    result = cli_runner.invoke(cli, ["chat", "--model", model], input="I'm Ada\n/memory\n/dump 2\n/nonsense\n/exit\n")
    assert result.exit_code == 0, result.output
    assert "Hello! What's your name?" in result.output and "Nice to meet you, Ada." in result.output
    assert "(core memory) saved: Name: Ada" in result.output and "Age" not in result.output
    assert "[persona]" in result.output and "\nName: Ada\n" in result.output
    # a second session sees the same agent and its history
    model2 = _script(tmp_path, [{"thought": "", "function": "send_message", "arguments": {"message": "hi again"}}])
    result = cli_runner.invoke(cli, ["chat", "--model", model2, "--no-login"], input="/dump 20\n/exit\n")
    assert "I'm Ada" in result.output


def test_chat_says_when_a_streamed_message_was_not_sent(cli_runner, tmp_path):
    model = _script(
        tmp_path,
        [
            {
                "thought": "answer",
                "function": "send_message",
                "arguments": {"message": "It is in Naillpouick."},
                "request_heartbeat": True,
            },
            {"thought": "again", "function": "send_message", "arguments": {"message": "Message sent."}},
        ],
    )
    # a heartbeat turn: a user's turn ends at its answer (one_reply), so no second message comes
    result = cli_runner.invoke(cli, ["chat", "--model", model, "--no-login"], input="/heartbeat\n/exit\n")
    assert result.exit_code == 0, result.output
    assert "It is in Naillpouick." in result.output
    assert "(not sent: that is a function's result, not a message for the user.)" in result.output


def test_chat_says_when_a_draft_asked_the_question_back(cli_runner, tmp_path):
    model = _script(
        tmp_path,
        [
            {
                "thought": "ask",
                "function": "send_message",
                "arguments": {"message": "Which book by Ann Lee won the prize?"},
            },
            {"thought": "answer", "function": "send_message", "arguments": {"message": "I do not know yet."}},
            '{"facts": []}',
        ],
    )
    result = cli_runner.invoke(
        cli, ["chat", "--model", model, "--no-login"], input="Which book by Ann Lee won the prize?\n/exit\n"
    )
    assert result.exit_code == 0, result.output
    assert "(draft held back: it asked your question back; answering again)" in result.output
    assert "I do not know yet." in result.output


@pytest.mark.parametrize(
    "guard, notice",
    [
        ("echo_guard", "(draft held back: it asked your question back; answering again)"),
        (
            "copy_guard",
            "(draft held back: it copied a memory that other results match your question better; answering again)",
        ),
    ],
)
def test_the_chat_names_the_guard_that_held_a_draft_back(capsys, guard, notice):
    from policy_fakes import FakeMemory, searched_turn

    from memgpt_local.agent.policy import FACTORIES
    from memgpt_local.agent.policy.base import Draft, StepPlan
    from memgpt_local.agent.turn import StepRecord
    from memgpt_local.cli.stream import ConsoleObserver
    from memgpt_local.config import AgentSettings
    from memgpt_local.functions.results import FunctionOutcome
    from memgpt_local.schemas import Completion, FunctionCall

    texts = [
        "Last night we saw The Shoulundvoels live at Zuxhao Hall.",
        "The Verquuels are playing at Zuxhao Hall next month, with support acts.",
    ]
    turn = searched_turn("Which band did we see live at Zuxhao Hall?", texts)
    policy = FACTORIES[guard](AgentSettings())
    message = {"echo_guard": "Which band did we see live at Zuxhao Hall?", "copy_guard": texts[1]}[guard]
    hold = policy.review(turn, Draft(message, [], StepPlan()), FakeMemory())
    assert hold is not None
    draft = FunctionCall(thought="t", function="send_message", arguments={"message": message})
    ConsoleObserver().step_finished(
        StepRecord(
            1,
            "",
            draft,
            FunctionOutcome(True, hold.notice),
            Completion(text="", prompt_tokens=1, evaluated_tokens=1, generated_tokens=1),
            hold=hold,
        )
    )
    assert notice in capsys.readouterr().out


def test_a_kill_mid_turn_loses_no_committed_step(tmp_path, data_home):
    """A process killed between two steps of a chain leaves every committed step in place,
    and the next run continues the same main context."""
    steps = [
        {
            "thought": "save",
            "function": "archival_memory_insert",
            "arguments": {"content": "Ada's cat is Pixel."},
            "request_heartbeat": True,
        },
        {"thought": "done", "function": "send_message", "arguments": {"message": "saved"}},
    ]
    model = _script(tmp_path, steps)
    code = (
        "import os, sys\n"
        "from memgpt_local.functions.execute import FunctionExecutor\n"
        "original = FunctionExecutor.run\n"
        "def run(self, call, focus=None, turn_start=None):\n"
        "    if call.function == 'send_message': os._exit(9)\n"
        "    return original(self, call, focus, turn_start)\n"
        "FunctionExecutor.run = run\n"
        "from memgpt_local.cli.main import cli\n"
        f"cli(['send', '--model', {model!r}, 'remember my cat Pixel'])\n"
    )
    env = dict(os.environ, MEMGPT_LOCAL_HOME=str(data_home))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 9, proc.stderr

    from memgpt_local.config import EmbedderSettings
    from memgpt_local.memory import open_store
    from memgpt_local.memory.embed import make_embedder

    store = open_store(data_home / "memory.db", make_embedder(EmbedderSettings()))
    try:
        assert store.integrity_check() == "ok"
        agent = store.agents.get("default")
        roles = [(m.role, m.function_name) for m in store.recall.in_context(agent.id)]
        assert roles == [
            ("user", None),
            ("assistant", "archival_memory_insert"),
            ("function", "archival_memory_insert"),
        ]
        assert store.archival.count(agent.id) == 1
    finally:
        store.close()
    # the next run continues from that context: the model's next step sees the saved result
    model = _script(tmp_path, [steps[1]])
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, ["send", "--model", model, "--event", "heartbeat", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["messages"] == ["saved"]


def test_the_chat_never_shows_a_formula_it_cuts_and_shows_all_it_sends(store, capsys):
    """While a reply streams, a later sentence waits until it has more words than a formula's
    opening (the step may stop there); at the step's end the rest of the reply is shown."""
    from agent_helpers import ask, make_runner, say

    from memgpt_local.cli.stream import ConsoleObserver
    from memgpt_local.server.stream import TurnStream

    formula = "What else would you like to know about him?"
    replies = [say(f"Lovely, a parrot! {formula}"), say(f"A new town, how exciting! {formula}")]
    for observer in (ConsoleObserver(verbose=False), TurnStream()):
        runner = make_runner(store, replies, name=type(observer).__name__.lower())
        runner.observer = observer
        ask(runner, "My parrot is called Brallhaette.")
        capsys.readouterr()
        if isinstance(observer, TurnStream):
            observer.events.queue.clear()
        ask(runner, "We finally moved to Tezetonbury.")
        if isinstance(observer, TurnStream):
            shown = "".join(e["delta"] for e in list(observer.events.queue) if e.get("type") == "message")
        else:
            shown = capsys.readouterr().out.split("assistant: ")[-1]
        assert "What else" not in shown and "A new town, how exciting!" in shown
        assert "Lovely, a parrot!" not in shown  # only this turn's reply


def _printed(step, record, tty, capsys, monkeypatch):
    """What ``ConsoleObserver`` prints for one streamed step (``step``, the model's text) ending in
    ``record``, to a terminal or a pipe, its styles (dim) aside."""
    import re

    from memgpt_local.cli.stream import ConsoleObserver

    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    observer = ConsoleObserver(verbose=False)
    observer.step_started(0)
    observer.text(step)
    observer.step_finished(record)
    return re.sub(r"\x1b\[\d*m", "", capsys.readouterr().out)


def test_a_held_draft_that_streamed_to_a_terminal_is_erased_there(capsys, monkeypatch):
    """On a terminal the held draft's rows are cleared before the note, so the user never reads
    a reply that did not go out (a redrafted greeting stayed on screen in `make run`); a pipe
    keeps the draft and gets the note under it."""
    import os
    import shutil

    from memgpt_local.agent.turn import Hold, StepRecord
    from memgpt_local.cli.stream import rows
    from memgpt_local.functions.results import FunctionOutcome
    from memgpt_local.schemas import Completion, FunctionCall

    draft = "Hello Dana! I am Sam, your friend."  # "assistant: " + this = 46 columns: 3 rows of 20
    step = json.dumps({"thought": "hi", "function": "send_message", "arguments": {"message": draft}})
    hold = Hold("greet_by_name", "notice", "it did not name a fact it knows")
    record = StepRecord(
        0,
        step,
        FunctionCall(thought="hi", function="send_message", arguments={"message": draft}),
        FunctionOutcome(True, hold.notice),
        Completion(text=step, prompt_tokens=1, evaluated_tokens=1, generated_tokens=1),
        hold=hold,
    )
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((20, 24)))
    assert rows("assistant: " + draft, 20) == 3 and rows("ab\ncd", 20) == 2 and rows("日本語", 5) == 2

    for tty in (True, False):
        out = _printed(step, record, tty, capsys, monkeypatch)
        note = "(draft held back: it did not name a fact it knows; answering again)"
        if tty:
            erased_at = out.index(draft + "\r\x1b[2A\x1b[J") + len(draft)
            assert note in out[erased_at:] and "\n" not in out[erased_at : out.index(note)]
        else:
            assert out.endswith(draft + "\n  " + note + "\n")


def test_a_reply_cut_after_it_streamed_is_printed_as_it_went_out_on_a_terminal(capsys, monkeypatch):
    """A `make run` chat (stop 59): "Abena is your mother's name. Abena is" streamed, the reply that
    went out was its first sentence, and the screen kept "Abena is"."""
    import os
    import shutil

    from memgpt_local.agent.turn import StepRecord
    from memgpt_local.functions.results import FunctionOutcome
    from memgpt_local.schemas import Completion, FunctionCall

    streamed, sent = "Abena is your mother's name. Abena is a lovely", "Abena is your mother's name."
    step = json.dumps({"thought": "", "function": "send_message", "arguments": {"message": streamed}})
    record = StepRecord(
        0,
        step,
        FunctionCall(thought="", function="send_message", arguments={"message": sent}),
        FunctionOutcome(True, "Message sent."),
        Completion(text=step, prompt_tokens=1, evaluated_tokens=1, generated_tokens=1),
    )
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((200, 24)))
    for tty in (True, False):
        out = _printed(step, record, tty, capsys, monkeypatch)
        shown = out.split("\r\x1b[J")[-1] if tty else out  # what the terminal shows after the erase
        if tty:
            assert shown == f"assistant: {sent}\n"
        else:  # a pipe cannot take words back: they stay
            assert out.startswith("assistant: Abena is your mother's name.") and out.endswith("\n")
