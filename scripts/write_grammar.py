"""Write the GBNF grammar of the default function set to grammars/default_functions.gbnf.

    python scripts/write_grammar.py

The file is checked in so a change to a function spec shows up in review;
tests/test_grammar.py fails while it is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memgpt_local.functions.specs import DEFAULT_FUNCTIONS  # noqa: E402
from memgpt_local.runtime.grammar import call_grammar_text  # noqa: E402

GRAMMAR_FILE = ROOT / "grammars" / "default_functions.gbnf"


def main() -> None:
    GRAMMAR_FILE.write_text(call_grammar_text(DEFAULT_FUNCTIONS), encoding="utf-8")
    print(f"wrote {GRAMMAR_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
