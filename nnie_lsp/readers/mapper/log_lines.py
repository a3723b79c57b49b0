"""The line shapes of the mapper's logs (``docs/field-facts.md §8, §16.3``), one recogniser each,
for :mod:`nnie_lsp.readers.mapper.log` (which builds runs and blocks from them).

Patterns are linear on any line (no lazy group before a trailing ``\\s*$``): ends are trimmed in
Python, so a pathological line in a log cannot stall the language server.  None of these raise.
"""

from __future__ import annotations

import re

from nnie_lsp.core.text import Range

# ``Mapper Version 1.1.2.0_B050 (NNIE_1.1) 1812171743151709`` (§8)
_VERSION_RE = re.compile(
    r"Mapper Version\s+(?P<version>\S+)\s+\((?P<generation>[A-Za-z]+_[\w.]+)\)[ \t]*(?P<build>[0-9A-Za-z]*)(?P<extra>.*)"
)
# ``* 00:00:-0.0:    9.969 MiB: compiler version:V100R001C003B0031805151500142770`` (§16.3, S21)
_COMPILER_VERSION_RE = re.compile(r"compiler version\s*:\s*(?P<version>[0-9A-Za-z_.\-]+)", re.IGNORECASE)
_RUYI_START_RE = re.compile(r"^\s*Start\s*\[(?P<tool>[^\]]*)\]\s*\[(?P<cfg>[^\]]*)\](?P<rest>.*)$")
_STARS_RE = re.compile(r"^[.\s]*\*{5,}\s*$")
_HEADER_RE = re.compile(r"^[.\s]*(?P<kind>ERROR|WARNING)\s*:\s*file\s*:(?P<rest>.*)$", re.IGNORECASE)
_HEADER_LINE_RE = re.compile(r"\bline\s*:\s*(?P<line>-?[0-9]+)$", re.IGNORECASE)
_FAILURE_RE = re.compile(
    r"^[.\s]*(?:(?:ERROR|WARNING)\s*:\s*)?RUN FAILURE in line\s*(?P<line>-?[0-9]+)(?P<rest>.*)$", re.IGNORECASE
)
_RETURN_RE = re.compile(r"Return\s*=\s*(?P<code>[-+]?\w+)", re.IGNORECASE)
_PHASE_RE = re.compile(r"^[.\s]*(?P<which>begin|end)[ \t]+(?P<rest>.*)$")
# ``******************** begin parse prototxt to net process **********************`` and
# ``… parse prototxt to net process end …`` (§16.3, S20: the debug log of another mapper build)
_FENCED_RE = re.compile(r"^\s*\*{3,}[ \t]*(?P<body>[^*].*)$")
# the last line of a completed run in that debug log (§16.3, S20)
COMPLETE_TEXT = "compiler process complete!"
# what a POSIX shell prints when the process it ran died of a signal (bash: ``<script>: line 3:
# 4242 Segmentation fault      (core dumped) ./nnie_mapper …``; Chinese locales translate it).  Not a
# mapper fact: the log was saved from a terminal (a console log).
_CRASH_RE = re.compile(
    r"^(?:[^:\n]*:\s*line\s+\d+:\s*\d+\s+)?(?P<signal>Segmentation fault|Aborted|Bus error|Killed"
    r"|Floating point exception|Illegal instruction|段错误|已放弃|总线错误|已杀死|浮点数例外|非法指令)"
    r"(?P<rest>.*)$", re.IGNORECASE)
_FAILURE_PREFIXES = ("ERROR: RUN FAILURE IN LINE", "RUN FAILURE IN LINE")


def safe_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:  # not a number, or more digits than Python converts
        return None


def version(text: str) -> re.Match | None:
    return _VERSION_RE.search(text) if "Mapper Version" in text else None


def compiler_version(text: str) -> str | None:
    """The version of a ``compiler version:<v>`` line (a debug log's first line, §16.3)."""
    if "ompiler version" not in text and "OMPILER VERSION" not in text:
        return None
    match = _COMPILER_VERSION_RE.search(text)
    return match.group("version") if match else None


def ruyi_start(text: str) -> tuple[str, str, str, str] | None:
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


def ruyi_status(text: str) -> str | None:
    """The text between RuyiStudio's ``=====`` fences (``<cfg> Successfully!``)."""
    stripped = text.strip()
    if len(stripped) >= 6 and stripped.startswith("===") and stripped.endswith("==="):
        return stripped.strip("=").strip()
    return None


