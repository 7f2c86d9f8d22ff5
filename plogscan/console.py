"""The two consoles: results to stdout, progress and diagnostics to stderr.

Colour follows the terminal: off when the stream is not a TTY, and off whenever ``NO_COLOR``
is set (https://no-color.org). Rich markup, emoji and highlighting are always off, so log
text is never interpreted and output stays byte-stable.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from plogscan.textsafe import neutralize

if TYPE_CHECKING:
    from rich.console import Console


def color_wanted(stream) -> bool:
    """True when colour should be used on ``stream``."""
    if os.environ.get("NO_COLOR", "") != "":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def terminal_width() -> int:
    """Columns of the terminal standard output is on (``COLUMNS`` first, as
    ``shutil.get_terminal_size`` reads it; 80 when neither says)."""
    return shutil.get_terminal_size().columns


def err_console() -> Console:
    """The stderr console for progress, warnings and errors (rich is imported here, when
    one is needed: a run that writes no warning and no bar does without it)."""
    from rich.console import Console

    color = color_wanted(sys.stderr)
    return Console(stderr=True, markup=False, highlight=False, emoji=False,
                   no_color=not color, color_system="auto" if color else None)


def warn(message: str) -> None:
    """One line on stderr; never a traceback. Control and bidi characters (from file names or
    log text) are shown as escapes."""
    err_console().print(f"plogscan: {neutralize(message, keep_newlines=False)}", soft_wrap=True)


@contextmanager
def progress_bar(enabled: bool, total_bytes: Callable[[], int | None] | None = None
                 ) -> Iterator[object]:
    """A byte-counting progress bar on stderr, or a no-op callback when disabled.

    ``total_bytes`` is asked only when a bar is shown: adding up the sizes of a tree stats
    every file in it (0.15 s for 20,000 files), which a run with no bar need not pay.

    Yields ``advance(event, amount)``: ``("bytes", n)`` moves the bar, ``("file", 0)`` counts a
    finished file.
    """
    if not enabled or not sys.stderr.isatty():
        yield lambda event, amount: None
        return
    from rich.progress import (  # only when a bar is shown: the import costs some 6 ms
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TransferSpeedColumn,
    )

    progress = Progress(
        TextColumn("parsing"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
        TextColumn("{task.fields[files]} files"), TimeElapsedColumn(),
        console=err_console(), transient=True)
    task = progress.add_task("parse", total=total_bytes() if total_bytes else None, files=0)
    files = 0

    def advance(event: str, amount: int) -> None:
        nonlocal files
        if event == "bytes":
            progress.advance(task, amount)
        elif event == "file":
            files += 1
            progress.update(task, files=files)

    with progress:
        yield advance
