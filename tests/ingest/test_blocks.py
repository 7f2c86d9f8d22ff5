"""Messages that span records: tables printed row by row, tracebacks and the exception line
that ends them, error-manager titles and their blocks (``parse.blocks``).

The lines are written here in the shapes HCCL, Python and the CANN error manager print, behind
the prefixes launchers add; each case says what must join and what must not.
"""

from __future__ import annotations

import functools
import io

import pytest

from plogscan.ingest.limits import Limits
from plogscan.ingest.pipeline import Ingest
from plogscan.ingest.textinput import parse_text
from plogscan.parse.results import FileContext
from plogscan.pipeline import stages
from plogscan.report import render
from tests.helpers import diagnosed

PLOG = "worker-2/process_log/debug/plog/plog-4100_20260203100000000.log"
STDOUT = "job/train.log"


def hccl(ms: int, body: str, *, pid: int = 4100, tid: int = 4107, level: str = "ERROR",
         spaced: bool = False) -> str:
    """An HCCL record; ``spaced``: the newer ``[file:line] [tid]`` body."""
    where = f"[comm_base.cc:{900 + ms}]" + (f" [{tid}]" if spaced else f"[{tid}]")
    return f"[{level}] HCCL({pid},python3):2026-02-03-10:00:05.{ms:03d}.100 {where}{body}"


ROWS = [
    "   ______________LINK_ERROR_INFO______________",
    "   |  comm error, device[2] num[2]",
    "   |  dest_ip(user_rank)  |  src_ip(user_rank)  |  MyRole  |  Status  |",
    "   |--------------------|--------------------|----------|------------|",
    "   |  10.1.0.7(5)  |  10.1.0.3(1)  |  client  | time out |",
    "   |  10.1.0.9(7)  |  10.1.0.3(1)  |  server  | no connect |  LinkInfo",
    "   ___________________________________________  ",
]
BEFORE = hccl(1, "[Wait][LinkEstablish]wait socket establish timeout, role[0] rank[1]")
AFTER = hccl(40, "the connection failure between this device and target device may be due to:")


def rows(text: str, path: str = PLOG) -> list[dict]:
    return parse_text(text, path, "stdout" if path == STDOUT else None).to_pylist()


def spans(records: list[dict]) -> list[tuple[int, int]]:
    return [(r["line"], r["line_count"]) for r in records]


@pytest.mark.parametrize("spaced", [False, True])
def test_a_table_printed_row_by_row_is_one_record(spaced: bool) -> None:
    lines = [BEFORE, *(hccl(2 + i, row, spaced=spaced) for i, row in enumerate(ROWS)), AFTER]
    before, table, after = rows("\n".join(lines) + "\n")
    assert spans([before, table, after]) == [(1, 1), (2, 7), (9, 1)]
    assert table["message"].split("\n") == [r[1:] for r in ROWS]  # a space ends the header
    assert (table["level"], table["module"], table["pid"], table["tid"]) == ("ERROR", "HCCL",
                                                                            4100, 4107)
    assert table["src_line"] == 902 and table["ts"].microsecond == 2100  # the title's header


def test_a_table_in_job_stdout_behind_a_rank_prefix_is_one_record() -> None:
    lines = [f"[rank1]: {hccl(2 + i, row)}" for i, row in enumerate(ROWS)] + ["epoch 3 done"]
    table, plain = rows("\n".join(lines) + "\n", STDOUT)
    assert spans([table, plain]) == [(1, 7), (8, 1)] and table["rank"] == 1


@pytest.mark.parametrize(("name", "lines", "expected"), [
    # rows without their title (a pasted fragment) stay records of their own
    ("no title", [hccl(2 + i, r) for i, r in enumerate(ROWS[2:])],
     [(n, 1) for n in range(1, 6)]),
    # another thread's row between two rows: the rows of the table join, the other does not
    ("another writer", [hccl(2, ROWS[0]), hccl(3, ROWS[1]), hccl(4, ROWS[4], tid=9999),
                        hccl(5, ROWS[6])], [(1, 2), (3, 1), (4, 1)]),
    ("another process", [hccl(2, ROWS[0]), hccl(3, ROWS[1], pid=4200)], [(1, 1), (2, 1)]),
    ("a blank line", [hccl(2, ROWS[0]), "", hccl(3, ROWS[1])], [(1, 1), (3, 1)]),
    # a row after the closing ruler belongs to nothing
    ("after the end", [hccl(2, ROWS[0]), hccl(3, ROWS[6]), hccl(4, ROWS[4])],
     [(1, 2), (3, 1)]),
    # in a plog only ERROR and WARNING records join (what a skim never leaves out)
    ("info level", [hccl(2, ROWS[0], level="INFO"), hccl(3, ROWS[1], level="INFO")],
     [(1, 1), (2, 1)]),
])
def test_what_does_not_join_a_table(name: str, lines: list[str], expected: list) -> None:
    assert spans(rows("\n".join(lines) + "\n")) == expected, name


