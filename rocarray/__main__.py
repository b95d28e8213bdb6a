"""``python -m rocarray``: report, self-check, bench, warmup, compile-check, hipify.

Run ``python -m rocarray --help`` for the commands; the implementation is
:mod:`rocarray._cli.main`.
"""

import sys

from rocarray._cli.main import main

if __name__ == "__main__":
    sys.exit(main())
