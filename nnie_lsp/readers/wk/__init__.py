"""The `.wk`, the compiled model ``nnie_mapper`` writes and the board loads, read as an immutable
document: :func:`read_wk` / :func:`parse_wk` give a :class:`WkModel` (header, segments with their
input and output nodes, the memory plan, the damage found) with the derived facts -- the bit-width
census of the plan, the board's memory (temp buffer plus source and destination blobs), the
board blob of every node (type, N/C/H/W, element size, stride, size: :mod:`.board`) -- and
:mod:`.describe` renders it as text, JSON and HTML.  The layout and how sure each field is live in
:mod:`.layout` (``docs/field-facts.md §18``).  Pure Python (``struct``, ``zlib``): no numpy.  This
package imports only :mod:`nnie_lsp.core.records` and :mod:`nnie_lsp.core.safe_io`; the project, the rules,
the CLI, the server and the triage import it, never the reverse.

May import: core.
"""
