"""Model card rules NN120-NN124: the card's own problems, and the cfg judged against the card
(guide step 2 with the training truth declared, docs/field-facts.md §21).

The card (``nnie.toml``, :mod:`nnie_lsp.readers.card`) says how the net was trained; the cfg says what
the mapper will do.  Where both speak and disagree, the finding is certain (an error, on the cfg
line, with the card's line as related information) and its edit is exact -- unsafe, like every
preprocessing edit: it changes what the mapper computes, which is the point.  What the cfg must
hold is :mod:`nnie_lsp.readers.card.expect`.  Each fix sets only the keys of its own concern and keeps
the others' behaviour (NN122 keeps whether the norm_type scales, NN123 whether it subtracts), so
applying one never makes another rule fire (a test applies every fix of a grid of cards and cfgs).
"""

from __future__ import annotations

import os

from nnie_lsp.readers.cfg.preprocessing import CHANNEL_MEAN, MEAN_IMAGE, NO_MEAN, norm_type_for
from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.fixes import channel_mean_text, set_input_key, write_whole_file
from nnie_lsp.core.lang import pick
from nnie_lsp.core.text import Range, TextEdit
from nnie_lsp.core.registry import CARD, rule

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

_CARD_RELATED = {"card": ("the model card: {key} = {value}", "模型卡片：{key} = {value}")}


def _card_messages() -> dict:
    from nnie_lsp.readers.card.messages import MESSAGES

    return {f"card_{k}": v for k, v in MESSAGES.items()}


def _image_inputs(project):
    return [p for p in project.preprocessing if not p.is_feature_map] if project.cfg is not None else []


def _model(project):
    card = project.card
    if card is None or card.model is None or project.cfg is None:
        return None, None
    return card, card.model


def _value_text(model, key: str) -> str:
    v = getattr(model, key)
    if isinstance(v, tuple):
        return "[" + ", ".join(f"{x:g}" for x in v) + "]" if len(v) > 1 else f"{v[0]:g}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return f'"{v}"'


def _related(ctx, card, model, key: str):
    return [ctx.related("card", card.card_path, model.place(key), key=key, value=_value_text(model, key))]


def _cfg_edits(project, index: int, changes: list[tuple[str, str]]):
    """The cfg edits that give input `index` these (key, value)s; None when one cannot be placed."""
    out = []
    for key, value in changes:
        edits = set_input_key(project.cfg, project.config, index, key, value)
        if edits is None:
            return None
        out += [(project.cfg.path, e) for e in edits]
    return out


def _home(prep, *keys):
    """The first of `keys` the input has an entry for (its value), else its image_list line."""
    for key in keys:
        e = prep.entry(key)
        if e is not None:
            return e.value_range
    anchor = prep.entry("image_type") or prep.entry("image_list") or prep.entry("norm_type")
    return anchor.key_range if anchor is not None else Range.point(0, 0)


# ------------------------------------------------------------------------------------ NN120

@rule("NN120", "model-card", ERROR, step=2, needs=CARD, docs_zh='模型卡片（nnie.toml）写法有误而不能信任：TOML 语法错误、未知配置项（给出最可能的配置项）、类型错误、mean 或 scale 的个数与 channel_order 的通道数不符、channel_order 不是 RGB/BGR/GRAY、prototxt 或 mean_file 不存在（给出相近的文件名）、同一网络有两个条目，以及单位可疑的值（警告）。检查 cfg 时报告其条目的问题，并在最近的卡片没有该 cfg 的 prototxt 条目时给出提示。指南第 2 步要求确认 cfg 的预处理与训练一致，cfg 本身无法回答；卡片就是声明训练预处理的地方，因此卡片有误或不适用时必须指出，绝不悄悄使用。',
     
      summary=("The model card (nnie.toml) has a problem, or does not describe the cfg's net",
               "模型卡片（nnie.toml）有问题，或没有描述 cfg 的网络"),
      messages={**_card_messages(),
                "no_entry": ("the model card {card} has no [[model]] whose prototxt is {prototxt}: this cfg's "
                             "preprocessing is not judged against how the net was trained (add a [[model]] for it)",
                             "模型卡片 {card} 中没有 prototxt 为 {prototxt} 的 [[model]]：此 cfg 的预处理没有对照训练方式检查"
                             "（请为它添加一个 [[model]]）"),
                "no_entry_near": ("the model card {card} has no [[model]] for {prototxt}; its entry {written} names "
                                  "another path to a file of that name — did you mean {prototxt}?",
                                  "模型卡片 {card} 中没有 {prototxt} 的 [[model]]；其条目 {written} 指向同名文件的另一路径——"
                                  "是否应为 {prototxt}？"),
                "card_file": ("the model card", "模型卡片"),
                "fix_rename": ("Replace {old} with {new}", "把 {old} 改为 {new}")},
      fix="safe/unsafe")
