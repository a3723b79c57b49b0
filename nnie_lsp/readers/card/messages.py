"""The texts of a model card's problems (English, Simplified Chinese), by message id.

The reader records a problem as its id and parameters (:class:`~.reader.CardProblem`); rule NN120
registers these texts (``nnie-lint --explain NN120``, the one message catalogue) and every face
renders them with :func:`render`.
"""

from __future__ import annotations

from nnie_lsp.core.lang import pick

MESSAGES: dict[str, tuple[str, str]] = {
    "syntax": ("TOML syntax error: {error}", "TOML 语法错误：{error}"),
    "not_array": ("write [[model]] (two brackets): a card holds one [[model]] table per source model",
                  "请写作 [[model]]（两层方括号）：卡片中每个源模型一个 [[model]] 表"),
    "model_type": ("`model` must be [[model]] tables, not {got}", "`model` 必须是 [[model]] 表，而不是 {got}"),
    "unknown_top": ("unknown key `{key}` at the top of the card: it holds [[model]] tables{hint}",
                    "卡片顶层的未知配置项 `{key}`：卡片只包含 [[model]] 表{hint}"),
    "unknown_key": ("unknown key `{key}` in [[model]]{hint}", "[[model]] 中的未知配置项 `{key}`{hint}"),
    "did_you_mean": (" — did you mean `{suggestion}`?", "——是否应为 `{suggestion}`？"),
    "std_key": ("unknown key `{key}`: the card takes `scale`, what the pixels are multiplied by after the mean, "
                "which is 1/std", "未知配置项 `{key}`：卡片使用 `scale`，即减均值之后像素乘以的系数，等于 1/std"),
    "nested": ("`{key}` is a table: [[model]] takes plain values (see `nnie-lint --explain NN120`)",
               "`{key}` 是一个表：[[model]] 只接受普通值（见 `nnie-lint --explain NN120`）"),
    "required": ("this [[model]] has no `prototxt`: the card cannot tell which net it describes",
                 "此 [[model]] 没有 `prototxt`：无法知道它描述的是哪个网络"),
    "type": ("`{key}` must be {expected}, not {got}", "`{key}` 必须是{expected}，而不是{got}"),
    "choice": ("`{key}` {value} is not one of {choices}", "`{key}` 的值 {value} 不是 {choices} 之一"),
    "length": ("`{key}` holds {count} values; channel_order {order} takes {expected}",
               "`{key}` 有 {count} 个值；channel_order {order} 需要 {expected}"),
    "length_no_order": ("`{key}` holds {count} values: one, or one per channel (3 for RGB/BGR, 1 for GRAY)",
                        "`{key}` 有 {count} 个值：应为一个，或每个通道一个（RGB/BGR 为 3 个，GRAY 为 1 个）"),
    "empty_list": ("`{key}` is an empty list", "`{key}` 是空列表"),
    "not_finite": ("`{key}` holds a value that is not a finite number", "`{key}` 中有不是有限数的值"),
    "scale_positive": ("`scale` must be positive (got {value})", "`scale` 必须为正数（当前为 {value}）"),
    "mean_unit": ("`mean` {values}: every value is below 1, but the card's mean is in 0-255 pixel units, "
                  "subtracted before the scale; transforms.Normalize's mean on ToTensor() data (÷255) is "
                  "[{pixels}] here",
                  "`mean` {values}：每个值都小于 1，但卡片中的均值以 0–255 像素为单位，在缩放之前减去；"
                  "ToTensor()（÷255）之后的 transforms.Normalize 均值在此应写作 [{pixels}]"),
    "scale_unit": ("`scale` {value} multiplies the pixels (after the mean): (x - mean) / std is scale = 1/std "
                   "= {inverse}",
                   "`scale` {value} 是像素（减均值之后）乘以的系数：(x - mean) / std 对应 scale = 1/std = {inverse}"),
    "mean_twice": ("`mean` and `mean_file` both given: the card takes one of them",
                   "同时给出了 `mean` 与 `mean_file`：卡片只能取其一"),
    "missing_file": ("`{key}` {written}: no such file (looked for {looked}){hint}",
                     "`{key}` {written}：文件不存在（查找 {looked}）{hint}"),
    "did_you_mean_file": (" — did you mean {suggestion}?", "——是否应为 {suggestion}？"),
    "mean_file_kind": ("`mean_file` {written} is not a .binaryproto mean image: channel means go in `mean`",
                       "`mean_file` {written} 不是 .binaryproto 均值图像：通道均值请写在 `mean` 中"),
    "duplicate": ("a second [[model]] for {prototxt} (the first is at line {line}): the card says one thing per net",
                  "{prototxt} 的第二个 [[model]]（第一个在第 {line} 行）：每个网络只能有一种说法"),
    "no_values": ("this [[model]] declares none of channel_order, mean, mean_file, scale, transpose: there is "
                  "nothing to judge the cfg against",
                  "此 [[model]] 没有声明 channel_order、mean、mean_file、scale、transpose 中的任何一项：没有可用来检查 cfg 的内容"),
    "board_memory": ("`board_memory` {value}: bytes (an integer) or a size with a unit such as \"64 MiB\"",
                     "`board_memory` {value}：应为字节数（整数）或带单位的大小，如 \"64 MiB\""),
    "no_models": ("the card holds no [[model]] table", "卡片中没有 [[model]] 表"),
    "unreadable": ("the model card cannot be read: {reason}", "无法读取模型卡片：{reason}"),
    # value kinds named in "type"
    "kind_path": ("a path (a string)", "路径（字符串）"),
    "kind_order": ('"RGB", "BGR" or "GRAY"', '"RGB"、"BGR" 或 "GRAY"'),
    "kind_numbers": ("a number or a list of numbers", "数字或数字列表"),
    "kind_bool": ("true or false", "true 或 false"),
    "kind_text": ("a string", "字符串"),
    "kind_choice": ("a string", "字符串"),
    "kind_size": ("an integer or a string", "整数或字符串"),
}

TOML_TYPES = {bool: ("a boolean", "布尔值"), int: ("an integer", "整数"), float: ("a number", "数字"),
              str: ("a string", "字符串"), list: ("a list", "列表"), dict: ("a table", "表")}


def text(msg_id: str, lang: str = "en", **params) -> str:
    return pick(MESSAGES[msg_id], lang).format(**params)


def type_name(value, lang: str = "en") -> str:
    for t, pair in TOML_TYPES.items():
        if type(value) is t:
            return pick(pair, lang)
    return pick(("a date or time", "日期或时间"), lang)
