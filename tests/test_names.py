"""One name, one thing: no two classes in the analyzer share a name (issue 32), so that a name read in a
traceback, a review or a grep says which class it is."""

import ast
from collections import defaultdict
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "src" / "rtscope"


def shared_class_names(package: Path) -> dict[str, list[str]]:
    """Each class name defined more than once under ``package`` (nested classes too), with where."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(f"{path.relative_to(package)}:{node.lineno}")
    return {name: places for name, places in sorted(where.items()) if len(places) > 1}


def test_no_two_classes_share_a_name():
    shared = shared_class_names(PACKAGE)
    assert not shared, "classes that share a name:\n" + "\n".join(
        f"{name}: {', '.join(places)}" for name, places in shared.items()
    )


def test_a_shared_name_is_found(tmp_path: Path):
    # The check above passes on an empty walk too: show it finds a name shared across modules and packages.
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("class Cell:\n    pass\n\n\nclass Table:\n    pass\n")
    (tmp_path / "sub" / "b.py").write_text("def f():\n    class Cell:\n        pass\n")
    assert shared_class_names(tmp_path) == {"Cell": ["a.py:1", "sub/b.py:2"]}
    assert len(list(PACKAGE.rglob("*.py"))) > 100
