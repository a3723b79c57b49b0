"""A small rich progress bar for long dump loads; silent when stderr is not a terminal."""

from __future__ import annotations

import sys


class ProgressBar:
    def __init__(self, total: int, description: str = "loading", *, enabled: bool | None = None) -> None:
        self.total = total
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._progress = None
        self._task = None
        if self.enabled and total > 0:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                TextColumn("{task.fields[item]}"), console=Console(stderr=True), transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(description, total=total, item="")

    def advance(self, item: str = "") -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=1, item=item[:40])

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