def nn120(project, ctx):
    """
    ## What it finds
    A model card (`nnie.toml`) that cannot be trusted as written: a TOML syntax error, an unknown
    key (with the key it most likely means), a value of the wrong type, a `mean` or `scale` with
    another number of values than `channel_order` has channels, a `channel_order` other than
    `"RGB"`, `"BGR"` or `"GRAY"`, a `prototxt` or `mean_file` that does not exist (with a near
    name), two entries for one net, and values in the wrong units (a mean below 1 everywhere is a
    `transforms.Normalize` mean on [0, 1] data; a scale of 10 or more is a std) as warnings.
    Linting a cfg reports the problems of its own entry, and says (info) when the nearest card
    has no entry for the cfg's prototxt.

    ## Why
    Guide step 2 asks whether the cfg's preprocessing is the one the net was trained with; the
    cfg cannot answer that itself (docs/field-facts.md §21).  The card is where the training
    preprocessing is declared once (`channel_order`, `mean`, `scale`, `transpose`), and lint
    (NN121-NN124), `nnie-triage reference` and the editor judge the cfg against it, so a card
    that is wrong or does not apply must be said, never used silently.

    ## Example
    ```toml
    [[model]]
    prototxt = "model/yuface.prototxt"
    chanel_order = "BGR"      # unknown key: did you mean `channel_order`?
    mean = [104, 117]         # 2 values; channel_order BGR takes 1 or 3
    ```

    ## Fix
    A misspelled key that differs only in case or `-`/`_` is renamed (safe: nothing the net
    computes changes); another near key or file name is offered as an unsafe fix (check it is
    the one meant).  The rest: correct the card by hand.
    """
    card = project.card
    if card is None:
        return
    problems = card.problems if project.cfg is None else card.entry_problems()
    for p in problems:
        severity = ERROR if p.severity == "error" else WARNING
        fix = None
        if p.suggestion and p.replace is not None:
            is_key = p.msg_id in ("unknown_key", "std_key")
            new = p.suggestion if is_key else f'"{p.suggestion}"'
            old = _text_at(card.document, p.replace)
            safe = is_key and old.lower().replace("-", "_") == p.suggestion
            fix = ctx.fix("fix_rename", [(card.card_path, TextEdit(p.replace, new))], safe=safe, old=old, new=new)
        yield ctx.builder.make(pick((p.message, p.message_zh), ctx.lang), card.card_path, p.range, severity=severity,
                               fix=fix)
    if project.cfg is not None and card.model is None and card.prototxt and card.document.ok:
        yield from _no_entry(project, card, ctx)


def _text_at(doc, rng: Range) -> str:
    idx = doc.line_index
    return doc.text[idx.offset(rng.start):idx.offset(rng.end)]


def _no_entry(project, card, ctx):
    entry = project.cfg.first("prototxt_file")
    if entry is None:
        return
    rel = os.path.relpath(card.prototxt, os.path.dirname(card.card_path)).replace(os.sep, "/")
    related = [ctx.related("card_file", card.card_path, Range.point(0, 0))]
    name = os.path.basename(card.prototxt)
    near = next((m for m in card.document.models if m.prototxt and os.path.basename(m.prototxt) == name), None)
    if near is not None:
        related = [ctx.related("card_file", card.card_path, near.place("prototxt"))]
        yield ctx.diag("no_entry_near", project.cfg.path, entry.value_range, severity=INFO, related=related,
                       card=card.card_path, prototxt=f'"{rel}"', written=f'"{near.prototxt}"')
        return
    yield ctx.diag("no_entry", project.cfg.path, entry.value_range, severity=INFO, related=related,
                   card=card.card_path, prototxt=f'"{rel}"')


