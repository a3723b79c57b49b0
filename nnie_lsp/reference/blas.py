"""One BLAS thread for the numpy forward pass and the NNIE emulation.

Their matrix products are many and mid-sized (a convolution is one product per kernel tap, a few
hundred rows by a few hundred thousand columns at most): a multi-threaded BLAS spends more time
waking and joining its threads than computing, and on a machine whose cores are busy it waits for
them -- measured on a 2-core machine, a 640 × 640 RetinaFace-sized forward pass took 3.1 s with
OpenBLAS's default threads and 0.24 s with one (``benchmarks/bench_hp_plan.py``'s large row is
the planner's figure).  :func:`one_blas_thread` limits the BLAS libraries numpy loaded to one thread
while a forward pass, an emulation or a plan runs, and restores them after (threadpoolctl); the
values computed are the same.  Without threadpoolctl (a bare install) it changes nothing.
"""

from __future__ import annotations

import contextlib
import threading

_DEPTH = threading.local()


@contextlib.contextmanager
def one_blas_thread():
    """Run the block with one BLAS thread (nested uses cost nothing: the outermost one limits)."""
    depth = getattr(_DEPTH, "value", 0)
    if depth:
        _DEPTH.value = depth + 1
        try:
            yield
        finally:
            _DEPTH.value -= 1
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # a bare install: the default threads
        limits = contextlib.nullcontext()
    else:
        limits = threadpool_limits(limits=1, user_api="blas")
    _DEPTH.value = 1
    try:
        with limits:
            yield
    finally:
        _DEPTH.value = 0
