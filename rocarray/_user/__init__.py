"""Tools for users' own kernel sources: :func:`rocarray.hipify` rewrites CUDA idioms into rocarray's
portable form, :func:`rocarray.compile_check` compiles a source offline for every target."""
