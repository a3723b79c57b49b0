"""Where the Caffe reference's preprocessing came from (T100, registered here beside the code that
emits it): the truth must come from outside what is judged.

A comparison can only find a preprocessing mistake when the Caffe side was NOT made with the
preprocessing under test (docs/field-facts.md §21).  The reference's manifest
(``nnie-triage-dumps.json``, written by ``nnie-triage reference``) records, per value -- channel
order, mean, scale, transpose -- whether it came from an option, the model card or the cfg
(:mod:`nnie_lsp.reference.training`).  :func:`check` reads it:

- dumps without our manifest (RuyiStudio's ``output/``, the user's own pycaffe run) come from
  outside: independent;
- a reference that took a value from the cfg under test: T100 comes first, and every verdict says
  the caveat beside it (``reference_source`` in the JSON, the reports, the editor's summary);
- a reference made from another version of the card's entry than the card says now (its digest),
  or from the cfg while a card now declares the values: T100 says to make the reference again.

Importing this module loads no numpy.
"""

from __future__ import annotations

import os
from pathlib import Path

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.triage_common import register_finding

VALUE_WORDS = {"channel_order": "channel order", "mean": "mean", "scale": "scale", "transpose": "transpose"}
VALUE_WORDS_ZH = {"channel_order": "通道顺序", "mean": "均值", "scale": "缩放", "transpose": "转置"}
#: what a report says beside the verdict when the reference shares the cfg's preprocessing
CAVEAT = ("the Caffe reference shares the cfg's preprocessing ({values}): a mistake there cannot show (T100)",
          "Caffe 参考与 cfg 使用相同的预处理（{values}）：其中的错误在此对比中看不出（T100）")


register_finding(
    __name__,
    "T100", "reference-not-independent", Severity.WARNING, 2,
    summary=("The Caffe reference was made with the cfg's own preprocessing: a preprocessing mistake cannot show",
             "Caffe 参考使用了 cfg 自身的预处理：预处理错误无法显现"),
    messages={
        "from_cfg": ("the Caffe reference in {folder} took its {values} from the cfg under test, so a mistake in "
                     "{them} cannot show in this comparison: both sides share it. Declare how the net was trained "
                     "in a model card (nnie.toml beside the cfg: channel_order, mean, scale, transpose) and make "
                     "the reference again (nnie-triage reference --cfg …), or compare with Caffe dumps made "
                     "outside nnie-triage",
                     "{folder} 中的 Caffe 参考的{values}取自被检查的 cfg，因此{them}的错误在此对比中看不出：两侧相同。"
                     "请在模型卡片（cfg 旁的 nnie.toml：channel_order、mean、scale、transpose）中声明网络的训练方式，"
                     "再重新生成参考（nnie-triage reference --cfg …），或与 nnie-triage 之外生成的 Caffe dump 对比"),
        "card_now": ("the Caffe reference in {folder} took its {values} from the cfg under test, so a mistake in "
                     "{them} cannot show in this comparison; the model card {card} declares them now: make the "
                     "reference again (nnie-triage reference --cfg …) to judge the cfg against it",
                     "{folder} 中的 Caffe 参考的{values}取自被检查的 cfg，因此{them}的错误在此对比中看不出；模型卡片 {card} "
                     "现已声明这些值：请重新生成参考（nnie-triage reference --cfg …），以对照卡片检查 cfg"),
        "card_changed": ("the Caffe reference in {folder} was made with another version of the model card's entry "
                         "({card}: {declares} now): make the reference again (nnie-triage reference --cfg …)",
                         "{folder} 中的 Caffe 参考是用另一版本的模型卡片条目生成的（{card}：现为 {declares}）："
                         "请重新生成参考（nnie-triage reference --cfg …）"),
        "unrecorded": ("the Caffe reference in {folder} was written by an nnie-triage that did not record where its "
                       "preprocessing came from: unless options were given, it was the cfg's own, and a "
                       "preprocessing mistake in the cfg cannot show in this comparison; make it again (with a model "
                       "card, nnie.toml) to know",
                       "{folder} 中的 Caffe 参考由未记录预处理来源的 nnie-triage 写出：除非当时给了选项，否则它用的就是 cfg "
                       "自身的预处理，cfg 中的预处理错误在此对比中看不出；请（配合模型卡片 nnie.toml）重新生成以确认"),
    },
    docs="""
    ## What it finds
    A comparison whose Caffe reference was made by `nnie-triage reference` with a value of the
    preprocessing — channel order, mean, scale — taken from the cfg under test (no option and no
    model card gave it), or with another version of the model card than the one there now.

    ## Why
    Guide step 2 asks whether the cfg's preprocessing is the one the net was trained with.  A
    Caffe side computed with the cfg's own preprocessing agrees with the NNIE side whatever the
    cfg says: a wrong `[RGB_order]` on a BGR-trained net compares as case 4 (docs/field-facts.md
    §21).  The truth must come from outside the cfg: the model card (`nnie.toml`) or Caffe dumps
    made elsewhere (RuyiStudio, the user's own pycaffe run).  So this finding comes first, and
    the verdict carries the caveat beside it in every report and in the editor.

    ## Example
    ```
    T100 the Caffe reference in output/ took its channel order, mean and scale from the cfg under
    test, so a mistake in them cannot show in this comparison: both sides share it. Declare how
    the net was trained in a model card (nnie.toml beside the cfg …) and make the reference again
    ```

    ## Fix
    None in the cfg: write the model card (`nnie.toml`: `channel_order`, `mean`, `scale`,
    `transpose`; the editor drafts it from your inference code or Caffe dumps), then `nnie-triage
    reference --cfg …` again.
    """,
    docs_zh="对比所用的 Caffe 参考由 nnie-triage reference 生成，且其预处理（通道顺序、均值、缩放）中有值取自被检查的 cfg（没有选项或模型卡片给出），"
            "或生成时用的模型卡片与现在不同。用 cfg 自身的预处理算出的 Caffe 侧，无论 cfg 写了什么都与 NNIE 侧一致：BGR 训练的网络配 [RGB_order] RGB "
            "也会显示为情况 4。真实依据必须来自 cfg 之外：模型卡片（nnie.toml）或在别处生成的 Caffe dump。因此此发现排在最前，并在所有报告和编辑器中与结论并列显示。")


