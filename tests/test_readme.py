"""The README's command examples are true: every `memgpt-local ...` it shows names a real
command and only options that command has (as sqlite-utils tests its docs)."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from memgpt_local.cli.main import cli

README = Path(__file__).resolve().parent.parent / "README.md"


def examples() -> list[str]:
    text = README.read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if "memgpt-local " in line:
                found.append(line[line.index("memgpt-local ") :])
    for snippet in re.findall(r"`([^`\n]*memgpt-local [^`\n]*)`", text):
        found.append(snippet[snippet.index("memgpt-local ") :])
    return found


def resolve(group: click.Group, words: list[str]) -> tuple[click.Command, click.Group, list[str]]:
    """The command the words name, its parent group, and the words after the command path."""
    command: click.Command = group
    parent = group
    while words and isinstance(command, click.Group) and words[0] in command.commands:
        parent = command
        command = command.commands[words.pop(0)]
    return command, parent, words


def without_group_options(words: list[str]) -> list[str]:
    """The words after the top-level group's own options ("--store URL agents list")."""
    group_options = {opt for p in cli.params for opt in p.opts}
    while len(words) > 1 and words[0] in group_options:
        words = words[2:]
    return words


def check(line: str) -> None:
    alternatives = [a.strip() for a in line.removeprefix("memgpt-local ").split(" | ")]
    command, parent, rest = resolve(cli, without_group_options(alternatives[0].split()))
    assert command is not cli, f"{line!r}: no such command"
    for alternative in alternatives[1:]:  # "agents create NAME | list | show NAME"
        words = alternative.split()
        if words and words[0] in parent.commands:
            command_alt, _, rest_alt = resolve(parent, words)
            check_options(line, command_alt, rest_alt)
        elif words and isinstance(cli, click.Group) and words[0] in cli.commands:
            command_alt, _, rest_alt = resolve(cli, words)
            check_options(line, command_alt, rest_alt)
        else:
            rest += words  # more options of the same command ("--search TEXT | --message ID")
    check_options(line, command, rest)


def check_options(line: str, command: click.Command, words: list[str]) -> None:
    known = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    for flag in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", " ".join(words)):
        assert flag in known, f"{line!r}: `{command.name}` has no option {flag} (it has {sorted(known)})"


def test_the_readme_shows_commands():
    assert len(examples()) >= 20


@pytest.mark.parametrize("line", examples())
def test_each_readme_command_exists_with_its_options(line):
    check(line)
