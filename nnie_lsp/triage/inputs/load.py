"""The inputs of one comparison, read for the engine: the prototxt's graph (:func:`load_graph`),
a dump folder's dump set (:func:`scan_folder`), the findings' sources from the cfg
(:func:`read_sources`) and the user's post-processing (:func:`load_postprocess`).  Bad input is a
:class:`TriageInputError`: exit code 2 and its message, no traceback.

Importing this module loads no numpy (each function loads what it reads with).
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from nnie_lsp.readers.prototxt.graph import NetGraph
    from nnie_lsp.triage.diagnose.builder import Sources


class TriageInputError(ValueError):
    """Bad user input (missing folder, unreadable file, bad option): exit code 2, no traceback."""


def load_graph(prototxt: str | Path) -> NetGraph:
    """The prototxt's graph (the cached parse the lint and the reference share), once the
    reference's loader accepts the file: readable, parsed without syntax errors, with an input;
    :class:`TriageInputError` otherwise."""
    from nnie_lsp.readers.caffemodel import NetLoadError
    from nnie_lsp.reference.net import load_net

    p = Path(prototxt)
    if not p.is_file():
        raise TriageInputError(f"prototxt {p} does not exist")
    try:
        load_net(p)
    except NetLoadError as exc:
        raise TriageInputError(str(exc)) from exc
    from nnie_lsp.project.project import cached_prototxt
    from nnie_lsp.reference.net import read_prototxt_text

    text = read_prototxt_text(p)  # load_net read it just before: a read error was raised there
    return cached_prototxt(text, str(p))[1]  # the parse load_net just made (content-hash cache)


def load_postprocess(spec: str) -> Callable:
    """`module:function`; the module may also be a path to a .py file.  A file is registered in
    ``sys.modules`` (under a private name) before it runs, as an import would be, so that what
    needs its module at definition time (a ``@dataclass``, pickling) works."""
    import importlib.util
    import sys

    if ":" not in spec:
        raise TriageInputError(f"--postprocess needs module:function, got {spec!r}")
    mod_name, func_name = spec.rsplit(":", 1)
    try:
        if mod_name.endswith(".py") or os.sep in mod_name or "/" in mod_name:
            p = Path(mod_name)
            if not p.is_file():
                raise TriageInputError(f"--postprocess: {p} does not exist")
            name = f"_nnie_triage_postprocess_{re.sub(r'[^0-9A-Za-z_]', '_', p.stem)}"
            specm = importlib.util.spec_from_file_location(name, p)
            if specm is None or specm.loader is None:
                raise TriageInputError(f"--postprocess: {p} cannot be loaded as a Python module")
            module = importlib.util.module_from_spec(specm)
            sys.modules[name] = module
            try:
                specm.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(name, None)
                raise
        else:
            module = importlib.import_module(mod_name)
    except TriageInputError:
        raise
    except Exception as exc:
        raise TriageInputError(f"--postprocess: cannot import {mod_name}: {type(exc).__name__}: {exc}") from exc
    fn = getattr(module, func_name, None)
    if not callable(fn):
        raise TriageInputError(f"--postprocess: {mod_name} has no function {func_name}")
    return fn


def scan_folder(path: str | Path, what: str):
    """The dump set in `path` (:func:`nnie_lsp.readers.dumpio.scan.scan_dumps`); `what` names the
    folder in the :class:`TriageInputError` when it does not exist or holds no dump."""
    from nnie_lsp.readers.dumpio import scan as dumps_mod

    p = Path(path)
    if not p.exists():
        raise TriageInputError(f"{what} {p} does not exist")
    ds = dumps_mod.scan_dumps(str(p))
    if not len(ds):
        raise TriageInputError(f"{what} {p}: no dump files found ({'; '.join(ds.warnings) or 'empty'})")
    return ds


def read_sources(cfg: str | Path | None, graph: NetGraph | None, lang: str) -> Sources:
    """The findings' sources (:class:`~nnie_lsp.triage.diagnose.builder.Sources`: the cfg, the
    prototxt's graph, the language); a cfg or settings that cannot be read is a
    :class:`TriageInputError`."""
    from nnie_lsp.project.settings import SettingsError
    from nnie_lsp.triage.diagnose.builder import Sources

    try:
        return Sources.read(cfg_path=cfg, prototxt=graph.doc if graph else None, graph=graph, lang=lang)
    except SettingsError as exc:
        raise TriageInputError(str(exc)) from exc
    except OSError as exc:
        raise TriageInputError(f"cannot read cfg {cfg}: {exc.strerror or exc}") from exc
