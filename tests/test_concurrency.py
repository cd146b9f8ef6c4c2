"""Two processes on one memory file: an agent's chat turns and a document load plus
archival inserts, side by side for several seconds. WAL, the busy timeout and the retries
of ``BEGIN IMMEDIATE`` mean neither ever fails with "database is locked"."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHAT = """
import json, sys, time
sys.path.insert(0, {scripts!r})
from crash_campaign import N_CTX, CampaignBackend, open_runner, turn_calls
from memgpt_local import events
from pathlib import Path
db, go, seconds = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
backend = CampaignBackend([], n_ctx=N_CTX)
store, runner = open_runner(db, backend)
while not go.exists():
    time.sleep(0.01)
turns, end = 0, time.monotonic() + seconds
while time.monotonic() < end:
    turns += 1
    backend.enqueue(*turn_calls(turns))
    turn = runner.run_turn(events.user_message(f"turn {{turns}}: what did we talk about before?"))
    assert turn.messages == [f"reply {{turns}}"]
print(json.dumps({{"turns": turns}}))
"""

LOAD = """
import json, sys, time
sys.path.insert(0, {scripts!r})
from crash_campaign import HashEmbedder, AGENT
from memgpt_local.documents.loader import DocumentLoader
from memgpt_local.memory import open_store
from pathlib import Path
db, go, seconds, docs = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4])
while not go.exists():
    time.sleep(0.01)
store = open_store(db, HashEmbedder())
agent = store.agents.get(AGENT)
rounds, passages, end = 0, 0, time.monotonic() + seconds
while time.monotonic() < end:
    rounds += 1
    for f in docs.iterdir():
        f.write_text(f.read_text() + f" Round {{rounds}} adds a line.\\n")
    report = DocumentLoader(store, agent.id).load(sorted(docs.iterdir()))
    passages += report.passages
    store.archival.insert_many(agent.id, [{{"text": f"note {{rounds}}.{{i}}"}} for i in range(100)])
    passages += 100
print(json.dumps({{"rounds": rounds, "passages": passages}}))
"""


@pytest.mark.slow
def test_chat_and_load_side_by_side(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    from crash_campaign import CampaignBackend, HashEmbedder, open_runner

    db, go = tmp_path / "memory.db", tmp_path / "go"
    store, _ = open_runner(db, CampaignBackend([]))  # create the file and the agent
    store.close()
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(5):
        (docs / f"doc{i}.md").write_text(f"# Doc {i}\n\n" + "Lorem ipsum dolor sit amet. " * 200)
    scripts = str(ROOT / "scripts")
    seconds = "6"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHAT.format(scripts=scripts), str(db), str(go), seconds],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ),
        subprocess.Popen(
            [sys.executable, "-c", LOAD.format(scripts=scripts), str(db), str(go), seconds, str(docs)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ),
    ]
    time.sleep(2)  # both have imported and opened the file
    go.touch()
    outs = [p.communicate(timeout=300) for p in procs]
    for (_out, err), proc in zip(outs, procs):
        assert "locked" not in err and "Traceback" not in err, err[-2000:]
        assert proc.returncode == 0, err[-2000:]
    chat, load = (json.loads(out) for out, _ in outs)
    assert chat["turns"] > 3 and load["rounds"] >= 2, (chat, load)
    from memgpt_local.memory import open_store

    with open_store(db, HashEmbedder()) as store:
        assert store.integrity_check() == "ok"
        agent = store.agents.get("crash")
        assert len(store.sources.list(agent.id)) == 5
        assert store.archival.count(agent.id) >= chat["turns"] + 100 * load["rounds"]
