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
  kept in :attr:`LogBlock.unwinding`.
- **Runs.**  ``mapper_error.log`` accumulates runs (§16.3).  A new run starts at
  (1) a RuyiStudio ``Start [...]`` line; (2) a ``Mapper Version`` line, unless the current run
  holds nothing yet but its ``Start`` line; (3) in logs without those lines (the error log holds
  only blocks): a block after an unwinding block — the mapper stops once its stack has unwound, so
  what follows is the next run; (4) an ERROR block repeating an ERROR block already in the run
  (same function, line and message): each run writes the same errors again.  Only the **last**
  run counts for findings (:attr:`MapperLog.blocks`); the others stay in :attr:`MapperLog.runs`.
- **Phases.**  ``begin <phase>....`` opens a phase; the next ``end …`` line closes the latest open
  one (the names differ: ``begin NNIE[0] mem allocation`` / ``end NNIE[0] memory allocating``).
- **Outcome** of a run (:attr:`MapperRun.status`): ``failed`` with an ERROR block; ``succeeded``
  with RuyiStudio's ``Successfully!`` line, or when every phase ended and the last one is the
  mapper's last phase (``quant files writing``); ``unfinished`` when a phase never ended;
  ``unknown`` otherwise (an error log with warnings only says nothing about the outcome).

Never raises: :func:`parse_mapper_log` accepts any ``str``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Literal

from .. import safe_io
from ..text import LineIndex, Position, Range, detect_newline, read_text
from .messages import LOG_TARGET, LogTarget, MessageForm, message_form, message_target

__all__ = [
    "MapperVersion", "RuyiStart", "RunFailure", "LogBlock", "Phase", "MapperRun", "MapperLog",
    "RunStatus", "LogKind", "parse_mapper_log", "read_mapper_log", "looks_like_mapper_log", "LAST_PHASE",
]

RunStatus = Literal["succeeded", "failed", "unfinished", "unknown"]
LogKind = Literal["error", "debug", "console", "log"]
LAST_PHASE = "quant files writing"  # the last phase of a mapper run (§8)


def _safe_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:  # not a number, or more digits than Python converts
        return None


@dataclass(frozen=True, slots=True)
class MapperVersion:
    """``Mapper Version 1.1.2.0_B050 (NNIE_1.1) 1812171743151709`` (ATC: ``(PICO_1.0)``)."""

    version: str  # "1.1.2.0_B050"
    generation: str  # "NNIE_1.1", "PICO_1.0"
    build: str  # "1812171743151709"
    extra: str  # what follows the build id: "(CPU) (INST_2.0.9)" on ATC
    range: Range  # the version line's content

    @property
    def family(self) -> str:
        """``"NNIE"`` or ``"PICO"`` (ATC)."""
        return self.generation.split("_", 1)[0]

    @property
    def nnie_generation(self) -> str | None:
        """``"1.1"`` / ``"1.2"`` for nnie_mapper; ``None`` for other families."""
        family, _, number = self.generation.partition("_")
        return number if family.upper() == "NNIE" and number else None

    @property
    def label(self) -> str:
        """For messages: ``"mapper 1.1.2.0_B050 (NNIE_1.1)"``."""
        return f"mapper {self.version} ({self.generation})"


@dataclass(frozen=True, slots=True)
class RuyiStart:
    """RuyiStudio's ``Start [RuyiStudio Wk NNIE Mapper] [<cfg>] <project> (<time>)`` line."""

    tool: str
    cfg_path: str
    project: str
    time: str
    range: Range


@dataclass(frozen=True, slots=True)
class RunFailure:
    """``ERROR: RUN FAILURE in line <n>. Return = <code>``."""

    line: int | None
    code: str  # as written ("-1", "0x..."); "" when absent
    range: Range

    @property
    def code_number(self) -> int | None:
        text = self.code.strip()
        try:
            return int(text, 0)
        except ValueError:
            return None


@dataclass(frozen=True)
class LogBlock:
    """One ERROR / WARNING block.  ``range`` runs from the header to the last message line."""

    kind: Literal["ERROR", "WARNING"]
    function: str  # "Inference::convBnParamProcess"; "" without a header
    source_line: int | None  # the ``line: <n>`` of the header (the mapper's source line)
    message: str  # message lines, stripped, joined with "\n"
    range: Range
    header_range: Range
    message_range: Range | None  # None when the block has no message line
    target: LogTarget = LOG_TARGET
    form: MessageForm | None = None  # the recognised message form (None: unrecognised)
    failure: RunFailure | None = None  # set on unwinding blocks
    unwinding: tuple["LogBlock", ...] = ()  # unwinding blocks folded into this cause, in order
    run: int = 0  # index of the run it belongs to

    @property
    def is_unwinding(self) -> bool:
        return self.failure is not None

    @property
    def is_error(self) -> bool:
        return self.kind == "ERROR"

    @property
    def form_id(self) -> str | None:
        return self.form.id if self.form else None


