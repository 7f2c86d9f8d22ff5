"""Build hook: ship the top-level ``rules/`` directory inside the wheel as ``plogscan/_rules``.

The rules live at the repository root so that rule authors find them next to ``samples/``;
an installed ``plogscan`` must still find them, so the build copies them into the package.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithRules(build_py):
    """Copy ``rules/`` into the built package as ``plogscan/_rules``."""

    def run(self) -> None:
        super().run()
        source = Path(__file__).parent / "rules"
        if source.is_dir():
            target = Path(self.build_lib) / "plogscan" / "_rules"
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(source, target)


setup(cmdclass={"build_py": BuildWithRules})
