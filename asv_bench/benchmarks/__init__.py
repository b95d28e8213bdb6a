"""rocarray's asv benchmarks: ``bench_<library>.py`` files, each class a rocarray/vendor pair.

``asv_bench/asv.conf.json`` benchmarks the checkout in the Python environment you already have
(``"environment_type": "existing"``: no network, no virtualenv builds). Make rocarray importable
first (``pip install -e .[bench]``, or ``export PYTHONPATH=$PWD`` from the repository root), then
from ``asv_bench/``::

    asv machine --yes                       # once per machine
    asv run --python=same --quick           # one pass over every benchmark
    asv run --python=same -b Dot            # the classes matching a regex
    asv publish && asv preview              # HTML under asv_bench/.asv/html

Results and HTML go under ``asv_bench/.asv/`` (git-ignored). Benchmarks need a GPU; without one
every ``setup`` raises ``NotImplementedError`` and asv reports the benchmark as skipped.

Shared pieces (the :class:`~._base.GpuBenchmark` base class, ``random_device``, ``sync``) are in
``_base.py``; benchmark modules import them relatively: ``from ._base import GpuBenchmark,
random_device, sync``.
"""