@dataclass(frozen=True, slots=True)
class Phase:
    name: str  # from the begin line: "net quantalizing(GPU)"
    begin_range: Range
    end_name: str | None = None  # from the end line: "quantalizing"
    end_range: Range | None = None

    @property
    def ended(self) -> bool:
        return self.end_range is not None


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

    @property
    def errors(self) -> tuple[LogBlock, ...]:
        return tuple(b for b in self.blocks if b.is_error)

    @property
    def warnings(self) -> tuple[LogBlock, ...]:
        return tuple(b for b in self.blocks if not b.is_error)

    @property
    def cause(self) -> LogBlock | None:
        """The block that failed the run: the first one with an unwinding chain, else the first
        ERROR block."""
        for block in self.blocks:
            if block.unwinding:
                return block
        errors = self.errors
        return errors[0] if errors else None

    @property
    def status(self) -> RunStatus:
        if self.errors or any(b.is_unwinding for b in self.blocks):
            return "failed"
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


# ---------------------------------------------------------------- line shapes

# Patterns are linear on any line (no lazy group before a trailing ``\s*$``): ends are trimmed in
# Python, so a pathological line in a log cannot stall the language server.
_VERSION_RE = re.compile(
    r"Mapper Version\s+(?P<version>\S+)\s+\((?P<generation>[A-Za-z]+_[\w.]+)\)[ \t]*(?P<build>[0-9A-Za-z]*)(?P<extra>.*)"
)
_RUYI_START_RE = re.compile(r"^\s*Start\s*\[(?P<tool>[^\]]*)\]\s*\[(?P<cfg>[^\]]*)\](?P<rest>.*)$")
_STARS_RE = re.compile(r"^[.\s]*\*{5,}\s*$")
_HEADER_RE = re.compile(r"^[.\s]*(?P<kind>ERROR|WARNING)\s*:\s*file\s*:(?P<rest>.*)$", re.IGNORECASE)
_HEADER_LINE_RE = re.compile(r"\bline\s*:\s*(?P<line>-?[0-9]+)$", re.IGNORECASE)
_FAILURE_RE = re.compile(
    r"^[.\s]*(?:(?:ERROR|WARNING)\s*:\s*)?RUN FAILURE in line\s*(?P<line>-?[0-9]+)(?P<rest>.*)$", re.IGNORECASE
)
_RETURN_RE = re.compile(r"Return\s*=\s*(?P<code>[-+]?\w+)", re.IGNORECASE)
_PHASE_RE = re.compile(r"^[.\s]*(?P<which>begin|end)[ \t]+(?P<rest>.*)$")


def _version(text: str) -> re.Match | None:
    return _VERSION_RE.search(text) if "Mapper Version" in text else None


def _ruyi_start(text: str) -> tuple[str, str, str, str] | None:
    """(tool, cfg path, project, time) of ``Start [<tool>] [<cfg>] <project> (<time>)``."""
    match = _RUYI_START_RE.match(text)
    if match is None:
        return None
    rest = match.group("rest").strip()
    project, time = rest, ""
    if rest.endswith(")") and "(" in rest:
        cut = rest.rfind("(")
        project, time = rest[:cut].strip(), rest[cut + 1:-1].strip()
    return match.group("tool").strip(), match.group("cfg").strip(), project, time


def _ruyi_status(text: str) -> str | None:
    """The text between RuyiStudio's ``=====`` fences (``<cfg> Successfully!``)."""
    stripped = text.strip()
    if len(stripped) >= 6 and stripped.startswith("===") and stripped.endswith("==="):
        return stripped.strip("=").strip()
    return None


def _header(text: str) -> tuple[str, str, int | None] | None:
    """(kind, function, source line) of ``ERROR: file: <function>  line: <n>``."""
    match = _HEADER_RE.match(text)
    if match is None:
        return None
    rest = match.group("rest").strip()
    line_match = _HEADER_LINE_RE.search(rest)
    source_line = None
    if line_match:
        source_line = _safe_int(line_match.group("line"))
        rest = rest[:line_match.start()]
    kind = "ERROR" if match.group("kind").upper() == "ERROR" else "WARNING"
    return kind, rest.strip(), source_line


def _failure(text: str) -> tuple[int | None, str] | None:
    """(line, return code) of ``ERROR: RUN FAILURE in line <n>. Return = <code>``."""
    match = _FAILURE_RE.match(text)
    if match is None:
        return None
    code = _RETURN_RE.search(match.group("rest"))
    return _safe_int(match.group("line")), code.group("code") if code else ""


def _phase(text: str) -> tuple[str, str] | None:
    """("begin" | "end", phase name without the progress dots)."""
    match = _PHASE_RE.match(text)
    if match is None:
        return None
    name = match.group("rest").strip().rstrip(". \t").strip()
    return (match.group("which"), name) if name else None


def _is_dots(text: str) -> bool:
    return "." in text and not text.replace(".", "").strip()


