"""`memgpt-local eval`: the offline benchmark (nested-kv, dmr, doc-qa), its report and variants."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memgpt_local.cli.common import App, print_json, progress_enabled, with_data_dir
from memgpt_local.errors import InvalidInputError

if TYPE_CHECKING:
    from memgpt_local.runtime.base import Backend

TASKS = ("nested-kv", "dmr", "doc-qa")
DEFAULT_OUT = Path("eval-out")


def _points(
    text: str | None, option: str = "--points", example: str = "0,1,2 or --points 1000,3000"
) -> tuple[int, ...] | None:
    if not text:
        return None
    try:
        return tuple(int(p) for p in text.replace(" ", "").split(",") if p)
    except ValueError:
        raise InvalidInputError(
            f"{option} {text!r} is not a comma-separated list of integers", f"for example {option} {example}"
        ) from None


def _backend(app: App, model: str, n_ctx: int | None) -> Backend:
    from memgpt_local.cli.session import SCRIPTED_PREFIX, open_backend, open_remote
    from memgpt_local.runtime.remote import is_remote

    if is_remote(model):
        return open_remote(model, app.settings.model, n_ctx)
    if model.startswith(SCRIPTED_PREFIX) or n_ctx is None:
        backend = open_backend(model, app, interactive=False)
        if n_ctx is not None:
            backend.n_ctx = n_ctx
        return backend
    from memgpt_local.runtime.llama import load_backend
    from memgpt_local.runtime.pull import ensure_model

    path = ensure_model(model, app.data_dir, interactive=False)
    return load_backend(str(path), app.settings.model, app.data_dir, n_ctx=n_ctx)


def _run_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--model",
            default=None,
            help="Model name, GGUF path, or scripted:FILE.json (default: config model.default).",
        ),
        click.option("--n", "n", type=click.IntRange(1), default=10, show_default=True, help="Cases per point."),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed of the generated data."),
        click.option(
            "--out",
            type=click.Path(file_okay=False, path_type=Path),
            default=DEFAULT_OUT,
            show_default=True,
            help="Run directory: episodes.jsonl (resumable), results.json/.md, charts.",
        ),
        click.option("--long", is_flag=True, help="The long split (dmr: 60 past sessions)."),
        click.option(
            "--wording",
            type=click.Choice(["0", "1", "both"]),
            default="0",
            show_default=True,
            help="Records and questions as the paper words them (0), in other formats and words (1), or both.",
        ),
        click.option(
            "--points", default=None, help="Comma-separated points: nesting levels, corpus sizes or session counts."
        ),
        click.option(
            "--variant", default="default", show_default=True, help="Agent configuration (see `eval variants`)."
        ),
        click.option(
            "--baseline/--no-baseline", default=True, show_default=True, help="Also run the task's baselines."
        ),
        click.option("--agent/--no-agent", "run_agent", default=True, show_default=True, help="Run the agent."),
        click.option(
            "--n-ctx",
            type=click.IntRange(512),
            default=None,
            help="Context window (default: the model's, capped by config).",
        ),
        click.option("--keep-stores", is_flag=True, help="Keep each episode's memory file under OUT/work/."),
        click.option(
            "--cases",
            default=None,
            help="Comma-separated case indices (0 to n-1) to run at each point, to re-run chosen episodes.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _run(
    app: App,
    task: str,
    *,
    model: str | None,
    n: int,
    seed: int,
    out: Path,
    long: bool,
    points: str | None,
    variant: str,
    baseline: bool,
    run_agent: bool,
    n_ctx: int | None,
    keep_stores: bool,
    cases: str | None,
    wording: str,
) -> None:
    from memgpt_local.eval.base import WORDINGS, Options
    from memgpt_local.eval.report import write_report
    from memgpt_local.eval.runner import AGENT_METHOD, EvalConfig, Evaluation, task_by_name
    from memgpt_local.eval.variants import get_variant

    methods = ((AGENT_METHOD,) if run_agent else ()) + (task_by_name(task).baselines if baseline else ())
    if not methods:
        raise InvalidInputError("nothing to run: --no-agent and --no-baseline together", "drop one of them")
    config = EvalConfig(
        task=task,
        model=model or app.settings.model.default,
        out=out,
        options=Options(seed=seed, n=n, long=long, points=_points(points)),
        variant=get_variant(variant),
        methods=methods,
        keep_stores=keep_stores,
        cases=_points(cases, "--cases", "3,17"),
        wordings=WORDINGS if wording == "both" else (int(wording),),
    )
    backend = _backend(app, config.model, n_ctx)
    try:
        evaluation = Evaluation(
            config,
            backend=backend,
            embedder=app.embedder(),
            settings=app.settings,
            log=lambda text: click.echo(text, err=True),
            progress=progress_enabled(),
        )
        new = evaluation.run()
    finally:
        backend.close()
    files = write_report(out)
    click.echo(f"{len(new)} new episodes; results in {files.markdown} and {files.results}")
    for chart in files.charts:
        click.echo(f"chart: {chart}")


@click.group("eval")
def eval_group() -> None:
    """Offline benchmark: the MemGPT paper's experiments on seeded synthetic data."""


