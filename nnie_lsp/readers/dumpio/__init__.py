"""Dump I/O: the tensors RuyiStudio, nnie_mapper, the instruction simulator, the board and generic
tools write (``docs/field-facts.md`` §10, §16.1). No triage, reference or alignment logic here.

- :mod:`.names`: the file-name grammar (every naming form, parsed once into a ``DumpName``) and the
  name key ``normalize_name``;
- :mod:`.readers`: text-float and hex-word parsers;
- :mod:`.tensor`: ``DumpTensor`` (read lazily), ``DumpSet``, ``resolve_layout``;
- :mod:`.scan`: ``scan_dumps`` (a folder or a file → ``DumpSet``);
- :mod:`.writers`: the exact real formats.

May import: core.
"""
