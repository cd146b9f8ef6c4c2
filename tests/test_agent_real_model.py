"""End to end with a real GGUF model (smollm2-135m): a 6-turn conversation through
`memgpt-local send --json` in which every step parses and is executed."""

from __future__ import annotations

import json

import pytest

from memgpt_local.cli.main import cli

TURNS = [
    "Hi! My name is Ada and I live in Tartu.",
    "I have a cat called Pixel.",
    "Please remember that my sister's birthday is on 12 May.",
    "What do you know about me?",
    "Can you look up what I said about my cat?",
    "Thanks, that is all for today.",
]


@pytest.mark.real_model
def test_six_turns_with_a_real_model_every_step_parses(cli_runner, smollm_path, data_home):
    (data_home / "config.toml").write_text(
        "[model]\nn_ctx_cap = 4096\nn_threads = 2\n\n[agent]\nheartbeat_cap = 3\nreply_reserve_tokens = 200\n"
        "message_max_chars = 200\nthought_max_chars = 120\ncore_memory_limit = 300\n"
    )
    executed = 0
    for text in TURNS:
        result = cli_runner.invoke(cli, ["send", "--model", str(smollm_path), "--json", text])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        assert 1 <= len(data["steps"]) <= 3
        for step in data["steps"]:
            assert step["function"] is not None, f"unparsed output: {step['raw']!r}"
            assert step["result"]  # executed: every call has a result
            assert step["tokens"]["generated"] > 0
            executed += 1
    assert executed >= len(TURNS)
    # the conversation is in recall storage: 6 user messages at least
    result = cli_runner.invoke(cli, ["recall", "search", "--agent", "default", "Pixel", "--json"])
    assert result.exit_code == 0, result.output
    assert "Pixel" in result.output
