"""The analyzer's layers: imports run one way, as the package's docstring says (rtscope/__init__.py)."""

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "src" / "rtscope"
# What each part may import besides itself and the base modules (errors, paths, files).
ALLOWED = {
    "cli": {"commands", "targets"},
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


TARGETS = PACKAGE / "targets"
# The families of targets (subpackages of rtscope.targets) and what each may import of another family besides
# the shared core (the modules of rtscope.targets itself): mcu's boards boot through qemu.machine, the one
# way rtscope runs QEMU. The core names no family, but for the registry of kinds, whose job that is.
FAMILIES = {"remote": set(), "qemu": set(), "mcu": {"qemu"}}
NAMES_THE_FAMILIES = {"registry.py"}


def _targets_imports(path: Path) -> set[str]:
    """The modules of rtscope.targets that ``path`` imports, dotted below rtscope.targets ("mcu.framing", "facts")."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rtscope.targets"):
            below = node.module.removeprefix("rtscope.targets").lstrip(".")
            found.update(f"{below}.{alias.name}".lstrip(".") for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(
                a.name.removeprefix("rtscope.targets.") for a in node.names if a.name.startswith("rtscope.targets.")
            )
    return found


def _family(dotted: str) -> str | None:
    head = dotted.split(".")[0]
    return head if head in FAMILIES else None


def test_every_target_family_is_declared():
    assert {path.name for path in TARGETS.iterdir() if (path / "__init__.py").is_file()} == set(FAMILIES)


def test_target_families_import_the_core_not_each_other():
    wrong = []
    for path in sorted(TARGETS.rglob("*.py")):
        relative = path.relative_to(TARGETS)
        own = relative.parts[0] if len(relative.parts) > 1 else None
        for imported in _targets_imports(path):
            family = _family(imported)
            if family is None or family == own:
                continue
            if own is None and relative.name not in NAMES_THE_FAMILIES:
                wrong.append(f"targets/{relative} (the core) imports {imported}")
            elif own is not None and family not in FAMILIES[own]:
                wrong.append(f"targets/{relative} imports {imported}")
            elif own is not None and imported.split(".")[:2] != ["qemu", "machine"]:
                wrong.append(f"targets/{relative} imports {imported}, not qemu.machine")
    assert not wrong, "target families against their rule:\n" + "\n".join(wrong)


def test_nothing_imports_commands():
    importers = [
        path
        for path in PACKAGE.rglob("*.py")
        if _part(path) not in ("commands", "cli") and "commands" in _imported_parts(path)
    ]
    assert not importers