TRACEBACK = ["Traceback (most recent call last):", '  File "train.py", line 88, in <module>',
             "    torch.npu.synchronize()",
             "RuntimeError: npuSynchronizeDevice: error code is 507916"]


@pytest.mark.parametrize("prefix", ["", "[rank3]: ", "(VllmWorker rank=3 pid=901) ",
                                    "ERROR 02-03 10:00:05 [engine.py:458] ",
                                    "2026-02-03T10:00:05.123456789Z stderr F "])
def test_the_exception_line_ends_its_traceback(prefix: str) -> None:
    text = "\n".join(prefix + line for line in [*TRACEBACK, "next step"]) + "\n"
    tb, plain = rows(text, STDOUT)
    assert spans([tb, plain]) == [(1, 4), (5, 1)]
    assert tb["fmt"] == "py-traceback" and tb["codes"] == ["507916"]
    assert tb["message"].split("\n")[-1] == TRACEBACK[-1]


@pytest.mark.parametrize(("name", "lines", "expected"), [
    ("other rank", ["[rank0]: " + TRACEBACK[0], "[rank0]: " + TRACEBACK[1],
                    "[rank1]: " + TRACEBACK[3]], [(1, 2), (3, 1)]),
    ("a blank line", [*TRACEBACK[:3], "", TRACEBACK[3]], [(1, 3), (5, 1)]),
    ("a second exception", [*TRACEBACK, "ValueError: another one"], [(1, 4), (5, 1)]),
    ("no traceback", ["step 4", TRACEBACK[3]], [(1, 1), (2, 1)]),
])
def test_what_does_not_join_a_traceback(name: str, lines: list[str], expected: list) -> None:
    assert spans(rows("\n".join(lines) + "\n", STDOUT)) == expected, name


BLOCK = ["EZ9999[PID: 7120] 2026-02-03-10:00:05.147.557 (EZ9999):  The error from device"
         "(chipId:1, dieId:0), serial number is 4, there is an aivec error exception.",
         "        TraceBack (most recent call last):",
         "       Kernel task happen error, retCode=0x31.[FUNC:GetError][FILE:stream.cc]"]


@pytest.mark.parametrize(("title", "prefix", "block_prefix"), [
    ("EZ9999: Inner Error!", "", ""),
    ("[ERROR] RecentErrMsg: EZ9999: Inner Error!", "", ""),
    ("RuntimeError: call aclnnCast failed, detail:EZ9999: Inner Error!", "", ""),
    ("EZ9999: Inner Error!", "(EngineCore_DP0 pid=7120) ", "(EngineCore_DP0 pid=7120) "),
    ("EZ9999: Inner Error!", "[rank2]: ", "[rank2]: "),
    # torchrun put its prefix on the warning's first line only
    ("[W203 10:00:05.186470670 compiler_depend.ts:57] Warning: EZ9999: Inner Error!",
     "[rank2]:", ""),
    ("E CANN error: EZ9999: Inner Error!", "0.18.782.692 ", ""),
])
def test_an_error_manager_title_joins_its_block(title: str, prefix: str,
                                                block_prefix: str) -> None:
    lines = ["step 4", prefix + title, *(block_prefix + line for line in BLOCK), "step 5"]
    before, block, after = rows("\n".join(lines) + "\n", STDOUT)
    assert spans([before, block, after]) == [(1, 1), (2, 4), (6, 1)]
    assert block["pid"] == 7120 and block["ts"] is not None  # from the block's [PID: n] line
    assert block["codes"][0] == "EZ9999"


@pytest.mark.parametrize(("name", "lines", "expected"), [
    ("another code", ["EZ9999: Inner Error!", BLOCK[0].replace("EZ9999", "EI0002")],
     [(1, 1), (2, 1)]),
    ("two details", [BLOCK[0], BLOCK[0]], [(1, 1), (2, 1)]),
    ("a timed detail", ["EE1002: 2026-02-03-10:00:05.565.510 Stream synchronize timeout.",
                        "EE1002: 2026-02-03-10:00:06.565.510 Stream synchronize timeout."],
     [(1, 1), (2, 1)]),
    ("another process", ["(w pid=1) EZ9999: Inner Error!", "(w pid=2) " + BLOCK[0]],
     [(1, 1), (2, 1)]),
])
def test_what_does_not_join_an_error_manager_block(name: str, lines: list[str],
                                                    expected: list) -> None:
    assert spans(rows("\n".join(lines) + "\n", STDOUT)) == expected, name


