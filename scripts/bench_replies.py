"""Benchmark: how the assistant answers news, per code tree, side by side in one run.

A user who tells the assistant about their day ("My daughter passed her driving test this
morning!") got "That's interesting! How can I help you with that?" in `make run` chats (stops
54-56). Each configuration holds two chats with the real model, each in a warm process of its
own, as `memgpt-local chat` runs them (a fresh data dir each, default settings): two users, ten
messages each, told in different words, all news that asks nothing. A configuration is a code
tree (``NAME=PATH``: a `git worktree` of an earlier commit, or ``.`` for this one), imported
from ``PATH`` in the chat's process. Every reply is scored by ``memgpt_local.eval.news_replies``
of this tree (words, offers of help, bare replies, replies that name what was told, copies of
the message, questions back), with seconds and generated tokens per turn.

Usage: python scripts/bench_replies.py --trees before=/tmp/wt-old,after=. [--model qwen2.5-coder-1.5b]
       [--chats 0,1] [--repeats 1] [--persona FILE] [--out bench-out/replies.json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_chat import TurnMeter  # noqa: E402

# two users, ten messages of news each (the first introduces them): what people tell a friend
CHATS: tuple[tuple[str, ...], ...] = (
    (
        "Hi, I'm Nadia. I teach piano to kids in Leeds.",
        "My daughter Zara passed her driving test this morning, first try!",
        "Ugh, the boiler broke again and the engineer can't come until Friday.",
        "Went for a swim in the lake before work, it was freezing but amazing.",
        "My dad's going in for knee surgery next week, I'm a bit worried about him.",
        "Finally finished the quilt I've been making for my niece.",
        "Work was chaos today, two teachers off sick and I covered both classes.",
        "We adopted a kitten at the weekend, she's called Mochi and she's tiny.",
        "Didn't sleep well, the neighbours had a party until 3am.",
        "Booked tickets to see Elbow in Manchester in April!",
    ),
    (
        "hey, name's Callum, I'm a postman in Cardiff",
        "long day, my round got doubled because a colleague quit",
        "my brother Finn just got engaged to his girlfriend of ten years",
        "started learning the guitar again after like fifteen years off",
        "our dog Bramble had to have a tooth out today, she's sulking on the sofa",
        "I ran my first 10k on Sunday, 58 minutes",
        "mum's moving in with us for a few months while her flat gets repaired",
        "got rained on for my entire shift, soaked through twice",
        "the allotment finally gave us a proper crop of tomatoes",
        "thinking of going back to college to study history",
    ),
)


def run_chat(home: Path, persona: str | None, messages: tuple[str, ...]) -> list[dict]:
    """One chat in this process (the memgpt_local imported is the configuration's tree)."""
    from memgpt_local import events
    from memgpt_local.cli.common import App
    from memgpt_local.cli.session import open_runner
    from memgpt_local.memory.common.core import default_blocks

    app = App(home)
    limit = app.settings.agent.core_memory_limit
    app.store().agents.create("bench", blocks=default_blocks(limit, persona=persona))
    runner = open_runner(app, "bench", None, None, interactive=False)
    meter = TurnMeter(runner)
    rows = []
    for text in messages:
        meter.start(time.perf_counter())
        turn = runner.run_turn(events.user_message(text))
        row = meter.row(turn, time.perf_counter())
        row.update(message=text, reply=" ".join(turn.messages))
        rows.append(row)
        print(f"  {text[:50]!r} -> {row['reply'][:120]!r}", file=sys.stderr, flush=True)
    app.close()
    return rows


def chat_in_tree(tree: Path, home: Path, persona: Path | None, chat: int) -> list[dict]:
    """``run_chat`` in a process that imports memgpt_local from ``tree``; the replies scored here."""
    command = [sys.executable, __file__, "--one-chat", str(home), str(chat), str(persona or "")]
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    done = subprocess.run(command, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the chat in {tree} failed (its errors are above)")
    from memgpt_local.eval.news_replies import score_news_reply  # this tree's (a chat's process may lack it)

    rows = json.loads(done.stdout.strip().splitlines()[-1])
    for row in rows:
        row["score"] = score_news_reply(row["message"], row["reply"]).__dict__
    return rows


def print_table(results: dict[str, list[dict]]) -> None:
    from memgpt_local.eval.news_replies import NewsReply, summarize

    print("\n## News replies per code tree (all chats)\n")
    print(
        "| tree | turns | mean words | offers help | bare (<=6 words) | names what was told | copies 6+ words "
        "| asks back | messages/turn | median s/turn | median generated |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, rows in results.items():
        s = summarize(NewsReply(**r["score"]) for r in rows)
        print(
            f"| {name} | {s.n} | {s.mean_words:.1f} | {s.offers_help} | {s.bare} | {s.specific} | {s.echoes} | "
            f"{s.asks} | {sum(r['messages'] for r in rows) / len(rows):.2f} | "
            f"{statistics.median(r['turn_s'] for r in rows):.1f} | "
            f"{statistics.median(r['generated'] for r in rows):.0f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--one-chat", nargs=3, metavar=("HOME", "CHAT", "PERSONA"), help=argparse.SUPPRESS)
    parser.add_argument("--trees", default="now=.", help="NAME=PATH,...: the code trees to compare")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--chats", default="0,1", help="which users' chats to hold (0, 1)")
    parser.add_argument("--repeats", type=int, default=1, help="hold each chat this many times (replies are sampled)")
    parser.add_argument("--persona", type=Path, default=None, help="a persona file for each chat (default: the tree's)")
    parser.add_argument("--out", type=Path, default=Path("bench-out/replies.json"))
    parser.add_argument("--keep", type=Path, default=None, help="copy each chat's data dir here (for traces)")
    args = parser.parse_args()
    if args.one_chat:
        home, chat, persona = args.one_chat
        text = Path(persona).read_text(encoding="utf-8").strip() if persona else None
        print(json.dumps(run_chat(Path(home), text, CHATS[int(chat)])))
        return
    trees = {}
    for item in (t.strip() for t in args.trees.split(",") if t.strip()):
        name, sep, path = item.partition("=")
        if not sep or not (Path(path) / "memgpt_local").is_dir():
            raise SystemExit(f"--trees takes NAME=PATH with PATH a code tree (it holds memgpt_local/): {item!r}")
        trees[name] = Path(path)
    chats = [int(c) for c in args.chats.split(",") if c.strip()]
    models = Path(os.environ.get("MEMGPT_LOCAL_HOME", Path.home() / ".cache" / "memgpt-local")) / "models"
    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-replies-") as root:
        for name, tree in trees.items():
            results[name] = []
            for run, chat in enumerate(c for _ in range(args.repeats) for c in chats):
                print(f"running {name}, chat {chat} ...", file=sys.stderr, flush=True)
                home = Path(root) / f"{name}-{run}"
                home.mkdir(parents=True)
                (home / "config.toml").write_text(f'[model]\ndefault = "{args.model}"\n', encoding="utf-8")
                if models.is_dir():
                    (home / "models").symlink_to(models.resolve())
                results[name] += chat_in_tree(tree, home, args.persona, chat)
                if args.keep is not None:
                    kept = args.keep / f"{name}-{run}"
                    shutil.rmtree(kept, ignore_errors=True)
                    shutil.copytree(home, kept, symlinks=True, ignore=shutil.ignore_patterns("*.kvstate"))
    print_table(results)
    print("\n## Replies\n")
    for name, rows in results.items():
        for r in rows:
            flags = ",".join(k for k, v in r["score"].items() if v is True)
            print(f"- {name}: {r['message']!r} -> {r['reply']!r} [{flags}]")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"\nraw rows: {args.out}")


if __name__ == "__main__":
    main()
