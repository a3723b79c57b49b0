"""The mapper's message forms, and what a log block names (its target).

A block of ``mapper_error.log`` / ``mapper_debug.log`` (``docs/field-facts.md §8, §16.3``) carries a
message on the line(s) after its ``ERROR: file: <function>  line: <n>`` header.  This module
recognises the message forms seen in real logs (:data:`MESSAGE_FORMS`) and finds what a message
names, so a rule can place its finding there.  Target kinds, in the order they are looked for
(the first found wins, so a layer named beats a type named):

- ``layer``: ``layer name: [DummyData1]. error: no bottom error!``,
  ``layer[mobilenet0_conv5_group_15] value[…] is too small`` → that layer;
- ``layer_type``: ``layer type:[Crop], error: layer type is not supported!`` → every layer of
  the type;
- ``cfg_entry``: a cfg line echoed before the reason, ``[image_list] ./test_image_paths.txt`` →
  that cfg line (key and value);
- ``path``: ``../model.prototxt is not a file!`` → the cfg line holding the path;
- ``layer_type`` ``Input``: ``input layer has no input param!`` → the Input layers;
- ``cfg_key``: ``Cannot find a piece of available memory for current layer, caused by bigger
  batch_num or deeper network.`` → the ``batch_num`` line (the key the message blames);
- ``layer_type`` ``Permute``: ``error:Permute can only support (0,1,2,3) -> (0,2,3,1) order!``
  without a layer name → the Permute layers;
- ``log``: anything else (``data containing only zeros; …``, ``Number of edges expected …``)
  → the log itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Sequence

from nnie_lsp.core.text import Range

__all__ = ["TargetKind", "LogTarget", "MessageForm", "MESSAGE_FORMS", "CRASH_FORM", "message_form",
           "message_target", "MessageLine"]

TargetKind = Literal["layer", "layer_type", "cfg_entry", "cfg_key", "path", "log"]


@dataclass(frozen=True, slots=True)
class LogTarget:
    """What a block names.  Ranges are in the log, around the name (and the echoed cfg value)."""

    kind: TargetKind
    name: str = ""  # layer name / layer type / cfg key / path; "" for the log itself
    value: str | None = None  # cfg_entry: the value echoed after the key
    range: Range | None = None
    value_range: Range | None = None
    how: str = ""  # the form that named it, e.g. "layer name: [X]"


LOG_TARGET = LogTarget("log", how="names nothing")


@dataclass(frozen=True, slots=True)
class MessageForm:
    """A message form seen in real mapper logs (§16.3, §7.5)."""

    id: str
    pattern: re.Pattern
    summary: str  # what it means, in a few words
    function: str = ""  # the mapper function it was seen with


def _form(form_id: str, pattern: str, summary: str, function: str = "") -> MessageForm:
    return MessageForm(form_id, re.compile(pattern, re.IGNORECASE), summary, function)


MESSAGE_FORMS: tuple[MessageForm, ...] = (
    _form("run_failure", r"RUN FAILURE in line", "call stack unwinding after an error"),
    _form("no_bottom", r"no bottom error", "a layer has no bottom (input)"),
    _form("type_not_supported", r"layer type is not supported", "the layer type is not supported by NNIE"),
    _form("value_too_small", r"value\[[^\]]*\]\s*is too small", "a folded BatchNorm value is too small",
          "Inference::convBnParamProcess"),
    _form("zeros_only", r"data containing only zeros", "a calibration tensor holds only zeros",
          "Inference::computeNonlinearQuantizationDelta"),
    _form("not_a_file", r"is not a file", "a path in the cfg is not a file", "fileCheck"),
    _form("cfg_file_error", r"file error\s*:", "an input file named in the cfg has the wrong content",
          "read_lang_file"),
    _form("out_of_memory", r"Cannot find a piece of available memory", "no memory left for a layer",
          "MemInfo::memoryManager"),
    _form("edges_mismatch", r"Number of edges expected should match the number of input names",
          "a layer's inputs do not match its edges", "_inputEdges"),
    _form("no_input_param", r"input layer has no input param", "an Input layer without input_param"),
    _form("permute_order", r"Permute can only support", "Permute supports only (0,1,2,3) -> (0,2,3,1)",
          "parsePermutePara"),
    _form("inputs_same_shape", r"All inputs must have the same shape", "the layer's inputs differ in shape"),
)


#: The shell's line for a mapper process killed by a signal in a saved console log (``Segmentation
#: fault (core dumped)``): not a mapper message, so not in :data:`MESSAGE_FORMS`; the log reader
#: gives it to the run it ended (:attr:`nnie_lsp.readers.mapper.log.MapperRun.crash`).
CRASH_FORM = _form("crash", r"Segmentation fault|Aborted|Bus error|Killed|Floating point exception|Illegal instruction",
                   "the mapper process was killed by a signal (a console log's shell line)")


def message_form(message: str) -> MessageForm | None:
    """The first known form the message matches, or ``None`` (unrecognised)."""
    for form in MESSAGE_FORMS:
        if form.pattern.search(message):
            return form
    return None


# (line number in the log, column of the text's first character, text)
MessageLine = tuple[int, int, str]

_LAYER_NAME_RE = re.compile(r"layer\s*name\s*:\s*\[(?P<name>[^\]\n]+)\]", re.IGNORECASE)
_LAYER_BRACKET_RE = re.compile(r"\blayer\[(?P<name>[^\]\n]+)\]", re.IGNORECASE)
_LAYER_TYPE_RE = re.compile(r"layer\s*type\s*:\s*\[(?P<name>[^\]\n]+)\]", re.IGNORECASE)
_CFG_ECHO_RE = re.compile(r"^\s*\[(?P<name>[A-Za-z_][\w.]*)\][ \t]*(?P<value>.*)$")
_NOT_A_FILE = "is not a file"
_INPUT_NO_PARAM_RE = re.compile(r"(?P<name>input) layer has no input param", re.IGNORECASE)
_MEMORY_KEY_RE = re.compile(r"Cannot find a piece of available memory.*?bigger (?P<name>batch_num)\b", re.IGNORECASE)
_PERMUTE_RE = re.compile(r"(?P<name>Permute) can only support", re.IGNORECASE)


def _span(line: MessageLine, match: re.Match, group: str = "name") -> Range:
    number, column, _ = line
    return Range.of(number, column + match.start(group), number, column + match.end(group))


def _not_a_file(line: MessageLine) -> LogTarget | None:
    """``<path> is not a file!`` (checked without a regex: paths may hold blanks)."""
    number, column, text = line
    body = text.rstrip()
    core = body[:-1] if body.endswith("!") else body
    if not core.lower().endswith(_NOT_A_FILE):
        return None
    before = core[: len(core) - len(_NOT_A_FILE)]
    if not before or not before[-1].isspace():
        return None
    path = before.strip()
    if not path:
        return None
    start = column + len(before) - len(before.lstrip())
    return LogTarget("path", path, range=Range.of(number, start, number, start + len(path)),
                     how="<path> is not a file!")


def message_target(lines: Sequence[MessageLine]) -> LogTarget:
    """What the message lines name (see the module's table); the log itself when nothing."""
    searches = (
        (_LAYER_NAME_RE, "layer", "layer name: [X]"),
        (_LAYER_BRACKET_RE, "layer", "layer[X]"),
        (_LAYER_TYPE_RE, "layer_type", "layer type:[T]"),
    )
    for pattern, kind, how in searches:
        for line in lines:
            match = pattern.search(line[2])
            if match and match.group("name").strip():
                name = match.group("name").strip()
                start = match.start("name") + (len(match.group("name")) - len(match.group("name").lstrip()))
                number, column, _ = line
                rng = Range.of(number, column + start, number, column + start + len(name))
                return LogTarget(kind, name, range=rng, how=how)  # type: ignore[arg-type]
    for line in lines:
        match = _CFG_ECHO_RE.match(line[2])
        if match:
            number, column, _ = line
            value = match.group("value").rstrip()
            start = column + match.start("value")
            return LogTarget("cfg_entry", match.group("name"), value=value, range=_span(line, match),
                             value_range=Range.of(number, start, number, start + len(value)), how="[key] value")
    for line in lines:
        path = _not_a_file(line)
        if path is not None:
            return path
    for line in lines:
        match = _INPUT_NO_PARAM_RE.search(line[2])
        if match:
            return LogTarget("layer_type", "Input", range=_span(line, match), how="input layer")
    text = " ".join(line[2] for line in lines)
    if _MEMORY_KEY_RE.search(text):
        for line in lines:
            match = re.search(r"\bbatch_num\b", line[2])
            if match:
                number, column, _ = line
                rng = Range.of(number, column + match.start(), number, column + match.end())
                return LogTarget("cfg_key", "batch_num", range=rng, how="caused by bigger batch_num")
    for line in lines:
        match = _PERMUTE_RE.search(line[2])
        if match:
            return LogTarget("layer_type", "Permute", range=_span(line, match), how="Permute can only support")
    return LOG_TARGET
