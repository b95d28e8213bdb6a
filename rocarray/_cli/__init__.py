"""``python -m rocarray``: the command-line tool (see :mod:`rocarray._cli.main`).

Nothing here imports CuPy at import time, so :func:`rocarray._core.offline.import_all_libraries`
can walk this package on a machine without a GPU.
"""
