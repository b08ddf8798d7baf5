"""The package's shape: layers that import only downwards, no cycles, no hidden imports.

The layers (:data:`LAYERS` below; ``docs/architecture.md`` draws them) are ranked; a module may
import its own layer or a lower one, never a higher one. Imports of the project's own modules stand at module level
(nothing hides the import graph inside a function), the graph of module-level imports has no
cycle, and no module grows past 650 lines (modules follow concepts: one that outgrows it holds
more than one, and is split by concept, not by line count). The pure statistics
(:mod:`harness.statistics`) import nothing but the standard library, numpy, scipy, threadpoolctl
and the foundation, inside functions too; every function of the package that calls BLAS runs
it on one thread. Optional heavy libraries (the peers, torch,
matplotlib, …) may still be imported inside functions: that is what keeps ``import harness``
light.

Beyond the ranks, :data:`FORBIDDEN` names imports a layer may not make although they point
down: the renderers of :mod:`harness.report` render a typed report the analysis step computed,
so they import nothing that counts statistics or scores (the facts they show are in the report).

One allowance: the CLI command registry (:data:`harness.cli.app.COMMANDS`) imports the chosen
command's module by name (``importlib.import_module``), so that ``bleu-harness --help`` and each
command load only what they need. Its entries count here as module-level imports of
``harness.cli.app`` (layers and cycles are checked on them as on any import), and each must
name a command module of the CLI layer that defines the entry's add-function.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import harness
from harness.cli.app import COMMANDS

ROOT = Path(harness.__file__).resolve().parent
MAX_LINES = 650

#: Lowest first. A module may import from its own rank or a lower one.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("harness.errors", "harness.progress", "harness.interrupts"),
    ("harness.data", "harness.statistics"),
    ("harness.bleu",),
    ("harness.scorers", "harness.session"),
    ("harness.api",),
    ("harness.run",),
    ("harness.analysis",),
    ("harness.diagnose",),
    ("harness.pitfalls",),
    ("harness.report",),
    ("harness.cli",),
)


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _rank(module: str) -> int | None:
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def _own(target: str) -> str | None:
    """The project module ``target`` names (a module, or a name inside one), if any."""
    while target:
        if target in MODULES:
            return target
        target = target.rpartition(".")[0]
    return None


def _imports(module: str) -> tuple[set[str], list[tuple[int, str]]]:
    """Project modules imported at module level, and (line, module) of those inside functions."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    top: set[str] = set()
    nested: list[tuple[int, str]] = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            in_fn = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import | ast.ImportFrom):
                names: list[str] = []
                if isinstance(child, ast.Import):
                    names = [a.name for a in child.names]
                elif child.level == 0 and child.module:
                    names = [f"{child.module}.{a.name}" for a in child.names]
                for own in {_own(name) for name in names} - {None, module}:
                    assert own is not None
                    if inside:
                        nested.append((child.lineno, own))
                    elif not _type_checking(child, tree):
                        top.add(own)
            visit(child, in_fn)

    visit(tree, False)
    return top, nested


def _type_checking(node: ast.AST, tree: ast.Module) -> bool:
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test):
            if any(node is n for n in ast.walk(stmt)):
                return True
    return False


GRAPH = {m: _imports(m) for m in MODULES}
#: The one module that imports project modules by name: the CLI command registry.
REGISTRY = "harness.cli.app"
GRAPH[REGISTRY][0].update(entry.module for entry in COMMANDS.values())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_cli_registry_names_a_command_module(name: str) -> None:
    entry = COMMANDS[name]
    assert entry.module in MODULES, f"{name}: {entry.module} is not a module of the package"
    assert _rank(entry.module) == _rank(REGISTRY), f"{name}: {entry.module} is not a CLI module"
    tree = ast.parse(MODULES[entry.module].read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert entry.add in defined, f"{name}: {entry.module} defines no {entry.add}()"


def test_every_module_has_a_layer() -> None:
    orphans = [m for m in MODULES if m != "harness" and _rank(m) is None]
    assert not orphans, f"modules outside every layer of LAYERS: {orphans}"


def test_no_upward_imports() -> None:
    upward = []
    for module, (top, _nested) in GRAPH.items():
        rank = _rank(module)
        if rank is None:  # the package's public face re-exports from every layer
            continue
        for target in top:
            t_rank = _rank(target)
            if target == "harness" or (t_rank is not None and t_rank > rank):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that reach up a layer:\n" + "\n".join(sorted(upward))


#: Importer prefix → imported prefixes it may not import (module-level imports, as the
#: layers), although they are lower layers.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "harness.report": ("harness.bleu", "harness.session", "harness.scorers", "harness.api"),
    "harness.statistics": ("harness.data",),
}


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_no_forbidden_imports() -> None:
    found = [
        f"{module} -> {target}"
        for module, (top, _nested) in GRAPH.items()
        for importer, banned in FORBIDDEN.items()
        if _under(module, importer)
        for target in top
        if any(_under(target, prefix) for prefix in banned)
    ]
    assert not found, "forbidden imports:\n" + "\n".join(sorted(found))


