"""Every evaluation variant reaches the runner an episode uses, and changes what the episode
does: the eval runs turns exactly as chat and `send` do (``AgentRunner.run_turn``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from memgpt_local.agent import loop as agent_loop
from memgpt_local.agent.policy import build_policies
from memgpt_local.config import Settings
from memgpt_local.eval import runner as eval_runner
from memgpt_local.eval.base import Options
from memgpt_local.eval.runner import EvalConfig, Evaluation
from memgpt_local.eval.variants import VARIANTS, get_variant
from memgpt_local.functions.links import identifiers
from memgpt_local.functions.specs import FUNCTIONS_BY_NAME
from memgpt_local.runtime.grammar import render_call
from memgpt_local.schemas import ChatMessage, Completion, FunctionCall

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from fake_embedder import HashEmbedder  # noqa: E402

RESULT_LINE = re.compile(r"^\d+\. \[[^\]]*\](?: the user said:| you said:)? (.*)$", re.M)
# the task (and seed) whose episode shows the variant's difference (default: dmr, seed 3); the probe
# ranks by a hash embedder, so where the copy guard acts depends on the episode drawn
TASKS: dict[str, tuple[str, int]] = {
    "no-reply-check": ("nested-kv", 3),
    "denial-guard": ("nested-kv", 3),
    "no-copy-guard": ("dmr", 2),
}
# their difference shows in a conversation (see the chat tests below), or only when the model
# refuses, which the probe never does, or answers in another language, which the probe never does,
# or says it does not know to a statement, which the probe is
# never told (see the refusal and denial tests below), or repeats an earlier turn's sentence, which
# a one-question episode has none of (tests/test_agent_loop.py holds the formula tests)
# (grounded-reply: the probe names nothing it did not read; no-core-at-question and
# no-answer-start: the probe's memory has no core line about its question; all are tested in
# test_policies)
CHAT_ONLY = {
    "no-direct-reply",
    "past-thoughts",
    "no-refusal-guard",
    "no-unasked-denial",
    "no-language-guard",
    "no-formula-stop",
    "same-openings",
    "grounded-reply",
    "no-core-at-question",
    "no-answer-start",
}


class ProbeBackend:
    """A fake model with a small model's habits, choosing by what each request's grammar allows:
    it searches (the question's codes, else its words) while it may, up to four times, then
    replies: first by asking the question back, then (``copies``) by copying the last line of one
    sentence it read, then with the last name or id of the first line it read that the question does not
    hold. Every request is recorded."""

    name = "probe"
    n_ctx = 16384

    def __init__(self, search: str, *, copies: bool) -> None:
        self.search = search  # the search function it uses
        self.copies = copies  # whether its second reply copies the last line it read
        self.requests: list[tuple[list[ChatMessage], str]] = []
        self.searches = 0
        self.replies = 0

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        return sum(len(m.content.split()) + 4 for m in messages)

    def _call(self, messages: list[ChatMessage], allowed: tuple[str, ...]) -> FunctionCall:
        asked = (m.content for m in reversed(messages) if m.content.startswith("[user message"))
        question = next(asked, "[login]\nHello").split("\n", 1)[1]  # a login: no user message yet
        if self.search in allowed and self.searches < 4:
            self.searches += 1
            codes = [i for i in identifiers(question) if any(c.isdigit() for c in i)]
            words = codes or [w for w in re.findall(r"\w+", question) if len(w) > 3][: 2 + self.searches]
            return FunctionCall(
                thought="look it up", function=self.search, arguments={"query": " ".join(words)}, request_heartbeat=True
            )
        read = [m.group(1) for c in messages for m in RESULT_LINE.finditer(c.content)]
        self.replies += 1
        if self.replies == 1:
            # its last sentence: a reply begun from a quote is cut after one (``recall_at_question``)
            asked_back = re.split(r"(?<=[.!?])\s+", question.strip())[-1]
            message = asked_back.replace(" I ", " you ").replace(" my ", " your ")
        elif self.replies == 2 and read and self.copies:
            # a line of one sentence, which the cut after one leaves whole
            whole = [line for line in read if len(re.split(r"(?<=[.!?])\s+", line.strip())) == 1]
            message = (whole or read)[-1]
        else:
            names = [i for i in identifiers(read[0] if read else "") if i not in question] or ["nothing"]
            message = f"I do not know for sure, I think it was {names[-1]}."
        return FunctionCall(thought="answer", function="send_message", arguments={"message": message})

    def complete(self, messages, *, grammar, max_tokens, on_text=None, avoid=None) -> Completion:
        self.requests.append((list(messages), grammar.text))
        if grammar.kind == "json":  # fact notes after the turn: the question states no fact
            return Completion(
                text='{"facts": []}', prompt_tokens=self.count_tokens(messages), evaluated_tokens=1, generated_tokens=4
            )
        call = self._call(messages, grammar.function_names)
        start, message = grammar.message_start, call.arguments.get("message")
        if start and isinstance(message, str) and not message.startswith(start):  # as the grammar makes a model
            call = call.model_copy(update={"arguments": {"message": f"{start} {message}"}})
        text = render_call(call, FUNCTIONS_BY_NAME[call.function], heartbeat=grammar.heartbeat)
        return Completion(
            text=text, prompt_tokens=self.count_tokens(messages), evaluated_tokens=1, generated_tokens=len(text.split())
        )

    def reset_cache(self) -> None: ...

    def close(self) -> None: ...


def run_probe(
    tmp_path: Path, variant: str, monkeypatch, task: str = "dmr", seed: int = 3
) -> tuple[dict, ProbeBackend, list]:
    built = []

    class Recording(eval_runner.AgentRunner):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(eval_runner, "AgentRunner", Recording)
    monkeypatch.setattr(agent_loop, "AgentRunner", Recording)  # what a variant's own runner factory builds
    kv = task == "nested-kv"
    backend = ProbeBackend("archival_memory_search" if kv else "conversation_search", copies=not kv)
    options = Options(seed=seed, n=1, points=(2,) if task == "nested-kv" else None)
    config = EvalConfig(task=task, model="probe", out=tmp_path / variant, options=options, variant=get_variant(variant))
    evaluation = Evaluation(config, backend=backend, embedder=HashEmbedder(dim=32), settings=Settings())
    (record,) = evaluation.run()
    return record, backend, built


@pytest.fixture(scope="module")
def default_episodes(tmp_path_factory):
    """The default configuration's episode on each task (and seed), run once."""
    done: dict[tuple[str, int], tuple[dict, list]] = {}

    def get(task: str, seed: int = 3) -> tuple[dict, list]:
        if (task, seed) not in done:
            monkeypatch = pytest.MonkeyPatch()
            try:
                record, backend, _ = run_probe(tmp_path_factory.mktemp(task), "default", monkeypatch, task, seed)
            finally:
                monkeypatch.undo()
            done[(task, seed)] = (record, backend.requests)
        return done[(task, seed)]

    return get


@pytest.mark.parametrize("name", sorted(set(VARIANTS) - {"default"} - CHAT_ONLY))
def test_each_variant_reaches_the_runner_and_changes_the_episode(tmp_path, monkeypatch, default_episodes, name):
    task, seed = TASKS.get(name, ("dmr", 3))
    record, backend, built = run_probe(tmp_path, name, monkeypatch, task, seed)
    (runner,) = built
    variant = VARIANTS[name]
    expected = variant.settings(Settings().agent)
    assert runner.settings == expected
    assert [p.name for p in runner.policies] == [p.name for p in build_policies(expected)]
    assert record["error"] is None and record["overrides"] == variant.overrides()
    _, requests = default_episodes(task, seed)
    assert backend.requests != requests, f"variant {name} ran the same episode as the defaults"


def test_the_default_episode_uses_the_policies_a_chat_turn_uses(default_episodes):
    record, requests = default_episodes("dmr")
    # the search budget (3) forced the fourth step to reply: its grammar allows send_message only
    assert record["searches"] == 3
    grammars = [g for _, g in requests]
    assert "conversation_search" in grammars[0] and "conversation_search" not in grammars[3]
    assert "echo_guard" in record["holds"]  # the question asked back was held
    kv_record, _ = default_episodes("nested-kv")
    assert "reply_check" in kv_record["holds"]  # a value whose own entry it had not read was held


def test_no_direct_reply_reaches_the_conversation_evaluation_and_lets_a_statement_search(tmp_path):
    """The chat evaluation runs the variant's settings: by default a user's statement is
    answered in one reply-only step; without direct reply the (probe) model searches first."""
    from memgpt_local.eval.chat import scripts
    from memgpt_local.eval.chat_run import ChatEvaluation

    script = scripts(seed=3, n=1)[0]
    first_turn: dict[str, list[str]] = {}
    for name in ("default", "no-direct-reply"):
        variant = get_variant(name)
        backend = ProbeBackend("conversation_search", copies=False)
        evaluation = ChatEvaluation(
            tmp_path / name,
            backend=backend,
            embedder=HashEmbedder(dim=32),
            settings=variant.settings(Settings().agent),
            variant=name,
        )
        (record,) = evaluation.run([script])
        statement = record["turns"][0]
        assert statement["kind"] == "fact"
        first_turn[name] = [g for m, g in backend.requests if any(statement["text"] in c.content for c in m[-2:])]
    default_grammar, other_grammar = first_turn["default"][0], first_turn["no-direct-reply"][0]
    assert "conversation_search" not in default_grammar and "send_message" in default_grammar
    assert "conversation_search" in other_grammar


def test_past_thoughts_reaches_the_conversation_evaluation_and_shows_earlier_thoughts(tmp_path):
    """A quiz episode is one turn, so the variant shows in a conversation: by default the model
    never sees an earlier turn's thought again; with ``past-thoughts`` it does."""
    from memgpt_local.eval.chat import scripts
    from memgpt_local.eval.chat_run import ChatEvaluation

    script = scripts(seed=3, n=1)[0]
    shown: dict[str, bool] = {}
    for name in ("default", "past-thoughts"):
        variant = get_variant(name)
        backend = ProbeBackend("conversation_search", copies=False)
        evaluation = ChatEvaluation(
            tmp_path / name,
            backend=backend,
            embedder=HashEmbedder(dim=32),
            settings=variant.settings(Settings().agent),
            variant=name,
        )
        evaluation.run([script])
        last_prompt = next(m for m, g in reversed(backend.requests) if "send_message" in g)
        earlier = last_prompt[:-3]  # well before the last turn's own steps
        shown[name] = any('"thought": "answer"' in c.content for c in earlier if c.role == "assistant")
    assert shown == {"default": False, "past-thoughts": True}


@pytest.mark.parametrize(
    "variant, said, bad",
    [  # the defaults hold the bad draft and send the next; the variant sends it
        ("no-refusal-guard", "What a long day. Completely worn out.", "Sorry, I can't assist with that."),
        (
            "no-unasked-denial",
            "My new evening hobby is chess.",
            "I'm sorry, but I don't know much about chess. Can you provide more details?",
        ),
        (
            "no-language-guard",
            "Olá! I'm Beatriz, a retired architect living in Lisbon with my husband Jorge.",
            "Olá! Como posso ajudar você hoje?",
        ),
    ],
)
def test_a_guard_variant_lets_out_a_draft_that_the_defaults_hold(tmp_path, variant, said, bad):
    from agent_helpers import ask, make_runner

    from memgpt_local.memory import open_store

    draft = FunctionCall(thought="", function="send_message", arguments={"message": bad})
    reply = FunctionCall(thought="", function="send_message", arguments={"message": "Thanks for telling me!"})
    for name, sent in (("default", [reply.arguments["message"]]), (variant, [bad])):
        settings = VARIANTS[name].settings(Settings().agent).model_dump()
        settings["fact_notes"]["enabled"] = False  # the script holds the turn's own steps only
        with open_store(tmp_path / f"{name}.db", HashEmbedder()) as store:
            runner = make_runner(store, [draft, reply], **settings)
            assert ask(runner, said).messages == sent, name


def test_the_conversation_evaluation_records_each_held_draft_with_its_policy(tmp_path):
    """A trace shows what the user was spared: the record names the guard that held a draft of
    the (probe) model and keeps the draft."""
    from memgpt_local.eval.chat import scripts
    from memgpt_local.eval.chat_run import ChatEvaluation

    script = scripts(seed=3, n=1)[0]
    evaluation = ChatEvaluation(
        tmp_path / "default",
        backend=ProbeBackend("conversation_search", copies=False),
        embedder=HashEmbedder(dim=32),
        settings=get_variant("default").settings(Settings().agent),
        variant="default",
    )
    (record,) = evaluation.run([script])
    held = [h for t in record["turns"] for h in t["held"]]
    assert held, record["turns"]
    assert all(set(h) == {"policy", "draft"} and h["policy"] and h["draft"] for h in held)
    assert all("held" in g for g in record["greetings"])
    # what a user waited: until the reply went out, within the turn's whole time; a login's time
    assert all(0 < t["reply_seconds"] <= t["seconds"] for t in record["turns"] if t["messages"])
    assert all(g["seconds"] > 0 for g in record["greetings"])
    from memgpt_local.eval.chat_report import table

    header, _, cells = table([record]).splitlines()[:3]
    shown = dict(zip(header.split(" | "), cells.split(" | ")))
    assert shown["reply s/turn"] != "-" and shown["s/login"] != "-"
    assert shown["news words"] != "-" and shown["news offers help"].count("/") == 1
