"""The agent's step loop: ``AgentRunner.run_turn(event)`` is the only way a turn runs.

A turn appends its event (with the notices the policies add before the first step) to recall
storage and runs steps until the model ends it: a call without ``request_heartbeat`` and no
policy asking for more, a held draft that ends it, or the chain cap. Each step renders the
main context, completes it under a grammar of the functions the plan allows, parses the
call, lets the policies review a draft reply, runs the function and stores the call and its
result. Every step is committed before the next one starts and the main context is rebuilt
from the store for every step, so a restart after a kill continues exactly where the file
says the agent was. Chat, ``send``, slash commands, heartbeats, login and the evaluation all
run turns through here; which policies act follows from the event and the settings only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from memgpt_local import events
from memgpt_local.agent.context import ContextBuilder, ContextParts, CoreView
from memgpt_local.agent.fact_wording import as_note
from memgpt_local.agent.facts import FactNoter
from memgpt_local.agent.memory_view import StoreView
from memgpt_local.agent.policy import Draft, Policy, StepPlan, build_policies
from memgpt_local.agent.policy.greet_by_name import (
    GREETINGS_VARIED,
    greetings_of,
    known_name,
    mentioned,
    names_a_fact,
    opener,
    user_facts,
)
from memgpt_local.agent.policy.repeat_guard import earlier_replies
from memgpt_local.agent.queue import EvictionReport, QueueManager
from memgpt_local.agent.turn import Hold, StepRecord, Turn, TurnResult
from memgpt_local.config import AgentSettings
from memgpt_local.errors import CallParseError, ContextOverflowError
from memgpt_local.functions.execute import FunctionExecutor
from memgpt_local.functions.handlers import SearchFocus
from memgpt_local.functions.results import FunctionOutcome
from memgpt_local.functions.specs import DEFAULT_FUNCTIONS, FunctionSpec, with_message_limit
from memgpt_local.memory.core import default_text
from memgpt_local.memory.dates import spoken_days
from memgpt_local.runtime.base import Backend, Grammar, RepeatBan
from memgpt_local.runtime.decoding import QUESTION_END, list_items, repeated_item, writes_wide_script
from memgpt_local.runtime.grammar import build_call_grammar, parse_call, render_function_docs
from memgpt_local.schemas import (
    Agent,
    ChatMessage,
    Completion,
    CoreBlock,
    FunctionCall,
    Message,
    NewMessage,
    utcnow,
)
from memgpt_local.text import (
    asks_for_help,
    content_words,
    formula_start,
    is_bare_request,
    questions,
    sentence_openings,
    sentence_spans,
    sentences,
    words,
)

if TYPE_CHECKING:
    from memgpt_local.memory.protocol import Store

# what a reply may not go on to after its first sentence, whatever was said before: an offer of
# help nobody asked for. Told "My daughter passed her driving test this morning, first try!" or
# "the boiler broke again", replies went on "Do you have any other questions or need further
# assistance?" and "Is there anything else you would like to know or discuss?" (scripts/
# bench_replies.py, stop 56; `make run` chats since stop 54: "That's interesting! How can I help
# you with that?"). Each is a formula of its own length, as long as it takes to be no real
# question ("Do you have any plans for the trip?" is one): the reply ends before it, or after a
# short first sentence ("I understand.") turns away from it. "How can I help you" let "Hello,
# Nadia! How can I help with your piano lessons?" through (bench_replies, stop 56).
OFFERS_OF_HELP = (
    "Is there anything else",
    "Is there anything you would like",
    "Is there anything you'd like",
    "Is there anything specific",
    "What else would you like to know",
    "Is there anything I can",
    "Is there something else",
    "Are there any other things",  # "... Are there any other things you'd like to know about?" (make run, stop 57)
    "Anything else you",
    "Do you have any other questions",
    "Do you have any questions",
    "Do you need any help",
    "Do you need anything else",
    # "How can I be helpful today?", "Is there anything I could do to help?" (bench_replies, stop 57)
    "How can I",
    "Is there anything I could",
    "Is there anything you need",
    "How may I",
    # the offer turned round, the user asked to help the assistant: "That's great to hear! How can
    # you help me today?" to "Hi, I'm Tomás. I teach year 4 ..." (a `make run` chat, stop 58)
    "How can we",  # "How can I" banned: "That's interesting! How can we help you today?" (stop 58)
    "How can you help",
    "How can you assist",  # banned "help", it wrote "How can you assist me today?" (stop 58)
    "How could you help",
    "Can you help me",
    "Can you assist me",
    "What can you do for me",
    "What else can I",
    "Let me know if you",
    "Feel free to",
    "If you need any",
    "If you need anything",
    "If you have any questions",
    "If you have any other questions",
    "I'm here to help",
    "I'm here if you",
    # help nobody asked for, as done: "I'm sorry about that. I'm glad I can help with that." to "I'm allergic
    # to cats, which is ironic given my job." (a `make run` chat, stop 60)
    "I'm glad I can help",
    "I'm glad I could help",
    "Glad I could help",
    "Happy to help",
    # "That's great to hear! How can you support me today?" to a maths teacher's hello (stop 60)
    "How can you support",
    "How can you be",  # "Hi Beatriz! How can you be helpful today?" (a `make run` chat, stop 60)
    # "... Do you have any hobbies? I'd be happy to help you learn more about your interests." to an
    # allotment, and "Good night! I'll see if there's anything else I can help you with tomorrow." (stop 61)
    "I'd be happy to help",
    "I would be happy to help",
    "I'll see if there's anything",
    # "That's a brave decision! I'm here for you. What do you need to know about the girls?" to a fear
    # of flying (a `make run` chat, stop 61)
    "What do you need to know",
)
_OFFER_OPENINGS = frozenset(tuple(words(phrase)) for phrase in OFFERS_OF_HELP)
# the last replies a login's greeting may not copy a run of (``RepeatBan.prior``): a `make run`
# greeting said the last reply again after the name, "Hello Tomasz! I know you have an allergy to
# penicillin. It's a fun thing to be in your job, isn't it? What else do you like about your job?"
GREETING_UNCOPIED = 3
# words no reply says unless the user's message does: the assistant speaks to the user, never of
# "the user" (notices call them so, and a forced denial went "I don't know the user's favourite
# football team.", bench_honesty seed 45); a user asking about their app's users may hear it
NEVER_SAID_TO_THE_USER = ("user", "User", "users", "Users")
_USER_WORDS = frozenset(w.lower() for w in NEVER_SAID_TO_THE_USER)


class StepObserver:
    """Hooks for a front end (the CLI prints; tests record). All optional."""

    # set by the runner before each step: the openings of earlier replies' sentences that end a
    # reply (``agent.reply_formula_words`` words each), so a stream never shows a formula the
    # loop cuts (``partial.settled``), nor a list item after the ``max_items``-th
    formulas: frozenset[tuple[str, ...]] = frozenset()
    formula_words: int = 0
    max_items: int = 0

    def step_started(self, index: int) -> None: ...

    def text(self, piece: str) -> None: ...

    def step_finished(self, record: StepRecord) -> None: ...

    def noted(self, changes: list[str]) -> None:
        """What fact notes wrote into core memory after the turn's reply."""

    def tidied(self, report: EvictionReport) -> None:
        """What the eviction after the turn's reply did (``QueueManager.tidy``)."""


