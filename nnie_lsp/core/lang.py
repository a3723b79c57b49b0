"""The one en/zh choice.  Every text in two languages is an ``(English, Simplified Chinese)`` pair;
:func:`pick` is the one place that chooses between them, :func:`language` says which a language tag
means.  Tiny on purpose: every lint imports it (the editor's UI strings are in :mod:`.i18n`)."""

from __future__ import annotations

LANGUAGES = ("en", "zh")


def language(lang: str | None) -> str:
    """``"zh"`` for any Chinese tag (``zh``, ``zh-cn``, ``zh_CN``, ``zh-Hans`` …), else ``"en"``
    (also for None or an empty tag): the one en/zh choice every text in two languages goes by."""
    return "zh" if lang and lang.lower().startswith("zh") else "en"


def is_zh(lang: str | None) -> bool:
    """Does `lang` ask for the Simplified Chinese texts (:func:`language`)?"""
    return language(lang) == "zh"


def pick(pair: tuple[str, str], lang: str | None) -> str:
    """The text of an ``(English, Simplified Chinese)`` pair in `lang` (:func:`language`)."""
    return pair[1] if is_zh(lang) else pair[0]
