"""Lint settings: defaults, `[tool.nnie-lint]` in the nearest pyproject.toml, and overrides.

The CLI and the server both build a :class:`LintSettings`; rules only read it.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Iterable, Mapping

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.core.lang import language
from nnie_lsp.core.records import NamedTuple
from nnie_lsp.core.toml import toml_module

SOURCE_FRAMEWORKS = ("auto", "caffe", "darknet", "mxnet", "pytorch", "onnx", "tensorflow", "paddle")
RGB_FRAMEWORKS = frozenset({"darknet", "mxnet", "pytorch", "onnx", "tensorflow", "paddle"})


class SettingsError(ValueError):
    """A setting has a wrong type or value; the message says which and where."""


class LintSettings(NamedTuple):
    select: tuple[str, ...] | None = None          # None: rules enabled by default
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()   # (glob, codes)
    severity: tuple[tuple[str, Severity], ...] = ()                   # code/prefix -> severity
    source_framework: str = "auto"
    extra_inplace_pairs: tuple[tuple[str, str], ...] = ()            # (producer type, in-place type)
    lang: str = "en"
    origin: str | None = None                                          # pyproject.toml used, if any
    onnx: str | None = None   # the ONNX model the prototxt was converted from (the NN5xx checks)
    target_chip: str | None = None    # the chip the project deploys to (the .wk checks, NN605)
    board_memory: int | None = None   # bytes the board can give the model (the .wk checks, NN606)

    # ------------------------------------------------------------------ selection
    def is_selected(self, code: str, default_enabled: bool) -> bool:
        """ruff-like selection: the longest matching prefix wins; on a tie, ignore wins.

        Rules that are off by default are only enabled by their exact code (a prefix such as
        `NN3` or `ALL` does not switch them on).
        """
        def match(prefixes: Iterable[str], exact_only: bool = False) -> int:
            best = -1
            for p in prefixes:
                p = p.upper()
                if exact_only and p != code:
                    continue
                if p == "ALL":
                    best = max(best, 0)
                elif code.startswith(p):
                    best = max(best, len(p))
            return best

        exact = not default_enabled
        sel = match(self.select, exact) if self.select is not None else -1
        chosen = max(sel, match(self.extend_select, exact))
        if self.select is None and chosen < 0 and default_enabled:
            chosen = 0
        if chosen < 0:
            return False
        ign = match(self.ignore)
        return not (ign >= 0 and ign >= chosen)

    def ignored_for_path(self, code: str, path: str) -> bool:
        norm = path.replace(os.sep, "/")
        for pattern, codes in self.per_file_ignores:
            if fnmatch.fnmatch(norm, pattern) or fnmatch.fnmatch(os.path.basename(norm), pattern) \
                    or fnmatch.fnmatch(norm, "*/" + pattern):
                if any(c.upper() == "ALL" or code.startswith(c.upper()) for c in codes):
                    return True
        return False

    def severity_for(self, code: str, default: Severity) -> Severity:
        best, sev = -1, default
        for prefix, s in self.severity:
            if code.startswith(prefix.upper()) and len(prefix) > best:
                best, sev = len(prefix), s
        return sev

    def merged(self, **overrides) -> "LintSettings":
        return self._replace(**{k: v for k, v in overrides.items() if v is not None})


# ---------------------------------------------------------------------- parsing

def _codes(value, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v for v in value.replace(",", " ").split() if v]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{where} must be a list of rule codes or prefixes")
    return check_codes(tuple(v.strip().upper() for v in value), where)


_LOOKALIKES = str.maketrans({"O": "0", "I": "1", "L": "1"})


def check_codes(codes: Iterable[str], where: str) -> tuple[str, ...]:
    """`codes` (upper case) when each is ``ALL``, a rule code or the prefix of one; else a
    :class:`SettingsError` naming `where` and the closest codes: a typo (``NN3O1``, ``XYZ``) never
    switches rules off in silence."""
    from nnie_lsp.core.catalogue import known_codes   # the generated index: no rule module is imported

    codes = tuple(codes)
    known = known_codes()
    for code in codes:
        if code == "ALL" or code in known or any(k.startswith(code) for k in known):
            continue
        raise SettingsError(f"{where}: unknown rule code or prefix {code!r}{_did_you_mean(code, known)}; "
                            "nnie-lint --list-rules lists them")
    return codes


def _did_you_mean(code: str, known: frozenset[str]) -> str:
    lookalike = code[:1] + code[1:].translate(_LOOKALIKES) if code[:1] in "NT" else code
    if lookalike != code and (lookalike in known or any(k.startswith(lookalike) for k in known)):
        return f" (did you mean {lookalike}?)"   # a letter O for a zero, I or l for a one
    import difflib  # only on a typo (start-up)

    prefixes = {k[:n] for k in known for n in range(2, len(k))}
    pool = sorted(known | prefixes) if len(code) < 5 else sorted(known)
    candidates = difflib.get_close_matches(code, pool, n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(candidates)}?)" if candidates else ""


def settings_from_mapping(data: Mapping, origin: str | None = None,
                          base: LintSettings | None = None) -> LintSettings:
    """Build settings from a `[tool.nnie-lint]`-shaped mapping (also used for LSP settings)."""
    base = base or LintSettings()
    where = origin or "settings"
    known = {"select", "extend-select", "ignore", "per-file-ignores", "severity",
             "source-framework", "extra-inplace-pairs", "lang", "onnx", "target-chip", "board-memory"}
    norm = {str(k).replace("_", "-"): v for k, v in dict(data).items()}
    unknown = sorted(set(norm) - known)
    if unknown:
        raise SettingsError(f"{where}: unknown option(s) {', '.join(unknown)} "
                            f"(known: {', '.join(sorted(known))})")
    out = {}
    if "select" in norm:
        out["select"] = _codes(norm["select"], f"{where}: select")
    if "extend-select" in norm:
        out["extend_select"] = _codes(norm["extend-select"], f"{where}: extend-select")
    if "ignore" in norm:
        out["ignore"] = _codes(norm["ignore"], f"{where}: ignore")
    if "per-file-ignores" in norm:
        pfi = norm["per-file-ignores"]
        if not isinstance(pfi, Mapping):
            raise SettingsError(f"{where}: per-file-ignores must be a table of glob = [codes]")
        out["per_file_ignores"] = tuple((str(k), _codes(v, f"{where}: per-file-ignores.{k}"))
                                        for k, v in pfi.items())
    if "severity" in norm:
        sev = norm["severity"]
        if not isinstance(sev, Mapping):
            raise SettingsError(f"{where}: severity must be a table of CODE = \"error|warning|info|hint\"")
        try:
            out["severity"] = tuple((str(k).upper(), Severity.parse(str(v))) for k, v in sev.items())
        except ValueError as exc:
            raise SettingsError(f"{where}: severity: {exc}") from None
        check_codes((code for code, _sev in out["severity"]), f"{where}: severity")
    if "source-framework" in norm:
        fw = str(norm["source-framework"]).lower()
        if fw not in SOURCE_FRAMEWORKS:
            raise SettingsError(f"{where}: source-framework must be one of {', '.join(SOURCE_FRAMEWORKS)}; got {fw!r}")
        out["source_framework"] = fw
    if "extra-inplace-pairs" in norm:
        pairs = norm["extra-inplace-pairs"]
        ok = isinstance(pairs, (list, tuple)) and all(
            isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs)
        if not ok:
            raise SettingsError(f"{where}: extra-inplace-pairs must be a list of [producer type, in-place type] pairs")
        out["extra_inplace_pairs"] = tuple((a, b) for a, b in pairs)
    if "lang" in norm:
        out["lang"] = normalize_lang(str(norm["lang"]))
    if "onnx" in norm:
        value = norm["onnx"]
        if not isinstance(value, str) or not value.strip():
            raise SettingsError(f"{where}: onnx must be the path of an ONNX model (a string)")
        # relative to the pyproject.toml that names it (editor settings: as given)
        if origin and os.path.isfile(origin) and not os.path.isabs(value):
            value = os.path.join(os.path.dirname(os.path.abspath(origin)), value)
        out["onnx"] = value
    if "target-chip" in norm:
        from nnie_lsp.readers.wk.layout import CHIP_GENERATIONS, chip_named

        chip = chip_named(str(norm["target-chip"]))
        if chip is None:
            raise SettingsError(f"{where}: target-chip must be one of {', '.join(CHIP_GENERATIONS)}; "
                                f"got {norm['target-chip']!r}")
        out["target_chip"] = chip
    if "board-memory" in norm:
        out["board_memory"] = parse_memory(norm["board-memory"], f"{where}: board-memory")
    return base._replace(origin=origin or base.origin, **out)


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30,
          "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9}


def parse_memory(value, where: str) -> int:
    """A memory size: bytes (an integer), or a number with a unit -- K/M/G, KiB/MiB/GiB (binary,
    as a board's MMZ size is written), KB/MB/GB (decimal)."""
    if isinstance(value, bool):
        raise SettingsError(f"{where} must be a size such as 256 MiB or a number of bytes")
    if isinstance(value, int):
        if value <= 0:
            raise SettingsError(f"{where} must be positive; got {value}")
        return value
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(value))
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _UNITS or float(m.group(1)) <= 0:
        raise SettingsError(f"{where} must be a size such as 256 MiB, 512M, 1.5 GiB or a number of bytes; "
                            f"got {value!r}")
    return int(float(m.group(1)) * _UNITS[unit])


