"""No dated measurements in the code: numbers, dates, predictions and what was tried belong in
``docs/performance/<library>.md`` (DESIGN.md, "Code and prose"), so no module of the ``rocarray``
package carries a date."""

import pathlib
import re

import rocarray

ROOT = pathlib.Path(rocarray.__file__).parent
DATE = re.compile(r"20\d\d-[01]\d-[0-3]\d")


def test_no_dates_in_the_package():
    dated = [f"{path.relative_to(ROOT.parent)}:{i}: {line.strip()}"
             for path in sorted(ROOT.rglob("*.py"))
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if DATE.search(line)]
    assert not dated, "dated text in the code (move it to docs/performance/):\n" + "\n".join(dated)
