"""The memory policies, one module each, and ``build_policies(settings)``: the enabled ones
(``agent.policies``), each with its own settings table, in the order they act."""

from __future__ import annotations

from collections.abc import Callable

from memgpt_local.agent.policy.all_questions import AllQuestions
from memgpt_local.agent.policy.answer_start import AnswerStart
from memgpt_local.agent.policy.asked_known import AskedKnown
from memgpt_local.agent.policy.base import Draft, MemoryView, Policy, StepPlan
from memgpt_local.agent.policy.copy_guard import CopyGuard
from memgpt_local.agent.policy.core_at_question import CoreAtQuestion
from memgpt_local.agent.policy.core_found import CoreFound
from memgpt_local.agent.policy.denial_guard import DenialGuard
from memgpt_local.agent.policy.direct_reply import DirectReply
from memgpt_local.agent.policy.echo_guard import EchoGuard
from memgpt_local.agent.policy.greet_by_name import GreetByName
from memgpt_local.agent.policy.greeting_grounded import GreetingGrounded
from memgpt_local.agent.policy.grounded_reply import GroundedReply
from memgpt_local.agent.policy.ideas_given import IdeasGiven
from memgpt_local.agent.policy.identity_guard import IdentityGuard
from memgpt_local.agent.policy.internal_guard import InternalGuard
from memgpt_local.agent.policy.language_guard import LanguageGuard
from memgpt_local.agent.policy.later_promise import LaterPromise
from memgpt_local.agent.policy.name_asked import NameAsked
from memgpt_local.agent.policy.nothing_found import NothingFound
from memgpt_local.agent.policy.one_reply import OneReply
from memgpt_local.agent.policy.owner_guard import OwnerGuard
from memgpt_local.agent.policy.perspective_guard import PerspectiveGuard
from memgpt_local.agent.policy.prefetch import Prefetch
from memgpt_local.agent.policy.question_focus import QuestionFocus
from memgpt_local.agent.policy.read_results import ReadResults
from memgpt_local.agent.policy.recall_at_question import RecallAtQuestion
from memgpt_local.agent.policy.recap import Recap
from memgpt_local.agent.policy.refusal_guard import RefusalGuard
from memgpt_local.agent.policy.repeat_guard import RepeatGuard
from memgpt_local.agent.policy.reply_check import ReplyCheck
from memgpt_local.agent.policy.reply_required import ReplyRequired
from memgpt_local.agent.policy.saved_already import SavedAlready
from memgpt_local.agent.policy.search_budget import SearchBudget
from memgpt_local.agent.policy.search_first import SearchFirst
from memgpt_local.agent.policy.search_uncovered import SearchUncovered
from memgpt_local.agent.policy.searched_already import SearchedAlready
from memgpt_local.agent.policy.thought_answer import ThoughtAnswer
from memgpt_local.agent.policy.tone_guard import ToneGuard
from memgpt_local.agent.policy.unasked_denial import UnaskedDenial
from memgpt_local.config import POLICY_NAMES, AgentSettings

FACTORIES: dict[str, Callable[[AgentSettings], Policy]] = {
    "direct_reply": lambda s: DirectReply(
        notes_enabled=s.fact_notes.enabled, thought_max_chars=s.direct_thought_max_chars
    ),
    "search_first": lambda s: SearchFirst(),
    "search_uncovered": lambda s: SearchUncovered(),
    "prefetch": lambda s: Prefetch(s.prefetch),
    "core_at_question": lambda s: CoreAtQuestion(),
    "answer_start": lambda s: AnswerStart(),
    "question_focus": lambda s: QuestionFocus(),
    "read_results": lambda s: ReadResults(),
    "search_budget": lambda s: SearchBudget(s.search_budget),
    "recap": lambda s: Recap(s.recap),
    "saved_already": lambda s: SavedAlready(),
    "searched_already": lambda s: SearchedAlready(),
    "core_found": lambda s: CoreFound(),
    "nothing_found": lambda s: NothingFound(),
    "recall_at_question": lambda s: RecallAtQuestion(),
    "one_reply": lambda s: OneReply(),
    "reply_required": lambda s: ReplyRequired(),
    "language_guard": lambda s: LanguageGuard(),
    "repeat_guard": lambda s: RepeatGuard(),
    "internal_guard": lambda s: InternalGuard(),
    "refusal_guard": lambda s: RefusalGuard(),
    "tone_guard": lambda s: ToneGuard(),
    "identity_guard": lambda s: IdentityGuard(),
    "perspective_guard": lambda s: PerspectiveGuard(),
    "owner_guard": lambda s: OwnerGuard(),
    "unasked_denial": lambda s: UnaskedDenial(),
    "later_promise": lambda s: LaterPromise(),
    "thought_answer": lambda s: ThoughtAnswer(),
    "greet_by_name": lambda s: GreetByName(),
    "greeting_grounded": lambda s: GreetingGrounded(),
    "echo_guard": lambda s: EchoGuard(s.echo_guard),
    "asked_known": lambda s: AskedKnown(),
    "all_questions": lambda s: AllQuestions(),
    "name_asked": lambda s: NameAsked(s.echo_guard),
    "ideas_given": lambda s: IdeasGiven(),
    "copy_guard": lambda s: CopyGuard(s.copy_guard),
    "denial_guard": lambda s: DenialGuard(s.denial_guard),
    "grounded_reply": lambda s: GroundedReply(),
    "reply_check": lambda s: ReplyCheck(s.reply_check),
}
assert tuple(FACTORIES) == POLICY_NAMES, "config.POLICY_NAMES and the factories must list the same policies"


def build_policies(settings: AgentSettings) -> list[Policy]:
    """The enabled policies in the order they act (``config.POLICY_NAMES``)."""
    return [FACTORIES[name](settings) for name in POLICY_NAMES if settings.uses(name)]


__all__ = ["Draft", "MemoryView", "Policy", "StepPlan", "build_policies", "FACTORIES"]
