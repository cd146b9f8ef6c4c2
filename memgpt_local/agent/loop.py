"""The agent's step loop: events in, function calls out, heartbeats chain steps.

``AgentRunner.handle(event)`` appends the event to recall storage and runs steps until the
model ends its turn: a call without ``request_heartbeat``, or the chain cap. Every step is
committed (the model's call, its result, any memory edit) before the next one starts, and
the main context is rebuilt from the store for every step, so a restart after a kill
continues exactly where the file says the agent was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from memgpt_local.agent import events
from memgpt_local.agent.context import ContextBuilder, ContextParts
from memgpt_local.agent.queue import EvictionReport, QueueManager
from memgpt_local.agent.reply_check import (ReplyCheck, by_similarity, continues_chain, copied_hit,
                                             relevant_to_question, restates_question, unread_entries)
from memgpt_local.config import AgentSettings
from memgpt_local.errors import CallParseError, ContextOverflowError, InvalidInputError
from memgpt_local.functions.execute import FunctionExecutor, FunctionOutcome, format_hits
from memgpt_local.functions.links import LinkExpander
from memgpt_local.memory.phrases import messages_containing, passages_containing
from memgpt_local.functions.specs import DEFAULT_FUNCTIONS, FunctionSpec, with_message_limit
from memgpt_local.runtime.grammar import build_call_grammar, parse_call, render_function_docs
from memgpt_local.schemas import ChatMessage, Completion, FunctionCall, Message, NewMessage, SearchHit

SEARCH_FUNCTIONS = ("conversation_search", "conversation_search_date", "archival_memory_search")


@dataclass
class StepRecord:
    """What one step did, for printing and for `send --json`."""

    index: int
    raw: str
    call: FunctionCall | None
    outcome: FunctionOutcome
    completion: Completion
    eviction: EvictionReport | None = None
    must_continue: bool = False  # a search-first step, or a search whose results must be read

    @property
    def withheld(self) -> bool:
        """A send_message the reply check held back (nothing reached the user)."""
        return bool(self.outcome.extra.get("withheld"))

    @property
    def continues(self) -> bool:
        """Whether this step chains another one (heartbeat requested, or an error to recover from)."""
        if not self.outcome.ok or self.must_continue:
            return True
        return bool(self.call and self.call.request_heartbeat)

    def as_dict(self) -> dict:
        c = self.completion
        return {
            "step": self.index,
            "thought": self.call.thought if self.call else None,
            "function": self.call.function if self.call else None,
            "arguments": self.call.arguments if self.call else None,
            "request_heartbeat": self.call.request_heartbeat if self.call else None,
            "raw": None if self.call else self.raw,
            "ok": self.outcome.ok,
            "result": self.outcome.text,
            "message": self.outcome.user_message,
            "withheld": self.withheld,
            "evicted_messages": self.eviction.evicted if self.eviction else 0,
            "tokens": {
                "prompt": c.prompt_tokens,
                "evaluated": c.evaluated_tokens,
                "generated": c.generated_tokens,
                "prefill_seconds": round(c.prefill_seconds, 3),
                "decode_seconds": round(c.decode_seconds, 3),
            },
        }


@dataclass
class TurnResult:
    steps: list[StepRecord] = field(default_factory=list)

    @property
    def messages(self) -> list[str]:
        return [s.outcome.user_message for s in self.steps if s.outcome.user_message]

    @property
    def searches(self) -> int:
        return sum(1 for s in self.steps if s.outcome.searched)

    def search_hits(self) -> Iterator[tuple[int, tuple[int, SearchHit]]]:
        """(search number, (rank, hit)) for every hit the turn's searches returned."""
        for order, step in enumerate(s for s in self.steps if s.outcome.searched):
            for ranked in step.outcome.extra.get("hits", []):
                yield order, ranked


def last_user_message(messages: Sequence[Message]) -> str:
    """The text of the newest user message among ``messages`` ("" when there is none)."""
    return next((m.content for m in reversed(messages) if m.role == "user"), "")


class StepObserver:
    """Hooks for a front end (the CLI prints; tests record). All optional."""

    def step_started(self, index: int) -> None: ...

    def text(self, piece: str) -> None: ...

    def step_finished(self, record: StepRecord) -> None: ...


