"""rocarray's asv benchmarks, generated from the cases ``python -m rocarray bench`` runs.

``asv_bench/asv.conf.json`` benchmarks the checkout in the Python environment you already have
(``"environment_type": "existing"``: no network, no virtualenv builds). Make rocarray importable
first (``pip install -e .[bench]``, or ``export ASV_PYTHONPATH=$PWD`` from the repository root:
asv drops ``PYTHONPATH`` from the benchmark processes' environment), then from ``asv_bench/``::

    asv machine --yes                       # once per machine
    asv run --python=same --quick           # one pass over every benchmark
    asv run --python=same -b Rocblas        # the classes matching a regex
    asv publish && asv preview              # HTML under asv_bench/.asv/html

Results and HTML go under ``asv_bench/.asv/`` (git-ignored). A benchmark is declared once, as a
registered case in ``rocarray/_checks/``; ``bench_cases.py`` makes one asv class per library
from them (``params``: the library's case names). Benchmarks need a GPU; without one every
``setup`` raises ``NotImplementedError`` naming the reason and asv reports the benchmark as
skipped. GPU detection and the device sync are in ``_base.py``.
"""
