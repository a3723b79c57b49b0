"""Console-script entry points: start-up and exit handling around the commands' ``main``.

``nnie-lint`` runs on every commit from a pre-commit hook, so what the interpreter does around the
lint counts (the start-up goals are in docs/benchmarks.md; measured by ``benchmarks/bench_startup.py``, never by a timed test):

- the cyclic garbage collector is off while the modules load (they build many long-lived objects
  and no cycles worth collecting), then every object they built is moved to the permanent
  generation (``gc.freeze``) and the collector is on again for the lint itself, with a youngest
  generation of :data:`GEN0_THRESHOLD` objects instead of 700: the lint loads the cfg side and
  the rule modules it needs on first use, and with the default threshold the collector ran about
  eight times over their new objects during a one-layer cfg lint (about 1 ms of the start-up
  goal), while a command that lives for a second does not need its cycles freed that often;
- when the command is done, standard output and error are flushed and the process leaves with
  ``os._exit``: the interpreter's teardown (freeing every module and object one by one, about 7 ms)
  is skipped.  Nothing is lost by it: every file the command writes is complete and closed
  (``--fix`` writes atomically) before ``main`` returns, and the commands register no ``atexit``
  work.  ``main`` itself returns normally, so tests and embedding callers are not affected.
"""

from __future__ import annotations

import gc
import os
import sys


def _leave(code: int) -> None:
    """Flush the standard streams and end the process with ``code`` (see the module docstring)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away (`nnie-lint ... | head`): nothing to tell it
            pass
        except (OSError, ValueError) as exc:  # e.g. a full disk behind a redirection
            if stream is sys.stdout:
                try:
                    print(f"nnie-lint: cannot write the output: {exc}", file=sys.stderr, flush=True)
                except (OSError, ValueError):
                    pass
                code = 2
    os._exit(code)


#: Objects allocated (net of those freed) before the youngest generation is collected, in the
#: ``nnie-lint`` process only (see the module docstring).
GEN0_THRESHOLD = 10_000


def nnie_lint() -> None:
    """The ``nnie-lint`` command."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        from nnie_lsp.cli.lint import main
    finally:
        gc.freeze()
        threshold = gc.get_threshold()
        gc.set_threshold(max(threshold[0], GEN0_THRESHOLD), *threshold[1:])
        if gc_was_enabled:
            gc.enable()
    _leave(main())