def _content_range(line: int, text: str) -> Range:
    """The line without its surrounding blanks (or an empty range at its start)."""
    stripped = text.strip()
    if not stripped:
        return Range.point(line, 0)
    start = len(text) - len(text.lstrip())
    return Range.of(line, start, line, start + len(stripped))


def _ends_message(text: str) -> bool:
    return (
        not text.strip()
        or _is_dots(text)
        or bool(_STARS_RE.match(text) or _HEADER_RE.match(text))
        or _phase(text) is not None
        or "Mapper Version" in text
        or _ruyi_start(text) is not None
        or _ruyi_status(text) is not None
    )


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

    @property
    def has_content(self) -> bool:
        return bool(self.version or self.blocks or self.phases or self.ruyi_status is not None)

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
        )


class _LogReader:
    def __init__(self, text: str) -> None:
        self.index = LineIndex(text)
        self.lines = [self.index.line_text(i) for i in range(self.index.line_count)]
        self.runs: list[MapperRun] = []
        self.current: _RunBuilder | None = None

    def run_for(self, line: int) -> _RunBuilder:
        if self.current is None:
            self.current = _RunBuilder(len(self.runs), line)
        return self.current

    def new_run(self, line: int) -> _RunBuilder:
        if self.current is not None:
            self.runs.append(self.current.build(self.index))
        self.current = _RunBuilder(len(self.runs), line)
        return self.current

    def read_block(self, line: int, header: tuple[str, str, int | None] | None) -> tuple[LogBlock, int]:
        """The block whose header (or bare RUN FAILURE line) is ``line``; returns the next line."""
        text = self.lines[line]
        header_range = _content_range(line, text)
        if header is None:  # a bare "ERROR: RUN FAILURE …" line without a header
            kind, function, source_line = "ERROR", "", None
            message_lines = [(line, header_range.start.character, text.strip())]
            nxt = line + 1
        else:
            kind, function, source_line = header
            message_lines = []
            nxt = line + 1
            while nxt < len(self.lines) and not _ends_message(self.lines[nxt]):
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
            found = _failure(body)
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

    def add_block(self, block: LogBlock, line: int, last_line: int) -> None:
        run = self.run_for(line)
        if run.blocks and not block.is_unwinding and (run.blocks[-1].is_unwinding or run.repeats_error(block)):
            run = self.new_run(line)
        run.blocks.append(block)
        key = run.error_key(block)
        if key is not None:
            run.error_keys.add(key)
        run.last_line = last_line

    def add_phase(self, line: int, which: str, name: str, text: str) -> None:
        run = self.run_for(line)
        rng = _content_range(line, text)
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
        run.ruyi = RuyiStart(*start, range=_content_range(line, text))
        run.last_line = line

    def add_version(self, line: int, text: str, version: re.Match) -> None:
        run = self.current
        if run is None or run.has_content:
            run = self.new_run(line)
        run.version = MapperVersion(version.group("version"), version.group("generation"),
                                    version.group("build"), version.group("extra").strip(),
                                    _content_range(line, text))
        run.last_line = line

    def read(self) -> None:
        line = 0
        while line < len(self.lines):
            text = self.lines[line]
            header = _header(text)
            if header is not None or _failure(text) is not None:
                block, nxt = self.read_block(line, header)
                self.add_block(block, line, max(line, nxt - 1))
                line = nxt
                continue
            start = _ruyi_start(text)
            version = _version(text)
            status = _ruyi_status(text)
            phase = _phase(text)
            if start is not None:
                self.add_ruyi_start(line, text, start)
            elif version is not None:
                self.add_version(line, text, version)
            elif status is not None and self.current is not None:
                self.current.ruyi_status = status
                self.current.ruyi_status_range = _content_range(line, text)
                self.current.last_line = line
            elif phase is not None:
                self.add_phase(line, phase[0], phase[1], text)
            elif text.strip() and self.current is not None:
                self.current.last_line = line
            line += 1
        if self.current is not None:
            self.runs.append(self.current.build(self.index))


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
    Regular files up to the bound for logs only (:mod:`nnie_lsp.safe_io`); otherwise
    :class:`~nnie_lsp.safe_io.FileReadError` says why."""
    decoded = read_text(str(path), safe_io.LOG)
    log = parse_mapper_log(decoded.text, str(path))
    return replace(log, encoding=decoded.encoding, bom=decoded.bom, newline=decoded.newline)


_SNIFF_RE = re.compile(
    r"Mapper Version[ \t]+\S+[ \t]+\(|^[. \t]*(?:ERROR|WARNING)[ \t]*:[ \t]*file[ \t]*:|^[ \t]*Start[ \t]*\[RuyiStudio",
    re.MULTILINE | re.IGNORECASE,
)


def looks_like_mapper_log(text: str) -> bool:
    """True when the text holds a mapper version line, a block header or a RuyiStudio start line."""
    return _SNIFF_RE.search(text) is not None