# ------------------------------------------------------------------------------------ NN121

@rule("NN121", "card-channel-order", ERROR, step=2, needs=CARD, docs_zh='cfg 的 [RGB_order]（未设置时为 BGR）与模型卡片为该网络声明的 channel_order 不同；或卡片的 channel_order 与网络输入的通道数不符。mapper 按 [RGB_order] 输入图像，网络若用另一种顺序训练，红蓝通道会被对调。有卡片时这是确定的（不同于 NN108 依据层名的推测）。修复把该输入的 [RGB_order] 设为卡片的顺序，会改变 mapper 的计算结果，是非安全修复。',
     
      summary=("[RGB_order] is not the channel order the model card says the net was trained on",
               "[RGB_order] 与模型卡片声明的训练通道顺序不同"),
      messages={**_CARD_RELATED,
                "order": ("[RGB_order] {now}, but the model card says the net was trained on {order} ({where}): the "
                          "mapper would feed the red and blue channels swapped — set [RGB_order] {order}",
                          "[RGB_order] 为 {now}，但模型卡片声明网络用 {order} 训练（{where}）：mapper 会把红蓝通道对调后输入——"
                          "请设置 [RGB_order] {order}"),
                "unset": ("[RGB_order] is not set, so the mapper feeds BGR, but the model card says the net was "
                          "trained on {order} ({where}): set [RGB_order] {order}",
                          "没有设置 [RGB_order]，mapper 按 BGR 输入，但模型卡片声明网络用 {order} 训练（{where}）："
                          "请设置 [RGB_order] {order}"),
                "channels": ("the model card says channel_order {order} ({card_channels} channel(s)) but the net's "
                             "input \"{name}\" has {channels}: the card or the net is wrong",
                             "模型卡片声明 channel_order 为 {order}（{card_channels} 个通道），但网络输入 \"{name}\" 有 "
                             "{channels} 个通道：卡片或网络有误"),
                "input": ("network input \"{name}\"", "网络输入 \"{name}\""),
                "fix": ("Set [RGB_order] {order} for input {index}", "为输入 {index} 设置 [RGB_order] {order}")},
      fix="unsafe")
def nn121(project, ctx):
    """
    ## What it finds
    A cfg whose `[RGB_order]` (BGR when unset) is not the `channel_order` the model card
    declares for its net; and a card whose `channel_order` does not fit the net's input (GRAY
    for a 3-channel input, RGB/BGR for a 1-channel one).

    ## Why
    Guide step 2: the mapper feeds the image in `[RGB_order]`; a net trained on the other order
    sees red and blue swapped, and every layer's similarity is lower from the data layer on.  With
    a card the order the net was trained on is known, so this is certain — unlike NN108, which
    guesses from layer names.

    ## Example
    ```
    nnie.toml: channel_order = "BGR"      (yufacedetectnet: trained on OpenCV's BGR)
    net.cfg:   [RGB_order] RGB            -> [RGB_order] BGR
    ```

    ## Fix
    Unsafe: set `[RGB_order]` to the card's order for that input (inserted when absent).  It
    changes what the mapper computes, which is the point; the card is the one to check when in
    doubt.
    """
    card, model = _model(project)
    if model is None or model.channel_order is None:
        return
    from nnie_lsp.readers.card.expect import rgb_order_now, target
    from nnie_lsp.readers.card.schema import ORDER_CHANNELS

    for prep in _image_inputs(project):
        channels = project.input_channels(prep.index)
        wanted = ORDER_CHANNELS[model.channel_order]
        if channels is not None and channels != wanted:
            inp = project.network_input(prep.index)
            related = [ctx.related("input", project.prototxt.path, inp.range, name=inp.name)] if inp else []
            yield ctx.diag("channels", card.card_path, model.place("channel_order"), related=related,
                           order=model.channel_order, card_channels=wanted, channels=channels,
                           name=inp.name if inp else "?")
            continue
        order = target(model, prep, channels).rgb_order
        now = rgb_order_now(prep)
        if order is None or now is None or now == order:
            continue
        edits = _cfg_edits(project, prep.index, [("RGB_order", order)])
        fix = ctx.fix("fix", edits, safe=False, order=order, index=prep.index) if edits else None
        msg = "unset" if prep.entry("RGB_order") is None else "order"
        yield ctx.diag(msg, project.cfg.path, _home(prep, "RGB_order"), fix=fix,
                       related=_related(ctx, card, model, "channel_order"), now=now, order=order,
                       where=model.where("channel_order"))