def test_forbidden_imports_name_real_packages() -> None:
    # a renamed package would make its entry silently check nothing
    for importer, banned in FORBIDDEN.items():
        for prefix in (importer, *banned):
            assert any(_under(m, prefix) for m in MODULES), f"{prefix} names no module"


def test_project_imports_stand_at_module_level() -> None:
    hidden = [
        f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports {target}"
        for m, (_top, nested) in GRAPH.items()
        for line, target in nested
    ]
    assert not hidden, "imports of project modules inside functions:\n" + "\n".join(hidden)


def test_no_import_cycles() -> None:
    # A module imports its package's __init__ implicitly; parents are not edges here, only
    # what the module names. Depth-first search with colours.
    colour: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[str] = []

    def dfs(m: str) -> None:
        colour[m] = 1
        stack.append(m)
        for t in sorted(GRAPH[m][0]):
            if colour.get(t) == 1:
                cycles.append(" -> ".join([*stack[stack.index(t) :], t]))
            elif t not in colour:
                dfs(t)
        stack.pop()
        colour[m] = 2

    for m in sorted(MODULES):
        if m not in colour:
            dfs(m)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


#: What the pure statistics may import, anywhere in a module (inside functions too): the
#: standard library, numpy, scipy, threadpoolctl (to run BLAS on one thread:
#: :mod:`harness.statistics.blas`), and of the project only the foundation and themselves.
STATISTICS_MAY_IMPORT = (
    "numpy",
    "scipy",
    "threadpoolctl",
    "harness.errors",
    "harness.progress",
    "harness.statistics",
)


def _every_import(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def test_statistics_depend_only_on_numpy_and_scipy() -> None:
    pure = [m for m in MODULES if _under(m, "harness.statistics")]
    assert len(pure) > 1, "harness.statistics holds no module"
    outside = [
        f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports {name}"
        for m in pure
        for line, name in _every_import(MODULES[m])
        if name.split(".")[0] not in sys.stdlib_module_names
        and not any(_under(name, allowed) for allowed in STATISTICS_MAY_IMPORT)
    ]
    assert not outside, (
        "the pure statistics import more than numpy, scipy and threadpoolctl:\n"
        + "\n".join(outside)
    )


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size(module: str) -> None:
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[module]} has {lines} lines (at most {MAX_LINES})"


#: Calls that reach BLAS on floating-point arrays (``@`` is found as an operator).
BLAS_CALLS = {"dot", "matmul", "vdot", "inner", "tensordot", "corrcoef", "cov", "norm"}
BLAS_CALLS |= {"pearsonr", "spearmanr", "lstsq", "solve"}