class AgentRunner:
    """Runs one agent against one backend."""

    def __init__(
        self,
        store,
        backend,
        agent_name: str,
        settings: AgentSettings,
        *,
        functions: Sequence[FunctionSpec] = DEFAULT_FUNCTIONS,
        observer: StepObserver | None = None,
    ):
        self.store = store
        self.backend = backend
        self.settings = settings
        self.agent_id = store.agents.get(agent_name).id
        self.functions = with_message_limit(tuple(functions), settings.message_max_chars)
        self.send_message = next(f for f in self.functions if f.name == "send_message")
        self.observer = observer or StepObserver()
        self.context = ContextBuilder(self.functions, render_function_docs(self.functions))
        self.executor = FunctionExecutor(store, self.agent_id, settings)
        self.queue = QueueManager(store, backend, settings, self.render)
        self.full_grammar = build_call_grammar(self.functions, thought_max_chars=settings.thought_max_chars)
        self.final_grammar = build_call_grammar([self.send_message], thought_max_chars=settings.thought_max_chars, heartbeat=False)
        self.search_functions = tuple(f for f in self.functions if f.name in SEARCH_FUNCTIONS)
        self._search_grammar = None
        self._turn = TurnResult()  # the turn being run: what its searches found and what it sent

    # ------------------------------------------------------------ context

    @property
    def agent(self):
        return self.store.agents.get_by_id(self.agent_id)

    def parts(self) -> ContextParts:
        return self.context.parts(
            self.agent, self.store.core.blocks(self.agent_id), self.store.recall.in_context(self.agent_id)
        )

    def render(self) -> list[ChatMessage]:
        return self.parts().messages()

    def counts(self) -> events.MemoryCounts:
        return events.MemoryCounts(self.store.recall.count(self.agent_id), self.store.archival.count(self.agent_id))

    # ------------------------------------------------------------ events

    def handle(self, event: NewMessage, *followers: NewMessage, search_first: bool = False,
               reply_required: bool = False) -> TurnResult:
        """Append an event (and any notices that go with it) and run the steps it triggers."""
        self._check_fits(event)
        self.executor.set_focus(event.content if event.role == "user" else None)
        with self.store.transaction():
            self.store.recall.append(self.agent_id, [event, *followers])
        return self.run_chain(search_first=search_first, reply_required=reply_required)

    def user_message(self, text: str) -> TurnResult:
        event = events.user_message(text)
        followers = self.prefetch(text) if self.settings.memory_prefetch else []
        search_first = self.settings.search_first and self._memory_beyond_context()
        return self.handle(event, *followers, search_first=search_first, reply_required=self.settings.reply_required)

    def _memory_beyond_context(self) -> bool:
        """Whether recall or archival memory holds anything the context does not show."""
        in_context = len(self.store.recall.in_context(self.agent_id))
        return self.store.archival.count(self.agent_id) > 0 or self.store.recall.count(self.agent_id) > in_context

    def prefetch(self, text: str) -> list[NewMessage]:
        """Read-ahead: the top recall and archival hits for the user's words, as one notice."""
        k = self.settings.prefetch_k
        try:
            recall = self.store.recall.search(self.agent_id, text, page_size=k, mode=self.settings.recall_search_mode, outside_context=True)
            archival = self.store.archival.search(self.agent_id, text, page_size=k, mode=self.settings.archival_search_mode)
        except InvalidInputError:  # no searchable words
            return []
        sections = []
        for title, hits, containing in (
            ("From past conversations (conversation_search finds more)", recall.items,
             lambda t, n: messages_containing(self.store, self.agent_id, t, n)),
            ("From archival memory (archival_memory_search finds more)", archival.items, lambda t, n: passages_containing(self.store, self.agent_id, t, n)),
        ):
            if hits:
                links = LinkExpander(containing, depth=self.settings.link_depth, max_df=self.settings.link_max_df).expand(hits) if self.settings.link_depth else None
                sections.append(title + ":\n" + "\n".join(format_hits(hits, first=1, per_item=300, links=links)))
        if not sections:
            return []
        body = "Stored memories that may be relevant to the user's message (found automatically; they may not answer it):\n"
        return [events.system_event("memory read-ahead", body + "\n".join(sections))]

    def login(self) -> TurnResult:
        state = self.agent.state
        last = state.get("last_login")
        from datetime import datetime

        event = events.login(datetime.fromisoformat(last) if last else None, self.counts())
        with self.store.transaction():
            self.store.agents.set_state(self.agent_id, dict(state, last_login=event.created_at.isoformat()))
        return self.handle(event)

    def _check_fits(self, event: NewMessage) -> None:
        """A single event larger than the whole window is refused before anything is stored."""
        probe = [ChatMessage(role="system", content=self.parts().instructions), ChatMessage(role="user", content=event.content)]
        tokens = self.backend.count_tokens(probe)
        if tokens > self.queue.budget:
            raise ContextOverflowError(tokens, self.backend.n_ctx, self.settings.reply_reserve_tokens)

    # ------------------------------------------------------------ steps

    def run_chain(self, *, search_first: bool = False, reply_required: bool = False) -> TurnResult:
        """Run steps until the model ends its turn or the chain cap.

        With ``reply_required`` (a user message, when ``agent.reply_required`` is on) a
        turn the model would end without any ``send_message`` gets one more step whose
        grammar allows only ``send_message``: the user is never left without an answer.
        """
        turn = self._turn = TurnResult()
        reply_now = False
        checks = 0
        guards_used: set[str] = set()  # the draft guards (echo, copy) that held a reply back this turn
        cap = self.settings.heartbeat_cap
        budget = self.settings.search_budget
        for index in range(cap):
            final = reply_now or index == cap - 1
            check = self.settings.reply_check and checks < self.settings.reply_check_rounds and index < cap - 1
            guards = frozenset() if index >= cap - 1 else self._draft_guards() - guards_used
            record = self.step(index, final=final, search_only=search_first and index == 0 and not final,
                               check_reply=check, guards=guards)
            turn.steps.append(record)
            if record.outcome.extra.get("repeated"):
                break  # the model is repeating itself: the user already has this reply
            if record.withheld:  # the next step answers again, with the unread entries in view
                if record.outcome.extra.get("guard"):
                    guards_used.add(record.outcome.extra["guard"])
                else:
                    checks += 1
                reply_now = True
                continue
            if budget and turn.searches >= budget and not final:
                reply_now = True  # enough searching: the next step must answer from what it read
                if self.settings.search_recap:
                    self._recap(turn)
            if record.continues and not final:
                continue
            if reply_required and not turn.messages and not final:
                reply_now = True
                continue
            break
        return turn

    def step(self, index: int = 0, *, final: bool = False, search_only: bool = False,
             check_reply: bool = False, guards: frozenset[str] = frozenset()) -> StepRecord:
        eviction = self.queue.make_room(self.agent_id)
        self.observer.step_started(index)
        if final:
            functions, grammar = (self.send_message,), self.final_grammar
        elif search_only:
            functions, grammar = self.search_functions, self.search_grammar
        else:
            functions, grammar = self.functions, self.full_grammar
        # send exactly the prompt the queue manager measured: events another process appends
        # meanwhile (a document upload) are seen at the next step, never overflow this one
        prompt = self.queue.last.messages if self.queue.last is not None else self.render()
        completion = self.backend.complete(
            prompt, grammar=grammar, max_tokens=self.settings.reply_reserve_tokens, on_text=self.observer.text
        )
        record = self._execute(index, completion, functions, check_reply=check_reply, guards=guards, prompt=prompt)
        record.eviction = eviction
        record.must_continue = record.withheld or search_only or (record.outcome.searched and self.settings.read_search_results)
        self.observer.step_finished(record)
        return record

    def _repeated_reply(self, call: FunctionCall) -> FunctionOutcome | None:
        """A message already sent in this turn is not sent again (small models loop on
        send_message), nor one that only parrots a function's result back ("Message sent.")."""
        message = " ".join(str(call.arguments.get("message", "")).split())
        if message and any(" ".join(sent.split()) == message for sent in self._turn.messages):
            return FunctionOutcome(True, "Not sent: you already sent this exact message in this turn.",
                                   extra={"repeated": True})
        if message and any(" ".join(s.outcome.text.split()) == message for s in self._turn.steps):
            return FunctionOutcome(True, "Not sent: that is a function's result, not a message for the user.",
                                   extra={"repeated": True})
        return None

    def _recap(self, turn: TurnResult) -> None:
        """Show the turn's best search hits again, right before the reply they should inform.

        A small model answers from the last thing it read; after paging on to a page of noise
        or an empty one it says it found nothing, though the answer was the first hit it saw.
        With question focus the hits are ordered by similarity to the user's question: ranks
        of different searches do not compare (a date search ranks by time), and a terse query's
        first hit is often a near miss.
        """
        top = self._best_hits(turn)
        if not top:
            return
        body = ("Searching is over for this turn; reply to the user now. The best results of your searches "
                "(best first):\n" + "\n".join(format_hits(top, first=1, per_item=300)))
        with self.store.transaction():
            self.store.recall.append(self.agent_id, [events.system_event("search recap", body)])

    def _best_hits(self, turn: TurnResult) -> list[SearchHit]:
        """The turn's ``recap_k`` best search hits: by rank (ties: earlier search first) or,
        with question focus, by similarity to the user's question across all its searches."""
        ranked = self._turn_hits(turn)
        if ranked and self.executor.focus:
            ranked = by_similarity(ranked, self.executor.focus, self.store.embedder.embed)
        return ranked[: self.settings.recap_k]

    @staticmethod
    def _turn_hits(turn: TurnResult) -> list[SearchHit]:
        """Every hit the turn's searches returned, once, by rank (ties: earlier search first)."""
        best: dict[tuple[str, int], tuple[int, int, SearchHit]] = {}
        for order, (rank, hit) in turn.search_hits():
            key = (hit.kind, hit.id)
            if key not in best or (rank, order) < best[key][:2]:
                best[key] = (rank, order, hit)
        return [hit for _, _, hit in sorted(best.values(), key=lambda t: (t[0], t[1]))]

    def _draft_guards(self) -> frozenset[str]:
        """The draft guards switched on: each holds a reply back at most once a turn."""
        return frozenset(name for name, on in (("echo", self.settings.echo_guard), ("copy", self.settings.copy_guard))
                         if on)

    def _echoed_question(self, call: FunctionCall) -> FunctionOutcome | None:
        """Hold back a reply that asks the user their own question back (agent.echo_guard)."""
        draft = str(call.arguments.get("message", ""))
        if not restates_question(draft, last_user_message(self.store.recall.in_context(self.agent_id))):
            return None
        hits = self._best_hits(self._turn)
        found = ("What your searches found (best first):\n" + "\n".join(format_hits(hits, first=1, per_item=300))
                 if hits else "Your searches found nothing; if you do not know, say so.")
        text = ("Not sent: your reply asks the user the question they asked you. Answer it instead, "
                "from what you found. " + found)
        return FunctionOutcome(True, text, extra={"withheld": True, "guard": "echo"})

    def _copied_memory(self, call: FunctionCall) -> FunctionOutcome | None:
        """Hold back a reply that copies a search hit word for word when another hit of the
        turn is closer to the user's question (agent.copy_guard).

        A small model answers with the last line of a result page, copied whole, even when
        the line that answers comes first on that page ("which band did we see live at the
        hall?" answered with "The Verquuels are playing at the hall next month", the line
        under "Last night we saw The Shoulundvoels live at the hall"). A copy of the hit
        closest to the question goes out: quoting the right memory is an answer. So does a
        copy of the next link of a chain (a hit that shares a name the user did not mention
        with a closer one): the answer to a two-step question reads less like the question
        than its first step does.
        """
        in_context = self.store.recall.in_context(self.agent_id)
        asked = last_user_message(in_context)
        hits = self._turn_hits(self._turn)
        copied = copied_hit(str(call.arguments.get("message", "")), hits)
        if copied is None or not asked.strip():
            return None
        # The turn itself (the question, the model's own steps: a date search finds them) and
        # any memory that asks the question again read like the question without answering
        # it: they are no rivals.
        asked_at = max((m.id for m in in_context if m.role == "user"), default=None)
        rivals = [h for h in hits if h is copied or not (
            (h.kind == "message" and asked_at is not None and h.id >= asked_at) or restates_question(h.text, asked))]
        ranked = by_similarity(rivals, asked, self.store.embedder.embed)
        closer = ranked[: next(i for i, h in enumerate(ranked) if h is copied)]
        if not closer or continues_chain(copied, closer, asked):
            return None
        # only the closer results, the closest last: shown the copied line again, or shown it
        # last, the model sent the same copy again (it answers from the last thing it read)
        closest_last = list(reversed(closer[: self.settings.recap_k]))
        text = ("Not sent: your reply copies a search result word for word, and other results are closer to the "
                "user's question. Answer the question itself, in your own words, from the results that match it "
                "better (the closest last):\n" + "\n".join(format_hits(closest_last, first=1, per_item=300)))
        return FunctionOutcome(True, text, extra={"withheld": True, "guard": "copy"})

    def _check_reply(self, call: FunctionCall, prompt: Sequence[ChatMessage]) -> FunctionOutcome | None:
        """Hold back a reply whose own names or ids memory knows more about (agent.reply_check)."""
        draft = str(call.arguments.get("message", ""))
        in_context = self.store.recall.in_context(self.agent_id)  # includes the draft itself
        shown = {m.id for m in in_context}
        asked = last_user_message(in_context)
        check = unread_entries(
            draft,
            asked=asked,
            context_text="\n".join(m.content for m in prompt),
            sources=(lambda t, n: passages_containing(self.store, self.agent_id, t, n),
                     lambda t, n: [h for h in messages_containing(self.store, self.agent_id, t, n + len(shown))
                                   if h.id not in shown][:n]),
            max_df=self.settings.link_max_df,
        )
        if check.holds and self.settings.reply_check_window < 1.0:
            grounds = [hit.text for _, (_, hit) in self._turn.search_hits()] or [draft]
            kept = relevant_to_question(check.entries, asked=asked, grounds=grounds, embed=self.store.embedder.embed,
                                        window=self.settings.reply_check_window)
            check = ReplyCheck(tuple(i for i in check.identifiers if any(i in e.text for e in kept)), tuple(kept))
        if not check.holds:
            return None
        return FunctionOutcome(True, check.notice(), extra={"withheld": True, "identifiers": list(check.identifiers)})

    @property
    def search_grammar(self):
        if self._search_grammar is None:
            self._search_grammar = build_call_grammar(self.search_functions, thought_max_chars=self.settings.thought_max_chars)
        return self._search_grammar

    def _execute(self, index: int, completion: Completion, functions: Sequence[FunctionSpec], *,
                 check_reply: bool = False, guards: frozenset[str] = frozenset(),
                 prompt: Sequence[ChatMessage] = ()) -> StepRecord:
        try:
            call = parse_call(completion.text, functions)
        except CallParseError as exc:
            outcome = FunctionOutcome(False, f"Error: your output was not a valid function call ({exc}). Reply with one JSON object as described.")
            with self.store.transaction():
                self.store.recall.append(
                    self.agent_id,
                    [NewMessage(role="assistant", content=completion.text), events.function_result("invalid_output", False, outcome.text)],
                )
            return StepRecord(index, completion.text, None, outcome, completion)
        with self.store.transaction():
            step_message = NewMessage(
                role="assistant",
                content=call.thought,
                function_name=call.function,
                function_args=call.arguments,
                request_heartbeat=call.request_heartbeat,
            )
            (stored,) = self.store.recall.append(self.agent_id, [step_message])
            outcome = None
            if call.function == "send_message":
                outcome = self._repeated_reply(call)
                if outcome is None and "echo" in guards:
                    outcome = self._echoed_question(call)
                if outcome is None and "copy" in guards:
                    outcome = self._copied_memory(call)
                if outcome is None and check_reply:
                    outcome = self._check_reply(call, prompt)
            if outcome is None:
                outcome = self.executor.run(call)
            elif outcome.extra.get("guard"):
                # A draft a guard held back leaves the main context (recall keeps it): shown its
                # own draft above the notice, a small model sent the same words again. Nor is it
                # found later as something the assistant said: the user never saw it.
                self.store.recall.hold_back(self.agent_id, stored.id)
            self.store.recall.append(self.agent_id, [events.function_result(call.function, outcome.ok, outcome.text)])
        return StepRecord(index, completion.text, call, outcome, completion)