# ------------------------------------------------------------------------------------ NN122

@rule("NN122", "card-mean", ERROR, step=2, needs=CARD, docs_zh='cfg 减去的均值与模型卡片声明的不同：卡片有均值而 norm_type 0/3 不减均值、通道均值文件的值不同（相差超过 0.25 灰度级，即 triage 的 mean_tolerance）、卡片声明没有均值（mean = 0）却减了均值，或卡片给出通道均值而 cfg 用均值图像。均值文件的各行按网络的通道顺序（即卡片的 channel_order），因此应与卡片的 mean 完全一致。修复设置 [norm_type]（保持是否缩放不变，缩放由 NN123 判断）和 [mean_file]，并写入通道均值文件（cfg 自己的文件，或 cfg 旁的 channel_mean.txt，绝不覆盖内容不同的文件）；是非安全修复。',
     
      summary=("The mean the cfg subtracts is not the model card's", "cfg 减去的均值与模型卡片不同"),
      messages={**_CARD_RELATED,
                "not_subtracted": ("[norm_type] {norm} subtracts no mean, but the model card says the net was "
                                   "trained with {means} subtracted ({where}): set [norm_type] {new_norm} with a "
                                   "channel-mean file holding {means}",
                                   "[norm_type] {norm} 不减均值，但模型卡片声明训练时减去了 {means}（{where}）：请设置 "
                                   "[norm_type] {new_norm}，并使用包含 {means} 的通道均值文件"),
                "differs": ("the channel-mean file {file} holds {current}, but the model card says {means} "
                            "({where}): the mapper subtracts another mean than training did",
                            "通道均值文件 {file} 中为 {current}，但模型卡片声明为 {means}（{where}）：mapper 减去的均值与训练时不同"),
                "no_mean": ("[norm_type] {norm} subtracts a mean ({file}), but the model card says the net was trained "
                            "without one ({where}): set [norm_type] {new_norm} and [mean_file] null",
                            "[norm_type] {norm} 会减去均值（{file}），但模型卡片声明训练时没有减均值（{where}）："
                            "请设置 [norm_type] {new_norm} 和 [mean_file] null"),
                "image_vs_channels": ("[norm_type] {norm} subtracts the mean image {file}, but the model card gives "
                                      "the channel means {means} ({where}): a mean image equals them only where "
                                      "every channel is constant — use norm_type {new_norm} with a channel-mean file",
                                      "[norm_type] {norm} 减去均值图像 {file}，但模型卡片给出的是通道均值 {means}（{where}）："
                                      "只有每个通道都是常数时均值图像才等于它们——请使用 norm_type {new_norm} 和通道均值文件"),
                "channels_vs_image": ("[norm_type] {norm} does not subtract a mean image, but the model card names "
                                      "the mean image {image} ({where}): set [norm_type] {new_norm} and [mean_file] {rel}",
                                      "[norm_type] {norm} 不减均值图像，但模型卡片指定了均值图像 {image}（{where}）："
                                      "请设置 [norm_type] {new_norm} 和 [mean_file] {rel}"),
                "other_image": ("[mean_file] {file} is not the mean image the model card names ({image}, {where}): "
                                "set [mean_file] {rel}",
                                "[mean_file] {file} 不是模型卡片指定的均值图像（{image}，{where}）：请设置 [mean_file] {rel}"),
                "fix_subtract": ("Set [norm_type] {new_norm} and write the card's means to {file}",
                                 "设置 [norm_type] {new_norm} 并把卡片的均值写入 {file}"),
                "fix_write": ("Write the card's means {means} to {file}", "把卡片的均值 {means} 写入 {file}"),
                "fix_no_mean": ("Set [norm_type] {new_norm} and [mean_file] null", "设置 [norm_type] {new_norm} 和 [mean_file] null"),
                "fix_image": ("Set [norm_type] {new_norm} and [mean_file] {rel}", "设置 [norm_type] {new_norm} 和 [mean_file] {rel}"),
                "fix_image_file": ("Set [mean_file] {rel}", "设置 [mean_file] {rel}")},
      fix="unsafe")
