"""Measure login greetings of a returning user (not a test).

A returning user's login is the paper's conversation opener: the greeting should use their
name and something core memory knows about them, speak to them ("you"), and never give them
someone else's news. A `make run` chat greeted "Hello, Priya! I'm glad you're getting married
next Sunday. I'm a pharmacist in Leicester and I'm giving a speech." (it was her best friend
Nadia's wedding, and the rest was Priya's own news in the assistant's mouth).

Each case is a human block as the notes pass writes it (some in the first person, as stores
saved before stop 31 hold them), a last login two days before, and a login on one Thursday
evening (``WHEN``), run as `make run` runs it (``AgentRunner.run_turn`` on the login event, the
default settings). The configurations take turns on each case, so load falls on both, and
which goes first alternates (the second meets the first's prompt cache):

- ``before``: the default policies without ``perspective_guard`` and ``owner_guard`` (before
  stop 31 the perspective guard did nothing at a login, and the owner guard did not exist);
- ``after``: the default policies;
- ``ungrounded``: the default policies without ``greeting_grounded`` (before stop 42).

Scored per greeting: the user's name; a word of a saved note (``greet_by_name.names_a_fact``); a
sentence that speaks as the user (``perspective_guard.greets_as_user``); a sentence that tells
the user someone else's note as theirs (``owner_guard.told_as_users``); words of a guard's
notice copied into the greeting; a name or number no note (nor today's date) says
(``greeting_grounded.unseen_names``); messages, seconds, generated tokens. Decoding is greedy, so a
case gives the same greeting every run. Every greeting is printed: read them, the judges are
the guards' own tests.

    python scripts/bench_greeting.py --model models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf [--set tune|held|both]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memgpt_local.agent.loop import AgentRunner
from memgpt_local.agent.policy.greet_by_name import names_a_fact
from memgpt_local.agent.policy.greeting_grounded import unseen_names
from memgpt_local.agent.policy.owner_guard import owned_notes, told_as_users
from memgpt_local.agent.policy.perspective_guard import greets_as_user
from memgpt_local.cli.session import ensure_agent
from memgpt_local.config import DEFAULT_POLICIES, AgentSettings, EmbedderSettings, Settings
from memgpt_local.eval.report import wilson
from memgpt_local.events import is_name_line
from memgpt_local.memory import open_store
from memgpt_local.memory.dates import first_iso_day
from memgpt_local.memory.embed import Embedder, make_embedder
from memgpt_local.runtime.llama import LlamaCppBackend

WHEN = datetime(2026, 12, 3, 19, 30, tzinfo=timezone.utc)  # a Thursday evening
LAST_LOGIN = WHEN - timedelta(days=2)

# (name, human block lines): notes about the user, in both the old first-person form and the
# third-person form, and notes about the people in their life, dated and not
SETS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "tune": [
        (
            "Priya",
            (
                "Name: Priya",
                "Work: I'm a pharmacist in Leicester",
                "Best friend: Nadia",
                "Wedding: Nadia's getting married next Sunday (2026-12-06)",
                "Speech: I'm giving a speech",
            ),
        ),
        (
            "Ahmed",
            (
                "Name: Ahmed",
                "Work: drives a bus in Glasgow",
                "Daughter: Layla",
                "Ballet recital: tomorrow (2026-12-04) evening with Layla",
            ),
        ),
        (
            "Joanna",
            (
                "Name: Joanna",
                "Work: runs a small bookshop in Krakow",
                "Partner: Tom",
                "Dog: adopting a greyhound next Saturday (2026-12-05)",
            ),
        ),
        (
            "Tomasz",
            ("Name: Tomasz", "Work: night shifts at a bakery", "Sister: Kasia, visiting on Saturday (2026-12-05)"),
        ),
        (
            "Mei",
            ("Name: Mei", "Home: Vancouver", "Brother: Wen, moving to Berlin next week (2026-12-10)"),
        ),
        (
            "Dana",
            ("Name: Dana", "Home: Leeds", "Hobby: I keep three beehives on my roof", "Tea: lapsang souchong"),
        ),
    ],
    "held": [
        (
            "Olu",
            (
                "Name: Olu",
                "Work: I teach physics at a secondary school",
                "Mum: Grace, having hip surgery on Monday (2026-12-07)",
            ),
        ),
        (
            "Sanne",
            (
                "Name: Sanne",
                "Home: Utrecht",
                "Work: paramedic",
                "Husband: Pieter, running the Amsterdam marathon on Sunday (2026-12-06)",
            ),
        ),
        (
            "Marek",
            ("Name: Marek", "Allergy: peanuts", "Flatmate: Ola", "Party: Ola's birthday party on Friday (2026-12-04)"),
        ),
        (
            "Lena",
            (
                "Name: Lena Maier",
                "Pets: two goats",
                "Work: I'm a vet in Graz",
                "Trip: flying to Lisbon next Friday (2026-12-11)",
            ),
        ),
        (
            "Rui",
            (
                "Name: Rui",
                "Work: chef in Porto",
                "Cousin: Ines",
                "Engagement: Ines is getting engaged tomorrow (2026-12-04)",
            ),
        ),
        (
            "Hana",
            ("Name: Hana", "Work: I'm a nurse on a night ward", "Grandma: Yoko, turning 90 on Saturday (2026-12-05)"),
        ),
    ],
}

# words of a guard's notice, copied into a greeting ("That is Wen's news, not the user's")
_NOTICE_WORDS = re.compile(r"\bthe user\b|\bnot sent\b|\bwrite it again\b|\bstart with\b|\bnews, not\b", re.I)

CONFIGS: dict[str, list[str]] = {
    "before": [p for p in DEFAULT_POLICIES if p not in ("perspective_guard", "owner_guard")],
    "after": list(DEFAULT_POLICIES),
    # the defaults less the check that a greeting names nothing its memory does not (stop 42)
    "ungrounded": [p for p in DEFAULT_POLICIES if p != "greeting_grounded"],
}
# what a login shows besides the human block: today, and a dated note's day in words and how
# far it is ("Friday 4 December", "in 8 days")
_TODAY = WHEN.strftime("%A %d %B %Y %Y-%m-%d evening")


def _said_of_day(line: str) -> str:
    day = first_iso_day(line)
    return f"{day.strftime('%A %d %B')} in {(day - WHEN.date()).days} days" if day else ""


def share(k: int, n: int) -> str:
    """``k/n`` with its 95% Wilson interval."""
    lo, hi = wilson(k, n)
    return f"{k}/{n} ({lo:.2f}-{hi:.2f})"


def greet(
    backend: LlamaCppBackend, embedder: Embedder, path: Path, lines: tuple[str, ...], settings: AgentSettings
) -> dict:
    """One login of a returning user whose human block is ``lines``; the greeting scored."""
    store = open_store(path, embedder)
    try:
        agent = ensure_agent(store, "bench", Settings(agent=settings))
        store.core.set_value(agent.id, "human", "\n".join(lines))
        store.agents.set_state(agent.id, {"last_login": LAST_LOGIN.isoformat()})
        runner = AgentRunner(store, backend, "bench", settings)
        started = time.perf_counter()
        result = runner.run_turn(runner.login_event(now=WHEN))
        seconds = time.perf_counter() - started
    finally:
        store.close()
    greeting = "\n".join(result.messages)
    first = lines[0].partition(":")[2].split()[0]
    facts = [ln for ln in lines if not is_name_line(ln)]
    return {
        "greeting": greeting,
        "messages": len(result.messages),
        "name": first.lower() in greeting.lower(),
        "fact": names_a_fact(greeting, facts),
        "as_user": greets_as_user(greeting, [ln.partition(":")[2] for ln in facts]),
        "others": told_as_users(greeting, owned_notes(list(lines), first)),
        "leaks": bool(_NOTICE_WORDS.search(greeting)),
        "unseen": unseen_names(greeting, "\n".join((*lines, _TODAY, *map(_said_of_day, lines)))),
        "holds": [h.reason for h in result.holds],
        "held": [str(s.call.arguments.get("message", "")) for s in result.steps if s.held and s.call],
        "generated": sum(s.completion.generated_tokens for s in result.steps),
        "seconds": seconds,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--set", choices=[*SETS, "both"], default="both")
    parser.add_argument("--configs", default=",".join(CONFIGS), help=f"comma-separated, of: {', '.join(CONFIGS)}")
    args = parser.parse_args()
    backend = LlamaCppBackend(str(args.model), n_ctx=8192, n_threads=2)
    embedder = make_embedder(EmbedderSettings())
    root = Path(tempfile.mkdtemp(prefix="bench-greeting-"))
    names = [n for n in args.configs.split(",") if n]
    sets = list(SETS) if args.set == "both" else [args.set]
    rows: dict[tuple[str, str], list[dict]] = {(s, n): [] for s in sets for n in names}
    for set_name in sets:
        for turn, (user, lines) in enumerate(SETS[set_name]):
            for name in names if turn % 2 == 0 else names[::-1]:  # the second run meets a warm cache
                settings = AgentSettings(policies=CONFIGS[name])
                row = greet(backend, embedder, root / f"{set_name}-{turn}-{name}.db", lines, settings)
                rows[(set_name, name)].append(row)
                marks = [k for k in ("as_user", "others", "leaks", "unseen") if row[k]] + [
                    k for k in ("name", "fact") if not row[k]
                ]
                print(
                    f"[{set_name} {name}] {user}: {row['seconds']:.0f}s holds={row['holds']} "
                    f"{'FLAGS ' + ','.join(marks) if marks else 'ok'}\n"
                    + "".join(f"    held: {m!r}\n" for m in row["held"])
                    + f"    -> {row['greeting']!r}",
                    flush=True,
                )
    print(
        "\n| set | config | logins | name | a known fact | speaks as the user | someone else's news "
        "| notice words | names no note says | messages/login | gen tok/login | s/login |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (set_name, name), r in rows.items():
        n = len(r)
        print(
            f"| {set_name} | {name} | {n} | {share(sum(x['name'] for x in r), n)} "
            f"| {share(sum(x['fact'] for x in r), n)} | {share(sum(bool(x['as_user']) for x in r), n)} "
            f"| {share(sum(bool(x['others']) for x in r), n)} | {share(sum(x['leaks'] for x in r), n)} "
            f"| {share(sum(bool(x['unseen']) for x in r), n)} "
            f"| {statistics.mean(x['messages'] for x in r):.2f} "
            f"| {statistics.mean(x['generated'] for x in r):.0f} | {statistics.median(x['seconds'] for x in r):.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
