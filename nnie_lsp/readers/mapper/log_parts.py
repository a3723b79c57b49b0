"""The pieces of a mapper log (:mod:`nnie_lsp.readers.mapper.log`): the version line, RuyiStudio's start
line, a ``RUN FAILURE`` line, an ERROR / WARNING block and a phase, each with its exact ranges
(``docs/field-facts.md §8, §16.3``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from nnie_lsp.core.text import Range
from nnie_lsp.readers.mapper.messages import LOG_TARGET, LogTarget, MessageForm


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
        """For messages: ``"mapper 1.1.2.0_B050 (NNIE_1.1)"`` (``"mapper V100R001C003B…"`` for a
        ``compiler version:`` line, which names no generation)."""
        return f"mapper {self.version} ({self.generation})" if self.generation else f"mapper {self.version}"


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
    frame: bool = False  # a stack frame cut short (no RUN FAILURE line: the log ends in the stack)

    @property
    def is_unwinding(self) -> bool:
        return self.failure is not None or self.frame

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
