"""Suite-wide hooks: a skip must say why.

A test that skips without a reason (``pytest.skip()``, ``pytest.skip("")``, a bare
``@pytest.mark.skip``: pytest prints "Skipped" or "unconditional skip") hides what did not run.
Every such skip is collected here, listed at the end of the run, and the run fails (exit status 1)
even when everything else passed.  A skip that names what is missing (a tool, a package, a file)
is fine.  ``tests/test_no_silent_skips.py`` proves the hook fires."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

#: What pytest writes for a skip that was given no reason.
_NO_REASON = {"", "skipped", "unconditional skip"}

_silent: list[str] = []


def _reason(report) -> str | None:
    """The printed reason of a skip report, None when it is no skip (an xfail is not one)."""
    if not report.skipped or hasattr(report, "wasxfail"):
        return None
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
    return text.removeprefix("Skipped").removeprefix(":").strip()


def _note(report) -> None:
    reason = _reason(report)
    if reason is not None and reason.lower() in _NO_REASON:
        where = report.longrepr[:2] if isinstance(report.longrepr, tuple) else ()  # line: 1-based
        place = f" ({where[0]}:{where[1]})" if len(where) == 2 and where[1] is not None else ""
        _silent.append(f"{report.nodeid or '<module>'}{place}")


def pytest_runtest_logreport(report) -> None:
    _note(report)


def pytest_collectreport(report) -> None:  # pytest.skip(allow_module_level=True)
    _note(report)


def pytest_sessionfinish(session, exitstatus) -> None:
    if _silent and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:
    if _silent:
        terminalreporter.section("skipped without a reason", sep="=", red=True, bold=True)
        for nodeid in _silent:
            terminalreporter.line(f"SKIPPED WITHOUT A REASON {nodeid}")
        terminalreporter.line(f"{len(_silent)} test(s) skipped without saying why: give pytest.skip() "
                              "or @pytest.mark.skip a reason naming what is missing. The run fails.")


# -- the checkout is not written by the tests ------------------------------------------------------
#
# Tests work on copies (tmp_path); a test that writes into examples/ or tests/data/ (a triage
# record beside an example cfg, a regenerated dump) changes what later tests and users see.  The
# state of those folders is taken when the run starts and compared when it ends (in the process
# that runs the session, not in xdist workers); a difference fails the run and lists the files.

import os
import subprocess

_CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_WATCHED = ("examples", os.path.join("tests", "data"))
_before: set[str] | None = None


def _state() -> set[str] | None:
    try:
        done = subprocess.run(["git", "-C", _CHECKOUT, "status", "--porcelain", "--ignored", "--untracked-files=all",
                               "--", *_WATCHED], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None   # not a git checkout (an sdist): nothing to compare
    return {line for line in done.stdout.splitlines() if "__pycache__" not in line and not line.endswith(".pyc")}


def _controller(config) -> bool:
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session) -> None:
    global _before
    if _controller(session.config):
        _before = _state()


_written: list[str] = []


def _checkout_written(session) -> list[str]:
    if _before is None or not _controller(session.config):
        return []
    after = _state()
    return sorted((after or set()) - _before) if after is not None else []


_original_finish = pytest_sessionfinish


def pytest_sessionfinish(session, exitstatus) -> None:  # noqa: F811 - one hook, both checks
    _original_finish(session, exitstatus)
    _written[:] = _checkout_written(session)
    if _written and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_original_summary = pytest_terminal_summary


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: F811
    _original_summary(terminalreporter)
    if _written:
        terminalreporter.section("the tests wrote into the checkout", sep="=", red=True, bold=True)
        for line in _written:
            terminalreporter.line(line)
        terminalreporter.line("a test wrote into examples/ or tests/data/: make it work on a copy (tmp_path). The run fails.")
