"""The engine is pure Python: nothing in it may import Django or DRF."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "policyeditor" / "engine"
FORBIDDEN = ("django", "rest_framework")


def imported_modules(path: Path) -> set[str]:
    """Every module name an `import` or `from ... import` in the file names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_engine_module_imports_django_or_drf():
    offenders = {
        str(path.relative_to(ENGINE)): sorted(
            name for name in imported_modules(path) if name.split(".")[0] in FORBIDDEN
        )
        for path in ENGINE.rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_importing_every_engine_module_loads_no_django():
    modules = sorted(
        ".".join(("policyeditor", "engine", *p.relative_to(ENGINE).with_suffix("").parts))
        for p in ENGINE.rglob("*.py")
    )
    modules = [m.removesuffix(".__init__") for m in modules]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
