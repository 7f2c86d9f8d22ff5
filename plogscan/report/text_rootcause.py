"""The cross-rank section of the terminal report, shown before the findings.

Layout (fits 80 columns)::

    ROOT CAUSE · localized ──────────────────────────────────────────────
      1. worker-0 device-11  rank 0 · pid 1382 · confidence 1.00
         error-vs-timeout  SDMA task exception: a real error, not a timeout...
                           worker-0/process_log/debug/device-11/device-1382_…log:3
      Chain     worker-1 device-3 → worker-0 device-11
      Victims   worker-1 device-3 (rank 1)
      Clock     reference worker-0; worker-1 -15.218 s ±28.3 ms (2 pairs, rendezvous)
      Attempts  ...   Missing  ...   Settings  ...   Collectives  ...

Nothing is shown when no attempt failed. Log text (paths, communicator names) is neutralized.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Table

from plogscan.model import CrossRank, Diagnosis
from plogscan.report.i18n import count, listing, tr, verdict_word
from plogscan.report.text_finding import fit
from plogscan.report.verdict import CrossRankVerdict, SuspectView, chain_text, crossrank_verdict
from plogscan.report.wrap import Text
from plogscan.textsafe import neutralize

MAX_SUSPECTS = 5
COMPACT_SUSPECTS = 3
COMPACT_WIDTH = 80  # the compact view's reasons fit one line of the default width
MAX_REASONS = 4
MAX_VICTIMS = 8
MAX_ATTEMPTS = 16  # attempt lines (the JSON report lists more)
VERDICT_STYLES = {"localized": "bold green", "ambiguous": "bold yellow",
                  "undetermined": "bold magenta"}


def _safe(text: str) -> str:
    return neutralize(text, keep_newlines=False)


def fmt_offset(us: int) -> str:
    """``-15.218 s`` / ``+2.5 ms``."""
    seconds = us / 1e6
    return f"{seconds:+.3f} s" if abs(seconds) >= 1 else f"{us / 1000:+.1f} ms"


def fmt_spread(us: int) -> str:
    seconds = us / 1e6
    return f"±{seconds:.3f} s" if seconds >= 1 else f"±{us / 1000:.1f} ms"


def _suspect(index: int, s: SuspectView, evidence: list[str], compact: bool = False
             ) -> RenderableType:
    """One suspect: who, how sure, and why; ``compact`` gives each reason one line and leaves
    its evidence lines to ``--all`` and the JSON report."""
    head = Table.grid(padding=(0, 0, 0, 0))
    head.add_column(no_wrap=True)
    head.add_column(overflow="fold")
    name = Text(_safe(s.label), style="bold red")
    name.append("  " + " · ".join(s.facts), style="dim")
    head.add_row(Text(f"{index}. ", style="bold"), name)
    reasons = Table.grid(padding=(0, 2, 0, 0))
    reasons.add_column(no_wrap=True, style="bold")
    reasons.add_column(overflow="fold")
    shown = s.reasons[:MAX_REASONS]
    signal_width = max((cell_len(signal) for signal, _ in shown), default=0)
    for (signal, sentence), where in zip(shown, evidence, strict=False):
        text = Text(fit(sentence, COMPACT_WIDTH - 5 - signal_width - 2) if compact
                    else _safe(sentence), overflow="fold")
        if where and not compact:
            text.append(f"\n{where}", style="underline")
        reasons.add_row(_safe(signal), text)
    return Group(head, Padding(reasons, (0, 0, 0, 3)))


def _grid() -> Table:
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold")
    return grid


def _facts(xr: CrossRank, verdict: CrossRankVerdict, lang: str) -> Table:
    rc = xr.root_cause
    grid = _grid()
    if verdict.chain:
        grid.add_row(tr(lang, "Chain"), Text(_safe(chain_text(verdict.chain, lang))))
    if verdict.victims:
        names = [_safe(v) for v in verdict.victims[:MAX_VICTIMS]]
        more = len(verdict.victims) - MAX_VICTIMS
        grid.add_row(tr(lang, "Victims"), Text(listing(lang, names) + (
            tr(lang, " and {n} more", n=more) if more > 0 else "")))
    clock = xr.clock
    if clock.offsets or clock.flags:
        lines = [tr(lang, "reference {host}", host=_safe(clock.reference or "-"))]
        for o in clock.offsets:
            pairs = count(lang, o.pairs, "{n} pair", "{n} pairs") \
                if o.basis != "override" else ""
            weak = tr(lang, "too weak to apply") if not o.applied else ""
            how = [p for p in (pairs, tr(lang, o.basis), weak) if p]
            lines.append(f"{_safe(o.host)} {fmt_offset(o.offset_us)} {fmt_spread(o.uncertainty_us)}"
                         + tr(lang, " ({text})", text=listing(lang, how)))
        for f in clock.flags:
            lines.append(f"! {_safe(f.host)}: {_safe(f.detail)}")
        grid.add_row(tr(lang, "Clock"), Text("\n".join(lines)))
    if len(xr.attempts) > 1:
        grid.add_row(tr(lang, "Attempts"), Text(_attempts(xr, lang)))
    if verdict.collect:
        grid.add_row(tr(lang, "Missing"), Text("\n".join(_safe(a) for a in verdict.collect)))
    settings = [tr(lang, "{key}: {values}", key=_safe(m.key), values=tr(lang, "; ").join(
        tr(lang, "{value} ({ranks})", value=_safe(v.value) or tr(lang, "(empty)"),
           ranks=_ranks(v.ranks, lang)) for v in m.values))
        for m in xr.config.mismatches]
    settings += [tr(lang, "{key} = {value} s is shorter than the {gap} s gap between {what}",
                    key=t.key, value=f"{t.value_s:g}", gap=f"{t.gap_s:g}", what=_safe(t.what))
                 for t in xr.config.too_short]
    if settings:
        grid.add_row(tr(lang, "Settings"), Text("\n".join(settings)))
    first = xr.collectives.first_mismatch
    if first is not None:
        grid.add_row(tr(lang, "Collectives"), Text(tr(
            lang, "first divergence at collective {seq} of {comm}: {kind} (odd ranks {ranks})",
            seq=first.seq, comm=_safe(first.communicator), kind=tr(lang, first.kind),
            ranks=_ranks(first.odd_ranks, lang))))
    for note in rc.notes:
        grid.add_row(tr(lang, "Note"), Text(_safe(note)))
    return grid


def _attempts(xr: CrossRank, lang: str) -> str:
    """A line per attempt; past ``MAX_ATTEMPTS`` the failed ones first, then a count."""
    shown = list(xr.attempts)
    if len(shown) > MAX_ATTEMPTS:
        failed = [a for a in shown if a.failed][:MAX_ATTEMPTS]
        rest = [a for a in shown if not a.failed][:MAX_ATTEMPTS - len(failed)]
        shown = sorted(failed + rest, key=lambda a: a.id)
    lines = []
    for a in shown:
        who = ", ".join(_safe(s.label) for s in a.root_cause.suspects[:3]) or "-"
        state = verdict_word(lang, a.root_cause.verdict) if a.failed else tr(lang, "no failure")
        lines.append(tr(lang, "#{id} · {pids} · {state} · {who}", id=a.id,
                        pids=count(lang, len(a.pids), "{n} pid", "{n} pids"),
                        state=state, who=who))
    more = len(xr.attempts) - len(shown) + xr.attempts_omitted
    if more:
        failed_more = (sum(a.failed for a in xr.attempts) - sum(a.failed for a in shown)
                       + xr.failed_attempts_omitted)
        lines.append(tr(lang, "… {n} more attempts, {failed} of them failed (--format json "
                        "lists more)", n=more, failed=failed_more))
    return "\n".join(lines)


def _ranks(ranks: tuple[int, ...], lang: str) -> str:
    if not ranks:
        return "-"
    return tr(lang, "ranks {ranks}" if len(ranks) > 1 else "rank {ranks}",
              ranks=",".join(str(r) for r in ranks))


def root_cause_section(diagnosis: Diagnosis, compact: bool = False
                       ) -> Iterator[RenderableType]:
    """The cross-rank section; ``compact`` (the default view) shows the first suspects with a
    line per reason."""
    xr = diagnosis.crossrank
    verdict = crossrank_verdict(diagnosis)
    if xr is None or verdict is None:
        return
    lang = diagnosis.lang
    rc = xr.root_cause
    yield Text("")
    yield Rule(Text(tr(lang, "ROOT CAUSE · {verdict}", verdict=verdict_word(lang, rc.verdict)),
                    style=VERDICT_STYLES.get(rc.verdict, "bold")), align="left", characters="─")
    if rc.verdict == "undetermined":
        yield Padding(Text(tr(lang, "The logs cannot single out a device: every rank only "
                              "waited, and nothing marks one of them as first or odd."),
                           overflow="fold"), (0, 0, 0, 2))
    limit = COMPACT_SUSPECTS if compact else MAX_SUSPECTS
    items: list[RenderableType] = [
        _suspect(i, view, [f"{_safe(r.evidence[0].path)}:{r.evidence[0].line}"
                           if r.evidence else "" for r in s.reasons[:MAX_REASONS]], compact)
        for i, (view, s) in enumerate(zip(verdict.suspects[:limit], rc.suspects, strict=False),
                                      1)]
    if len(rc.suspects) > limit:
        items.append(Text(tr(lang, "… {n} more suspects (--format json lists all)",
                             n=len(rc.suspects) - limit), style="dim"))
    items.append(_facts(xr, verdict, lang))
    yield Padding(Group(*items), (0, 0, 0, 2))