def test_a_traceback_its_exception_and_the_block_its_message_names_are_one_record() -> None:
    lines = [*TRACEBACK[:3], "RuntimeError: call aclnnCast failed, detail:EZ9999: Inner Error!",
             *BLOCK, "[ERROR] 2026-02-03-10:00:05 (PID:7120, Device:1, RankID:1) ERR01005 OPS"]
    tb, pta = rows("\n".join(lines) + "\n", STDOUT)
    assert spans([tb, pta]) == [(1, 7), (8, 1)]
    assert tb["fmt"] == "py-traceback" and tb["codes"][0] == "EZ9999"


MIXED = "\n".join([
    BEFORE, *(hccl(2 + i, row) for i, row in enumerate(ROWS)), AFTER,
    *(f"[rank0]: {hccl(50 + i, row, tid=4108)}" for i, row in enumerate(ROWS)),
    *TRACEBACK, "RuntimeError: call aclnnCast failed, detail:EZ9999: Inner Error!", *BLOCK,
    "EZ9999: Inner Error!", *BLOCK, "done",
]) + "\n"


@pytest.mark.parametrize("kind", ["plog-debug", "stdout"])
def test_any_chunk_boundary_gives_the_records_of_one_chunk(kind: str) -> None:
    """A block cut by a chunk boundary is joined across it; the records and the accounting
    are those of a single chunk, wherever the cuts fall."""
    data = MIXED.encode()

    def parse(size: int) -> tuple[list[dict], object]:
        ingest = Ingest(workers=1, chunk_bytes=size)
        ctx = FileContext("f.log", kind)
        found = [r for b in ingest.batches_from([(ctx, io.BytesIO(data))]) for r in b.to_pylist()]
        (stats,) = ingest.summary.files
        assert stats.lines == stats.record_lines + stats.blank_lines == MIXED.count("\n")
        return found, stats

    whole = parse(1 << 20)
    assert len(whole[0]) == (8 if kind == "stdout" else 7)  # the blocks were joined
    for size in (1, 50, 97, 128, 200, 333, 512, 1000, 2000):  # 1: a chunk per line
        assert parse(size) == whole, size


def test_small_chunks_give_the_diagnosis_of_whole_files(tmp_path, monkeypatch) -> None:
    """With a reducer (diagnose): the facts of records joined across chunks are counted once."""
    plog = tmp_path / PLOG
    plog.parent.mkdir(parents=True)
    plog.write_text(MIXED.split("[rank0]")[0] * 3)
    out = tmp_path / STDOUT
    out.parent.mkdir(parents=True)
    out.write_text(MIXED * 2)
    limits = Limits(line_bytes=1024)  # files past it are read in chunks, not in groups
    whole = render(diagnosed([str(tmp_path)], limits=limits), "json")
    for size in (64, 300):
        monkeypatch.setattr(stages, "Ingest", functools.partial(Ingest, chunk_bytes=size))
        assert render(diagnosed([str(tmp_path)], limits=limits), "json") == whole, size


def test_every_data_row_of_a_joined_table_is_a_wait_of_the_cross_rank_stage() -> None:
    """The rows of a table are one record; each data row still names the peer waited on,
    in the older shape and in the newer one with port columns."""
    from plogscan.crossrank.anchors import read_anchor
    from plogscan.crossrank.summary import StreamKey

    class Sink:
        def __init__(self) -> None:
            self.items: dict[str, list] = {}

        def add(self, name: str, item: object) -> None:
            self.items.setdefault(name, []).append(item)

    newer = ("   |  10.1.0.11(9)  |  16666  |  10.1.0.3(1)  |  60021  |  server  | time out |"
             "   DISABLE  | LinkInfo")
    (table,) = [r for r in rows("\n".join(hccl(2 + i, row) for i, row in enumerate(
        [*ROWS[:5], newer, *ROWS[5:]])) + "\n") if r["line_count"] > 1]
    sink = Sink()
    read_anchor(sink, StreamKey(PLOG, 0, 4100), table["line"], None, table["message"])
    waits = [(w.peer_rank, w.peer_ip, w.local_rank, w.detail) for w in sink.items["waits"]]
    assert waits == [(5, "10.1.0.7", 1, "client time out"), (9, "10.1.0.11", 1, "server time out"),
                     (7, "10.1.0.9", 1, "server no connect")]


def test_many_runs_in_one_chunk_are_joined_alike(monkeypatch) -> None:
    """Past ``SPLICE_RUNS`` runs a chunk's records are taken anew instead of spliced: the
    same records either way."""
    from plogscan.parse import runs

    text = "\n".join([*TRACEBACK, "step done", "EZ9999: Inner Error!", *BLOCK] * 300) + "\n"
    taken = rows(text, STDOUT)
    monkeypatch.setattr(runs, "SPLICE_RUNS", 10 ** 9)
    assert rows(text, STDOUT) == taken
    assert len(taken) == 900 and spans(taken[:3]) == [(1, 4), (5, 1), (6, 4)]