def nn122(project, ctx):
    """
    ## What it finds
    A cfg that subtracts another mean than the model card declares: no mean where the card has
    one (`[norm_type]` 0/3), a channel-mean file holding other values (more than 0.25 grey level
    apart, the triage's `mean_tolerance`), a mean where the card says there is none (`mean = 0`),
    or a mean image where the card gives channel means (or another mean image than the card's
    `mean_file`).

    ## Why
    Guide step 2: the mapper subtracts `[mean_file]` as `[norm_type]` says, before the scale.  A
    mean other than the one the net was trained with shifts every pixel, and the data layer no
    longer matches Caffe's.  The channel-mean file's lines follow the net's channels, which are
    the card's `channel_order`, so its values must be the card's `mean` as written.

    ## Example
    ```
    nnie.toml: mean = [104, 117, 123], scale = 1
    net.cfg:   [norm_type] 3   [mean_file] null     -> [norm_type] 5, ./channel_mean.txt (104/117/123)
    ```

    ## Fix
    Unsafe: set `[norm_type]` (keeping whether it scales: NN123 decides that) and `[mean_file]`,
    and write the channel-mean file — the cfg's own file when it has one, else
    `channel_mean.txt` beside the cfg (never over a file that holds other values).
    """
    card, model = _model(project)
    if model is None or (model.mean is None and model.mean_file is None):
        return
    from nnie_lsp.readers.card.expect import means_match, target

    texts = dict(project.card_texts)
    for prep in _image_inputs(project):
        if prep.semantics is None:
            continue    # NN003 says the norm_type is invalid
        t = target(model, prep, project.input_channels(prep.index))
        kind_now = prep.expected_mean_kind
        key = "mean_file" if model.mean_file else "mean"
        related = _related(ctx, card, model, key)
        common = dict(related=related, where=model.where(key), norm=prep.norm_type)
        if t.mean_kind == CHANNEL_MEAN and t.means is not None:
            means = ", ".join(f"{m:g}" for m in t.means)
            new_norm = norm_type_for(CHANNEL_MEAN, prep.uses_scale)
            if kind_now == CHANNEL_MEAN:
                facts = project.mean_for(prep.entry("mean_file"))
                if facts is None or facts.values is None or len(facts.values) != len(t.means):
                    continue    # unreadable or another count: NN101/NN104
                if means_match(facts.values, t.means):
                    continue
                path = os.path.abspath(facts.ref.resolved)
                fix = None
                if path in texts and texts[path] is not None:
                    fix = ctx.fix("fix_write", [write_whole_file(path, texts[path], channel_mean_text(t.means))],
                                  safe=False, means=means, file=os.path.basename(path))
                yield ctx.diag("differs", project.cfg.path, _home(prep, "mean_file"), fix=fix, **common,
                               file=facts.ref.written, current=", ".join(f"{v:g}" for v in facts.values), means=means)
            else:
                edits = _new_mean_file(project, prep, t.means, new_norm, texts)
                fix = None
                if edits is not None:
                    fix = ctx.fix("fix_subtract", edits[0], safe=False, new_norm=new_norm, file=edits[1])
                msg = "not_subtracted" if kind_now == NO_MEAN else "image_vs_channels"
                severity = ERROR if kind_now == NO_MEAN else WARNING
                yield ctx.diag(msg, project.cfg.path, _home(prep, "norm_type"), fix=fix, severity=severity,
                               **common, means=means, new_norm=new_norm,
                               file=prep.mean_file.written if prep.mean_file else "-")
        elif t.mean_kind == NO_MEAN and kind_now != NO_MEAN:
            new_norm = norm_type_for(NO_MEAN, prep.uses_scale)
            edits = _cfg_edits(project, prep.index, [("norm_type", str(new_norm)), ("mean_file", "null")])
            fix = ctx.fix("fix_no_mean", edits, safe=False, new_norm=new_norm) if edits else None
            yield ctx.diag("no_mean", project.cfg.path, _home(prep, "norm_type"), fix=fix, **common,
                           new_norm=new_norm, file=prep.mean_file.written if prep.mean_file else "-")
        elif t.mean_kind == MEAN_IMAGE and t.mean_image:
            rel = os.path.relpath(t.mean_image, os.path.dirname(project.cfg.path)).replace(os.sep, "/")
            rel = rel if rel.startswith(".") else "./" + rel
            new_norm = norm_type_for(MEAN_IMAGE, prep.uses_scale)
            if kind_now != MEAN_IMAGE:
                edits = _cfg_edits(project, prep.index, [("norm_type", str(new_norm)), ("mean_file", rel)])
                fix = ctx.fix("fix_image", edits, safe=False, new_norm=new_norm, rel=rel) if edits else None
                yield ctx.diag("channels_vs_image", project.cfg.path, _home(prep, "norm_type"), fix=fix, **common,
                               image=model.mean_file, new_norm=new_norm, rel=rel)
            elif prep.mean_file is not None and prep.mean_file.resolved and not _same(prep.mean_file.resolved,
                                                                                       t.mean_image):
                edits = _cfg_edits(project, prep.index, [("mean_file", rel)])
                fix = ctx.fix("fix_image_file", edits, safe=False, rel=rel) if edits else None
                yield ctx.diag("other_image", project.cfg.path, _home(prep, "mean_file"), fix=fix, **common,
                               file=prep.mean_file.written, image=model.mean_file, rel=rel)


