"""Dump I/O: the tensors RuyiStudio, nnie_mapper, the instruction simulator, the board and generic
tools write (``docs/field-facts.md`` §10, §16.1). No triage, reference or alignment logic here.

- :mod:`.names`: the file-name grammar (every naming form, parsed once into a ``DumpName``) and the
  name key ``normalize_name``;
- :mod:`.readers`: text-float and hex-word parsers;
- :mod:`.tensor`: ``DumpTensor`` (read lazily), ``DumpSet``, ``resolve_layout``;
- :mod:`.scan`: ``scan_dumps`` (a folder or a file → ``DumpSet``);
- :mod:`.writers`: the exact real formats.

May import: core, readers.prototxt.
"""

import importlib

#: Where each public name lives; loaded on first use, so that ``dumpio.names`` (no numpy) can be
#: imported alone — the editor's server looks at folder names without the numerical stack.
_HOME = {
    "DumpName": "names", "normalize_name": "names", "parse_dump_name": "names",
    "QUANT_BASE": "readers", "parse_hex_words": "readers", "parse_text_floats": "readers",
    "read_hex_words": "readers", "read_text_floats": "readers",
    "scan_dumps": "scan",
    "DumpSet": "tensor", "DumpTensor": "tensor", "resolve_layout": "tensor",
    "write_bin": "writers", "write_hex": "writers", "write_inst": "writers", "write_mapper_input": "writers",
    "write_mapper_quant": "writers", "write_npy": "writers", "write_npz": "writers",
    "write_ruyi_caffe": "writers", "write_text": "writers",
}
__all__ = list(_HOME)


def __getattr__(name: str):
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
