"""No import cycles in the ``rocarray`` package (CPU, from the source text alone).

Every module of the package is parsed (``ast``) and every import of a ``rocarray`` module is an
edge of a graph: at module level and inside functions alike (an import moved into a function to
dodge a cycle is still a cycle). ``from package import name`` is an edge to ``package.name`` when
that is a module, else to ``package``; importing a submodule is not counted as importing its
parent packages (Python runs a package's ``__init__`` first, which every package relies on).
"""

import ast
import pathlib

import pytest

import rocarray

ROOT = pathlib.Path(rocarray.__file__).parent

#: Edges of cycles in other areas, left to their owners (each names the import that closes its
#: cycle); the test fails on any other cycle. When one is gone, delete its entry.
KNOWN_BACK_EDGES = {
    # syevj's per-matrix fallback past its batched kernels solves with the one-matrix path, which
    # reaches stedc, whose leaves (order <= 32) go to syevj's batched kernels, never that fallback
    ("rocarray.rocsolver._syevj", "rocarray.rocsolver._eigh"): "per-matrix fallback",
}


def _modules():
    """``{module name: (path, is package)}`` of every module under the package."""
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, package)
    return out


def _imports(name, path, package, modules):
    """The ``rocarray`` modules one module imports, anywhere in its text."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if package else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in modules:
                    found.add(full)
                elif source in modules:
                    found.add(source)
    found.discard(name)
    return found


def _graph():
    modules = _modules()
    return {name: _imports(name, path, package, modules) for name, (path, package) in modules.items()}


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_the_graph_sees_module_and_function_level_imports():
    graph = _graph()
    assert "rocarray.rocblas._gemm.half" in graph["rocarray.rocblas._gemm.api"]        # module level
    assert "rocarray._core.offline" in graph["rocarray._user.compile_check"]           # inside a function
    assert "rocarray.rocblas._gemm.mma" in graph["rocarray.rocblas._gemm.wgmma"]       # from package import module
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles():
    graph = _graph()
    for source, target in KNOWN_BACK_EDGES:
        graph[source].discard(target)
    cycles = _cycles(graph)
    assert not cycles, "import cycles (module and function-level imports):\n" + "\n".join(
        " <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("edge", sorted(KNOWN_BACK_EDGES))
def test_known_cycles_are_still_there(edge):
    source, target = edge
    assert target in _graph()[source], f"{source} no longer imports {target}: drop it from KNOWN_BACK_EDGES"
