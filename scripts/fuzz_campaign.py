"""Fuzz campaign: run tests/test_fuzz.py with the full hypothesis profile and report counts.

    python scripts/fuzz_campaign.py            # about 11,000 generated inputs
    python scripts/fuzz_campaign.py --profile ci

Every generated input (completion texts, CLI argument lists, search queries, JSONL and agent
files, config files, GGUF headers) must end in a result or a clean error: a traceback or
a change to existing data fails its test. The report lists the inputs per target and the
failures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=["ci", "full"], default="full")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "counts.txt"
        env = dict(os.environ, MEMGPT_FUZZ=args.profile, MEMGPT_FUZZ_REPORT=str(report))
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "test_fuzz.py")],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        seconds = time.monotonic() - started
        counts: Counter[str] = Counter()
        for line in report.read_text().splitlines() if report.exists() else []:
            name, n = line.split()
            counts[name] += int(n)
    for name, n in sorted(counts.items()):
        print(f"{name:>14}: {n} inputs")
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "no output"
    print(f"{'total':>14}: {sum(counts.values())} inputs in {seconds:.0f}s; pytest: {summary}")
    if done.returncode != 0:
        print(done.stdout[-6000:], done.stderr[-2000:], sep="\n")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
