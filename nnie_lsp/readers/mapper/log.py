"""Reader for the mapper's logs: ``mapper_error.log``, ``mapper_debug.log`` and saved console logs
(also RuyiStudio-wrapped ones) → an immutable :class:`MapperLog` with exact ranges.

Shapes (``docs/field-facts.md §8, §16.3``; all seen in real logs)::

    Start [RuyiStudio Wk NNIE Mapper] [E:\\ws\\face\\face.cfg] face (2019-07-23 10:48:17)   ← RuyiStudio only
    Mapper Version 1.1.2.0_B050 (NNIE_1.1) 1812171743151709
    begin net parsing....
    .end net parsing
    begin net quantalizing(GPU)....
    ....................**********************************************************
    WARNING: file: Inference::computeNonlinearQuantizationDelta  line: 92
    data containing only zeros; set max value to 1e-6.
    .......................................
    end quantalizing
    ...
    ===============E:\\ws\\face\\face.cfg Successfully!===============                     ← RuyiStudio only

- **Blocks.**  After a line of ``*`` (progress dots may precede the stars on the same line) comes
  ``ERROR: file: <function>  line: <n>`` or ``WARNING: …``, then the message: every following line
  up to a blank line, a line of stars or dots, another header, a phase line, a version line or a
  RuyiStudio line.  A block whose message is ``ERROR: RUN FAILURE in line <n>. Return = <code>`` is
  the unwinding call stack of the block before it: it is folded into that block (the cause) and
  kept in :attr:`LogBlock.unwinding`.  A log cut short (a console log saved mid-run, a copy cut
  off) may end inside that stack: an ERROR header without a message, or a message that is the
  start of a ``RUN FAILURE`` line, right after an error of the same run is a stack frame too
  (:attr:`LogBlock.frame`), never a cause of its own.
- **Runs.**  ``mapper_error.log`` accumulates runs (§16.3).  A new run starts at
  (1) a RuyiStudio ``Start [...]`` line; (2) a ``Mapper Version`` line, unless the current run
  holds nothing yet but its ``Start`` line; (3) in logs without those lines (the error log holds
  only blocks): a block after an unwinding block — the mapper stops once its stack has unwound, so
  what follows is the next run; (4) an ERROR block repeating an ERROR block already in the run
  (same function, line and message): each run writes the same errors again; (5) anything after
  a line that ends the process: ``Compiler process complete!`` (the debug log's last line,
  §16.3) or a shell's crash line (``Segmentation fault (core dumped)`` in a console log).
  The **last** run is the one findings are about (:attr:`MapperLog.blocks`); the others stay in
  :attr:`MapperLog.runs` (the lint reports their causes as from an older run).  A debug log may
  open with ``compiler version:<v>`` instead of the ``Mapper Version`` line (§16.3): it starts a
  run the same way.
- **Phases.**  ``begin <phase>....`` opens a phase; the next ``end …`` line closes the latest open
  one (the names differ: ``begin NNIE[0] mem allocation`` / ``end NNIE[0] memory allocating``);
  star-fenced ``*** begin <phase> ***`` / ``*** <phase> end ***`` lines too.
- **Outcome** of a run (:attr:`MapperRun.status`): ``failed`` with an ERROR block or a crash line
  (:attr:`MapperRun.crash`); ``succeeded`` with ``Compiler process complete!``, RuyiStudio's
  ``Successfully!`` line, or when every phase ended and the last one is the mapper's last phase
  (``quant files writing``); ``unfinished`` when a phase never ended; ``unknown`` otherwise (an
  error log with warnings only says nothing about the outcome).

Never raises: :func:`parse_mapper_log` accepts any ``str``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Literal

from nnie_lsp.core import safe_io
from nnie_lsp.core.text import LineIndex, Position, Range, detect_newline, read_text
from nnie_lsp.readers.mapper import log_lines as shapes
from nnie_lsp.readers.mapper.log_lines import looks_like_mapper_log
from nnie_lsp.readers.mapper.log_parts import LogBlock, MapperVersion, Phase, RunFailure, RuyiStart
from nnie_lsp.readers.mapper.messages import CRASH_FORM, LOG_TARGET, message_form, message_target

__all__ = [
    "MapperVersion", "RuyiStart", "RunFailure", "LogBlock", "Phase", "MapperRun", "MapperLog",
    "RunStatus", "LogKind", "parse_mapper_log", "read_mapper_log", "looks_like_mapper_log", "LAST_PHASE",
]

RunStatus = Literal["succeeded", "failed", "unfinished", "unknown"]
LogKind = Literal["error", "debug", "console", "log"]
LAST_PHASE = "quant files writing"  # the last phase of a mapper run (§8)


@dataclass(frozen=True)
class MapperRun:
    index: int
    range: Range  # first to last line of the run
    version: MapperVersion | None = None
    ruyi: RuyiStart | None = None
    ruyi_status: str | None = None  # text of RuyiStudio's closing ``=====… =====`` line
    ruyi_status_range: Range | None = None
    blocks: tuple[LogBlock, ...] = ()  # causes and other blocks; unwinding folded
    phases: tuple[Phase, ...] = ()
    complete_range: Range | None = None  # ``Compiler process complete!``
    crash: LogBlock | None = None  # the shell's crash line (``Segmentation fault``), as an ERROR block

    @property
    def errors(self) -> tuple[LogBlock, ...]:
        return tuple(b for b in self.blocks if b.is_error)

    @property
    def warnings(self) -> tuple[LogBlock, ...]:
        return tuple(b for b in self.blocks if not b.is_error)

    @property
    def cause(self) -> LogBlock | None:
        """The block that failed the run: the first one with an unwinding chain, else the first
        ERROR block, else the crash line."""
        for block in self.blocks:
            if block.unwinding:
                return block
        errors = self.errors
        return errors[0] if errors else self.crash

    @property
    def status(self) -> RunStatus:
        if self.errors or self.crash is not None or any(b.is_unwinding for b in self.blocks):
            return "failed"
        if self.complete_range is not None:
            return "succeeded"
        if self.ruyi_status is not None and self.ruyi_status.rstrip().lower().endswith("successfully!"):
            return "succeeded"
        if any(not p.ended for p in self.phases):
            return "unfinished"
        if self.phases and self.phases[-1].name.strip().lower() == LAST_PHASE:
            return "succeeded"
        return "unknown"

    @property
    def finished_successfully(self) -> bool:
        return self.status == "succeeded"


@dataclass(frozen=True)
class MapperLog:
    path: str | None
    text: str
    runs: tuple[MapperRun, ...]
    kind: LogKind
    line_index: LineIndex = field(compare=False, repr=False)
    encoding: str = "utf-8"
    bom: bool = False
    newline: str = "\n"

    @property
    def last_run(self) -> MapperRun | None:
        return self.runs[-1] if self.runs else None

    @property
    def blocks(self) -> tuple[LogBlock, ...]:
        """The blocks that count: the last run's."""
        return self.runs[-1].blocks if self.runs else ()

    @property
    def all_blocks(self) -> tuple[LogBlock, ...]:
        return tuple(b for run in self.runs for b in run.blocks)

    @property
    def version(self) -> MapperVersion | None:
        """The last run's version line, else the latest version line before it."""
        for run in reversed(self.runs):
            if run.version is not None:
                return run.version
        return None

    @property
    def status(self) -> RunStatus:
        return self.runs[-1].status if self.runs else "unknown"

    def block_at(self, pos: Position) -> LogBlock | None:
        for block in self.all_blocks:
            if block.range.contains(pos):
                return block
            for folded in block.unwinding:
                if folded.range.contains(pos):
                    return block
        return None