def normalize_lang(lang: str | None) -> str:
    """``"en"`` or ``"zh"`` for a language tag (:func:`nnie_lsp.core.lang.language`, the one en/zh choice)."""
    return language(lang)


_TOML_CACHE: dict[tuple[str, int, int], dict | Exception] = {}




def _read_toml(path: str) -> dict:
    """A pyproject.toml's content, cached by (path, mtime, size): linting a folder asks for the
    same file once per linted file.  Raises SettingsError (with the position) for a broken file."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    hit = _TOML_CACHE.get(key)
    if hit is None:
        from nnie_lsp.core import safe_io

        raw = safe_io.read_bytes(path, safe_io.SETTINGS)
        try:  # a file that never names nnie-lint has no settings for it: not parsed
            hit = toml_module().loads(raw.decode("utf-8")) if b"nnie-lint" in raw else {}
        except UnicodeDecodeError as exc:
            line = raw[:exc.start].count(b"\n") + 1
            hit = SettingsError(f"{path}: not UTF-8 text (line {line}, byte {exc.start + 1}): "
                                "its [tool.nnie-lint] settings cannot be read")
        except ValueError as exc:  # TOMLDecodeError: the message ends with "(at line L, column C)"
            last = raw.count(b"\n") + (not raw.endswith(b"\n"))
            words = str(exc).replace("(at end of document)", f"(at the end of the file, line {last})")
            hit = SettingsError(f"{path}: not valid TOML: {words}; its [tool.nnie-lint] settings cannot be read")
        if len(_TOML_CACHE) > 64:
            _TOML_CACHE.clear()
        _TOML_CACHE[key] = hit
    if isinstance(hit, Exception):
        raise hit
    return hit


def find_pyproject(start: str) -> str | None:
    """The nearest pyproject.toml with a ``[tool.nnie-lint]`` table (None: defaults).  One that
    names nnie-lint but is not valid TOML (or not UTF-8, or unreadable) is a
    :class:`SettingsError` with its position: its settings are never skipped in silence."""
    d = os.path.abspath(start)
    if os.path.isfile(d):
        d = os.path.dirname(d)
    while True:
        candidate = os.path.join(d, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                data = _read_toml(candidate)
            except SettingsError:   # names nnie-lint but cannot be read: said, never skipped
                raise
            except OSError as exc:
                raise SettingsError(f"{candidate}: cannot read: {exc.strerror or exc}") from None
            tool = data.get("tool", {})
            if isinstance(tool, dict) and "nnie-lint" in tool:
                return candidate
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def load_settings(start: str, base: LintSettings | None = None) -> LintSettings:
    """Settings from the nearest pyproject.toml with a [tool.nnie-lint] table, else defaults."""
    path = find_pyproject(start)
    if path is None:
        return base or LintSettings()
    return settings_from_mapping(_read_toml(path)["tool"]["nnie-lint"], origin=path, base=base)