def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.normpath(os.path.abspath(a))) == os.path.normcase(os.path.normpath(b))


def _new_mean_file(project, prep, means, new_norm, texts):
    """(edits, file name): [norm_type], [mean_file] and a channel-mean file beside the cfg that is
    missing or already holds these values; None when every candidate holds other values."""
    from nnie_lsp.readers.card.expect import means_match
    from nnie_lsp.readers.cfg.preprocessing import parse_channel_means
    from nnie_lsp.readers.card.expect import NEW_MEAN_FILES

    folder = os.path.dirname(project.cfg.path)
    content = channel_mean_text(means)
    for name in NEW_MEAN_FILES:
        path = os.path.join(folder, name)
        if path not in texts:
            continue
        current = texts[path]
        if current is not None:
            values = parse_channel_means(current).values
            if values is None or not means_match(values, means):
                continue
        cfg = _cfg_edits(project, prep.index, [("norm_type", str(new_norm)), ("mean_file", f"./{name}")])
        if cfg is None:
            return None
        files = [] if current is not None else [write_whole_file(path, None, content)]
        return cfg + [(f.path, f.edit) for f in files], name
    return None


# ------------------------------------------------------------------------------------ NN123

@rule("NN123", "card-scale", ERROR, step=2, needs=CARD, docs_zh='mapper 实际使用的缩放（norm_type 3/4/5 时为 [data_scale]，未设置时为默认 1/256；0/1/2 时为 1）与模型卡片的 scale 不同（比值偏离 1 超过 1.5e-3，即 triage 的 fit_scale_tolerance；1/255 与 1/256 相差 3.9e-3）。有卡片时这取代 NN106 的推测。修复设置 [data_scale]（不存在时插入），cfg 的 norm_type 不缩放时同时改为会缩放的 norm_type，卡片为 1 且没有写 [data_scale] 时改为不缩放的 norm_type；是否减均值保持不变。非安全修复。',
     
      summary=("The scale the mapper applies is not the model card's", "mapper 使用的缩放与模型卡片不同"),
      messages={**_CARD_RELATED,
                "differs": ("[data_scale] {now}, but the model card says the net was trained with scale {needed} "
                            "({where}): set [data_scale] {value}",
                            "[data_scale] 为 {now}，但模型卡片声明训练时的缩放为 {needed}（{where}）：请设置 [data_scale] {value}"),
                "defaulted": ("[data_scale] is not set, so the mapper multiplies by its default 1/256, but the model "
                              "card says the net was trained with scale {needed} ({where}): set [data_scale] {value}",
                              "没有设置 [data_scale]，mapper 乘以默认值 1/256，但模型卡片声明训练时的缩放为 {needed}（{where}）："
                              "请设置 [data_scale] {value}"),
                "defaulted_one": ("[data_scale] is not set, so [norm_type] {norm} multiplies by the default 1/256, "
                                  "but the model card says the net was trained unscaled ({where}): set [norm_type] "
                                  "{new_norm}",
                                  "没有设置 [data_scale]，[norm_type] {norm} 会乘以默认值 1/256，但模型卡片声明训练时未缩放"
                                  "（{where}）：请设置 [norm_type] {new_norm}"),
                "not_scaling": ("[norm_type] {norm} does not scale (×1), but the model card says the net was trained "
                                "with scale {needed} ({where}): set [norm_type] {new_norm} and [data_scale] {value}",
                                "[norm_type] {norm} 不做缩放（×1），但模型卡片声明训练时的缩放为 {needed}（{where}）："
                                "请设置 [norm_type] {new_norm} 和 [data_scale] {value}"),
                "fix_scale": ("Set [data_scale] {value} for input {index}", "为输入 {index} 设置 [data_scale] {value}"),
                "fix_norm_scale": ("Set [norm_type] {new_norm} and [data_scale] {value}",
                                   "设置 [norm_type] {new_norm} 和 [data_scale] {value}"),
                "fix_norm": ("Set [norm_type] {new_norm}", "设置 [norm_type] {new_norm}")},
      fix="unsafe")
