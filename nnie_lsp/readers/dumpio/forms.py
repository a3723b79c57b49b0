"""The tensor dump forms as data (no numpy): one :class:`DumpForm` per real form a dump folder holds,
keyed by the name a :class:`~nnie_lsp.readers.dumpio.tensor.DumpTensor` carries in ``fmt`` (the same
strings stand in JSON manifests and outputs).  The folder scan, the loader and the alignment read a
form's properties here instead of comparing names; ``docs/formats.md`` shows the table.

A form is named by :mod:`.names` (its file-name grammar), read by the reader of its number format
(:data:`NUMBERS`, :meth:`DumpTensor.load_raw <nnie_lsp.readers.dumpio.tensor.DumpTensor.load_raw>`)
after the scan has looked in the file for what the name cannot tell (:data:`LOOKS_IN`,
:mod:`.scan`), and written by the function of :mod:`.writers` it names.  A new form is one entry
here, its name in :mod:`.names` and, for a new number format, its reader.

The board's own dump forms (``.bin`` blob memory with strides, ``.f32`` …) are read against the
``.wk``'s plan instead: :mod:`.board_forms`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DumpForm", "FORMS", "NUMBERS", "LOOKS_IN", "form_of", "TEXT_HEX", "SKIP"]

#: Number formats, each with its reader in :mod:`.tensor`: ``text`` decimal numbers
#: (:func:`~nnie_lsp.readers.dumpio.readers.read_text_floats`), ``hex`` ``%08x`` 20.12 fixed-point
#: words (:func:`~nnie_lsp.readers.dumpio.readers.read_hex_words`; a file of such a form that holds
#: MindSpore's decimal text with a header line is read as text), ``npy`` / ``npz`` numpy arrays,
#: ``bin`` raw little-endian values of the element type the scan told from the file size.  A Caffe
#: dump in the compact form (:mod:`.compact`) is told by ``DumpTensor.storage``.
NUMBERS = ("text", "hex", "npy", "npz", "bin")
#: What the scan reads in the file besides its name: ``nothing``; ``inst`` (hex words, or MindSpore
#: decimal text whose header line holds the shape); ``npy`` / ``npz`` (the array headers); ``bin``
#: (the size: element type, and which reading of the name's numbers is the shape); ``text`` (the
#: first line of a ``.hex`` of unknown origin: mapper words or text).
LOOKS_IN = ("nothing", "inst", "npy", "npz", "bin", "text")

#: What :func:`~nnie_lsp.readers.dumpio.names.parse_dump_name` answers besides a form's key: a
#: ``.hex`` file whose first line decides between ``mapper-quant`` words and ``text``, and a known
#: file that holds no tensor.
TEXT_HEX = "text-hex"
SKIP = "skip"


@dataclass(frozen=True)
class DumpForm:
    key: str                 # DumpTensor.fmt, as JSON manifests and outputs write it
    pattern: str             # the file name(s), for docs and messages
    what: str                # what the file is, in words
    numbers: str             # the number format (NUMBERS): which reader loads it
    looks_in: str            # what the scan reads in the file (LOOKS_IN)
    family: str              # the dump family a folder of it is (DumpSet.kind)
    layout: str              # how the name's dims read: "C_H_W", "C_H_W or W_H_C", "as stored", "guessed"
    writer: str | None       # the function of .writers that writes it
    count_from_name: bool    # the shape the name (or array header) gives is the element count
    whc_names: bool          # the name's dims may be written W_H_C (the values stay NCHW-flattened)
    node_numbers: bool       # names may be ``seg<s>_layer<node>``: the mapper's node number, no tensor name


FORMS: tuple[DumpForm, ...] = (
    DumpForm("ruyi-caffe", "<blob>_output<n>[_<C>_<H>_<W>]_caffe.linear.float, …_caffe.linear.npz",
             "a Caffe-side dump (RuyiStudio's %.18e text, or nnie-triage's compact exact form)",
             "text", "nothing", "ruyi-caffe", "C_H_W", "write_ruyi_caffe", True, False, False),
    DumpForm("mapper-quant", "<layer>_output<k>_<d>_<d>_<d>_quant.linear.hex",
             "an nnie_mapper mapper_quant output (%08x 20.12 fixed-point words)",
             "hex", "nothing", "mapper_quant", "C_H_W or W_H_C", "write_mapper_quant", True, True, False),
    DumpForm("mapper-input", "<layer>_input<k>_<d>_<d>_<d>_anti_quant[.linear].float",
             "an nnie_mapper mapper_quant dequantized input (six significant digits)",
             "text", "nothing", "mapper_quant", "C_H_W", "write_mapper_input", True, False, False),
    DumpForm("inst", "seg<s>_layer<node>_output<k>_inst.linear.hex, …_input(<name>)_inst.linear.hex",
             "an instruction-simulator or board dump (%08x words; MindSpore Lite: decimal text with a header)",
             "hex", "inst", "inst-sim", "C_H_W", "write_inst", False, False, True),
    DumpForm("npy", "<name>.npy", "a numpy array", "npy", "npy", "generic", "as stored", "write_npy",
             True, False, False),
    DumpForm("npz", "<file>.npz", "numpy arrays by name (one tensor per member)", "npz", "npz", "generic",
             "as stored", "write_npz", True, False, False),
    DumpForm("bin", "<name>[_<d>…].bin", "raw values (float32, uint8, float64, int32 or float16 by the size)",
             "bin", "bin", "generic", "guessed", "write_bin", True, False, False),
    DumpForm("text", "<name>[_<d>…].txt .float .csv .dat .linear .tsv .hex, fseg<s>(<idx>,<node>)_<name>.txt",
             "numbers as text", "text", "text", "generic", "guessed", "write_text", False, False, False),
)
_BY_KEY = {form.key: form for form in FORMS}


def form_of(key: str) -> DumpForm:
    """The form of a ``DumpTensor.fmt`` / ``DumpName.fmt`` (``text-hex`` is a ``text`` name until
    the scan has read its first line); ``KeyError`` for anything else."""
    return _BY_KEY["text" if key == TEXT_HEX else key]