def _blas_uses(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[int]:
    """Lines of ``func``'s own body (not of the functions it defines) that call BLAS."""
    lines: list[int] = []
    todo: list[ast.AST] = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in BLAS_CALLS:
                lines.append(node.lineno)
        todo.extend(ast.iter_child_nodes(node))
    return lines


def _decorated(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        (d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")) == "single_blas_thread"
        for d in func.decorator_list
    )


def test_blas_runs_on_one_thread() -> None:
    """Every function that calls BLAS runs with one BLAS thread (:mod:`harness.statistics.blas`:
    otherwise its last bits depend on the machine's cores), itself or through a function it
    is defined in."""
    bare: list[str] = []

    def visit(node: ast.AST, covered: bool, path: Path) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside = covered or _decorated(child)
                if not inside:
                    bare.extend(
                        f"{path.relative_to(ROOT.parent)}:{line} in {child.name}"
                        for line in _blas_uses(child)
                    )
                visit(child, inside, path)
            else:
                visit(child, covered, path)

    for path in MODULES.values():
        visit(ast.parse(path.read_text(encoding="utf-8")), False, path)
    assert not bare, "BLAS called without single_blas_thread:\n" + "\n".join(sorted(set(bare)))


#: At most this many parameters a function of the package takes (``self``/``cls``, ``*args``
#: and ``**kwargs`` not counted); past it the options are a frozen object, or a
#: ``# params: <reason>`` comment on the ``def`` line or the line above says why not.
MAX_PARAMS = 8
PARAMS_REASON = "# params:"

#: Long signatures whose rewrite another change owns (the validator and identify's text, the
#: run stage); each leaves this set when its options become an object.
PENDING = {
    "harness.cli.diagnose.identify_text",
    "harness.diagnose.validate.classify.find_deviations",
    "harness.diagnose.validate.run.validate",
    "harness.run.results.segment_block",
    "harness.run.runner.run",
}


def _long_signatures(source: str, module: str) -> dict[str, int]:
    """The functions of ``source`` (qualified by ``module`` and their classes) that take more
    than :data:`MAX_PARAMS` parameters with no ``# params: <reason>`` beside their ``def``, and
    how many they take."""
    lines = source.splitlines()
    found: dict[str, int] = {}

    def reason(line: int) -> bool:
        near = [lines[i - 1] for i in (line - 1, line) if 0 < i <= len(lines)]
        for text in near:
            _, mark, why = text.partition(PARAMS_REASON)
            if mark and why.strip():
                return True
        return False

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}.{child.name}")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = child.args
                names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
                count = len(names) - (1 if names and names[0] in ("self", "cls") else 0)
                if count > MAX_PARAMS and not reason(child.lineno):
                    found[f"{prefix}.{child.name}"] = count
                visit(child, f"{prefix}.{child.name}")
            else:
                visit(child, prefix)

    visit(ast.parse(source), module)
    return found


def _package_long_signatures() -> dict[str, int]:
    found: dict[str, int] = {}
    for module, path in MODULES.items():
        found.update(_long_signatures(path.read_text(encoding="utf-8"), module))
    return found


def test_no_function_takes_more_than_eight_parameters() -> None:
    """A long list of options is a frozen options object (as :class:`~harness.run.plan.RunPlan`
    is), or the ``def`` says why not."""
    long = {name: n for name, n in _package_long_signatures().items() if name not in PENDING}
    assert not long, "more than 8 parameters, with no '# params: <reason>':\n" + "\n".join(
        f"{name}: {n}" for name, n in sorted(long.items())
    )


def test_pending_long_signatures_are_still_long() -> None:
    """An entry of :data:`PENDING` whose function now fits (or is gone) leaves the set."""
    fitted = sorted(PENDING - set(_package_long_signatures()))
    assert not fitted, f"remove from PENDING: {', '.join(fitted)}"


def test_the_parameter_check_finds_a_planted_long_signature() -> None:
    """The checker itself: it counts parameters as the rule does and reads the reasons."""
    nine = ", ".join(f"p{i}" for i in range(9))
    planted = "\n".join(
        [
            f"def long({nine}): ...",
            f"def keyword_only(p0, *, {', '.join(f'k{i}' for i in range(8))}): ...",
            "def eight(a, b, c, d, e, f, g, h, *args, **kwargs): ...",
            "# params: the columns are the caller's own arrays",
            f"def reasoned_above({nine}): ...",
            f"def reasoned_inline({nine}):  # params: mirrors a library's signature",
            "    ...",
            "class Holder:",
            f"    def method(self, {nine}): ...",
            "    def fits(self, a, b, c, d, e, f, g, h): ...",
            "    # params:",
            f"    def empty_reason(cls, {nine}): ...",
            "def outer():",
            f"    def inner({nine}): ...",
        ]
    )
    assert _long_signatures(planted, "m") == {
        "m.long": 9,
        "m.keyword_only": 9,
        "m.Holder.method": 9,
        "m.Holder.empty_reason": 9,
        "m.outer.inner": 9,
    }
