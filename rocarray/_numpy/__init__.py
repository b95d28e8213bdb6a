"""The NumPy-named functions with rocarray kernels, one module per topic (as CuPy's ``cupy/_math``,
``cupy/_sorting``): each checks and normalizes its arguments once, in NumPy's words, and makes one
library call. ``rocarray/__init__.py`` re-exports them; every other NumPy name falls through to
CuPy.

===================  ==================================================================
``transfer``         ``asarray``, ``asnumpy``
``matrix_products``  ``dot``, ``matmul``, ``tensordot``, ``outer``, ``kron``, ``trace``
``vector_products``  ``vdot``, ``inner``
``einsum``           ``einsum``
``gemm_route``       how products map onto rocBLAS gemm without copies (private)
``reductions``       ``sum``, ``prod``, ``min``, ``max``, ``argmin``, ``mean``, ``all``, ...
``scans``            ``cumsum``, ``cumprod``, ``nancumsum``, ``nancumprod``
``sorting``          ``sort``, ``argsort``, ``lexsort``, ``partition``, ``argpartition``, ...
``searching``        ``nonzero``, ``argwhere``, ``searchsorted``, ``unique``, ``extract``, ...
``histograms``       ``bincount``, ``histogram``
===================  ==================================================================
"""