class _RunBuilder:
    def __init__(self, index: int, first_line: int) -> None:
        self.index = index
        self.first_line = first_line
        self.last_line = first_line
        self.version: MapperVersion | None = None
        self.ruyi: RuyiStart | None = None
        self.ruyi_status: str | None = None
        self.ruyi_status_range: Range | None = None
        self.blocks: list[LogBlock] = []  # raw, unwinding not folded yet
        self.phases: list[Phase] = []
        self.error_keys: set[tuple[str, int | None, str]] = set()  # (function, line, message) of causes
        self.complete_range: Range | None = None
        self.crash: LogBlock | None = None

    @property
    def has_content(self) -> bool:
        return bool(self.version or self.blocks or self.phases or self.ruyi_status is not None
                    or self.complete_range or self.crash)

    @property
    def closed(self) -> bool:
        """The process ended (completed or crashed): whatever follows is another run."""
        return self.complete_range is not None or self.crash is not None

    @staticmethod
    def error_key(block: LogBlock) -> tuple[str, int | None, str] | None:
        if not block.is_error or block.is_unwinding:
            return None
        return block.function, block.source_line, block.message

    def repeats_error(self, block: LogBlock) -> bool:
        return self.error_key(block) in self.error_keys

    def build(self, index: LineIndex) -> MapperRun:
        folded: list[LogBlock] = []
        for block in self.blocks:
            block = replace(block, run=self.index)
            if block.is_unwinding and folded and not folded[-1].is_unwinding:
                cause = folded[-1]
                folded[-1] = replace(cause, unwinding=cause.unwinding + (block,))
            elif block.is_unwinding and folded and folded[-1].is_unwinding and block.frame:
                # a cut frame after a bare RUN FAILURE block: still that stack
                continue
            else:
                folded.append(block)
        end_line = max(self.last_line, self.first_line)
        end = Position(end_line, index.line_end(end_line) - index.line_start(end_line))
        return MapperRun(
            index=self.index,
            range=Range(Position(self.first_line, 0), end),
            version=self.version,
            ruyi=self.ruyi,
            ruyi_status=self.ruyi_status,
            ruyi_status_range=self.ruyi_status_range,
            blocks=tuple(folded),
            phases=tuple(self.phases),
            complete_range=self.complete_range,
            crash=replace(self.crash, run=self.index) if self.crash is not None else None,
        )


