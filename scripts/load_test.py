"""Load test of `memgpt-local serve`: N clients on M agents, each sending scripted turns.

    python scripts/load_test.py --clients 8 --agents 4 --turns 10            # scripted model
    python scripts/load_test.py --clients 2 --agents 2 --turns 2 --model PATH.gguf
    python scripts/load_test.py --clients 32 --agents 16 --store both        # the file, then Postgres

A fresh data dir, one server process, then N client threads: client c talks to agent c % M and
sends its turns one after another ("client 3 turn 7: ..."). Reported: turns per second, p50/p95
turn latency, and, read back from the memory file after the server stopped: every sent message
stored exactly once (none lost), each followed by its own reply before the next user message
of that agent (none interleaved), and the store's integrity check. ``--store postgres`` serves
a fresh database on a pgserver (PostgreSQL with pgvector, from pip) started in the data dir;
``--store both`` runs the file and then the database and prints them side by side. With the scripted model the
numbers measure the server (HTTP, locks, SQLite, embedding of each message), not a model; its
window is 4,096 tokens and it has no summary scripted, so keep turns per agent at 10 or fewer.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def request(url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=3600) as response:
        return json.loads(response.read() or b"null")


def write_script(path: Path, turns: int) -> None:
    steps: list = []
    for i in range(turns):
        reply = {"message": f"reply {i}"}
        steps.append({"thought": "reply", "function": "send_message", "arguments": reply, "request_heartbeat": False})
        # no fact-notes completion: "client 3 turn 7: hello" states nothing, so no notes pass runs
    path.write_text(json.dumps(steps))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--turns", type=int, default=10, help="turns per client")
    parser.add_argument("--model", default=None, help="a GGUF path (default: the scripted model)")
    parser.add_argument("--store", choices=("sqlite", "postgres", "both"), default="sqlite")
    args = parser.parse_args()

    kinds = ["sqlite", "postgres"] if args.store == "both" else [args.store]
    rows = [run(args, kind) for kind in kinds]
    columns = "store | clients | agents | turns | model | turns/s | p50 s | p95 s | failed | lost | doubled"
    print(f"| {columns} | interleaved | integrity |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(v) for k, v in row.items() if k not in ("failures", "home")) + " |")
    for row in rows:
        for failure in row["failures"][:5]:
            print(f"failure ({row['store']}):", failure)
        print(f"data dir ({row['store']}): {row['home']}")


def start_postgres(home: Path) -> tuple[object, str]:
    """A pgserver in ``home/pg`` and the URL of a fresh database on it."""
    import pgserver
    import psycopg

    server = pgserver.get_server(home / "pg", cleanup_mode="stop")
    with psycopg.connect(server.get_uri(), autocommit=True) as admin:
        admin.execute("CREATE DATABASE load_test")
    return server, server.get_uri("load_test")


def run(args: argparse.Namespace, kind: str) -> dict:
    home = Path(tempfile.mkdtemp(prefix=f"memgpt-load-{kind}-"))
    if args.model is None:
        per_agent = args.turns * -(-args.clients // args.agents)
        write_script(home / "script.json", per_agent)
        model = f"scripted:{home / 'script.json'}"
    else:
        model = args.model
        (home / "config.toml").write_text(
            "[model]\nn_ctx_cap = 2048\n\n[agent]\nheartbeat_cap = 1\nreply_reserve_tokens = 160\n"
            "message_max_chars = 160\nthought_max_chars = 60\n"
        )
    pg, store_url = start_postgres(home) if kind == "postgres" else (None, None)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "MEMGPT_LOCAL_HOME": str(home)}
    log = (home / "server.log").open("w")
    where = ["--store", store_url] if store_url else []
    command = [sys.executable, "-m", "memgpt_local", "serve", "--port", str(port), "--model", model, *where]
    server = subprocess.Popen([*command, "--max-warm", "64"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):
            try:
                request(f"{url}/api/health")
                break
            except OSError:
                time.sleep(0.2)
        for a in range(args.agents):
            request(f"{url}/api/agents", {"name": f"agent-{a}"})

        latencies: list[float] = []
        failures: list[str] = []
        lock = threading.Lock()

        def client(c: int) -> None:
            agent = f"agent-{c % args.agents}"
            for t in range(args.turns):
                started = time.perf_counter()
                try:
                    reply = request(f"{url}/api/agents/{agent}/messages", {"message": f"client {c} turn {t}: hello"})
                    ok = bool(reply["messages"])
                except urllib.error.HTTPError as exc:
                    ok, reply = False, {"status": exc.code, "body": exc.read().decode(errors="replace")}
                except OSError as exc:
                    ok, reply = False, {"error": str(exc)}
                with lock:
                    latencies.append(time.perf_counter() - started)
                    if not ok:
                        failures.append(f"client {c} turn {t}: {reply}")

        started = time.perf_counter()
        threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        server.terminate()
        server.wait(timeout=60)

        sent = {f"client {c} turn {t}: hello" for c in range(args.clients) for t in range(args.turns)}
        lost, doubled, interleaved, integrity = check_store(store_url or home / "memory.db", sent)
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=60)
        if pg is not None:
            pg.cleanup()  # type: ignore[attr-defined]
    total = args.clients * args.turns
    return {
        "store": kind,
        "clients": args.clients,
        "agents": args.agents,
        "turns": total,
        "model": "scripted" if args.model is None else Path(model).name,
        "turns/s": f"{total / elapsed:.2f}",
        "p50": f"{percentile(latencies, 0.5):.2f}",
        "p95": f"{percentile(latencies, 0.95):.2f}",
        "failed": len(failures),
        "lost": lost,
        "doubled": doubled,
        "interleaved": interleaved,
        "integrity": integrity,
        "failures": failures,
        "home": home,
    }


def check_store(location: Path | str, sent: set[str]) -> tuple[int, int, int, str]:
    """(messages lost, stored twice, turns interleaved, integrity check) read from the store."""
    from memgpt_local.config import EmbedderSettings
    from memgpt_local.memory import open_store
    from memgpt_local.memory.embed import make_embedder

    store = open_store(location, make_embedder(EmbedderSettings()))
    try:
        seen: dict[str, int] = {}
        interleaved = 0
        for agent in store.agents.list():
            messages = store.recall.last(agent.id, 100_000)
            waiting = False  # a user message whose reply has not come yet
            for m in messages:
                if m.role == "user":
                    seen[m.content] = seen.get(m.content, 0) + 1
                    interleaved += waiting
                    waiting = True
                elif m.role == "assistant" and m.function_name == "send_message":
                    waiting = False
        lost = len(sent - set(seen))
        doubled = sum(1 for n in seen.values() if n > 1)
        return lost, doubled, interleaved, store.integrity_check()
    finally:
        store.close()


if __name__ == "__main__":
    main()
