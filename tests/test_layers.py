"""Data flows one way: SQL text, the grammar, the AST, the planner, the core, the
runtime. Each layer's modules import only what lies before it: the core never imports
Spark, and the runtime never parses SQL (it asks ``matchrec.planner.statement``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: folder -> module prefixes its modules must not import (a prefix matches a module and
#: its submodules)
FORBIDDEN = {
    "matchrec": ("pyspark", "py4j", "matchrec.grammar", "matchrec.planner", "matchrec.runtime"),
    "grammar": ("pyspark", "py4j", "matchrec.planner", "matchrec.runtime"),
    "planner": ("pyspark", "py4j", "matchrec.runtime"),
    "runtime": ("matchrec.grammar", "lark"),
}
#: the package's front door, which loads the runtime lazily for its Spark entry points
FACADE = ROOT / "matchrec" / "__init__.py"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function, by full name."""
    package = f"matchrec.{path.parent.name}" if path.parent.name != "matchrec" else "matchrec"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from .x import y, within the module's package
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _cases() -> list[tuple[str, Path]]:
    return [
        (folder, path)
        for folder in FORBIDDEN
        for path in sorted((ROOT / folder).glob("*.py"))
        if path != FACADE
    ]


@pytest.mark.parametrize(("folder", "path"), _cases(), ids=[f"{f}/{p.name}" for f, p in _cases()])
def test_a_module_imports_nothing_from_a_later_layer(folder: str, path: Path):
    forbidden = FORBIDDEN[folder]
    wrong = sorted(
        m for m in imported_modules(path) if any(m == f or m.startswith(f + ".") for f in forbidden)
    )
    assert not wrong, f"{folder}/{path.name} imports {wrong}"


def test_the_check_sees_imports_inside_functions(tmp_path: Path):
    module = tmp_path / "runtime" / "m.py"
    module.parent.mkdir()
    module.write_text("def f():\n    from matchrec.grammar import parse_clause\n")
    assert "matchrec.grammar" in imported_modules(module)