class _LogReader:
    def __init__(self, text: str) -> None:
        self.index = LineIndex(text)
        self.lines = [self.index.line_text(i) for i in range(self.index.line_count)]
        # the last line has no line break: the text may have been cut inside it
        self.ends_mid_line = bool(text) and not text.endswith(("\n", "\r"))
        self.runs: list[MapperRun] = []
        self.current: _RunBuilder | None = None

    def run_for(self, line: int) -> _RunBuilder:
        if self.current is None or self.current.closed:
            return self.new_run(line)
        return self.current

    def new_run(self, line: int) -> _RunBuilder:
        if self.current is not None:
            self.runs.append(self.current.build(self.index))
        self.current = _RunBuilder(len(self.runs), line)
        return self.current

    def read_block(self, line: int, header: tuple[str, str, int | None] | None) -> tuple[LogBlock, int]:
        """The block whose header (or bare RUN FAILURE line) is ``line``; returns the next line."""
        text = self.lines[line]
        header_range = shapes.content_range(line, text)
        if header is None:  # a bare "ERROR: RUN FAILURE …" line without a header
            kind, function, source_line = "ERROR", "", None
            message_lines = [(line, header_range.start.character, text.strip())]
            nxt = line + 1
        else:
            kind, function, source_line = header
            message_lines = []
            nxt = line + 1
            while nxt < len(self.lines) and not shapes.ends_message(self.lines[nxt]):
                body = self.lines[nxt]
                message_lines.append((nxt, len(body) - len(body.lstrip()), body.strip()))
                nxt += 1
        message = "\n".join(m[2] for m in message_lines)
        message_range = None
        if message_lines:
            last_line, last_col, last_text = message_lines[-1]
            message_range = Range(Position(message_lines[0][0], message_lines[0][1]),
                                  Position(last_line, last_col + len(last_text)))
        failure = None
        for number, column, body in message_lines[:1]:
            found = shapes.failure(body)
            if found is not None:
                failure = RunFailure(found[0], found[1], Range.of(number, column, number, column + len(body)))
        block = LogBlock(
            kind=kind,  # type: ignore[arg-type]
            function=function,
            source_line=source_line,
            message=message,
            range=Range(header_range.start, message_range.end if message_range else header_range.end),
            header_range=header_range,
            message_range=message_range,
            target=LOG_TARGET if failure else message_target(message_lines),
            form=message_form(message),
            failure=failure,
        )
        return block, nxt

    def _cut_frame(self, block: LogBlock, next_line: int) -> bool:
        """An ERROR block that is a stack frame cut short: after an error of the same run, with no
        message, or with only the start of a ``RUN FAILURE`` line where the text ends."""
        run = self.current
        if block.kind != "ERROR" or block.is_unwinding or run is None or run.closed or not run.blocks:
            return False
        if not run.blocks[-1].is_error:
            return False
        if not block.message.strip():
            return True
        at_end = next_line >= len(self.lines) and self.ends_mid_line
        return at_end and "\n" not in block.message and shapes.failure_prefix(block.message)

    def add_block(self, block: LogBlock, line: int, last_line: int) -> None:
        run = self.current
        # an ERROR header without its message that repeats the header of an error already in the
        # run is the next run's cause, cut short (rule 4), not a frame of this stack
        repeats_header = (run is not None and not run.closed and block.is_error and not block.message.strip()
                          and any(key[:2] == (block.function, block.source_line) for key in run.error_keys))
        if not repeats_header and self._cut_frame(block, last_line + 1):
            block = replace(block, frame=True, target=LOG_TARGET, form=None)
        run = self.run_for(line)
        if run.blocks and not block.is_unwinding and (run.blocks[-1].is_unwinding or run.repeats_error(block)
                                                      or repeats_header):
            run = self.new_run(line)
        run.blocks.append(block)
        key = run.error_key(block)
        if key is not None:
            run.error_keys.add(key)
        run.last_line = last_line

    def add_phase(self, line: int, which: str, name: str, text: str) -> None:
        rng = shapes.content_range(line, text)
        if which == "end" and (self.current is None or self.current.closed):
            return  # an end without its begin (the log was cut before it): nothing to close
        run = self.run_for(line)
        if which == "begin":
            run.phases.append(Phase(name=name, begin_range=rng))
        else:
            for k in range(len(run.phases) - 1, -1, -1):
                if not run.phases[k].ended:
                    run.phases[k] = replace(run.phases[k], end_name=name, end_range=rng)
                    break
        run.last_line = line

    def add_ruyi_start(self, line: int, text: str, start: tuple[str, str, str, str]) -> None:
        current = self.current
        run = self.new_run(line) if current is not None and (current.has_content or current.ruyi) else self.run_for(line)
        run.ruyi = RuyiStart(*start, range=shapes.content_range(line, text))
        run.last_line = line

    def add_version(self, line: int, text: str, version: MapperVersion) -> None:
        run = self.current
        if run is None or run.has_content:
            run = self.new_run(line)
        run.version = version
        run.last_line = line

    def add_crash(self, line: int, text: str) -> None:
        """The shell's crash line ends the run that was going on."""
        run = self.run_for(line)
        rng = shapes.content_range(line, text)
        run.crash = LogBlock(kind="ERROR", function="", source_line=None, message=text.strip(), range=rng,
                             header_range=rng, message_range=rng, target=LOG_TARGET, form=CRASH_FORM)
        run.last_line = line

    def read(self) -> None:
        line = 0
        while line < len(self.lines):
            text = self.lines[line]
            header = shapes.header(text)
            if header is not None or shapes.failure(text) is not None:
                block, nxt = self.read_block(line, header)
                self.add_block(block, line, max(line, nxt - 1))
                line = nxt
                continue
            self.read_line(line, text)
            line += 1
        if self.current is not None:
            self.runs.append(self.current.build(self.index))

    def read_line(self, line: int, text: str) -> None:
        """A line outside any block."""
        start = shapes.ruyi_start(text)
        if start is not None:
            self.add_ruyi_start(line, text, start)
            return
        version = shapes.version(text)
        if version is not None:
            self.add_version(line, text, MapperVersion(
                version.group("version"), version.group("generation"), version.group("build"),
                version.group("extra").strip(), shapes.content_range(line, text)))
            return
        compiler = shapes.compiler_version(text)
        if compiler is not None:
            self.add_version(line, text, MapperVersion(compiler, "", "", "", shapes.content_range(line, text)))
            return
        status = shapes.ruyi_status(text)
        if status is not None and self.current is not None:
            self.current.ruyi_status = status
            self.current.ruyi_status_range = shapes.content_range(line, text)
            self.current.last_line = line
            return
        phase = shapes.phase(text)
        if phase is not None:
            self.add_phase(line, phase[0], phase[1], text)
        elif shapes.complete(text):
            run = self.run_for(line)
            run.complete_range = shapes.content_range(line, text)
            run.last_line = line
        elif shapes.crash(text) is not None:
            self.add_crash(line, text)
        elif text.strip() and self.current is not None and not self.current.closed:
            self.current.last_line = line


def _kind(path: str | None, runs: list[MapperRun]) -> LogKind:
    name = PurePath(path).name.lower() if path else ""
    if "mapper_error" in name:
        return "error"
    if "mapper_debug" in name:
        return "debug"
    if any(run.ruyi is not None for run in runs):
        return "console"
    return "log"


def parse_mapper_log(text: str, path: str | None = None) -> MapperLog:
    """Read a mapper log's text; never raises."""
    reader = _LogReader(text)
    reader.read()
    return MapperLog(path=path, text=text, runs=tuple(reader.runs), kind=_kind(path, reader.runs),
                     line_index=reader.index, newline=detect_newline(text))


def read_mapper_log(path) -> MapperLog:
    """Read a log file: UTF-8 (BOM stripped), GB18030/GBK (Chinese Windows consoles) or latin-1.
    Regular files up to the bound for logs only (:mod:`nnie_lsp.core.safe_io`); otherwise
    :class:`~nnie_lsp.core.safe_io.FileReadError` says why."""
    decoded = read_text(str(path), safe_io.LOG)
    log = parse_mapper_log(decoded.text, str(path))
    return replace(log, encoding=decoded.encoding, bom=decoded.bom, newline=decoded.newline)
