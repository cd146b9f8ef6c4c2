"""The package's layering, read from the source with ``ast`` (nothing is imported):
dependencies point one way, ``cli -> agent -> {functions, memory, runtime} -> schemas/errors``,
and no two modules import each other, directly or around a loop.

Imports under ``if TYPE_CHECKING:`` are left out (they never run); imports inside functions
count, since a cycle through a lazy import is still a cycle. ``KNOWN`` lists the offenders
that are being moved; each shows as an expected failure until it is gone.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memgpt_local"

# module -> why it may still break a rule, for now (an offender not listed fails the test). The
# agent loop's rewrite cleared the last ones (agent/session.py imported click, and five modules
# imported agent.events and memory.phrases); add an entry only for an offender being moved.
KNOWN: dict[str, str] = {}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST):
    """Every import statement under ``node``, wherever it is, except under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if _is_type_checking(child):
            for other in child.orelse:  # type: ignore[attr-defined]
                yield from _import_nodes(ast.Module(body=[other], type_ignores=[]))
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        else:
            yield from _import_nodes(child)


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@dataclass(frozen=True)
class Import:
    line: int
    target: str  # the dotted name as written, e.g. memgpt_local.events or click
    module: str | None  # the memgpt_local module it loads, None when outside or missing


def _resolve(target: str) -> str | None:
    """The most specific memgpt_local module ``target`` names, or None if it names none."""
    if target in MODULES:
        return target
    parent, _, name = target.rpartition(".")
    if parent in MODULES and name in _top_level_names(TREES[parent]):
        return parent
    return None


def imports_of(module: str) -> list[Import]:
    out = []
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for node in _import_nodes(TREES[module]):
        if isinstance(node, ast.Import):
            out += [Import(node.lineno, a.name, _resolve(a.name)) for a in node.names]
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join(anchor + ([base] if base else []))
        if not base.startswith("memgpt_local"):
            out.append(Import(node.lineno, base, None))
            continue
        out += [Import(node.lineno, f"{base}.{a.name}", _resolve(f"{base}.{a.name}")) for a in node.names]
    return out


IMPORTS = {module: imports_of(module) for module in MODULES}


def _within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def check(violations: list[str], what: str) -> None:
    """Fail on any violation not in ``KNOWN``; an expected failure while known ones remain."""
    unknown = [v for v in violations if v.split(":")[0] not in KNOWN]
    assert not unknown, f"{what}:\n" + "\n".join(unknown)
    if violations:
        pytest.xfail(
            f"{what} (known, being moved):\n" + "\n".join(f"{v}  [{KNOWN[v.split(':')[0]]}]" for v in violations)
        )


RULES = [
    # (modules under, may not import, why)
    (
        ("memgpt_local.runtime", "memgpt_local.memory", "memgpt_local.functions"),
        ("memgpt_local.agent", "memgpt_local.cli"),
        "the agent and the CLI sit above",
    ),
    (("memgpt_local.runtime",), ("memgpt_local.functions", "memgpt_local.memory"), "the runtime knows only specs"),
    (("memgpt_local.documents",), ("memgpt_local.agent",), "loading documents needs no agent"),
]


@pytest.mark.parametrize("under,forbidden,why", RULES, ids=lambda v: v if isinstance(v, str) else None)
def test_lower_layers_do_not_import_upper_ones(under, forbidden, why):
    violations = [
        f"{m}:{i.line}: imports {i.target}"
        for m, found in IMPORTS.items()
        if _within(m, *under)
        for i in found
        if _within(i.target, *forbidden)
    ]
    check(violations, f"{', '.join(under)} import {', '.join(forbidden)} ({why})")


def test_only_the_cli_imports_the_cli_and_click():
    violations = [
        f"{m}:{i.line}: imports {i.target}"
        for m, found in IMPORTS.items()
        if not _within(m, "memgpt_local.cli") and m != "memgpt_local.__main__"
        for i in found
        if _within(i.target, "memgpt_local.cli", "click")
    ]
    check(violations, "modules outside cli/ import the CLI or click")


def test_every_import_of_the_package_resolves():
    violations = [
        f"{m}:{i.line}: imports {i.target}, which does not exist"
        for m, found in IMPORTS.items()
        for i in found
        if _within(i.target, "memgpt_local") and i.module is None
    ]
    check(violations, "imports of modules or names that are not there")


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (or a self-import)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _a_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One import loop through the component's first module, for the message."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                return paths[node] + [start]
            if nxt not in paths:
                paths[nxt] = paths[node] + [nxt]
                queue.append(nxt)
    return component


def test_no_import_cycles():
    graph = {m: {i.module for i in found if i.module and i.module != m} for m, found in IMPORTS.items()}
    # importing a submodule runs its package's __init__ first, which is no edge of its own here
    violations = []
    for component in strongly_connected(graph):
        loop = " -> ".join(_a_cycle(graph, component))
        known = [m for m in component if m in KNOWN]
        violations.append(f"{known[0] if known else component[0]}: cycle among {component}: {loop}")
    check(violations, "import cycles")
