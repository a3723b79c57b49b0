"""nnie_mapper ``.cfg`` support: reader (grammar + ranges), key table, typed model.

- :mod:`.reader`: :func:`parse_cfg`, :func:`read_cfg`, :func:`looks_like_mapper_cfg`
- :mod:`.keys`: :data:`KEYS`, :data:`ATC_KEYS`, :func:`lookup`, :func:`suggest`, :func:`check_value`
- :mod:`.model`: :class:`MapperConfig`, :class:`InputGroup`
- :mod:`.paths`: :func:`cfg_bases`, :func:`resolve_path` (the one path resolution order)
- :mod:`.preprocessing`: :data:`NORM_TYPES`, :class:`InputPreprocessing` (the one reading of
  a cfg's preprocessing)
"""

from .keys import (
    ATC_KEYS,
    KEYS,
    PER_INPUT_KEYS,
    SHAREABLE_PER_INPUT_KEYS,
    VENDOR_KEYS,
    ForeignKey,
    KeySpec,
    ValueCheck,
    check_value,
    is_null_path,
    lookup,
    suggest,
)
from .model import EntryCheck, InputGroup, MapperConfig, PerInputMismatch, canonical_key
from .paths import ResolvedPath, cfg_bases, resolve_path, resolve_written
from .preprocessing import (
    DEFAULT_DATA_SCALE,
    IMAGE_TYPES,
    NORM_TYPES,
    InputPreprocessing,
    input_preprocessing,
    norm_semantics,
)
from .reader import (
    CfgComment,
    CfgDocument,
    CfgEntry,
    CfgSyntaxError,
    looks_like_mapper_cfg,
    parse_cfg,
    read_cfg,
)

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
