"""The editor's long triage jobs: an ``nnie-triage`` command line (``compare``, ``reference``,
``emulate``) in a subprocess, shown as cancellable work-done progress with the tool's own progress.

The work is CPU- and disk-heavy and takes minutes on big nets, so it runs in its own process (as
esbonio runs Sphinx builds) mapped onto a work-done progress token: the editor's Cancel button
(``window/workDoneProgress/cancel``) kills the process; ``$/cancelRequest`` cannot reach a running
command in pygls.  A job that fails ends with a ``RequestFailed`` error whose message is the tool's
own error line; a cancelled one with ``RequestCancelled``.

**Progress.**  The job is started with ``--progress json``: the tool then writes to stderr, as it
goes, one JSON object per line, ``{"stage": "align", "done": 12, "total": 40, "percent": 31.5}``
(``percent``: of the whole run, 0-100, never decreasing; written by
:class:`nnie_lsp.triage.progress.JsonLines`, read by :func:`parse_step`).  Each such line becomes
a ``$/progress`` report with ``percentage`` (whole percent) and the message ``align 12/40``, at
most one report every :data:`REPORT_INTERVAL_SECONDS` within a stage (the newest step wins; the
first step of each stage is always sent; nothing is sent when nothing visible changed).  Until the first such line (Python starts, the numerical stack loads) the report says the
elapsed seconds, once a second, as it always did.  Every other stderr line is the tool's message:
the error of a failed job, logged after a successful one.  A tool that does not know
``--progress`` (``NNIE_LSP_TRIAGE_CMD`` naming an older nnie-triage) is run again without it, and
is then shown with elapsed seconds only.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import shlex
import time
import uuid
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

from lsprotocol import types as lsp
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcRequestCancelled

from nnie_lsp.core import i18n
from nnie_lsp.core import extras
from nnie_lsp.server.triage.annotations import TRIAGE_CMD_ENV, triage_cli
from nnie_lsp.server.protocol import request_failed

if TYPE_CHECKING:
    from nnie_lsp.server.server import NnieLanguageServer

#: Before the tool's first progress line: an "elapsed seconds" report this often.
PROGRESS_POLL_SECONDS = 1.0
#: At most one report of the tool's progress this often (a tool may write hundreds of steps a second).
REPORT_INTERVAL_SECONDS = 0.2
#: How often the job looks at the clock to send a held-back report or the elapsed seconds.
TICK_SECONDS = 0.1
#: What asks ``nnie-triage`` for progress lines on stderr.
PROGRESS_ARGS = ("--progress", "json")
#: A stderr "line" this long without a line break is taken as message text as it stands.
MAX_LINE_BYTES = 1 << 20
#: How much of the tool's message text is kept (the error shows its last 2,000 characters, the
#: log of a successful job its last 4,000).
MESSAGE_KEEP_CHARS = 64_000

#: Command prefixes (``nnie-triage`` as this server runs it) that refused ``--progress``.
_WITHOUT_PROGRESS: set[tuple[str, ...]] = set()


# ------------------------------------------------------------------ the tool's progress lines

class Step(NamedTuple):
    """One progress line of ``nnie-triage --progress json``."""

    stage: str
    done: int
    total: int
    percent: float      # of the whole run, 0-100

    @property
    def message(self) -> str:
        """What the editor shows: ``align 12/40`` (the stage alone when it has no count)."""
        return f"{self.stage} {self.done}/{self.total}" if self.total > 0 else self.stage


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_step(line: str) -> Step | None:
    """`line` as a progress step, or None when it is not exactly one (then it is a message)."""
    text = line.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    stage, done, total, percent = obj.get("stage"), _count(obj.get("done")), _count(obj.get("total")), obj.get("percent")
    if not isinstance(stage, str) or not stage.strip() or done is None or total is None:
        return None
    if not isinstance(percent, (int, float)) or isinstance(percent, bool) or not math.isfinite(percent):
        return None
    return Step(stage.strip(), done, total, float(percent))


# ------------------------------------------------------------------ work-done progress

class Progress:
    """Work-done progress of one job, or nothing when the client cannot show it."""

    def __init__(self, ls: NnieLanguageServer) -> None:
        self.ls = ls
        self.token = str(uuid.uuid4())   # tokens are never reused (pygls keeps them all)
        self.enabled = bool(get_capability(ls.client_capabilities, "window.work_done_progress", False))

    async def begin(self, title: str, message: str, percentage: int | None = None) -> None:
        """Create the token and begin; `percentage` (0) tells the client reports will carry one."""
        if not self.enabled:
            return
        try:
            await self.ls.work_done_progress.create_async(self.token)
            self.ls.work_done_progress.begin(self.token, lsp.WorkDoneProgressBegin(
                title=title, cancellable=True, message=message, percentage=percentage))
        except Exception as exc:
            self.ls.log(f"work-done progress unavailable: {exc!r}", lsp.MessageType.Info)
            self.enabled = False

    def cancel_future(self):
        """Cancelled by pygls when the editor's Cancel button is pressed (a concurrent Future)."""
        return self.ls.work_done_progress.tokens.get(self.token) if self.enabled else None

    def report(self, message: str, percentage: int | None = None) -> None:
        if self.enabled:
            self.ls.work_done_progress.report(self.token, lsp.WorkDoneProgressReport(
                message=message, percentage=percentage))

    def end(self, message: str) -> None:
        if self.enabled:
            self.ls.work_done_progress.end(self.token, lsp.WorkDoneProgressEnd(message=message[:200]))


