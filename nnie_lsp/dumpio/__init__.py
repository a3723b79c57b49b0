"""Dump I/O: the tensors RuyiStudio, nnie_mapper, the instruction simulator, the board and generic
tools write (``docs/field-facts.md`` §10, §16.1). No triage, reference or alignment logic here.

- :mod:`.names`: the file-name grammar (every naming form, parsed once into a ``DumpName``) and the
  name key ``normalize_name``;
- :mod:`.readers`: text-float and hex-word parsers;
- :mod:`.tensor`: ``DumpTensor`` (read lazily), ``DumpSet``, ``resolve_layout``;
- :mod:`.scan`: ``scan_dumps`` (a folder or a file → ``DumpSet``);
- :mod:`.writers`: the exact real formats.
"""

from .names import DumpName, normalize_name, parse_dump_name
from .readers import QUANT_BASE, parse_hex_words, parse_text_floats, read_hex_words, read_text_floats
from .scan import scan_dumps
from .tensor import DumpSet, DumpTensor, resolve_layout
from .writers import (
    write_bin,
    write_hex,
    write_inst,
    write_mapper_input,
    write_mapper_quant,
    write_npy,
    write_npz,
    write_ruyi_caffe,
    write_text,
)

__all__ = [
    "DumpName", "normalize_name", "parse_dump_name",
    "QUANT_BASE", "parse_hex_words", "parse_text_floats", "read_hex_words", "read_text_floats",
    "scan_dumps",
    "DumpSet", "DumpTensor", "resolve_layout",
    "write_bin", "write_hex", "write_inst", "write_mapper_input", "write_mapper_quant", "write_npy",
    "write_npz", "write_ruyi_caffe", "write_text",
]
