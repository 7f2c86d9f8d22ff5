"""``split_path`` (which works the directory part out once per directory) gives what its
definition says for any path: the components between ``/`` and ``!`` other than empty, ``.``
and ``..``; the last is the name, without its compression suffixes; the others are the
directories, without their archive suffixes."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from plogscan.pathhints import _ARCHIVE_SUFFIX, _COMPRESSION_SUFFIX, split_path

_COMPONENTS = st.sampled_from(["", ".", "..", "run", "plog", "x.tar.gz", "y.zip", "job.tgz",
                               "z.log.gz", "f.log", "h.gz.gz", "device-0", "a b"])


def defined(path: str) -> tuple[tuple[str, ...], str]:
    parts = [p for p in re.split(r"[/!]", path) if p not in ("", ".", "..")]
    if not parts:
        return (), ""
    name = parts[-1]
    while _COMPRESSION_SUFFIX.search(name):
        name = _COMPRESSION_SUFFIX.sub("", name)
    return tuple(_ARCHIVE_SUFFIX.sub("", p) for p in parts[:-1]), name


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_COMPONENTS, st.sampled_from("/!")), max_size=6), _COMPONENTS,
       st.booleans())
def test_split_path_follows_its_definition(parts: list[tuple[str, str]], last: str,
                                           absolute: bool) -> None:
    path = ("/" if absolute else "") + "".join(c + sep for c, sep in parts) + last
    assert split_path(path) == defined(path)
    assert split_path(path) == defined(path)  # the second time from the directory cache


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab.-_ 训", max_size=8))
def test_suffix_is_the_suffix_a_path_object_gives(name: str) -> None:
    from pathlib import PurePosixPath

    from plogscan.pathhints import suffix

    if "/" not in name and name not in ("", ".", ".."):
        assert suffix(name) == PurePosixPath(name).suffix
