"""The analyzer's layers: imports run one way, as the package's docstring says (rtscope/__init__.py)."""

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "src" / "rtscope"
# What each part may import besides itself and the base modules (errors, paths, files).
ALLOWED = {
    "cli": {"commands"},
    "commands": {"execution", "targets", "loads", "store", "analysis", "render", "exporters", "model"},
    "execution": {"targets", "loads", "store", "analysis", "render", "model"},
    "loads": {"targets", "model"},
    "targets": {"model"},
    "store": {"model"},
    "exporters": {"analysis", "render", "model"},
    "render": {"analysis", "model"},
    "analysis": {"model"},
    "model": set(),
}
BASE = {"errors", "paths", "files", "__init__"}


def _part(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def _imported_parts(path: Path) -> set[str]:
    parts = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [node.module]
            if isinstance(node, ast.ImportFrom) and node.module
            else [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        for name in names:
            if name.startswith("rtscope."):
                parts.add(name.split(".")[1])
            elif name == "rtscope" and isinstance(node, ast.ImportFrom):
                parts.update(alias.name for alias in node.names)
    return parts


def test_imports_run_one_way():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        part = _part(path)
        if part in BASE or part == "__main__":
            continue
        for imported in _imported_parts(path) - BASE - {part, "__version__"}:
            if imported not in ALLOWED[part]:
                wrong.append(f"{path.relative_to(PACKAGE)} imports {imported}")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_nothing_imports_commands():
    importers = [
        path
        for path in PACKAGE.rglob("*.py")
        if _part(path) not in ("commands", "cli") and "commands" in _imported_parts(path)
    ]
    assert not importers
