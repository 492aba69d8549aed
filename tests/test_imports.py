"""The package's structure: no import circles, no file a reader cannot hold.

Every ``import`` of a ``baralho`` module by another, at module level or inside a function,
is an edge (a function's import runs the first time it is called, so a circle through one
is a circle all the same); ``from pkg import name`` is an edge to ``pkg.name`` where that is
a module, else to ``pkg``. Data flows downwards only: core < envs < agents, vector <
training < cli (DESIGN.md), so any circle is a defect.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "baralho"
MAX_LINES = 800


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        edges.update(t for t in targets if t in modules and t != name)
    return edges


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_package_has_no_import_circles():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    circles = _circles(graph)
    described = ["; ".join(f"{a} -> {sorted(graph[a] & set(c))}" for a in c) for c in circles]
    assert not circles, "import circles:\n" + "\n".join(described)


def test_the_walk_sees_a_circle_through_a_function_level_import(tmp_path):
    # the test's teeth: a made-up pair that imports each other, one side inside a function
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("import pkg.b\n")
    b.write_text("def f():\n    from pkg import a\n")
    modules = {"pkg.a": a, "pkg.b": b}
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _circles(graph) == [["pkg.a", "pkg.b"]]


def test_no_source_file_is_over_800_lines():
    long = {str(p.relative_to(PACKAGE.parent)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"files over {MAX_LINES} lines (split them by concept): {long}"
