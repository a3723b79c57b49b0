"""When a process switches its text readers to their compiled paths (numba): one rule for every form
(:mod:`.short_g`: the mapper's six-digit ``.float``; :mod:`.fixed_e`: ``%.18e``).  numpy only: numba
is imported the first time a compiled path is loaded, never before.

The rule (:func:`kernel_for`): loading the compiled paths costs a process about 0.35-0.45 s of CPU
(importing numba, 0.16-0.21 s, then the first kernel from numba's on-disk cache, 0.17-0.26 s;
compiling into an empty cache, once per install, 1-2 s a kernel; ``benchmarks/bench_triage.py``).  So a process reads with the numpy paths until they
have cost it about as much (:data:`COMPILE_AFTER`, estimated from the bytes read and each form's
numpy cost per byte), then loads the compiled path of every form it reads: a run never spends much
more than twice what the better choice in hindsight would (a ski-rental rule).  Once one kernel is
loaded, another form's costs only its load from the cache (under 10 ms), so it is loaded on that
form's first text.  Where numba is missing, does not load with this numpy, has no
writable cache directory or a kernel fails its self-check, the numpy paths read everything: they
give the same values, bit for bit.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["COMPILE_AFTER", "kernel", "kernel_for"]

#: seconds of numpy-path parsing (estimated: bytes read x each form's numpy cost per byte) a process
#: spends before it loads the compiled paths; 0: from the first byte; None: never.  0.3 s is what
#: the numpy paths spend on about 48 MiB of the mapper's six-digit text, or 150 MB of ``%.18e``.
COMPILE_AFTER: float | None = 0.3

_SPENT = [0.0]       # estimated seconds this process has spent in the numpy paths
_KERNELS: dict = {}  # form name -> its compiled kernel, or None where it does not load


def kernel(name: str, load: Callable[[], object]):
    """The compiled kernel of the form ``name``, loaded by ``load`` on the first call (which imports
    numba and the kernel's module, runs the form's self-check and raises on any failure); None,
    for the rest of the process, where it does not load."""
    if name not in _KERNELS:
        _KERNELS[name] = None
        try:
            loaded = load()
        except Exception:  # noqa: BLE001 -- numba missing, built for another numpy, no cache dir, misreads
            return None
        _KERNELS[name] = loaded
    return _KERNELS[name]


def kernel_for(name: str, load: Callable[[], object], size: int, ns_per_byte: float):
    """The compiled kernel of the form ``name`` when a text of ``size`` bytes of it should take it
    (the rule above; ``ns_per_byte``: what the form's numpy path costs a byte), else None."""
    if COMPILE_AFTER is None:
        return None
    if name in _KERNELS:
        return _KERNELS[name]
    _SPENT[0] += size * ns_per_byte * 1e-9
    if _SPENT[0] < COMPILE_AFTER:
        return None
    return kernel(name, load)
