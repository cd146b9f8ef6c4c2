"""``FunctionExecutor.run(call)``: validate a parsed call against its spec and run its handler.

Every failure the model can fix (an unknown function, bad arguments, an unknown block, text
that does not fit) comes back as a failed ``FunctionOutcome`` whose text tells the model what
to do; only store failures propagate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import ValidationError

from memgpt_local.config import AgentSettings
from memgpt_local.errors import InvalidInputError, NotFoundError
from memgpt_local.functions.handlers import FunctionContext, SearchFocus
from memgpt_local.functions.results import FunctionOutcome
from memgpt_local.functions.specs import DEFAULT_FUNCTIONS, FunctionSpec
from memgpt_local.schemas import FunctionCall

if TYPE_CHECKING:
    from memgpt_local.memory.protocol import Store


class FunctionExecutor:
    """Runs the agent's functions for one agent."""

    def __init__(
        self,
        store: Store,
        agent_id: int,
        settings: AgentSettings,
        functions: Sequence[FunctionSpec] = DEFAULT_FUNCTIONS,
    ):
        self.store = store
        self.agent_id = agent_id
        self.settings = settings
        self.functions = {spec.name: spec for spec in functions}

    def run(
        self, call: FunctionCall, focus: SearchFocus | None = None, turn_start: int | None = None
    ) -> FunctionOutcome:
        spec = self.functions.get(call.function)
        if spec is None:
            names = ", ".join(self.functions)
            return FunctionOutcome(False, f"Error: there is no function {call.function!r}. Use one of: {names}.")
        try:
            args = spec.args_model.model_validate(call.arguments)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            return FunctionOutcome(False, f"Error: bad arguments for {call.function}: {problems}. Fix them and retry.")
        try:
            ctx = FunctionContext(self.store, self.agent_id, self.settings, spec.name, focus, turn_start)
            return spec.handler(ctx, args)
        except (InvalidInputError, NotFoundError) as exc:
            return FunctionOutcome(False, f"Error: {exc.message}. Fix the arguments and retry.")
