"""The `.wk`, the compiled model ``nnie_mapper`` writes and the board loads, read as an immutable
document: :func:`read_wk` / :func:`parse_wk` give a :class:`WkModel` (header, segments with their
input and output nodes, the memory plan, the damage found) with the derived facts -- the bit-width
census of the plan, the board's memory (temp buffer plus source and destination blobs), the
board blob of every node (type, N/C/H/W, element size, stride, size: :mod:`.board`) -- and
:mod:`.describe` renders it as text, JSON and HTML.  The layout and how sure each field is live in
:mod:`.layout` (``docs/field-facts.md §18``).  Pure Python (``struct``, ``zlib``): no numpy.  This
package imports only :mod:`nnie_lsp.core.records` and :mod:`nnie_lsp.core.safe_io`; the project, the rules,
the CLI, the server and the triage import it, never the reverse.
"""

# The names below are imported from their submodules on first use (PEP 562), so reading the layout
# (the settings' chip names) does not load the reader (nnie-lint's start-up).
_EXPORTS = {
    "CHIP_GENERATIONS": "layout", "chip_named": "layout",
    "BitCensus": "model", "BoardBlob": "board", "BoardMemory": "board", "Damage": "model", "PlanRecord": "model",
    "WkModel": "model", "WkNode": "model", "WkSegment": "model",
    "WkError": "reader", "looks_like_wk": "layout", "parse_wk": "reader", "read_wk": "reader",
}


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _EXPORTS[name] == "layout":
        from nnie_lsp.readers.wk import layout as module
    else:
        from nnie_lsp.readers.wk import board, model, reader  # static: the reader side on first use
        module = {"board": board, "model": model, "reader": reader}[_EXPORTS[name]]
    value = getattr(module, name)
    globals()[name] = value
    return value


__all__ = sorted(_EXPORTS)
