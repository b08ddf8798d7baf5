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
import re
import sys
from pathlib import Path

import pytest

import harness
from harness.cli.app import COMMANDS

ROOT = Path(harness.__file__).resolve().parent
MAX_LINES = 650

#: Lowest first. A module may import from its own rank or a lower one.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "harness.errors",
        "harness.progress",
        "harness.interrupts",
        "harness.typed_json",
        "harness.holds",
    ),
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
#: :mod:`harness.statistics.blas`), and of the project only the foundation (its JSON form too)
#: and themselves.
STATISTICS_MAY_IMPORT = (
    "numpy",
    "scipy",
    "threadpoolctl",
    "harness.errors",
    "harness.progress",
    "harness.typed_json",
    "harness.holds",
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


# --- Words only in the report layer -------------------------------------------------------
#
# The fact layers return facts (enums, numbers, names); every sentence a user reads is written
# in :mod:`harness.report` from them. A string literal (or the literal text of an f-string) of
# five or more English words in a fact layer is a sentence, and fails the test, except where it
# is not a sentence shown as a result: a docstring, an error or warning message, argparse's help
# texts, or data named in :data:`SENTENCE_DATA`.

#: The fact layers, where a sentence fails the test.
SENTENCE_FREE: tuple[str, ...] = (
    "harness.run",
    "harness.analysis",
    "harness.session",
    "harness.statistics",
    "harness.diagnose",
    "harness.cli",
)
#: Modules under :data:`SENTENCE_FREE` that are not yet checked.
SENTENCE_PENDING: tuple[str, ...] = ()

#: Not sentences shown as results: (module, name of an assigned constant, a class or a
#: function) whose string literals are allowed, with the reason beside each entry — data
#: (a citation), argparse help kept in a table, and error or warning messages a function
#: builds in steps before it raises or warns (the checker sees only literal arguments).
SENTENCE_DATA: dict[tuple[str, str], str] = {
    ("harness.analysis.gap_matters", "THRESHOLDS_CITATION"): "data: the cited paper",
    ("harness.cli.app", "COMMANDS"): "argparse help: each command's one-line help",
    ("harness.cli.options", "OVERRIDE_HELP"): "argparse help: each factor flag's help",
    ("harness.cli.options", "_smooth_value_help"): "argparse help of --smooth-value",
    ("harness.cli.score", "CITE_HELP"): "argparse help: the closing paragraph of score's help",
    ("harness.run.runner", "_same_environment"): "the ConfigError it raises, built in steps",
    ("harness.diagnose.preprocess", "MISTAKES"): (
        "data: the catalogue of cited preprocessing mistakes (what, effect, source)"
    ),
    ("harness.diagnose.validate.probes", "PROBES"): "data: each probe's behaviour and corpus",
    ("harness.diagnose.validate.cases", "_COMMON"): "data: the generated corpora's words",
    ("harness.diagnose.validate.cases", "_TRICKY"): "data: the generated corpora's words",
    ("harness.diagnose.validate.run", "_FATAL_FIRST"): "the CouldNotValidate messages it raises",
    ("harness.diagnose.validate.run", "_SCALE_PROBE"): "data: the scale probe's corpus",
    ("harness.session.cache", "_save"): "the CacheWarning it warns, built in steps",
    ("harness.session.cluster", "_connect"): "the hint of the AdapterUnavailable it raises",
    ("harness.session.cluster", "_cluster_failure"): "the AdapterUnavailable it returns",
    ("harness.session.resources", "worker_budget"): "the ResourcesCapped warning, in steps",
    ("harness.statistics.correlation", "_undefined_reason"): (
        "not converted yet: CorrelationResult.reason is words in the statistics layer, "
        "printed by human --json and stored in report.json; a fact there changes both"
    ),
}

#: Called names whose arguments are messages to a developer or a user in trouble, not results:
#: exception and warning types (``BrokenProcessPool`` too), ``warnings.warn``, argparse's ``parser.error`` and
#: ``harness.cli.app._say`` (the message of an exception that ends a run, on stderr).
_MESSAGE_CALLS = ("Error", "Exception", "Warning", "Unavailable", "Unsupported", "Raise", "Pool")
_MESSAGE_NAMES = ("warn", "error", "_say")
#: Calls whose string arguments are argparse's help texts: its own, and the CLI's helpers
#: that add a flag or a group (``harness.cli.options.add_*``); a progress bar's label.
_HELP_CALLS = ("ArgumentParser", "add_argument_group", "add_parser", "track")
#: Keyword arguments that hold argparse's help texts or an error type's reason and fix.
_MESSAGE_KEYWORDS = ("help", "description", "epilog", "usage", "reason", "fix", "hint")
#: A word: letters, with inner hyphens or apostrophes, in optional outer punctuation.
_WORD = re.compile(r"""^[("'`\[]*[A-Za-z]+(?:['-][A-Za-z]+)*[)"'`\].,;:!?]*$""")
MIN_SENTENCE_WORDS = 5


def _called_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def _literal_text(node: ast.Constant | ast.JoinedStr) -> str:
    """A literal's text; an f-string's literal parts with each placeholder a word break."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    return "".join(str(v.value) if isinstance(v, ast.Constant) else "{…}" for v in node.values)


def sentences(
    source: str, module: str = "", data: dict[tuple[str, str], str] | None = None
) -> list[tuple[int, str]]:
    """(line, text) of each English sentence in ``source`` (the module ``module``) outside the
    exempt places; ``data`` is the allowlist (default :data:`SENTENCE_DATA`)."""
    data = SENTENCE_DATA if data is None else data
    tree = ast.parse(source)
    exempt: set[int] = set()

    def skip(node: ast.AST) -> None:
        exempt.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip(node)  # docstrings, attribute docstrings: string statements
        if isinstance(node, ast.Raise) and node.exc is not None:
            skip(node.exc)
        elif isinstance(node, ast.Call):
            name = _called_name(node)
            if name.endswith(_MESSAGE_CALLS) or name in _MESSAGE_NAMES:
                skip(node)
            elif name in _HELP_CALLS or name.startswith("add_"):
                for arg in node.args:
                    skip(arg)
            for kw in node.keywords:
                if kw.arg in _MESSAGE_KEYWORDS:
                    skip(kw.value)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and (module, t.id) in data for t in targets):
                skip(node)
        elif isinstance(node, ast.ClassDef | ast.FunctionDef) and (module, node.name) in data:
            skip(node)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in exempt:
            continue
        if isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Constant) and isinstance(node.value, str)
        ):
            if isinstance(node, ast.Constant) and any(
                isinstance(p, ast.JoinedStr) and node in p.values for p in ast.walk(tree)
            ):
                continue  # counted with its f-string
            text = _literal_text(node)
            if sum(bool(_WORD.match(w)) for w in text.split()) >= MIN_SENTENCE_WORDS:
                found.append((node.lineno, text))
    return sorted(found)


def _sentence_free(module: str) -> bool:
    return any(_under(module, p) for p in SENTENCE_FREE) and not any(
        _under(module, p) for p in SENTENCE_PENDING
    )


def test_no_sentences_outside_the_report() -> None:
    found = [
        f"{MODULES[m].relative_to(ROOT.parent)}:{line}: {text!r}"
        for m in sorted(MODULES)
        if _sentence_free(m)
        for line, text in sentences(MODULES[m].read_text(encoding="utf-8"), m)
    ]
    assert not found, (
        "sentences outside harness.report (render them there from facts):\n" + "\n".join(found)
    )


def test_sentence_checker_finds_a_planted_sentence() -> None:
    planted = (
        '"""A docstring of many words is not a sentence here."""\n'
        "def f(n):\n"
        '    """Nor is this docstring of many words."""\n'
        "    if n < 0:\n"
        '        print("a printed line of many words is a sentence")\n'
        '        raise ValueError(f"the count {n} is below zero, which is wrong")\n'
        '    warnings.warn("a warning message of many words, also fine")\n'
        '    parser.add_argument("--x", help="a help text of many words is fine")\n'
        '    short = "two words"\n'
        '    return f"the gap of {n} points matters for the ranking"\n'
        'REASON = "not computed: the report was built without the corpora"\n'
    )
    assert sentences(planted) == [
        (5, "a printed line of many words is a sentence"),
        (10, "the gap of {…} points matters for the ranking"),
        (11, "not computed: the report was built without the corpora"),
    ]
    # a constant the allowlist names is data
    assert sentences(planted, "m", {("m", "REASON"): "a cited text"}) == [
        (5, "a printed line of many words is a sentence"),
        (10, "the gap of {…} points matters for the ranking"),
    ]


def test_sentence_scope_names_real_modules() -> None:
    for entry in (*SENTENCE_FREE, *SENTENCE_PENDING, *(m for m, _ in SENTENCE_DATA)):
        assert any(_under(m, entry) for m in MODULES), f"{entry} names no module"
    for (module, name), reason in SENTENCE_DATA.items():
        tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
        names = {
            t.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign | ast.AnnAssign)
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Name)
        } | {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef | ast.FunctionDef)}
        assert name in names, f"{module} defines no {name}"
        assert reason.strip(), f"({module}, {name}) has no reason beside it"


#: At most this many parameters a function of the package takes (``self``/``cls``, ``*args``
#: and ``**kwargs`` not counted); past it the options are a frozen object, or a
#: ``# params: <reason>`` comment on the ``def`` line or the line above says why not.
MAX_PARAMS = 8
PARAMS_REASON = "# params:"

#: Long signatures whose rewrite another change owns (the validator and identify's text, the
#: run stage); each leaves this set when its options become an object.
PENDING: set[str] = set()


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


def test_one_serialiser_writes_every_result() -> None:
    """Results are written by :func:`harness.typed_json.to_json` from their declared fields (and
    ``JSON_PROPERTIES``): no type writes its own dictionary."""
    found = [
        f"{MODULES[m].relative_to(ROOT.parent)}:{node.lineno}"
        for m in sorted(MODULES)
        for node in ast.walk(ast.parse(MODULES[m].read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name == "to_dict"
    ]
    assert not found, "hand-written to_dict (declare the JSON on the dataclass):\n" + "\n".join(
        found
    )
