"""gemm: the ``rocblas.gemm`` family, one module per job.

=====================  ==========================================================================
``api``                :func:`rocarray.rocblas.gemm`: the entry point, its checks, its warm path
``batched``            :func:`rocarray.rocblas.gemm_strided_batched` and ``gemm_batched``
``plan``               the tile choice (heuristic, candidates, the tuner's timing) and the plan
``tiles``              the tile catalog and its geometry
``simt``               the kernels of ``gemm.hip`` (SIMT tiles, float64 matrix tiles, split-K finish)
``tf32x3``             float32 from three TF32 products on the kernels of ``gemm_wgmma.hip``
``half``               float16/bfloat16: the warpgroup kernel where it runs, ``mma.sync`` elsewhere
``mma``                the kernels of ``gemm_mma.hip`` (``mma.sync``)
``wgmma``              the kernels of ``gemm_wgmma.hip`` (sm_90a warpgroups, TMA)
``tensor_maps``        the TMA tensor maps of the warpgroup kernels
``batched_kernels``    the kernels of ``gemm_batched.hip`` and the batched path choice
=====================  ==========================================================================

Imports go one way: ``api``/``batched`` → ``plan`` → ``simt``/``tf32x3`` → ``wgmma`` → ``mma``.
"""
