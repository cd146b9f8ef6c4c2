"""The crash campaign, reduced: 20 SIGKILLs at random moments of a scripted agent; after
each, the file is intact, every committed turn is there and the context is consistent.
The full campaign (200 kills) is `python scripts/crash_campaign.py`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "crash_campaign.py"
KILLS = int(os.environ.get("MEMGPT_CRASH_KILLS", "20"))


@pytest.mark.slow
def test_reduced_crash_campaign(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--kills",
            str(KILLS),
            "--seed",
            "7",
            "--max-delay",
            "1.0",
            "--workdir",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["kills"] == KILLS, report
    assert report["integrity_failures"] == report["missing_turns"] == 0
    assert report["inconsistent_contexts"] == report["resume_failures"] == 0
    assert report["turns_stored"] >= report["turns_logged"] > 0
    assert report["evictions"] > 0  # kills also landed around evictions and summaries


def test_context_check_catches_an_orphan_result():
    sys.path.insert(0, str(SCRIPT.parent))
    from crash_campaign import context_problems

    from memgpt_local.schemas import Message, utcnow

    def msg(i, role, fn=None):
        return Message(
            id=i, agent_id=1, seq=i, role=role, content="x", function_name=fn, created_at=utcnow(), in_context=True
        )

    assert context_problems([msg(1, "user"), msg(2, "assistant", "send_message"), msg(3, "function")]) == []
    assert context_problems([msg(3, "function"), msg(4, "user")]) == ["function result 3 without its call at the head"]
