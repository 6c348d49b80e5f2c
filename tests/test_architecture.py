"""The layout keeps its promises: one-way imports, no cycles, no private names across modules."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "policyeditor"
ENGINE = PACKAGE / "engine"
# Lower apps never import higher ones: core <- teams <- schemalib <- editor <- review <- api.
APP_ORDER = ("core", "teams", "schemalib", "editor", "review", "api")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts
    }


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if _modules()[module].name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


@cache
def _imports() -> dict[str, set[tuple[str, str]]]:
    """module -> {(imported module, imported name or '')}, at any depth (functions too)."""
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    modules = _modules()
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found[module].update((alias.name, "") for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                target = _absolute(module, node)
                for alias in node.names:
                    if f"{target}.{alias.name}" in modules:
                        found[module].add((f"{target}.{alias.name}", ""))
                    else:
                        found[module].add((target, alias.name))
    return found


def _edges() -> dict[str, set[str]]:
    modules = _modules()
    return {
        module: {target for target, _ in imported if target in modules and target != module}
        for module, imported in _imports().items()
    }


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
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
                    found.append(sorted(component))
    return found


def test_no_module_of_the_package_takes_part_in_an_import_cycle():
    assert _cycles(_edges()) == []


def test_the_cycle_finder_finds_a_cycle_through_three_modules():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_a_private_name_of_another_module():
    offenders = sorted(
        f"{module} takes {target}.{name}"
        for module, imported in _imports().items()
        for target, name in imported
        if target.startswith("policyeditor") and name.startswith("_") and not name.startswith("__")
    )
    assert offenders == []


def test_django_apps_import_only_apps_below_them():
    offenders = []
    for module, targets in _edges().items():
        parts = module.split(".")
        if len(parts) < 2 or parts[1] not in APP_ORDER:
            continue
        rank = APP_ORDER.index(parts[1])
        for target in targets:
            other = (target.split(".") + [""])[1]
            if other in APP_ORDER and APP_ORDER.index(other) > rank:
                offenders.append(f"{module} imports {target}")
    assert sorted(offenders) == []


def test_the_engine_keeps_at_most_eight_modules_at_its_root():
    root = sorted(p.name for p in ENGINE.glob("*.py") if p.name != "__init__.py")
    assert len(root) <= 8, root


def test_every_package_states_its_job_in_a_one_line_docstring():
    missing = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        if "migrations" in init.parts or "management" in init.parts or "templatetags" in init.parts:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        if not doc or "\n" in doc.split("\n\n")[0]:
            missing.append(str(init.relative_to(PACKAGE)))
    assert missing == []


def _imports_in(body: list[ast.stmt]) -> list[str]:
    return [
        (node.module or "") if isinstance(node, ast.ImportFrom) else node.names[0].name
        for statement in body
        for node in ast.walk(statement)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]


def test_no_import_failure_turns_a_part_off():
    # PyYAML's optional C loader may fall back to the pure-Python one; nothing else may.
    offenders = []
    for module, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Try):
                continue
            imported = _imports_in(node.body)
            for handler in node.handlers:
                caught = ast.unparse(handler.type) if handler.type is not None else "everything"
                if (
                    imported
                    and any(
                        name in caught
                        for name in ("ImportError", "ModuleNotFound", "everything", "Exception")
                    )
                    and not all(name.startswith("yaml") for name in imported)
                ):
                    offenders.append(f"{module}:{handler.lineno}")
    assert offenders == [], offenders


# The engine's layers, each allowed to import only those listed (and the base, and itself).
ENGINE_BASE = {
    "errors",
    "versions",
    "isolation",
    "apimachinery",
    "jsontypes",
    "jsonkinds",
    "objects",
    "manifests",
}
ENGINE_LAYERS = {
    "schemas": set(),
    "cel": {"schemas"},
    "defaulting": {"schemas"},
    "validation": {"cel", "schemas", "defaulting"},
    "admission": {"cel", "schemas", "defaulting"},
    "lint": {"cel", "schemas"},
    "suites": {"admission", "validation", "cel", "schemas", "defaulting"},
    "impact": {"admission", "cel", "schemas", "defaulting"},
}


def _engine_part(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["policyeditor", "engine"] else None


def test_engine_packages_import_only_the_layers_below_them():
    offenders = []
    for module, targets in _edges().items():
        part = _engine_part(module)
        if part is None:
            continue
        allowed = ENGINE_BASE | {part} | ENGINE_LAYERS.get(part, set())
        if part in ENGINE_BASE:
            allowed = ENGINE_BASE
        offenders += [
            f"{module} imports {target}"
            for target in targets
            if _engine_part(target) is not None and _engine_part(target) not in allowed
        ]
    assert sorted(offenders) == []


def test_every_engine_package_has_its_place_in_the_layers():
    packages = {p.name for p in ENGINE.iterdir() if (p / "__init__.py").exists()}
    assert packages <= ENGINE_BASE | set(ENGINE_LAYERS)


# Reference notes kept outside the repository; a citation of them explains nothing to a reader.
_OUTSIDE_NOTES = tuple(f"{name}.md".encode() for name in ("KUBERNETES", "DESIGN"))


def _mentions_of_outside_notes(root: Path) -> list[str]:
    found = []
    files = [path for path in root.iterdir() if path.is_file()]
    for folder in ("policyeditor", "tests", "bench", "docs"):
        files.extend(path for path in (root / folder).rglob("*") if path.is_file())
    for path in sorted(files):
        if "__pycache__" in path.parts:
            continue
        text = path.read_bytes()
        found.extend(
            f"{path.relative_to(root)}: {note.decode()}" for note in _OUTSIDE_NOTES if note in text
        )
    return found


def test_no_file_cites_reference_notes_that_are_not_in_the_repository():
    assert _mentions_of_outside_notes(PACKAGE.parent) == []


def test_the_citation_check_finds_a_mention_in_a_docs_file(tmp_path):
    for folder in ("policyeditor", "tests", "bench", "docs"):
        (tmp_path / folder).mkdir()
    (tmp_path / "docs" / "notes.md").write_bytes(b"see " + _OUTSIDE_NOTES[0] + b" 10.4\n")
    assert _mentions_of_outside_notes(tmp_path) == [f"docs/notes.md: {_OUTSIDE_NOTES[0].decode()}"]