class AgentRunner:
    """Runs one agent against one backend."""

    def __init__(
        self,
        store: Store,
        backend: Backend,
        agent_name: str,
        settings: AgentSettings,
        *,
        functions: Sequence[FunctionSpec] = DEFAULT_FUNCTIONS,
        observer: StepObserver | None = None,
        policies: Sequence[Policy] | None = None,
    ):
        self.store = store
        self.backend = backend
        self.settings = settings
        self.agent_id = store.agents.get(agent_name).id
        self.functions = with_message_limit(tuple(functions), settings.message_max_chars)
        self.observer = observer or StepObserver()
        self.policies = list(policies) if policies is not None else build_policies(settings)
        self.memory = StoreView(store, self.agent_id, settings)
        self.core_view = CoreView(settings.stable_core_memory)
        self.context = ContextBuilder(
            self.functions, render_function_docs(self.functions), self.core_view, past_thoughts=settings.past_thoughts
        )
        self.executor = FunctionExecutor(store, self.agent_id, settings, self.functions)
        self.queue = QueueManager(store, backend, settings, self.render, self.core_view)
        self.facts = FactNoter(store, backend, self.agent_id, settings.fact_notes)
        self._grammars: dict[tuple[frozenset[str], int, bool, str], Grammar] = {}

    # ------------------------------------------------------------ context

    @property
    def agent(self) -> Agent:
        return self.store.agents.get_by_id(self.agent_id)

    def parts(self) -> ContextParts:
        return self.context.parts(
            self.agent, self.store.core.blocks(self.agent_id), self.store.recall.in_context(self.agent_id)
        )

    def render(self) -> list[ChatMessage]:
        return self.parts().messages()

    def counts(self) -> events.MemoryCounts:
        return events.MemoryCounts(self.store.recall.count(self.agent_id), self.store.archival.count(self.agent_id))

    def login_event(self, now: datetime | None = None) -> NewMessage:
        """A login event saying how long ago the last login was; records this login (at
        ``now``, default the clock)."""
        state = self.agent.state
        last = state.get("last_login")
        human = self.store.core.get(self.agent_id, "human").value
        known = (
            [] if human.strip() == default_text("human").strip() else [ln for ln in human.splitlines() if ln.strip()]
        )
        notes = [as_note(line) for line in known]  # notes in the user's voice, about them
        today = (now or utcnow()).date()
        # the note to greet with, of all of them: "Work: bookshop, starting on Monday (2026-12-14)", a
        # changed line in its old place, was not among the newest listed, and the login was pointed
        # at "Rhys's hobby: making pasta" (a `make run` chat, stop 63)
        facts = [ln for ln in notes if not events.is_name_line(ln)]
        about = opener(facts, today, greetings_of(self.memory.in_context())[-GREETINGS_VARIED:])
        listed = events.login_facts(notes, keep=about)
        event = events.login(
            datetime.fromisoformat(last) if last else None,
            self.counts(),
            now,
            [spoken_days(line, today) for line in listed],
            spoken_days(mentioned(about, today), today) if about else None,
        )
        with self.store.transaction():
            self.store.agents.set_state(self.agent_id, dict(state, last_login=event.created_at.isoformat()))
        return event

    # ------------------------------------------------------------ the turn

    def run_turn(self, event: NewMessage | Message) -> TurnResult:
        """Run one turn and return what it did.

        ``event`` is a new event (stored now, with any notices the policies put beside it) or
        an event already stored (pending events another process appended, ``/retry``): the
        turn then runs on the queue as it stands. A turn started by a user message is the
        user's turn: the policies that serve a question act on it.
        """
        question = event.content if event.role == "user" else None
        turn = Turn(
            question=question,
            kind=events.kind_of(event.content, event.role),
            event_id=event.id if isinstance(event, Message) else None,
            started_at=event.created_at if isinstance(event, NewMessage) else None,  # a stored one runs now
        )
        if isinstance(event, NewMessage):
            self._check_fits(event)
        notices = [n for policy in self.policies for n in policy.start(turn, self.memory)]
        with self.store.transaction():
            self._update_state(self.core_view.at_turn_start)
            if isinstance(event, NewMessage):
                (stored,) = self.store.recall.append(self.agent_id, [event])
                turn.event_id = stored.id
        # an eviction goes before the notices, not between them and the step; a pressure warning
        # goes after the turn (``QueueManager.warn_after_turn``): with the warning last, the model
        # denied facts the core notice quoted (eval chat seed 11); warned before its greeting, it
        # wrote "Hello Priya! I need to save some details for later. I'll be back soon." (a `make
        # run` chat, stop 53); warned after the user's message, it answered "I can't answer that
        # right now." (stop 57)
        early_eviction = self.queue.make_room(self.agent_id, turn.clock(), warn=False)
        if notices:
            with self.store.transaction():
                self.store.recall.append(self.agent_id, notices)
        self._run_steps(turn, early_eviction)
        result = turn.result()
        if question is not None and self.settings.fact_notes.enabled:
            replies = earlier_replies(turn, self.memory)
            answering = replies[-1][0] if replies else ""
            result.notes = self.facts.note(question, when=turn.clock(), answering=answering).lines()
            if result.notes:
                self.observer.noted(result.notes)
        with self.store.transaction():
            self._update_state(self.core_view.after_turn)
        self.queue.warn_after_turn(self.agent_id, turn.clock())
        tidied = self.queue.tidy(self.agent_id)  # the reply is out: the summary is written now
        if tidied is not None and tidied.evicted:
            self.observer.tidied(tidied)
        return result

    def _update_state(self, change: Callable[[dict, list[CoreBlock]], dict | None]) -> None:
        state = change(self.agent.state, self.store.core.blocks(self.agent_id))
        if state is not None:
            self.store.agents.set_state(self.agent_id, state)

    def _check_fits(self, event: NewMessage) -> None:
        """A single event larger than the whole window is refused before anything is stored."""
        probe = [
            ChatMessage(role="system", content=self.parts().instructions),
            ChatMessage(role="user", content=event.content),
        ]
        tokens = self.backend.count_tokens(probe)
        if tokens > self.queue.budget:
            raise ContextOverflowError(tokens, self.backend.n_ctx, self.settings.reply_reserve_tokens)

    def _run_steps(self, turn: Turn, early_eviction: EvictionReport | None = None) -> None:
        cap = self.settings.heartbeat_cap
        for index in range(cap):
            held = sum(1 for step in turn.steps if step.held)
            plan = self._plan(turn, last=index == cap - 1 or held >= self.settings.max_holds)
            record = self._step(turn, index, plan)
            if index == 0 and record.eviction is None:
                record.eviction = early_eviction
            turn.add(record)
            if plan.last or (record.hold is not None and record.hold.end_turn):
                return
            if record.hold is not None:  # the next step answers again, with the notice in view
                if record.hold.search_next:
                    turn.require_step(record.hold.reason)  # ... or searches first
                else:
                    turn.require_reply(record.hold.reason)
                continue
            notices = [n for policy in self.policies for n in policy.after_step(turn, record, self.memory)]
            if notices:
                with self.store.transaction():
                    self.store.recall.append(self.agent_id, notices)
            if turn.end_reason:
                return
            if record.asks_for_more or turn.step_reason or turn.reply_reason:
                continue
            reason = next((r for policy in self.policies if (r := policy.before_end(turn))), None)
            if reason is None:
                return
            turn.require_reply(reason)

    def _plan(self, turn: Turn, *, last: bool) -> StepPlan:
        plan = StepPlan(last=last)
        if last or turn.reply_reason:
            plan = plan.only("reply", reason=turn.reply_reason or "the chain cap")
        for policy in self.policies:
            plan = policy.plan(turn, plan)
        return plan

    def _grammar(self, plan: StepPlan, reply_start: str = "") -> Grammar:
        """The grammar of the functions ``plan`` allows; a step that may only reply cannot ask
        for another step, and a reply begins with ``reply_start``."""
        functions = [f for f in self.functions if f.kind in plan.kinds]
        thought = self.settings.thought_max_chars
        if plan.reply_only and self.settings.reply_thought_max_chars is not None:
            thought = self.settings.reply_thought_max_chars
        if plan.thought_max_chars is not None:
            thought = min(thought, plan.thought_max_chars)
        key = (frozenset(f.name for f in functions), thought, plan.reply_only, reply_start)
        if key not in self._grammars:
            self._grammars[key] = build_call_grammar(
                functions, thought_max_chars=thought, heartbeat=not plan.reply_only, message_start=reply_start
            )
        return self._grammars[key]

    def _step(self, turn: Turn, index: int, plan: StepPlan) -> StepRecord:
        # the turn's start warned already, before the notices: its first step only evicts
        eviction = self.queue.make_room(self.agent_id, turn.clock(), warn=index > 0 and turn.kind != "login")
        self.observer.step_started(index)
        # send exactly the prompt the queue manager measured: events another process appends
        # meanwhile (a document upload) are seen at the next step, never overflow this one
        prompt = self.queue.last.messages if self.queue.last is not None else self.render()
        # the earlier replies are read once for both checks
        checks = "reply" in plan.kinds and self.settings.reply_formula_words
        said = [text for text, _ in earlier_replies(turn, self.memory)] if checks else []
        formulas = self._formulas(turn, plan, said)
        self.observer.formulas, self.observer.formula_words = formulas, self.settings.reply_formula_words
        self.observer.max_items = list_limit(self.settings.reply_max_list_items, turn.question)
        completion = self.backend.complete(
            prompt,
            grammar=self._grammar(plan, turn.reply_start),
            max_tokens=self.settings.reply_reserve_tokens,
            on_text=self.observer.text,
            avoid=self._repeat_ban(turn, plan, formulas, self._openings(turn, plan, said), said),
        )
        record = self._execute(turn, index, completion, plan, prompt, formulas)
        record.eviction = eviction
        self.observer.step_finished(record)
        return record

    def _repeat_ban(
        self,
        turn: Turn,
        plan: StepPlan,
        formulas: frozenset[tuple[str, ...]],
        openings: frozenset[tuple[str, ...]] = frozenset(),
        said: Sequence[str] = (),
    ) -> RepeatBan | None:
        """A reply may not loop a run of its own words, nor copy a draft held back this turn
        (nor, greeting a login, the last replies ``said``: ``GREETING_UNCOPIED``), nor open like
        an earlier reply, nor begin a sentence with (or say) a word a hold banned, and it ends
        before a formula (see ``RepeatBan``)."""
        n = self.settings.reply_repeat_ngram
        banned, unsaid = turn.banned_openers(), turn.banned_words()
        if not _USER_WORDS & set(words(turn.question or "")):
            unsaid += NEVER_SAID_TO_THE_USER
        latin_only = not writes_wide_script((turn.question or "").encode("utf-8"))
        items = list_limit(self.settings.reply_max_list_items, turn.question)
        asked = question_limit(self.settings.reply_max_questions, turn)
        thought_n = self.settings.thought_repeat_ngram if plan.thought_max_chars != 0 else 0
        if "reply" not in plan.kinds or not (
            n or formulas or openings or banned or unsaid or turn.reply_sentences or latin_only or items or asked
        ):
            return RepeatBan(field="message", n=0, thought_n=thought_n) if thought_n else None
        return RepeatBan(
            field="message",
            n=n,
            prior=(*turn.held_drafts(), *(self._uncopied(said) if turn.kind == "login" else ())),
            fixed_start=turn.reply_start,
            formulas=formulas,
            formula_words=self.settings.reply_formula_words,
            openings=openings,
            banned_openers=banned,
            banned_words=unsaid,
            max_sentences=turn.reply_sentences,
            max_items=items,
            max_questions=asked,
            latin_only=latin_only,
            thought_n=thought_n,
        )

    def _uncopied(self, said: Sequence[str]) -> list[str]:
        """What a greeting may not copy: the last replies (``GREETING_UNCOPIED``) less their
        sentences that tell a core-memory fact. A fact is said in the same words again: kept off
        "on Saturday 19 December", a greeting wrote "on Saturdays 19 December" (a `make run` chat,
        stop 53)."""
        facts = user_facts(self.memory)
        name = known_name(self.memory) or ""
        kept = (
            " ".join(s for s in sentences(text) if not names_a_fact(s, facts, name))
            for text in said[-GREETING_UNCOPIED:]
        )
        return [text for text in kept if text]

    def _formulas(self, turn: Turn, plan: StepPlan, said: Sequence[str]) -> frozenset[tuple[str, ...]]:
        """The openings of the sentences of earlier turns' replies (``said``) that a reply may
        not repeat after its first sentence (``agent.reply_formula_words``; a login's greeting
        counts), and offers of help nobody asked for (``OFFERS_OF_HELP``)."""
        k = self.settings.reply_formula_words
        if not k or "reply" not in plan.kinds:
            return frozenset()
        if turn.reply_start.rstrip()[-1:] in (".", "!", "?"):
            # after a forced first sentence the model's own first sentence is a reply's second:
            # cut at a formula, a greeting was left as the bare "Hello Lena!" ("Your parrot" is
            # no sentence: the formula after "Your home is Leeds." is cut). An offer of help is
            # no greeting either ("Hello Hamid! ... What else would you like to know about you?",
            # a `make run` chat, stop 57): after the short "Hello Hamid!" the sampler turns away
            # from one, after a sentence of what it knows the greeting ends before one
            return _OFFER_OPENINGS | self._persona_openings(k) if turn.kind == "login" else frozenset()
        if asks_for_help(questions(turn.question or "")):
            # advice is said in the words advice was said in before: "Here are some tips ..." was
            # cut as a formula, and the reply to "What can I do to make Tui less anxious when
            # there's a storm?" was its first sentence alone (a `make run` chat, stop 42)
            return frozenset()
        # the forced start's own sentence is no formula however often it was said: "Hello Dana! How is
        # your mum", the start of every greeting asking after her, was cut back to "Hello Dana!" (stop 64)
        forced = frozenset(sentence_openings(turn.reply_start, k)) if turn.reply_start else frozenset()
        return (
            frozenset(o for text in said for o in sentence_openings(text, k))
            | _OFFER_OPENINGS
            | self._persona_openings(k)
        ) - forced

    def _persona_openings(self, k: int) -> frozenset[tuple[str, ...]]:
        """The openings of the persona's sentences: what the assistant is told it is, never said to the
        user ("Hello Tomás! ... I remember what matters from our conversations and look things up in
        my memory before guessing, ...", a `make run` chat, stop 58, at two logins)."""
        persona = "\n".join(line for label, line in self.memory.core_lines() if label == "persona")
        return frozenset(sentence_openings(persona, k))

    def _openings(self, turn: Turn, plan: StepPlan, said: Sequence[str]) -> frozenset[tuple[str, ...]]:
        """The openings of earlier turns' reply sentences (``said``) a reply's first sentence may not
        repeat (``agent.reply_fresh_openings``): not a denial's ("I'm sorry, but I don't know"
        is the honest answer again), nor one whose last word core memory or the user's message
        holds ("Your parrot is Brallhaette." twice is the answer twice, and a refused name is an
        invented one). None after a held draft: the notice may give the first words ("Start
        with: Thanks for telling me" was turned into "Thanks for telling us")."""
        k = self.settings.reply_formula_words
        # a greeting's own first sentence follows "Hello Priya!": "I'm here to help you today." at
        # every login, pushed off copying by the greeting's copy ban, went "I'm here today to help you
        # with your birthday" (a `make run` chat, stop 53); turned at its opening it says another thing
        greeting = turn.kind == "login" and turn.reply_start.rstrip()[-1:] in (".", "!", "?")
        if not (k and self.settings.reply_fresh_openings) or "reply" not in plan.kinds:
            return frozenset()
        if turn.reply_start and not greeting:
            return frozenset()
        if any(step.hold is not None for step in turn.steps):
            return frozenset()
        known = set(content_words(" ".join(line for _, line in self.memory.core_lines()) + " " + (turn.question or "")))
        openings = (o for text in said for o in sentence_openings(text, k, with_denials=False))
        return frozenset(o for o in openings if o[-1] not in known)

    def _execute(
        self,
        turn: Turn,
        index: int,
        completion: Completion,
        plan: StepPlan,
        prompt: Sequence[ChatMessage],
        formulas: frozenset[tuple[str, ...]] = frozenset(),
    ) -> StepRecord:
        allowed = [f for f in self.functions if f.kind in plan.kinds]
        try:
            call = without_formula(parse_call(completion.text, allowed), formulas)
            items = list_limit(self.settings.reply_max_list_items, turn.question)
            call = first_items(first_sentences(call, turn.reply_sentences), items)
            call = first_questions(call, question_limit(self.settings.reply_max_questions, turn), turn.reply_start)
            call = without_repeated_items(call) if items else call
        except CallParseError as exc:
            outcome = FunctionOutcome(
                False,
                f"Error: your output was not a valid function call ({exc}). Reply with one JSON object as described.",
            )
            with self.store.transaction():
                self.store.recall.append(
                    self.agent_id,
                    [
                        NewMessage(role="assistant", content=completion.text, created_at=turn.clock()),
                        events.function_result("invalid_output", False, outcome.text, turn.clock()),
                    ],
                )
            return StepRecord(index, completion.text, None, outcome, completion)
        spec = next(f for f in allowed if f.name == call.function)
        with self.store.transaction():
            (stored,) = self.store.recall.append(
                self.agent_id,
                [
                    NewMessage(
                        role="assistant",
                        content=call.thought,
                        function_name=call.function,
                        function_args=call.arguments,
                        request_heartbeat=call.request_heartbeat,
                        created_at=turn.clock(),
                    )
                ],
            )
            hold = (
                self._review(turn, Draft(str(call.arguments.get("message", "")), prompt, plan, call.thought))
                if spec.kind == "reply"
                else None
            )
            if hold is None:
                focus = SearchFocus(turn.focus, turn.shown(call)) if turn.focus else None
                outcome = self.executor.run(call, focus, turn.event_id)
            else:
                outcome = FunctionOutcome(True, hold.notice)
                if hold.hide_draft:
                    # shown its own draft above the notice, a small model sends the same words
                    # again; nor is it found later as something the assistant said
                    self.store.recall.hold_back(self.agent_id, stored.id)
            result = events.function_result(call.function, outcome.ok, outcome.text, turn.clock())
            self.store.recall.append(self.agent_id, [result])
        return StepRecord(index, completion.text, call, outcome, completion, hold=hold)

    def _review(self, turn: Turn, draft: Draft) -> Hold | None:
        """The first hold a policy puts on a draft reply, or None: it goes out."""
        return next((h for policy in self.policies if (h := policy.review(turn, draft, self.memory))), None)


