"""Results of a run directory: ``results.json``, ``results.md`` and one PNG chart per task.

Episodes are grouped by task, split, model, method, variant and point; each group reports
accuracy (with a 95% Wilson interval: n is small), mean ROUGE-L recall, how often the gold
memory was retrieved (or, for a baseline, still in the truncated prompt), and the mean
searches, steps and seconds per episode. The paper's published numbers are printed beside
ours for reference.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memgpt_local.eval.runner import AGENT_METHOD, EPISODES_FILE, EpisodeLog

PAPER_DMR = (  # MemGPT paper, Table 2: deep memory retrieval accuracy
    ("GPT-4", "baseline (lossy summaries)", 32.1),
    ("GPT-4", "MemGPT", 92.5),
    ("GPT-4 Turbo", "baseline (lossy summaries)", 35.3),
    ("GPT-4 Turbo", "MemGPT", 93.4),
)
PAPER_NOTES = {
    "nested-kv": "Paper (Figure 7): MemGPT with GPT-4 stays flat across nesting levels; the GPT-4 "
    "baseline (all pairs in context) falls to 0% by level 3. GPT-3.5 MemGPT returned the "
    "first value it found and stopped.",
    "dmr": "Paper (Table 2): GPT-4 baseline 32.1% vs MemGPT 92.5%; GPT-4 Turbo baseline 35.3% vs "
    "MemGPT 93.4% (baselines saw lossy summaries of the past sessions).",
    "doc-qa": "Paper (Figure 5): MemGPT with GPT-4 stays flat as the number of documents grows; "
    "fixed-context baselines are capped by how many retrieved documents fit the window.",
}


def wilson(correct: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def system_label(method: str, variant: str) -> str:
    return f"agent: {variant}" if method == AGENT_METHOD else method


def outcome(record: dict[str, Any]) -> str:
    """What happened in one episode, in words (the first that applies)."""
    agent = record["method"] == AGENT_METHOD
    if record["correct"]:
        return "correct"
    if record.get("error"):
        return "error"
    if not record["answer"].strip():
        return "no reply"
    if agent and record["searches"] == 0:
        return "no search"
    seen = record.get("retrieved")
    if seen is None:
        return "wrong"
    if agent:
        return "gold seen, wrong reply" if seen else "gold never found"
    return "gold in prompt, wrong reply" if seen else "gold not in prompt"


def repeated_search(record: dict[str, Any], times: int = 3) -> bool:
    """Whether one query was searched ``times`` or more (paging through it, or retrying it)."""
    queries: dict[str, int] = defaultdict(int)
    for step in record.get("trace", []):
        query = (step.get("arguments") or {}).get("query")
        if query is not None:
            queries[f"{step['function']}:{query}"] += 1
    return any(n >= times for n in queries.values())


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return round(sum(values) / len(values), 3) if values else None


@dataclass(frozen=True)
class GroupKey:
    task: str
    split: str
    model: str
    method: str
    variant: str
    point: int


def aggregate(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[GroupKey, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[GroupKey(r["task"], r["split"], r["model"], r["method"], r["variant"], r["point"])].append(r)
    rows = []
    for key in sorted(
        groups, key=lambda k: (k.task, k.split, k.model, k.method != AGENT_METHOD, k.method, k.variant, k.point)
    ):
        items = groups[key]
        n, correct = len(items), sum(1 for r in items if r["correct"])
        retrieved = [bool(r["retrieved"]) for r in items if r.get("retrieved") is not None]
        lo, hi = wilson(correct, n)
        rows.append(
            {
                "task": key.task,
                "split": key.split,
                "model": key.model,
                "method": key.method,
                "variant": key.variant,
                "system": system_label(key.method, key.variant),
                "point": key.point,
                "point_name": items[0].get("point_name", "point"),
                "n": n,
                "correct": correct,
                "accuracy": round(correct / n, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "rouge": _mean(r["rouge"] for r in items),
                "retrieved": round(sum(retrieved) / len(retrieved), 4) if retrieved else None,
                "searches": _mean(r["searches"] for r in items),
                "steps": _mean(r["steps"] for r in items),
                "seconds": _mean(r["seconds"] for r in items),
                "errors": sum(1 for r in items if r.get("error")),
                "outcomes": dict(sorted(Counter(outcome(r) for r in items).items())),
                "repeated_search": sum(1 for r in items if repeated_search(r)),
                "seeds": sorted({r["seed"] for r in items}),
                "overrides": items[0].get("overrides", {}),
            }
        )
    return rows


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _num(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def markdown(rows: list[dict[str, Any]]) -> str:
    out = ["# Evaluation results", ""]
    by_section: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_section[(row["task"], row["split"], row["model"])].append(row)
    for (task, split, model), section in by_section.items():
        point_name = section[0]["point_name"]
        seeds = sorted({s for r in section for s in r["seeds"]})
        out += [f"## {task} ({split} split), model {model}, seeds {', '.join(map(str, seeds))}", ""]
        points = sorted({r["point"] for r in section})
        systems = list(dict.fromkeys(r["system"] for r in section))
        cell = {(r["system"], r["point"]): r for r in section}
        out.append(f"Accuracy by {point_name}:")
        out.append("")
        out.append("| system | " + " | ".join(f"{point_name} {p}" for p in points) + " |")
        out.append("|---|" + "---|" * len(points))
        for system in systems:
            cells = []
            for p in points:
                r = cell.get((system, p))
                cells.append("-" if r is None else f"{r['correct']}/{r['n']} ({_pct(r['accuracy'])})")
            out.append(f"| {system} | " + " | ".join(cells) + " |")
        out += ["", "Details:", ""]
        out.append(
            f"| system | {point_name} | n | accuracy | 95% CI | ROUGE-L | gold retrieved | "
            "searches/ep | steps/ep | s/ep | errors |"
        )
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in section:
            out.append(
                f"| {r['system']} | {r['point']} | {r['n']} | {_pct(r['accuracy'])} | "
                f"{_pct(r['ci95'][0])}-{_pct(r['ci95'][1])} | {_num(r['rouge'], 2)} | {_pct(r['retrieved'])} | "
                f"{_num(r['searches'])} | {_num(r['steps'])} | {_num(r['seconds'], 0)} | {r['errors']} |"
            )
        out += ["", 'What happened (per episode; "repeated search": one query searched 3+ times):', ""]
        out.append(f"| system | {point_name} | outcomes | repeated search |")
        out.append("|---|---|---|---|")
        for r in section:
            outcomes = ", ".join(f"{k} {v}" for k, v in r["outcomes"].items())
            out.append(f"| {r['system']} | {r['point']} | {outcomes} | {r['repeated_search']}/{r['n']} |")
        overrides = {r["system"]: r["overrides"] for r in section if r["overrides"]}
        if overrides:
            out += ["", "Variant settings: " + "; ".join(f"{k}: {json.dumps(v)}" for k, v in overrides.items())]
        if task in PAPER_NOTES:
            out += ["", PAPER_NOTES[task]]
        out.append("")
    return "\n".join(out + wordings_side_by_side(rows))


REWORDED = "-reworded"


def wordings_side_by_side(rows: list[dict[str, Any]]) -> list[str]:
    """Each system and point asked in both wordings: the two accuracies and their gap, so a
    result that holds for one phrasing only shows as such."""
    cell = {(r["task"], r["split"], r["model"], r["system"], r["point"]): r for r in rows}
    pairs = [
        (r, cell[(r["task"], r["split"] + REWORDED, r["model"], r["system"], r["point"])])
        for r in rows
        if not r["split"].endswith(REWORDED)
        and (r["task"], r["split"] + REWORDED, r["model"], r["system"], r["point"]) in cell
    ]
    if not pairs:
        return []
    out = [
        "## Both wordings side by side",
        "",
        "| task (split) | model | system | point | paper's wording | reworded | gap (points) |",
        "|---|---|---|---|---|---|---|",
    ]
    for first, second in pairs:
        gap = 100 * (second["accuracy"] - first["accuracy"])
        out.append(
            f"| {first['task']} ({first['split']}) | {first['model']} | {first['system']} | "
            f"{first['point_name']} {first['point']} | {_count(first)} | {_count(second)} | {gap:+.0f} |"
        )
    return [*out, ""]


def _count(row: dict[str, Any]) -> str:
    lo, hi = row["ci95"]
    return f"{row['correct']}/{row['n']} ({_pct(row['accuracy'])}, {_pct(lo)}-{_pct(hi)})"


def chart(rows: list[dict[str, Any]], task: str, split: str, path: Path) -> Path | None:
    """Accuracy against the task's point (level, documents, sessions), one line per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    section = [r for r in rows if r["task"] == task and r["split"] == split]
    if not section:
        return None
    models = sorted({Path(r["model"]).name for r in section})
    fig, ax = plt.subplots(figsize=(7, 4.2))
    point_name = section[0]["point_name"]
    points = sorted({r["point"] for r in section})
    series: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in section:
        label = r["system"] + (f" [{Path(r['model']).name}]" if len(models) > 1 else "")
        series[label].append(r)
    if len(points) == 1:  # one point (dmr's split): bars, with the paper's numbers beside ours
        labels = list(series) + [f"paper {m}: {s}" for m, s, _ in PAPER_DMR] if task == "dmr" else list(series)
        values = [100 * series[label][0]["accuracy"] for label in series]
        if task == "dmr":
            values += [v for _, _, v in PAPER_DMR]
        colors = ["tab:blue"] * len(series) + ["lightgray"] * (len(labels) - len(series))
        ax.barh(range(len(labels)), values, color=colors)
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("accuracy (%)")
        for y, v in enumerate(values):
            ax.text(v + 1, y, f"{v:.0f}%", va="center", fontsize=8)
        ax.set_title(f"{task} ({split}, {point_name}={points[0]}), {', '.join(models)}")
    else:
        for label, items in series.items():
            items = sorted(items, key=lambda r: r["point"])
            xs = [r["point"] for r in items]
            ys = [100 * r["accuracy"] for r in items]
            errs = [
                [100 * (r["accuracy"] - r["ci95"][0]) for r in items],
                [100 * (r["ci95"][1] - r["accuracy"]) for r in items],
            ]
            ax.errorbar(xs, ys, yerr=errs, marker="o", capsize=3, label=f"{label} (n={items[0]['n']})")
        if task == "doc-qa":
            ax.set_xscale("log")
        ax.set_xticks(points, [str(p) for p in points])
        ax.set_ylim(-5, 105)
        ax.set_xlabel(point_name)
        ax.set_ylabel("accuracy (%)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(f"{task} ({split}), {', '.join(models)}")
    note = PAPER_NOTES.get(task)
    if note and task != "dmr":
        fig.text(0.01, 0.01, note, fontsize=6.5, wrap=True, color="dimgray")
        fig.subplots_adjust(bottom=0.28)
    fig.tight_layout(rect=(0, 0.1 if note and task != "dmr" else 0, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


@dataclass
class ReportFiles:
    results: Path
    markdown: Path
    charts: list[Path]
    rows: list[dict[str, Any]]


def write_report(out: Path) -> ReportFiles:
    records = EpisodeLog(out / EPISODES_FILE).records()
    rows = aggregate(records)
    results = out / "results.json"
    results.write_text(
        json.dumps({"groups": rows, "paper": {"dmr": PAPER_DMR, "notes": PAPER_NOTES}}, indent=2), encoding="utf-8"
    )
    md = out / "results.md"
    md.write_text(markdown(rows), encoding="utf-8")
    charts = []
    for task, split in sorted({(r["task"], r["split"]) for r in rows}):
        suffix = "" if split == "standard" else f"-{split}"
        made = chart(rows, task, split, out / f"chart-{task}{suffix}.png")
        if made:
            charts.append(made)
    return ReportFiles(results=results, markdown=md, charts=charts, rows=rows)
