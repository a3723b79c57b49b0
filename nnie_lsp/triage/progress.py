"""How far a long triage command is: one protocol, three reporters.

A :class:`Reporter` is told ``step(stage, done, total)`` -- ``done`` of ``total`` units of the stage
``stage`` are finished (``item`` optionally names the unit, e.g. the layer, for the terminal bar).
:meth:`Reporter.part` gives the reporter for a share of the work (``part(20, 90)``: 20–90 % of this
reporter's span), so every reporter knows the overall percentage of each step without knowing the
whole plan.  The three reporters:

- :data:`NO_PROGRESS` -- says nothing (a library caller that passes no reporter);
- :class:`TerminalBar` -- rich's bar on stderr, only when stderr is a terminal (``--progress auto``);
- :class:`JsonLines` -- one JSON object per line on stderr (``--progress json``), the contract the
  editor's server reads (``nnie_lsp/docs/triage-schema.md``, "Progress")::

    {"stage": "measure", "done": 12, "total": 40, "percent": 41.3}

  ``percent`` is overall (0–100) and never decreases.

Light on purpose: json and sys only (rich is imported when a bar is shown); no numpy.
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

MODES = ("auto", "json", "none")
#: The stage whose step ends the terminal bar: the report is printed on the same terminal next.
REPORT = "report"


class Reporter:
    """The progress protocol (this base class says nothing: :data:`NO_PROGRESS`)."""

    #: True when nothing is shown, so callers can skip building per-item callbacks.
    silent = True

    def step(self, stage: str, done: int, total: int, item: str = "") -> None:
        """``done`` of ``total`` units of ``stage`` are finished (``total`` 0: the stage is done)."""
        fraction = min(max(done / total, 0.0), 1.0) if total > 0 else 1.0
        self._emit(stage, done, total, 100.0 * fraction, item)

    def part(self, start: float, end: float) -> Reporter:
        """The reporter for the share ``start``–``end`` (percent) of this one's work."""
        return self if self.silent else _Part(self, start, end)

    def renamed(self, stage: str | None) -> Reporter:
        """This reporter with every step shown as the stage ``stage`` (``None``: as it is), e.g.
        ``image 2/8`` for the steps of one image of several."""
        return self if self.silent or stage is None else _Renamed(self, stage)

    def close(self) -> None:
        """End the display (the terminal bar goes away); further steps are not shown."""

    def _emit(self, stage: str, done: int, total: int, percent: float, item: str) -> None:
        """One step, ``percent`` being this reporter's own 0–100 (the overall one at the root)."""

    def __enter__(self) -> Reporter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


NO_PROGRESS = Reporter()


class _Part(Reporter):
    silent = False

    def __init__(self, parent: Reporter, start: float, end: float) -> None:
        self._parent, self._start, self._end = parent, start, end

    def _emit(self, stage: str, done: int, total: int, percent: float, item: str) -> None:
        self._parent._emit(stage, done, total, self._start + (self._end - self._start) * percent / 100.0, item)


class _Renamed(Reporter):
    silent = False

    def __init__(self, parent: Reporter, stage: str) -> None:
        self._parent, self._stage = parent, stage

    def _emit(self, stage: str, done: int, total: int, percent: float, item: str) -> None:
        self._parent._emit(self._stage, done, total, percent, item)


class JsonLines(Reporter):
    """``{"stage": …, "done": …, "total": …, "percent": …}`` per line, flushed; ``percent`` rounded
    to 0.1 and never below the previous line's.  A line equal to the previous one is not repeated."""

    silent = False

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._percent = 0.0
        self._last = ""
        self._closed = False

    def _emit(self, stage: str, done: int, total: int, percent: float, item: str) -> None:
        if self._closed:
            return
        self._percent = max(self._percent, min(100.0, round(percent, 1)))
        line = json.dumps({"stage": str(stage), "done": int(done), "total": int(total), "percent": self._percent})
        if line != self._last:
            self._last = line
            self._stream.write(line + "\n")
            self._stream.flush()

    def close(self) -> None:
        self._closed = True


#: Terminal bar wording of the stages whose bar has a long-standing label.
_LABELS = {"measure": "comparing layers", "rank": "each layer 16-bit alone"}


def _label(stage: str) -> str:
    if stage.startswith("hp layer "):
        return f"`_hp` layer {stage[len('hp layer '):]}"
    return _LABELS.get(stage, stage)


class TerminalBar(Reporter):
    """rich's transient bar on stderr: the stage, done/total, time left and the item.  Started at
    the first step, restarted when the stage changes, ended by :meth:`close` or the ``report`` stage."""

    silent = False

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._progress = None
        self._task = None
        self._stage: str | None = None
        self._closed = False

    def _emit(self, stage: str, done: int, total: int, percent: float, item: str) -> None:
        if self._closed:
            return
        if stage == REPORT:
            self.close()
            return
        if self._progress is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            console = Console(file=self._stream) if self._stream is not None else Console(stderr=True)
            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                TextColumn("{task.fields[item]}"), console=console, transient=True,
            )
            self._progress.start()
        if stage != self._stage or self._task is None:
            if self._task is not None:
                self._progress.remove_task(self._task)
            self._task = self._progress.add_task(_label(stage), total=max(total, 1), item="")
            self._stage = stage
        self._progress.update(self._task, completed=done, total=max(total, 1), item=item[:40])

    def close(self) -> None:
        self._closed = True
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def open_progress(mode: str = "auto", stream: TextIO | None = None) -> Reporter:
    """The reporter of ``--progress MODE``: ``auto`` the terminal bar when ``stream`` (default
    stderr) is a terminal, else nothing; ``json`` JSON lines on ``stream``; ``none`` nothing."""
    if mode not in MODES:
        raise ValueError(f"--progress {mode!r}: one of {', '.join(MODES)}")
    out = stream if stream is not None else sys.stderr
    if mode == "json":
        return JsonLines(out)
    if mode == "auto" and out.isatty():
        return TerminalBar(stream)
    return NO_PROGRESS