def first_sentences(call: FunctionCall, k: int) -> FunctionCall:
    """``call`` with its message cut after ``k`` sentences (0: whole): the sampler closes a reply
    there; a backend without that stop writes it whole."""
    message = call.arguments.get("message")
    if not k or not isinstance(message, str) or len(spans := sentence_spans(message)) <= k:
        return call
    cut = spans[k][0]
    return call.model_copy(update={"arguments": {**call.arguments, "message": message[:cut].rstrip()}})


def question_limit(setting: int, turn: Turn) -> int:
    """The questions a reply may ask: ``setting`` at a login and after a user's message that asks
    nothing and requests nothing ("I'm a vet in Utrecht"), no limit otherwise: an answer may ask
    back, a joke asked for may be a question and its answer."""
    if turn.kind == "login":
        return setting
    message = turn.question
    if turn.kind != "user message" or not message or questions(message) or asks_for_help(message):
        return 0
    return 0 if any(is_bare_request(s) for s in sentences(message)) else setting


def first_questions(call: FunctionCall, k: int, start: str = "") -> FunctionCall:
    """``call`` with its message cut after its ``k``-th question past its forced ``start`` (0:
    whole): the sampler closes a reply there; a backend without that stop writes it whole."""
    message = call.arguments.get("message")
    if not k or not isinstance(message, str):
        return call
    skip = len(start) if message.startswith(start) else 0
    ends = [m.end() for m in QUESTION_END.finditer(message) if m.start() >= skip]
    return _cut_message(call, message, ends[k - 1]) if len(ends) > k else call


