"""Checking a cfg value against its key's spec (:class:`~nnie_lsp.readers.cfg.keys.KeySpec`): type,
range, choices, length. :func:`check_value` returns a :class:`ValueCheck` with the parsed value, or
an English and a Chinese message and, when the intended value is unambiguous, a ``suggestion``
for a quick fix (``bgr`` -> ``BGR``, ``1/256`` -> ``0.00390625``). Ranges: docs/field-facts.md §3.1.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from nnie_lsp.core.records import FrozenRecord

if TYPE_CHECKING:
    from nnie_lsp.readers.cfg.keys import KeySpec

__all__ = ["ValueCheck", "check_value"]


class ValueCheck(FrozenRecord):
    ok: bool
    parsed: Any  # int / float / str; None when not ok
    message: str = ""  # English, empty when ok
    message_zh: str = ""  # Simplified Chinese, empty when ok
    suggestion: str | None = None  # replacement value text for a quick fix, if any

    @property
    def message_en(self) -> str:
        return self.message


_INT_RE = re.compile(r"^[+-]?\d+$")
_FLOAT_RE = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
# only a bad float needs it: compiled on first use (re's cache), not at start-up
_FRACTION_RE = r"^\s*([+-]?\d+(?:\.\d*)?)\s*/\s*(\d+(?:\.\d*)?)\s*$"


def _fmt(x: float) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _bad(en: str, zh: str, suggestion: str | None = None) -> ValueCheck:
    return ValueCheck(False, None, en, zh, suggestion)


def _kind_words(spec: KeySpec) -> tuple[str, str]:
    return ("an integer", "整数") if spec.kind == "int" else ("a float", "浮点数")


def _range_check(spec: KeySpec, x: float, text: str) -> ValueCheck | None:
    lo, hi = spec.minimum, spec.maximum
    lo_l = spec.bound_labels[0] or (_fmt(lo) if lo is not None else "")
    hi_l = spec.bound_labels[1] or (_fmt(hi) if hi is not None else "")
    below = lo is not None and (x < lo or (x == lo and not spec.min_inclusive))
    above = hi is not None and (x > hi or (x == hi and not spec.max_inclusive))
    if not (below or above):
        return None
    w_en, w_zh = _kind_words(spec)
    if lo is not None and hi is not None and spec.min_inclusive and spec.max_inclusive:
        return _bad(f"{spec.name} must be {w_en} from {lo_l} to {hi_l}; got {text}",
                    f"{spec.name} 必须是 {lo_l} 到 {hi_l} 之间的{w_zh}（含两端）；当前值为 {text}")
    if below:
        op, op_zh = (">=", "大于等于") if spec.min_inclusive else (">", "大于")
        return _bad(f"{spec.name} must be {w_en} {op} {lo_l}; got {text}",
                    f"{spec.name} 必须是{op_zh} {lo_l} 的{w_zh}；当前值为 {text}")
    op, op_zh = ("<=", "小于等于") if spec.max_inclusive else ("<", "小于")
    return _bad(f"{spec.name} must be {w_en} {op} {hi_l}; got {text}",
                f"{spec.name} 必须是{op_zh} {hi_l} 的{w_zh}；当前值为 {text}")


def _choices_text(choices: tuple[str, ...]) -> tuple[str, str]:
    """("be 16 or 32", "16 或 32") / ("be one of 0, 1, 2", "0、1、2 之一")."""
    if len(choices) == 2:
        return f"be {choices[0]} or {choices[1]}", f"{choices[0]} 或 {choices[1]}"
    return "be one of " + ", ".join(choices), "、".join(choices) + " 之一"


def _parse_int(spec: KeySpec, text: str) -> tuple[int | None, ValueCheck | None]:
    if _INT_RE.match(text):
        return int(text), None
    suggestion = None
    if _FLOAT_RE.match(text):
        f = float(text)
        if f.is_integer():
            suggestion = str(int(f))
    return None, _bad(f"{spec.name} must be an integer; got {text}",
                      f"{spec.name} 必须是整数；当前值为 {text}", suggestion)


def check_value(spec: KeySpec, text: str) -> ValueCheck:
    """Validate one value (``CfgEntry.value``) against a key's type, range and choices."""
    t = text.strip()
    if t == "":
        if spec.allows_empty:
            return ValueCheck(True, "")
        return _bad(f"{spec.name} has no value", f"{spec.name} 没有填写值")

    if spec.kind in ("int", "enum") and (spec.kind == "int" or spec.is_numeric_choice):
        n, err = _parse_int(spec, t)
        if err is not None:
            if spec.choices:
                c_en, c_zh = _choices_text(spec.choices)
                return _bad(f"{spec.name} must {c_en}; got {t}",
                            f"{spec.name} 的取值必须是 {c_zh}；当前值为 {t}",
                            err.suggestion if err.suggestion in spec.choices else None)
            return err
        assert n is not None
        if spec.choices and str(n) not in spec.choices:
            c_en, c_zh = _choices_text(spec.choices)
            return _bad(f"{spec.name} must {c_en}; got {t}",
                        f"{spec.name} 的取值必须是 {c_zh}；当前值为 {t}")
        bad = _range_check(spec, n, t)
        return bad or ValueCheck(True, n)

    if spec.kind == "enum":  # textual choices (RGB_order)
        if t in spec.choices:
            return ValueCheck(True, t)
        c_en, c_zh = _choices_text(spec.choices)
        fixed = next((c for c in spec.choices if c.lower() == t.lower()), None)
        case = " (upper case)" if fixed else ""
        case_zh = "（须大写）" if fixed else ""
        return _bad(f"{spec.name} must {c_en}{case}; got {t}",
                    f"{spec.name} 的取值必须是 {c_zh}{case_zh}；当前值为 {t}", fixed)

    if spec.kind == "float":
        if not _FLOAT_RE.match(t):
            suggestion = None
            m = re.match(_FRACTION_RE, t)
            if m and float(m.group(2)) != 0:
                suggestion = repr(float(m.group(1)) / float(m.group(2)))
            return _bad(f"{spec.name} must be a decimal number (e.g. 0.00390625); got {t}",
                        f"{spec.name} 必须是十进制小数（如 0.00390625）；当前值为 {t}", suggestion)
        x = float(t)
        bad = _range_check(spec, x, t)
        return bad or ValueCheck(True, x)

    if spec.kind == "string":
        if spec.max_length is not None and len(t) > spec.max_length:
            limit = spec.max_length + 1
            return _bad(f"{spec.name} must be shorter than {limit} characters; "
                        f"got {len(t)} characters",
                        f"{spec.name} 的长度必须小于 {limit} 个字符；当前为 {len(t)} 个字符")
        return ValueCheck(True, t)

    # path
    return ValueCheck(True, t)