def header(text: str) -> tuple[str, str, int | None] | None:
    """(kind, function, source line) of ``ERROR: file: <function>  line: <n>``."""
    match = _HEADER_RE.match(text)
    if match is None:
        return None
    rest = match.group("rest").strip()
    line_match = _HEADER_LINE_RE.search(rest)
    source_line = None
    if line_match:
        source_line = safe_int(line_match.group("line"))
        rest = rest[:line_match.start()]
    kind = "ERROR" if match.group("kind").upper() == "ERROR" else "WARNING"
    return kind, rest.strip(), source_line


def failure(text: str) -> tuple[int | None, str] | None:
    """(line, return code) of ``ERROR: RUN FAILURE in line <n>. Return = <code>``."""
    match = _FAILURE_RE.match(text)
    if match is None:
        return None
    code = _RETURN_RE.search(match.group("rest"))
    return safe_int(match.group("line")), code.group("code") if code else ""


def failure_prefix(text: str) -> bool:
    """The start of a ``RUN FAILURE`` line cut short (a log that ends mid-line): ``ERROR: RUN FAI``."""
    body = " ".join(text.strip().upper().split())
    return bool(body) and any(form.startswith(body) for form in _FAILURE_PREFIXES)


def phase(text: str) -> tuple[str, str] | None:
    """("begin" | "end", phase name without the progress dots), also for star-fenced lines."""
    match = _PHASE_RE.match(text)
    if match is not None:
        name = match.group("rest").strip().rstrip(". \t").strip()
        return (match.group("which"), name) if name else None
    if "*" not in text[:8]:
        return None
    fenced = _FENCED_RE.match(text)
    if fenced is None:
        return None
    body = fenced.group("body").rstrip().rstrip("*").strip()
    lowered = body.lower()
    if lowered.startswith("begin ") and body[6:].strip():
        return "begin", body[6:].strip()
    if lowered.endswith(" end") and body[:-4].strip():
        return "end", body[:-4].strip()
    return None


def complete(text: str) -> bool:
    """``Compiler process complete!``: the run finished (§16.3, S20)."""
    return text.strip().lower() == COMPLETE_TEXT


def crash(text: str) -> str | None:
    """The shell's line for a process killed by a signal (``Segmentation fault (core dumped)``)."""
    stripped = text.strip()
    if not stripped or len(stripped) > 400:
        return None
    match = _CRASH_RE.match(stripped)
    if match is None:
        return None
    rest = match.group("rest").strip()
    # the signal name alone, with the core note, or after bash's "<script>: line N: <pid>"; not a
    # sentence that merely starts with the word ("Killed 3 processes")
    prefixed = match.start("signal") > 0
    if rest and not prefixed and not rest.startswith(("(", "（")) and "core dumped" not in rest.lower() \
            and "核心已转储" not in rest:
        return None
    return stripped


def is_dots(text: str) -> bool:
    return "." in text and not text.replace(".", "").strip()


def is_stars(text: str) -> bool:
    return _STARS_RE.match(text) is not None


def content_range(line: int, text: str) -> Range:
    """The line without its surrounding blanks (or an empty range at its start)."""
    stripped = text.strip()
    if not stripped:
        return Range.point(line, 0)
    start = len(text) - len(text.lstrip())
    return Range.of(line, start, line, start + len(stripped))


def ends_message(text: str) -> bool:
    """Does this line end the message of the block before it?"""
    return (
        not text.strip()
        or is_dots(text)
        or bool(_STARS_RE.match(text) or _HEADER_RE.match(text))
        or phase(text) is not None
        or "Mapper Version" in text
        or compiler_version(text) is not None
        or ruyi_start(text) is not None
        or ruyi_status(text) is not None
        or complete(text)
        or crash(text) is not None
    )


_SNIFF_RE = re.compile(
    r"Mapper Version[ \t]+\S+[ \t]+\(|^[. \t]*(?:ERROR|WARNING)[ \t]*:[ \t]*file[ \t]*:|^[ \t]*Start[ \t]*\[RuyiStudio"
    r"|compiler version[ \t]*:|^[ \t]*Compiler process complete!|^\*{5,}[ \t]*begin parse prototxt to net process"
    r"|^[ \t]*ATC (?:start working|run (?:success|failed))",  # an ATC log: read for what it is (NN403)
    re.MULTILINE | re.IGNORECASE,
)


def looks_like_mapper_log(text: str) -> bool:
    """True when the text holds a mapper version line, a block header, a RuyiStudio start line or
    the debug log's own lines (``compiler version:``, ``Compiler process complete!``)."""
    return _SNIFF_RE.search(text) is not None
