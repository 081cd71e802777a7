"""The CLI's progress reporters (:class:`memctl.reporting.Reporter`): a Rich bar on a terminal, log lines otherwise."""

from __future__ import annotations

import time
from contextlib import contextmanager
from datetime import timedelta
from typing import Callable, Iterator

from rich.console import Console

from memctl.cli.terminal import write_err
from memctl.reporting import Reporter


class LineReporter:
    """Plain log lines on memctl's stderr (non-TTY: cron, launchd, CI), each starting ``memctl:``.

    At most about 20 lines a phase: a line each time the count passes a step of ``total // 20`` (also
    when one advance passes several) once ``min_interval_s`` seconds have gone by since the phase's
    last line, and at the end, each with the rate and the ETA once known. A phase shorter than
    ``min_interval_s`` thus prints two lines (started, end), not one per item.
    """

    def __init__(self, min_interval_s: float = 2.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.min_interval_s, self.clock = min_interval_s, clock
        self.name, self.total, self.count, self.step, self.started = "", None, 0, 1, clock()
        self.last_line = self.started

    def phase(self, name: str, total: int | None) -> None:
        self.name, self.total, self.count, self.started = name, total, 0, self.clock()
        self.last_line = self.started
        self.step = max(1, (total or 0) // 20)
        write_err(f"memctl: phase {name} started" + (f" ({total} items)" if total is not None else "") + "\n")

    def advance(self, n: int = 1) -> None:
        if n <= 0:
            return
        before, self.count = self.count, self.count + n
        finished = bool(self.total and before < self.total <= self.count)
        stepped = self.count // self.step > before // self.step
        if finished or (stepped and self.clock() - self.last_line >= self.min_interval_s):
            self.last_line = self.clock()
            total = self.total if self.total is not None else "?"
            write_err(f"memctl: {self.name} {self.count}/{total}{self._pace()}\n")

    def _pace(self) -> str:
        """`` (N/h, ETA h:mm:ss)`` from the items done since the phase started; items per hour
        because model work is counted in sessions and notes."""
        elapsed = self.clock() - self.started
        if elapsed <= 0 or self.count <= 0:
            return ""
        rate = self.count / elapsed
        text = f" ({rate * 3600:,.0f}/h"
        if self.total and self.count < self.total:
            text += f", ETA {timedelta(seconds=round((self.total - self.count) / rate))}"
        return text + ")"

    def log(self, message: str) -> None:
        write_err(f"memctl: {message}\n")

    def done(self) -> None:
        pass


class RichReporter:
    """A Rich progress bar per phase: done/total, items per hour, ETA."""

    def __init__(self, console: Console) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        class RateColumn(TextColumn):
            def render(self, task):  # items per hour reads better than per second for LLM work
                speed = task.finished_speed or task.speed
                return TextColumn.render(self, task) if speed is None else f"{speed * 3600:,.0f}/h"

        self.progress = Progress(
            TextColumn("{task.description}", style="bold", markup=False), BarColumn(), MofNCompleteColumn(),
            RateColumn(""), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            # No redirection of sys.stdout/sys.stderr through the bar: they carry library output to the log.
            console=console, transient=False, redirect_stdout=False, redirect_stderr=False,
        )
        self.task = None
        self.progress.start()

    def phase(self, name: str, total: int | None) -> None:
        self._close_task()
        self.task = self.progress.add_task(name, total=total)

    def _close_task(self) -> None:
        """Stop the current bar; one whose total was never known ends as ``N/N`` (not ``N/?``)."""
        if self.task is None:
            return
        task = next(t for t in self.progress.tasks if t.id == self.task)
        if task.total is None:
            self.progress.update(self.task, total=task.completed)
        self.progress.stop_task(self.task)

    def advance(self, n: int = 1) -> None:
        if self.task is not None:
            self.progress.advance(self.task, n)

    def log(self, message: str) -> None:
        self.progress.console.print(message)

    def done(self) -> None:
        self._close_task()
        self.progress.stop()


@contextmanager
def reporter_for(console: Console, as_json: bool) -> Iterator[Reporter]:
    """A Rich bar when ``console`` is a terminal and the output is not JSON, else log lines;
    stopped on the way out (also when the run raises), so an error prints below a finished bar."""
    reporter: Reporter = RichReporter(console) if console.is_terminal and not as_json else LineReporter()
    try:
        yield reporter
    finally:
        reporter.done()