def _words(values: list[str], lang: str) -> str:
    table = VALUE_WORDS_ZH if lang == "zh" else VALUE_WORDS
    names = [table.get(v, v) for v in values]
    if lang == "zh" or len(names) < 2:
        return "、".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def check(reference: str | Path | None, card=None) -> dict:
    """Where the reference's preprocessing came from: ``{"independent": bool, "source": …}`` and,
    when it is not independent or stale, ``message`` (a T100 message id) with its parameters.
    `card` is the cfg's model card now (a :class:`~nnie_lsp.project.card_lookup.CardLookup`, or None)."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    folder = Path(reference) if reference else None
    manifest = read_manifest(folder) if folder is not None and folder.is_dir() else None
    if manifest is None or manifest.get("command") != "reference":
        return {"independent": True, "source": "outside"}   # dumps nnie-triage did not make
    shown = os.path.basename(os.path.normpath(str(folder))) + "/"
    sources = manifest.get("preprocessing_source")
    if isinstance(sources, list):
        sources = sources[0] if sources else None
    if not isinstance(sources, dict):
        return {"independent": False, "source": "unrecorded", "message": "unrecorded", "folder": shown}
    from_cfg = [k for k in ("channel_order", "mean", "scale") if sources.get(k) == "cfg"]
    out = {"independent": not from_cfg, "source": "nnie-triage reference", "sources": dict(sources),
           "from_cfg": from_cfg, "folder": shown}
    recorded = manifest.get("card") if isinstance(manifest.get("card"), dict) else None
    if recorded:
        out["card"] = {"path": recorded.get("path"), "line": recorded.get("line")}
    model = getattr(card, "model", None)
    if from_cfg:
        declared = model is not None and any(_declares(model, k) for k in from_cfg)
        out["message"] = "card_now" if declared else "from_cfg"
        if declared:
            out["card_now"] = card.where()
    elif recorded and model is not None and recorded.get("digest") and recorded.get("digest") != card.digest():
        out["message"] = "card_changed"
        out["card_now"] = card.where()
        out["declares"] = model.describe()
        out["stale"] = True
    return out


def _declares(model, key: str) -> bool:
    if key == "mean":
        return model.mean is not None or bool(model.mean_file)
    return getattr(model, key, None) is not None


def add_finding(builder, info: dict) -> None:
    """T100 on the cfg (its [RGB_order] line, else its first entry), first among the findings."""
    msg = info.get("message")
    if not msg:
        return
    src = builder.sources
    place = src.cfg_place("RGB_order") or src.cfg_home()
    values = info.get("from_cfg") or []
    lang = src.lang
    them = ("它们" if len(values) > 1 else "它") if lang == "zh" else ("them" if len(values) > 1 else "it")
    builder.add("T100", msg, place=place, folder=info.get("folder", ""), values=_words(values, lang), them=them,
                card=info.get("card_now") or "", declares=info.get("declares") or "")


def caveat(doc: dict, lang: str = "en") -> str | None:
    """The words beside the verdict of a result whose reference is not independent, else None."""
    from nnie_lsp.core.lang import pick

    info = doc.get("reference_source") if isinstance(doc, dict) else None
    if not isinstance(info, dict) or info.get("independent", True):
        return None
    values = info.get("from_cfg") or []
    if not values:
        return pick(("the Caffe reference's preprocessing source is not recorded: it may share the cfg's (T100)",
                     "Caffe 参考的预处理来源未记录：可能与 cfg 相同（T100）"), lang)
    return pick(CAVEAT, lang).format(values=_words(values, "zh" if lang == "zh" else "en"))