def nn123(project, ctx):
    """
    ## What it finds
    A cfg whose effective scale — `[data_scale]` under norm_type 3/4/5 (the default 1/256 when
    unset), 1 under 0/1/2 — is not the model card's `scale` (a ratio more than 1.5e-3 from 1, the
    triage's `fit_scale_tolerance`: 1/255 against 1/256 is 3.9e-3).

    ## Why
    Guide step 2: the mapper multiplies the pixels (after the mean) by one scale.  A net trained
    on x/255 fed x/256 sees every activation 0.4 % smaller — invisible to the cosine, visible in
    the magnitudes; a net trained on [-1, 1] fed 0-255 is broken.  With a card the training scale
    is known, so this replaces NN106's guess.

    ## Example
    ```
    nnie.toml: scale = 0.00392156862745098     (1/255)
    net.cfg:   [norm_type] 3   (no [data_scale]: 1/256)   -> [data_scale] 0.0039215686
    ```

    ## Fix
    Unsafe: set `[data_scale]` (inserted when absent), with the norm_type that scales when the
    cfg's does not (0 → 3, 1 → 4, 2 → 5), or the one that does not scale when the card says 1 and
    no `[data_scale]` is written.  Whether a mean is subtracted is kept (NN122 decides that).
    """
    card, model = _model(project)
    if model is None or model.scale is None or model.uniform_scale is None:
        return
    from nnie_lsp.readers.card.expect import current_scale, scale_matches, scale_text

    needed = model.uniform_scale
    related = _related(ctx, card, model, "scale")
    for prep in _image_inputs(project):
        now = current_scale(prep)
        if now is None or scale_matches(now, needed):
            continue
        kind_now = prep.expected_mean_kind
        value = scale_text(needed)
        common = dict(related=related, where=model.where("scale"), needed=f"{needed:g}", value=value,
                      norm=prep.norm_type)
        if prep.uses_scale and scale_matches(needed, 1.0) and prep.data_scale_defaulted:
            new_norm = norm_type_for(kind_now, False)
            edits = _cfg_edits(project, prep.index, [("norm_type", str(new_norm))])
            fix = ctx.fix("fix_norm", edits, safe=False, new_norm=new_norm) if edits else None
            yield ctx.diag("defaulted_one", project.cfg.path, _home(prep, "norm_type"), fix=fix, **common,
                           new_norm=new_norm)
        elif prep.uses_scale:
            edits = _cfg_edits(project, prep.index, [("data_scale", value)])
            fix = ctx.fix("fix_scale", edits, safe=False, value=value, index=prep.index) if edits else None
            msg = "defaulted" if prep.data_scale_defaulted else "differs"
            yield ctx.diag(msg, project.cfg.path, _home(prep, "data_scale", "norm_type"), fix=fix, **common,
                           now=prep.entry("data_scale").value if prep.entry("data_scale") else "")
        else:
            new_norm = norm_type_for(kind_now, True)
            edits = _cfg_edits(project, prep.index, [("norm_type", str(new_norm)), ("data_scale", value)])
            fix = ctx.fix("fix_norm_scale", edits, safe=False, value=value, new_norm=new_norm) if edits else None
            yield ctx.diag("not_scaling", project.cfg.path, _home(prep, "norm_type"), fix=fix, **common,
                           new_norm=new_norm)


