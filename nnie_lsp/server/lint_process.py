"""The lint of a big document, in a child process: one big buffer never starves the others.

A prototxt of a few MB takes seconds to lint (a 7 MB one about 15 s).  In the server's own process
that lint would hold the interpreter (one lock for every Python thread) and the other documents'
lints, hovers and code actions would crawl beside it.  So a document of :data:`BIG_DOCUMENT` bytes
or more is linted in a child process (``python -m nnie_lsp.server.lint_process``, the same
interpreter and import path as the server, as the triage jobs are run): the server's threads stay
free, and on two cores the two run side by side.

- One child, started at the first big lint and kept for the next ones (its parse caches too).
- A job is ``(path, kind, overlay, settings, cwd, lang)`` -- everything :func:`nnie_lsp.lint.lint`
  takes for one document -- and the answer its diagnostics, the internal errors of crashed rules
  and the files the project read, pickled over the child's stdin and stdout (length-prefixed
  frames; the child is our own program).
- **Cancelled by newer versions**: when a newer snapshot of the document being linted is taken,
  the child is killed (:meth:`LintProcess.supersede`) and a fresh one started at once (it imports
  while the newer lint is scheduled); the waiting call raises :class:`Cancelled`.
- A child that dies or answers nonsense is a :class:`LintProcessError` (the server logs it and
  keeps the previous diagnostics); it is started again for the next job.
"""

from __future__ import annotations

import os
import pickle
import struct
import subprocess
import sys
import threading
from typing import BinaryIO, Callable

#: Documents of this many bytes or more are linted in the child process (a 1 MiB prototxt takes
#: about a second to lint; below that, starting the job costs more than it saves).
BIG_DOCUMENT = 1 << 20

_HEADER = struct.Struct("!Q")


class Cancelled(Exception):
    """The lint was superseded by a newer version of its document."""


class LintProcessError(RuntimeError):
    """The child process failed (died, or raised while linting)."""


def _write_frame(stream: BinaryIO, value) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _read_exactly(stream: BinaryIO, count: int) -> bytes:
    chunks, left = [], count
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_frame(stream: BinaryIO):
    (size,) = _HEADER.unpack(_read_exactly(stream, _HEADER.size))
    return pickle.loads(_read_exactly(stream, size))


class LintProcess:
    """The child that lints big documents; :meth:`lint` is called from one worker thread at a
    time, :meth:`supersede` from the event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._running: tuple[str, int] | None = None    # (uri, snapshot sequence) of the job in the child
        self._killed: set[int] = set()

    def _child(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            path = os.environ.get("PYTHONPATH", "")
            env = {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}
            self._proc = subprocess.Popen([sys.executable, "-m", "nnie_lsp.server.lint_process"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        return self._proc

    def lint(self, uri: str, sequence: int, job: tuple, superseded: Callable[[], bool] = lambda: False):
        """The child's answer for `job` (see the module doc); :class:`Cancelled` when
        :meth:`supersede` killed it meanwhile (or `superseded` says so as it starts),
        :class:`LintProcessError` when it failed."""
        with self._lock:   # supersede() takes it too: a newer snapshot either is seen here or kills the job
            if superseded():
                raise Cancelled()
            proc = self._child()
            self._running = (uri, sequence)
        try:
            _write_frame(proc.stdin, job)
            status, *answer = _read_frame(proc.stdout)
        except (EOFError, OSError, pickle.UnpicklingError, struct.error) as exc:
            with self._lock:
                killed = sequence in self._killed
                self._killed.discard(sequence)
            if killed:
                raise Cancelled() from None
            self._stop(proc)
            raise LintProcessError(f"the lint process ended: {exc!r}") from None
        finally:
            with self._lock:
                self._running = None
        if status != "ok":
            raise LintProcessError(answer[0])
        return answer

    def supersede(self, uri: str, sequence: int) -> None:
        """A newer snapshot (`sequence`) of `uri` was taken: kill the child if it lints an older one."""
        with self._lock:
            running = self._running
            if running is None or running[0] != uri or running[1] >= sequence or self._proc is None:
                return
            self._killed.add(running[1])
            self._stop(self._proc)
            self._child()   # a fresh child starts importing now, ready for the newer version

    @staticmethod
    def _stop(proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a kill is not refused
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    @property
    def pid(self) -> int | None:
        """The child's process id (None before the first big lint)."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def close(self) -> None:
        with self._lock:
            if self._proc is not None:
                self._stop(self._proc)
                self._proc = None


def _lint_job(job: tuple) -> tuple:
    from nnie_lsp.lint import lint
    from nnie_lsp.project.project import DiskProvider

    path, kind, overlay, settings, cwd, lang = job
    provider = DiskProvider(overlay)
    run = lint(path, settings=settings, provider=provider, cwd=cwd, kind=kind, lang=lang)
    project = run.project
    card = project.card.card_path if project.card is not None else None   # editing the card relints the cfg
    members = tuple(p for p in (project.cfg_path, project.prototxt_path, card) if p)
    return ("ok", run.diagnostics, list(run.internal_errors), members)


def serve(stdin: BinaryIO, stdout: BinaryIO) -> None:
    """The child's loop: one job in, one answer out, until stdin closes."""
    import traceback

    while True:
        try:
            job = _read_frame(stdin)
        except EOFError:
            return
        try:
            answer = _lint_job(job)
        except Exception as exc:  # a bug: the server logs it
            answer = ("error", f"{exc!r}\n{traceback.format_exc()}")
        _write_frame(stdout, answer)


def main() -> None:
    # the frames go to a copy of stdout; anything else written to stdout (by the interpreter, a
    # library) goes to stderr instead of corrupting them
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
