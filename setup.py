"""The package's build, beyond what pyproject.toml declares: the repository's probe/ (less its builds),
schema/ and profiles/ go into the package as rtscope/data/, where an installed rtscope finds them
(rtscope.paths). MANIFEST.in puts the same into the source distribution."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA = ("probe", "schema", "profiles")


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        for name in DATA:
            target = Path(self.build_lib, "rtscope", "data", name)
            shutil.rmtree(target, ignore_errors=True)  # nothing left from an earlier build
            shutil.copytree(name, target, ignore=shutil.ignore_patterns("build", "__pycache__"))


setup(cmdclass={"build_py": BuildWithData})
