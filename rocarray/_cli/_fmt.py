"""Small text helpers shared by the ``python -m rocarray`` commands."""

import math


def table(headers, rows):
    """Format rows as an aligned plain-text table.

    Parameters
    ----------
    headers : sequence of str
    rows : sequence of sequence
        Cells are converted with ``str``; the first column is left-aligned, the others right-aligned.

    Returns
    -------
    list of str
        One line per row, headers first.
    """
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(parts).rstrip())
    return lines


def seconds(s):
    """A duration in the unit that keeps 3-4 significant digits (``'12.3 us'``, ``'1.20 ms'``)."""
    if s is None or not math.isfinite(s):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def first_lines(text, n=20, indent="    "):
    """The first ``n`` lines of ``text``, indented, with a note when lines were cut."""
    lines = str(text).strip().splitlines() or [""]
    cut = lines[:n]
    if len(lines) > n:
        cut.append(f"... ({len(lines) - n} more lines)")
    return [indent + line for line in cut]
