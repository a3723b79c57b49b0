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
