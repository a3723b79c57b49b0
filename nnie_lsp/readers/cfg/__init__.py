"""nnie_mapper ``.cfg`` support: reader (grammar + ranges), key table, typed model.

- :mod:`.reader`: :func:`parse_cfg`, :func:`read_cfg`, :func:`looks_like_mapper_cfg`
- :mod:`.keys`: :data:`KEYS`, :data:`ATC_KEYS`, :func:`lookup`, :func:`suggest`; :mod:`.values`: :func:`check_value`
- :mod:`.model`: :class:`MapperConfig`, :class:`InputGroup`
- :mod:`.paths`: :func:`cfg_bases`, :func:`resolve_path` (the one path resolution order)
- :mod:`.preprocessing`: :data:`NORM_TYPES`, :class:`InputPreprocessing` (the one reading of
  a cfg's preprocessing)
"""

# The names below are imported from their submodules on first use (PEP 562 ``__getattr__``),
# so importing one submodule does not load every other one (nnie-lint's start-up).
_EXPORTS = {
    "ATC_KEYS": (".keys", "ATC_KEYS"),
    "KEYS": (".keys", "KEYS"),
    "PER_INPUT_KEYS": (".keys", "PER_INPUT_KEYS"),
    "SHAREABLE_PER_INPUT_KEYS": (".keys", "SHAREABLE_PER_INPUT_KEYS"),
    "VENDOR_KEYS": (".keys", "VENDOR_KEYS"),
    "ForeignKey": (".keys", "ForeignKey"),
    "KeySpec": (".keys", "KeySpec"),
    "ValueCheck": (".values", "ValueCheck"),
    "check_value": (".values", "check_value"),
    "is_null_path": (".keys", "is_null_path"),
    "lookup": (".keys", "lookup"),
    "suggest": (".keys", "suggest"),
    "EntryCheck": (".model", "EntryCheck"),
    "InputGroup": (".model", "InputGroup"),
    "MapperConfig": (".model", "MapperConfig"),
    "PerInputMismatch": (".model", "PerInputMismatch"),
    "canonical_key": (".model", "canonical_key"),
    "ResolvedPath": (".paths", "ResolvedPath"),
    "cfg_bases": (".paths", "cfg_bases"),
    "resolve_path": (".paths", "resolve_path"),
    "resolve_written": (".paths", "resolve_written"),
    "DEFAULT_DATA_SCALE": (".preprocessing", "DEFAULT_DATA_SCALE"),
    "IMAGE_TYPES": (".preprocessing", "IMAGE_TYPES"),
    "NORM_TYPES": (".preprocessing", "NORM_TYPES"),
    "InputPreprocessing": (".preprocessing", "InputPreprocessing"),
    "input_preprocessing": (".preprocessing", "input_preprocessing"),
    "norm_semantics": (".preprocessing", "norm_semantics"),
    "CfgComment": (".reader", "CfgComment"),
    "CfgDocument": (".reader", "CfgDocument"),
    "CfgEntry": (".reader", "CfgEntry"),
    "CfgSyntaxError": (".reader", "CfgSyntaxError"),
    "looks_like_mapper_cfg": (".reader", "looks_like_mapper_cfg"),
    "parse_cfg": (".reader", "parse_cfg"),
    "read_cfg": (".reader", "read_cfg"),
}


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nnie_lsp.readers.cfg import keys, model, paths, preprocessing, reader, values  # static: all on first use

    sources = {".keys": keys, ".model": model, ".paths": paths, ".preprocessing": preprocessing, ".reader": reader,
               ".values": values}
    module, attribute = _EXPORTS[name]
    value = getattr(sources[module], attribute)
    globals()[name] = value
    return value


__all__ = [
    "ATC_KEYS", "KEYS", "PER_INPUT_KEYS", "SHAREABLE_PER_INPUT_KEYS", "VENDOR_KEYS",
    "ForeignKey", "KeySpec", "ValueCheck", "check_value", "is_null_path", "lookup", "suggest",
    "EntryCheck", "InputGroup", "MapperConfig", "PerInputMismatch", "canonical_key",
    "CfgComment", "CfgDocument", "CfgEntry", "CfgSyntaxError", "looks_like_mapper_cfg",
    "parse_cfg", "read_cfg",
    "ResolvedPath", "cfg_bases", "resolve_path", "resolve_written",
    "DEFAULT_DATA_SCALE", "IMAGE_TYPES", "NORM_TYPES", "InputPreprocessing", "input_preprocessing",
    "norm_semantics",
]