# ------------------------------------------------------------------------------------ NN124

@rule("NN124", "card-not-in-cfg", ERROR, step=2, needs=CARD, docs_zh='模型卡片声明了 cfg 无法表达的预处理：逐通道不同的 scale（1/std 归一化，错误），以及 transpose = true（提示：图像必须在 mapper 之前和板端转置）。mapper 的预处理只有通道顺序、一个均值和一个缩放，不能转置；做不到的部分必须在图像中完成或折叠进第一层。',
     
      summary=("The model card declares preprocessing a cfg cannot express", "模型卡片声明的预处理无法用 cfg 表达"),
      messages={**_CARD_RELATED,
                "per_channel": ("the model card's scale differs per channel ({scales}, {where}): one [data_scale] "
                                "cannot express it — multiply the first convolution's weights of each input channel "
                                "by its scale and set [data_scale] 1 (norm_type {norm_hint})",
                                "模型卡片的缩放逐通道不同（{scales}，{where}）：一个 [data_scale] 无法表达——请把第一个卷积中"
                                "每个输入通道的权重乘以该通道的缩放，并设置 [data_scale] 1（norm_type {norm_hint}）"),
                "transposed": ("the model card says the net was trained on transposed images (H and W swapped, "
                               "{where}): no cfg key makes the mapper transpose — the images of [image_list] and the "
                               "board input must be transposed by the application (`nnie-triage emulate --transpose` "
                               "feeds them so)",
                               "模型卡片声明网络用转置图像（H 与 W 互换）训练（{where}）：没有 cfg 配置项能让 mapper 转置——"
                               "[image_list] 中的图像与板端输入必须由应用程序转置（`nnie-triage emulate --transpose` 即如此输入）")})
def nn124(project, ctx):
    """
    ## What it finds
    Preprocessing the model card declares that no cfg key can make the mapper do: a `scale` that
    differs per channel (1/std normalization, error), and `transpose = true` (info: the images
    must be transposed before the mapper and on the board).

    ## Why
    Guide step 2: the mapper's preprocessing is a channel order, one mean and ONE scale; it
    cannot transpose.  What it cannot do must be done before it (in the images) or folded into
    the first layer, else the data layer differs from Caffe's whatever the cfg says.

    ## Example
    ```toml
    scale = [0.01712, 0.01751, 0.01743]   # transforms.Normalize's std: one [data_scale] cannot say it
    transpose = true                      # MTCNN (MATLAB Caffe)
    ```

    ## Fix
    None in the cfg: fold the per-channel scale into the first convolution's weights (each input
    channel's weights times its scale, `[data_scale] 1`), and transpose the calibration and board
    images.
    """
    card, model = _model(project)
    if model is None:
        return
    inputs = _image_inputs(project)
    if model.scale is not None and model.uniform_scale is None and inputs:
        prep = inputs[0]
        norm_hint = "5" if model.mean is not None or model.mean_file else "3"
        yield ctx.diag("per_channel", project.cfg.path, _home(prep, "data_scale", "norm_type"),
                       related=_related(ctx, card, model, "scale"), where=model.where("scale"), norm_hint=norm_hint,
                       scales=", ".join(f"{s:g}" for s in model.scale))
    if model.transpose:
        for prep in inputs:
            yield ctx.diag("transposed", project.cfg.path, _home(prep, "image_list"), severity=INFO,
                           related=_related(ctx, card, model, "transpose"), where=model.where("transpose"))


__all__ = ["nn120", "nn121", "nn122", "nn123", "nn124"]
