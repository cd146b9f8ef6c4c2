"""Settings: the policy list with one table per policy, config files of earlier versions, and
`config show` / `config init` output that reads back as the same settings."""

from __future__ import annotations

import pytest

from memgpt_local.cli.main import cli
from memgpt_local.config import DEFAULT_POLICIES, AgentSettings, Settings, load_settings, render_settings_toml
from memgpt_local.errors import ConfigError


def write(home, text: str) -> None:
    (home / "config.toml").write_text(text, encoding="utf-8")


def test_an_old_config_file_keeps_working_with_the_same_meaning(data_home):
    write(
        data_home,
        "[agent]\nreply_check = false\nsearch_budget = 5\nrecap_k = 2\nmemory_prefetch = true\n"
        "prefetch_k = 4\nreply_check_window = 0.3\nreply_check_rounds = 2\nlink_max_df = 5\n"
        "question_focus = false\nread_search_results = false\n",
    )
    agent = load_settings(data_home).agent
    assert "reply_check" not in agent.policies and "question_focus" not in agent.policies
    assert "read_results" not in agent.policies
    assert agent.uses("search_budget") and agent.search_budget.searches == 5
    assert agent.uses("prefetch") and agent.prefetch.hits == 4
    assert agent.recap.hits == agent.echo_guard.hits == agent.copy_guard.hits == 2  # recap_k capped all three
    assert agent.reply_check.window == 0.3 and agent.reply_check.rounds == 2
    assert agent.link_max_df == 5 and agent.reply_check.max_df == 5  # link_max_df drove both


def test_an_old_search_budget_of_zero_switches_the_budget_off(data_home):
    write(data_home, "[agent]\nsearch_budget = 0\n")
    agent = load_settings(data_home).agent
    assert not agent.uses("search_budget") and agent.uses("recap")


def test_the_new_form_and_a_clear_error_for_unknown_policies(data_home):
    write(data_home, '[agent]\npolicies = ["reply_required", "search_budget"]\n\n[agent.search_budget]\nsearches = 2\n')
    agent = load_settings(data_home).agent
    assert agent.policies == ["reply_required", "search_budget"] and agent.search_budget.searches == 2
    write(data_home, '[agent]\npolicies = ["reply_required", "mind_reading"]\n')
    with pytest.raises(ConfigError, match="mind_reading"):
        load_settings(data_home)
    write(data_home, "[agent.recap]\ncount = 3\n")
    with pytest.raises(ConfigError, match="unknown key 'agent.recap.count' \\(allowed: hits\\)"):
        load_settings(data_home)


def test_rendered_settings_read_back_the_same(data_home):
    settings = Settings(
        agent=AgentSettings(policies=["prefetch", "reply_check"], link_depth=2, reply_check={"window": 0.25})
    )
    write(data_home, render_settings_toml(settings))
    assert load_settings(data_home) == settings
    assert tuple(Settings().agent.policies) == DEFAULT_POLICIES


def test_config_show_prints_policy_tables(cli_runner):
    result = cli_runner.invoke(cli, ["config", "show"])
    assert result.exit_code == 0, result.output
    assert "[agent.search_budget]\nsearches = 3" in result.output
    assert 'policies = ["direct_reply", "core_at_question", "answer_start", "question_focus"' in result.output