ASKED_ITEMS_MAX = 20  # the most list items a user can ask for past ``reply_max_list_items``
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_ASKED_COUNT = re.compile(r"\b(\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)


def list_limit(setting: int, question: str | None) -> int:
    """The items a reply's numbered list may hold: ``setting``, or the number the user asked for
    when it is more (up to ``ASKED_ITEMS_MAX``): "Could you list eight famous funk bassists?" was
    cut at seven (a `make run` chat, stop 46)."""
    if not setting or not question:
        return setting
    asked = [int(m) if m.isdigit() else _NUMBER_WORDS[m.lower()] for m in _ASKED_COUNT.findall(question)]
    return max([setting, *(n for n in asked if n <= ASKED_ITEMS_MAX)])


def first_items(call: FunctionCall, k: int) -> FunctionCall:
    """``call`` with its message cut before its numbered list's item after ``k`` (0: whole): the
    sampler closes a reply when that item begins; a backend without that stop writes it whole."""
    message = call.arguments.get("message")
    if not k or not isinstance(message, str):
        return call
    items = list_items(message)
    return _cut_message(call, message, items[k]) if len(items) > k else call


def without_repeated_items(call: FunctionCall) -> FunctionCall:
    """``call`` with its message cut before its numbered list's first item that nearly repeats an
    earlier one (``decoding.repeated_item``): the sampler closes the reply as the item after it
    begins; a backend without that stop writes it whole."""
    message = call.arguments.get("message")
    if not isinstance(message, str) or (cut := repeated_item(message)) is None:
        return call
    return _cut_message(call, message, cut)


def without_formula(call: FunctionCall, formulas: frozenset[tuple[str, ...]]) -> FunctionCall:
    """``call`` with its message cut before a formula (``text.formula_start``): the sampler stops
    a reply a few words into one; a backend without that stop writes it whole."""
    message = call.arguments.get("message")
    if not formulas or not isinstance(message, str) or (cut := formula_start(message, formulas)) is None:
        return call
    return _cut_message(call, message, cut)


def _cut_message(call: FunctionCall, message: str, cut: int) -> FunctionCall:
    """``call`` with its ``message`` argument ending before ``cut``."""
    return call.model_copy(update={"arguments": {**call.arguments, "message": message[:cut].rstrip()}})
