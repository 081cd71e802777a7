"""Tables whose ids, paths and URLs are never cut or folded, on a terminal of any width or in a pipe.

Rich fits a table to the console's width (80 columns in a pipe unless ``COLUMNS`` says otherwise) by
folding cells over lines and, when that is not enough, by cutting them: a session id, a report path or
a URL split over two lines cannot be copied or grepped. :func:`print_table` therefore

* in a pipe or a file (not a terminal) prints the table at its natural width: every cell on one line
  (a script reads whole values; nothing reflows a pipe);
* on a terminal, marks every column named in ``whole`` ``no_wrap`` (the other columns fold) and, when the
  table cannot fit even so, prints one ``column: value`` line per cell instead (a blank line between
  rows): a long line on a terminal wraps visually but copies as one value.
"""

from __future__ import annotations

from typing import Iterable

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


def _plain(cell: object) -> str:
    """A cell as plain text: a styled :class:`~rich.text.Text` gives its text; a string is printed as it is
    (memctl's consoles read no markup, so ``[bold]`` in a path is part of the path)."""
    return cell.plain if isinstance(cell, Text) else str(cell)


def _cells(table: Table) -> list[list[str]]:
    """The table's cells as plain text, row by row."""
    columns = [[_plain(cell) for cell in column.cells] for column in table.columns]
    return [list(row) for row in zip(*columns)] if columns else []


def print_table(console: Console, table: Table, whole: Iterable[str] = ()) -> None:
    """Print ``table`` on ``console`` so no cell of the columns in ``whole`` (by header) is ever folded or cut.

    ``whole``: headers of the columns holding ids, paths, URLs (every column of a headerless table is kept
    whole in a pipe anyway). See the module doc for the three layouts.
    """
    keep = set(whole)
    for column in table.columns:
        if str(column.header) in keep:
            column.no_wrap = True
            column.overflow = "ignore"
    natural = Measurement.get(console, console.options.update(width=1_000_000), table)
    if not console.is_terminal:
        width = console.width
        console.width = max(natural.maximum, width)  # print(width=…) cannot go beyond the console's own width
        try:
            console.print(table, crop=False)
        finally:
            console.width = width
        return
    if natural.minimum <= console.width:
        console.print(table, crop=False)
        return
    console.print("\n".join(records(table)), soft_wrap=True, highlight=False, markup=False)


def records(table: Table) -> list[str]:
    """``table`` as lines: its title, then per row one ``header: value`` line per non-empty cell, rows
    separated by a blank line; a headerless table of two columns gives ``label: value`` lines."""
    headers = [_plain(column.header) for column in table.columns]
    lines = [_plain(table.title)] if table.title else []
    for row in _cells(table):
        if not any(headers) and len(row) == 2:
            lines.append(f"{row[0]}: {row[1]}")
            continue
        if lines and any(headers):
            lines.append("")
        lines += [f"{header or f'column {n}'}: {value}" for n, (header, value) in enumerate(zip(headers, row), 1)
                  if value]
    return lines


__all__ = ["print_table", "records"]
