"""nnie_mapper ``.cfg`` support: reader (grammar + ranges), key table, typed model.

- :mod:`.reader`: :func:`parse_cfg`, :func:`read_cfg`, :func:`looks_like_mapper_cfg`
- :mod:`.keys`: :data:`KEYS`, :data:`ATC_KEYS`, :func:`lookup`, :func:`suggest`; :mod:`.values`: :func:`check_value`
- :mod:`.model`: :class:`MapperConfig`, :class:`InputGroup`
- :mod:`.paths`: :func:`cfg_bases`, :func:`resolve_path` (the one path resolution order)
- :mod:`.preprocessing`: :data:`NORM_TYPES`, :class:`InputPreprocessing` (the one reading of
  a cfg's preprocessing)

May import: core.
"""