def _task_command(task: str, help_text: str) -> None:
    @_run_options
    @with_data_dir
    def command(app: App, **kwargs: Any) -> None:
        _run(app, task, **kwargs)

    eval_group.command(task, help=help_text)(command)


_task_command("nested-kv", "Nested key-value lookups in archival memory, levels 0-4 (paper Figure 7).")
_task_command("dmr", "Deep memory retrieval: a fact from past sessions in recall memory (paper Table 2).")
_task_command("doc-qa", "Questions over a fictional encyclopedia of 10^3-10^4 passages (paper Figure 5).")


@eval_group.command("chat")
@click.option("--model", default=None, help="Model name or GGUF path (default: config model.default).")
@click.option("--n", "n", type=click.IntRange(1), default=3, show_default=True, help="Fictional users.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the users and their lines.")
@click.option(
    "--wording", type=click.Choice(["0", "1", "both"]), default="both", show_default=True, help="Which phrasing."
)
@click.option("--variant", default="default", show_default=True, help="Agent configuration (see `eval variants`).")
@click.option("--n-ctx", type=click.IntRange(512), default=None, help="Context window (small values force eviction).")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_OUT, show_default=True, help="Run dir."
)
@with_data_dir
def chat_eval(
    app: App, model: str | None, n: int, seed: int, wording: str, variant: str, n_ctx: int | None, out: Path
) -> None:
    """Fictional users talk across three sessions: facts, a change, small talk, questions."""
    from memgpt_local.agent.loop import AgentRunner
    from memgpt_local.eval.chat import scripts
    from memgpt_local.eval.chat_report import write_chat_report
    from memgpt_local.eval.chat_run import ChatEvaluation
    from memgpt_local.eval.variants import get_variant

    chosen = get_variant(variant)
    wordings = (0, 1) if wording == "both" else (int(wording),)
    backend = _backend(app, model or app.settings.model.default, n_ctx)
    try:
        evaluation = ChatEvaluation(
            out,
            backend=backend,
            embedder=app.embedder(),
            settings=chosen.settings(app.settings.agent),
            variant=chosen.name,
            runner_factory=chosen.runner_factory or AgentRunner,
            log=lambda text: click.echo(text, err=True),
        )
        new = [r for w in wordings for r in evaluation.run(scripts(seed, n, w))]
    finally:
        backend.close()
    report = write_chat_report(out)
    click.echo(f"{len(new)} new conversations; results in {report}")
    if report is not None:
        click.echo(report.read_text(encoding="utf-8"))


@eval_group.command("report")
@click.argument("out", type=click.Path(file_okay=False, exists=True, path_type=Path), default=DEFAULT_OUT)
def report(out: Path) -> None:
    """Rewrite OUT/results.json, results.md and the charts from OUT/episodes.jsonl."""
    from memgpt_local.eval.chat_report import write_chat_report
    from memgpt_local.eval.report import write_report

    chat = write_chat_report(out)
    if chat is not None:
        click.echo(chat.read_text(encoding="utf-8"))
    if not (out / "episodes.jsonl").exists() and chat is not None:
        return
    files = write_report(out)
    click.echo(files.markdown.read_text(encoding="utf-8"))
    for chart in files.charts:
        click.echo(f"chart: {chart}")


@eval_group.command("variants")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def variants(as_json: bool) -> None:
    """List the agent configurations that --variant accepts."""
    from memgpt_local.eval.variants import VARIANTS

    if as_json:
        print_json([v.describe() for v in VARIANTS.values()])
        return
    for v in VARIANTS.values():
        extra = f" {dict(v.agent)}" if v.agent else ""
        click.echo(f"{v.name}: {v.description}{extra}")


def register(cli: click.Group) -> None:
    cli.add_command(eval_group)
