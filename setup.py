"""Build hooks: ship the top-level ``rules/`` directory inside the wheel as
``plogscan/_rules``, and compile the one C module (``native/``).

The rules live at the repository root so that rule authors find them next to ``samples/``;
an installed ``plogscan`` must still find them, so the build copies them into the package.

``plogscan.parse._cannheader`` (``native/*.c``, plain C against Python's own API, no other
library) holds the chunk kernels: it splits a chunk into lines, reads the CANN header of each
line (its fields, numbers and timestamp) several times faster than RE2, numbers the distinct
header prefixes of a chunk, finds glued level tags, skims a chunk (which lines to parse, the
facts of the records left unparsed, and the picked lines split with their headers read), and
collects Hyperscan's matches without a Python call a match. It is optional:
where no C compiler is found the build goes on without it (and says so), and plogscan does the
same with RE2, Arrow and numpy (the same records, more slowly; ``plogscan --version`` says
which, and ``PLOGSCAN_NATIVE=0`` turns the module off where it is built).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
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


class BuildOptionalNative(build_ext):
    """Build the C module, and say plainly what a failed build means (it is optional)."""

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as err:
            if getattr(ext, "optional", False):
                print(f"plogscan: the C chunk kernels ({ext.name}) were not built ({err}); "
                      "plogscan will parse with Arrow, numpy and RE2 instead: the same records, "
                      "more slowly. Install a C compiler and reinstall to build them.")
            raise


setup(cmdclass={"build_py": BuildWithRules, "build_ext": BuildOptionalNative},
      ext_modules=[Extension("plogscan.parse._cannheader",
                             ["native/cannheader.c", "native/skim.c",
                              "native/pickedlines.c", "native/matchlist.c"],
                             depends=["native/chunkscan.h"],
                             optional=True, extra_compile_args=["-O2"])])