class ProgressRelay:
    """The tool's steps to ``$/progress`` reports, rate-limited (module doc); before the first
    step, the elapsed seconds once every :data:`PROGRESS_POLL_SECONDS`."""

    def __init__(self, send: Callable[[str, "int | None"], None], elapsed_text: Callable[[int], str],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._elapsed_text = elapsed_text
        self._clock = clock
        self.started = self._last_at = clock()
        self.percentage = 0                      # whole percent, never decreasing
        self.stepped = False                     # a progress line arrived
        self._sent: tuple[int | None, str] | None = None
        self._pending: tuple[int, str] | None = None
        self._stage: str | None = None            # the stage of the last step sent

    def step(self, step: Step) -> None:
        first, self.stepped = not self.stepped, True
        self.percentage = max(self.percentage, min(100, max(0, int(step.percent))))
        self._pending = (self.percentage, step.message)
        # the first at once (it replaces the seconds), and each new stage's first step: a fast stage
        # (regenerate, align) is shown, not overtaken by the next one within the interval
        new_stage = step.stage != self._stage
        self._stage = step.stage
        self._flush(self._clock(), force=first or new_stage)

    def tick(self) -> None:
        """Called every :data:`TICK_SECONDS`: a held-back step, else the elapsed seconds."""
        now = self._clock()
        if self._pending is not None:
            self._flush(now, force=False)
        elif not self.stepped and now - self._last_at >= PROGRESS_POLL_SECONDS:
            self._emit(None, self._elapsed_text(int(now - self.started)), now)

    def flush(self) -> None:
        """The newest step, held back or not (the job ended)."""
        if self._pending is not None:
            self._flush(self._clock(), force=True)

    def _flush(self, now: float, *, force: bool) -> None:
        if self._pending == self._sent:
            self._pending = None
        elif force or now - self._last_at >= REPORT_INTERVAL_SECONDS:
            self._emit(*self._pending, now)
            self._pending = None

    def _emit(self, percentage: int | None, message: str, now: float) -> None:
        self._send(message, percentage)
        self._sent = (percentage, message)
        self._last_at = now


class StderrLines:
    """The tool's stderr as it arrives: progress lines go to the relay, the rest is kept as the
    tool's message text (its last :data:`MESSAGE_KEEP_CHARS` characters)."""

    def __init__(self, relay: ProgressRelay | None) -> None:
        self.relay = relay
        self._buffer = b""
        self._messages: list[str] = []
        self._kept = 0

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._line(line)
        if len(self._buffer) > MAX_LINE_BYTES:
            self._message(self._buffer.decode("utf-8", "replace"))
            self._buffer = b""

    def close(self) -> None:
        if self._buffer:
            self._line(self._buffer)
            self._buffer = b""

    def _line(self, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace").rstrip("\r")
        step = parse_step(line) if self.relay is not None else None
        if step is not None:
            self.relay.step(step)
        else:
            self._message(line)

    def _message(self, line: str) -> None:
        self._messages.append(line)
        self._kept += len(line) + 1
        while self._kept > MESSAGE_KEEP_CHARS and len(self._messages) > 1:
            self._kept -= len(self._messages.pop(0)) + 1

    def text(self) -> str:
        """The tool's messages (what stderr held without the progress lines)."""
        return "\n".join(self._messages)


# ------------------------------------------------------------------ one job at a time

class Busy:
    """The jobs running now, by (command, what): one of each at a time."""

    def __init__(self) -> None:
        self._running: set[tuple[str, str]] = set()

    def claim(self, command: str, what: str, lang: str) -> tuple[str, str]:
        key = (command, os.path.abspath(what))
        if key in self._running:
            raise request_failed(i18n.t("job.busy", lang, command=command, what=what))
        self._running.add(key)
        return key

    def release(self, key: tuple[str, str]) -> None:
        self._running.discard(key)


# ------------------------------------------------------------------ running a job

def _triage_prefix(command: Sequence[str]) -> tuple[str, ...] | None:
    """The ``nnie-triage`` command prefix `command` starts with (None: another program)."""
    prefix = tuple(triage_cli())
    return prefix if tuple(command[:len(prefix)]) == prefix and len(command) > len(prefix) else None


def _refused_progress(returncode: int | None, messages: str) -> bool:
    """argparse's answer of a tool without ``--progress``."""
    return returncode == 2 and PROGRESS_ARGS[0] in messages and (
        "unrecognized arguments" in messages or "invalid choice" in messages)


class _Run:
    """The process of the attempt running now, and whether the editor cancelled the job."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.cancelled = False

    def cancel(self, future) -> None:
        if not future.cancelled():
            return
        self.cancelled = True
        self.kill()

    def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            try:
                self.process.kill()
            except ProcessLookupError:
                pass


async def _pump(stream: asyncio.StreamReader, lines: StderrLines) -> None:
    while chunk := await stream.read(65536):
        lines.feed(chunk)
    lines.close()


async def _follow(run: _Run, relay: ProgressRelay, progress_lines: bool) -> tuple[int | None, bytes, str]:
    """Read the started process to its end: (exit code, stdout, the tool's messages)."""
    process = run.process
    assert process is not None and process.stdout is not None and process.stderr is not None
    if run.cancelled:   # cancelled while it started
        run.kill()
    lines = StderrLines(relay if progress_lines else None)
    out = asyncio.ensure_future(process.stdout.read())
    err = asyncio.ensure_future(_pump(process.stderr, lines))
    try:
        pending = {out, err}
        while pending:
            _done, pending = await asyncio.wait(pending, timeout=TICK_SECONDS)
            relay.tick()
        returncode = await process.wait()
    finally:
        for task in (out, err):
            task.cancel()
    return returncode, out.result(), lines.text()


def _failure(ls: NnieLanguageServer, title: str, returncode: int | None, messages: str, *, custom: bool):
    """The error of a job that failed: the tool's own error line; for a missing optional package
    (OpenCV, ONNX Runtime) what to install, with ``data.missingPackage`` for the client (its
    ``command`` installs it into the server's Python; with a custom ``nnie-triage`` command the
    interpreter is not known, and the tool's words stand)."""
    module = None if custom else extras.missing_module(messages)
    if module is not None:
        text, data = extras.missing_message(module, title, ls.lang)
        return request_failed(text, data={"missingPackage": data})
    return request_failed(i18n.t("triage.failed", ls.lang, code=returncode, error=messages.strip()[-2000:]))


async def run_job(ls: NnieLanguageServer, command: Sequence[str], *, title: str, message: str,
                  running: str = "job.running", cwd: str | None = None) -> tuple[str, Progress]:
    """Run `command` (an ``nnie-triage`` command line gets ``--progress json``); its stdout.  The
    progress is left open for the caller to end (it knows the outcome's words); on failure or
    cancellation it is ended here."""
    lang = ls.lang
    prefix = _triage_prefix(command)
    progress_lines = prefix is not None and prefix not in _WITHOUT_PROGRESS
    progress = Progress(ls)
    await progress.begin(title, message, percentage=0 if progress_lines else None)
    relay = ProgressRelay(progress.report, lambda seconds: i18n.t(running, lang, seconds=seconds))
    run = _Run()
    cancel_future = progress.cancel_future()
    if cancel_future is not None:
        cancel_future.add_done_callback(run.cancel)
    returncode, out, messages = None, b"", ""
    try:
        while not run.cancelled:
            argv = [*command, *PROGRESS_ARGS] if progress_lines else list(command)
            ls.log("running " + " ".join(shlex.quote(part) for part in argv) + (f" (in {cwd})" if cwd else ""))
            run.process = await asyncio.create_subprocess_exec(
                *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                stdin=asyncio.subprocess.DEVNULL, cwd=cwd)
            returncode, out, messages = await _follow(run, relay, progress_lines)
            if progress_lines and not run.cancelled and _refused_progress(returncode, messages):
                _WITHOUT_PROGRESS.add(prefix)
                progress_lines = False
                ls.log(f"{argv[0]}: no --progress option (an older nnie-triage): running it without", lsp.MessageType.Info)
                continue
            break
    except asyncio.CancelledError:
        run.kill()
        progress.end(i18n.t("triage.cancelled", lang))
        raise
    except OSError as exc:   # the command itself cannot start
        text = i18n.t("triage.failed", lang, code="-", error=f"{command[0]}: {exc.strerror or exc}")
        progress.end(text)
        raise request_failed(text) from None
    if run.cancelled:
        progress.end(i18n.t("triage.cancelled", lang))
        raise JsonRpcRequestCancelled(f"{title} cancelled")
    relay.flush()
    if returncode != 0:
        error = _failure(ls, title, returncode, messages, custom=prefix is None or bool(os.environ.get(TRIAGE_CMD_ENV)))
        progress.end(error.message)
        if not ls.client_shows_outcomes():   # a client that shows only window/showMessage
            try:
                ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=error.message))
            except Exception:
                pass
        raise error
    tail = messages.strip()
    if tail:
        ls.log(tail[-4000:])
    return out.decode("utf-8", "replace"), progress
