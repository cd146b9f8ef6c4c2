"""Decoding speed: unconstrained vs llama-cpp-python's grammar sampling vs ours, same prompts.

    python scripts/bench_decode.py [--model PATH_OR_NAME] [--prompts 5] [--max-tokens 120]

For each prompt and mode the KV cache is reset, so every mode pays the same prefill; the
number reported is generated tokens / decode seconds. "ours" is the default constrained path
of LlamaCppBackend (sample first, mask only on rejection, forced text fast-forwarded in one
batch); "ours-noff" is the same without the fast-forward.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memgpt_local.config import resolve_data_dir  # noqa: E402
from memgpt_local.functions.specs import DEFAULT_FUNCTIONS  # noqa: E402
from memgpt_local.runtime.catalog import resolve_model_path  # noqa: E402
from memgpt_local.runtime.grammar import build_call_grammar, parse_call, render_function_docs  # noqa: E402
from memgpt_local.runtime.llama import LlamaCppBackend  # noqa: E402
from memgpt_local.schemas import ChatMessage  # noqa: E402

QUESTIONS = [
    "Hi! My name is Ada and I like tea.",
    "What did we talk about last week about ferrets?",
    "Please remember that my sister lives in Lyon.",
    "Search your archive for the notes on sqlite.",
    "Be quiet for two hours please.",
    "What is my favourite drink?",
    "List what I said between 2024-03-01 and 2024-03-31.",
    "Thanks, that is all for today.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(Path("tests/.assets/models/SmolLM2-135M-Instruct.Q4_1.gguf")))
    parser.add_argument("--prompts", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=120)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", dest="json_out", default=None, help="also write the results here")
    args = parser.parse_args()

    path = Path(args.model) if Path(args.model).is_file() else resolve_model_path(resolve_data_dir(), args.model)
    backend = LlamaCppBackend(path, n_ctx=4096, n_threads=args.threads)
    grammar = build_call_grammar(DEFAULT_FUNCTIONS, thought_max_chars=200)
    system = ChatMessage(
        role="system",
        content=(
            "You are an assistant with long-term memory. Reply with one JSON object calling one function.\n"
            + render_function_docs(DEFAULT_FUNCTIONS)
        ),
    )
    modes = {
        "unconstrained": dict(grammar=None, constrained="fast", fast_forward=True),
        "llama-cpp-python grammar": dict(grammar=grammar, constrained="llama-cpp-python", fast_forward=True),
        "ours (no fast-forward)": dict(grammar=grammar, constrained="fast", fast_forward=False),
        "ours": dict(grammar=grammar, constrained="fast", fast_forward=True),
    }
    totals = {name: [0, 0.0, 0, 0] for name in modes}  # tokens, seconds, parsed, forced
    for question in QUESTIONS[: args.prompts]:
        messages = [system, ChatMessage(role="user", content=question)]
        for name, mode in modes.items():
            backend.constrained = mode["constrained"]
            backend.fast_forward = mode["fast_forward"]
            backend.reset_cache()
            backend.last_stats = {}
            out = backend.complete(messages, grammar=mode["grammar"], max_tokens=args.max_tokens)
            totals[name][0] += out.generated_tokens
            totals[name][1] += out.decode_seconds
            totals[name][3] += int(backend.last_stats.get("forced_tokens", 0))
            try:
                parse_call(out.text, DEFAULT_FUNCTIONS)
                totals[name][2] += 1
            except Exception:
                pass
            print(
                f"{name:>26}: {out.generated_tokens:4d} tok {out.decode_seconds:6.2f} s "
                f"prefill {out.prompt_tokens} tok {out.prefill_seconds:5.2f} s",
                file=sys.stderr,
            )
    base = totals["unconstrained"][0] / max(totals["unconstrained"][1], 1e-9)
    rows = []
    print(f"\nmodel {path.name}, {args.prompts} prompts, {args.threads} threads")
    print(f"{'mode':>26} {'tokens':>7} {'tok/s':>7} {'vs unconstrained':>17} {'parsed':>7} {'forced':>7}")
    for name, (tokens, seconds, parsed, forced) in totals.items():
        rate = tokens / max(seconds, 1e-9)
        rows.append(
            {
                "mode": name,
                "tokens": tokens,
                "seconds": seconds,
                "tok_per_s": rate,
                "ratio": rate / base,
                "parsed": parsed,
                "forced_tokens": forced,
            }
        )
        print(f"{name:>26} {tokens:7d} {rate:7.1f} {rate / base:16.2f}x {parsed:4d}/{args.prompts} {forced:7d}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=2))
    backend.close()


if __name__ == "__main__":
    main()
