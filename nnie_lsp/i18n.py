"""UI strings of the language server (hover labels, action titles, errors), English + Simplified Chinese.

Engine texts (diagnostic messages, fix titles, rule docs) come from the rule registry in the
language asked of :func:`nnie_lsp.lint.lint_project`; this catalogue only holds the strings the
editor features add around them.  ``tests/lsp/test_features.py`` checks that every id has both texts
and the same ``{placeholders}``.
"""

from __future__ import annotations

from typing import Mapping

UI: Mapping[str, tuple[str, str]] = {
    # code actions
    "action.disable_line": ("Disable {code} for this line", "在此行禁用 {code}"),
    "action.fix_all": ("Fix all safe nnie-lint problems", "修复所有可安全自动修复的 nnie-lint 问题"),
    "action.unsafe_suffix": (" (unsafe: review the change)", "（非安全修复：请检查改动）"),
    # hover: cfg
    "hover.key": ("nnie_mapper key", "nnie_mapper 配置项"),
    "hover.values": ("Values", "取值"),
    "hover.range": ("Range", "范围"),
    "hover.default": ("Default", "默认值"),
    "hover.no_default": ("no default", "无默认值"),
    "hover.required": ("Required", "必填"),
    "hover.repeatable": ("one per network input, in prototxt input order",
                         "每个网络输入一项，按 prototxt 输入顺序"),
    "hover.source": ("Source", "来源"),
    "hover.alias": ("spelling variant of [{preferred}]", "[{preferred}] 的另一种拼写"),
    "hover.value": ("Value {value}", "取值 {value}"),
    "hover.resolved": ("Resolves to `{path}`", "解析为 `{path}`"),
    "hover.not_found": ("File not found (looked in: {where})", "文件不存在（查找位置：{where}）"),
    "hover.foreign_key": ("Not an nnie_mapper key", "不是 nnie_mapper 配置项"),
    "hover.unknown_key": ("Unknown key", "未知配置项"),
    "hover.did_you_mean": ("Did you mean [{key}]?", "是否应为 [{key}]？"),
    # hover: prototxt
    "hover.layer_type": ("Layer type", "层类型"),
    "hover.support.supported": ("Supported on NNIE (standard layer)", "NNIE 支持（标准层）"),
    "hover.support.extension": ("Supported on NNIE (extension layer)", "NNIE 支持（扩展层）"),
    "hover.support.cpu": ("Runs on the CPU (splits the net into NNIE segments)",
                          "在 CPU 上运行（会把网络切分为多个 NNIE 段）"),
    "hover.support.unsupported": ("Not supported by nnie_mapper", "nnie_mapper 不支持"),
    "hover.unknown_type": ("Unknown layer type `{type}`", "未知层类型 `{type}`"),
    "hover.limits": ("Limits", "限制"),
    "hover.permute": ("The mapper inserts a Permute after this layer: compare its output with the "
                      "Permute's (see cnn_net_tree.dot).",
                      "mapper 会在该层后插入 Permute：精度对比时应与插入的 Permute 输出比较"
                      "（见 cnn_net_tree.dot）。"),
    "hover.inplace_ok": ("May run in place (top == bottom).", "可原位计算（top == bottom）。"),
    "hover.training_only": ("Training-only layer: remove it before mapping.",
                            "仅用于训练的层：转换前请删除。"),
    "hover.blob": ("Blob", "Blob"),
    "hover.net_input": ("Network input", "网络输入"),
    "hover.produced_by": ("Produced by", "产生自"),
    "hover.consumers": ("Read by", "被以下层读取"),
    "hover.no_consumers": ("not read by any layer (network output)", "没有层读取（网络输出）"),
    "hover.no_producer": ("never produced before it is read", "读取前没有任何层产生该 blob"),
    "hover.inplace_chain": ("In-place chain", "原位计算链"),
    "hover.shape": ("Shape", "形状"),
    "hover.line": ("line {line}", "第 {line} 行"),
    "hover.layer": ("Layer", "层"),
    # hover: the mapper's view of a layer (cnn_net_tree.dot; features/hover.py)
    "hover.mapper.title": ("The mapper's view (`{file}`)", "mapper 的视图（`{file}`）"),
    "hover.mapper.node": ("Node `{node}`: {type}", "节点 `{node}`：{type}"),
    "hover.mapper.segment": ("Segment {segments}", "段 {segments}"),
    "hover.mapper.node_types": ("Node type(s): {types}", "节点类型：{types}"),
    "hover.mapper.output": ("Output size: {size}", "输出尺寸：{size}"),
    "hover.mapper.bit_mode": ("data_bit_mode {value} (raw value: its meaning is undocumented)",
                              "data_bit_mode {value}（原始值：含义未公开）"),
    "hover.mapper.inserted": ("Followed by mapper-inserted node `{node}` ({details})",
                              "其后是 mapper 插入的节点 `{node}`（{details}）"),
    "hover.mapper.reported": ("Reported as `{node}` (segment {segment})", "作为 `{node}` 输出（段 {segment}）"),
    "hover.mapper.absent": ("No node named `{layer}` in `{file}`: the mapper merged it into another node, "
                            "or the file is from another version of the net.",
                            "`{file}` 中没有名为 `{layer}` 的节点：mapper 把它合并进了其他节点，或该文件来自另一版本的网络。"),
    "hover.field": ("Field", "字段"),
    "hover.rule": ("Rule", "规则"),
    "hover.unknown_code": ("Unknown rule code `{code}`", "未知规则代码 `{code}`"),
    # rename / navigation errors
    "rename.empty": ("The new name is empty", "新名称为空"),
    "rename.bad_chars": ("A name cannot contain quotes, backslashes or line breaks",
                         "名称不能包含引号、反斜杠或换行"),
    "rename.blob_exists": ("Cannot rename: a blob named \"{name}\" already exists (line {line})",
                           "无法重命名：已存在名为 \"{name}\" 的 blob（第 {line} 行）"),
    "rename.layer_exists": ("Cannot rename: a layer named \"{name}\" already exists (line {line})",
                            "无法重命名：已存在名为 \"{name}\" 的层（第 {line} 行）"),
    "rename.nothing": ("Nothing to rename here: place the cursor on a layer name or a blob name",
                       "此处没有可重命名的内容：请把光标放在层名或 blob 名上"),
    # formatting
    "format.syntax_errors": ("Cannot format {file}: it has syntax errors (first at line {line}: {message})",
                             "无法格式化 {file}：存在语法错误（第一个在第 {line} 行：{message}）"),
    # settings / server
    "settings.invalid": ("nnie-lsp: invalid settings ({error}); using the defaults",
                         "nnie-lsp：设置无效（{error}），已改用默认设置"),
    "settings.bad_run": ("lint.run must be \"onType\" or \"onSave\", got {value!r}",
                         "lint.run 必须是 \"onType\" 或 \"onSave\"，实际为 {value!r}"),
    "settings.bad_language": ("language must be \"auto\", \"en\" or \"zh-cn\", got {value!r}",
                              "language 必须是 \"auto\"、\"en\" 或 \"zh-cn\"，实际为 {value!r}"),
    "settings.bad_debounce": ("lint.debounce must be a number of milliseconds (0-10000), got {value!r}",
                              "lint.debounce 必须是 0-10000 之间的毫秒数，实际为 {value!r}"),
    "settings.bad_type": ("{key} must be {what}", "{key} 必须是{what}"),
    "settings.unknown": ("unknown setting(s) {keys}", "未知设置项 {keys}"),
    "server.lint_failed": ("nnie-lsp: linting {file} failed: {error}", "nnie-lsp：检查 {file} 失败：{error}"),
    "server.handler_failed": ("nnie-lsp: {method} failed: {error}", "nnie-lsp：{method} 失败：{error}"),
    # triage
    "triage.title": ("NNIE triage", "NNIE 精度排查"),
    "triage.running": ("comparing dumps… {seconds} s", "正在比较 dump 数据…{seconds} 秒"),
    "triage.done": ("done: {verdict}", "完成：{verdict}"),
    "triage.cancelled": ("cancelled", "已取消"),
    "triage.failed": ("nnie-triage failed (exit {code}): {error}", "nnie-triage 运行失败（退出码 {code}）：{error}"),
    "triage.bad_args": ("nnie.triage expects one object {{reference, sim, cfg?, prototxt?, sim16?}}: {error}",
                        "nnie.triage 需要一个对象参数 {{reference, sim, cfg?, prototxt?, sim16?}}：{error}"),
    "triage.low": ("cosine {cosine} against Caffe is below {threshold} ({status}){hint}",
                   "与 Caffe 的余弦相似度 {cosine} 低于 {threshold}（{status}）{hint}"),
    "triage.first": (": first divergence", "：首个分歧层"),
}


def t(key: str, lang: str = "en", **kwargs) -> str:
    """The UI string `key` in `lang` ("en" or "zh"), formatted with `kwargs`."""
    pair = UI[key]
    text = pair[1] if lang.startswith("zh") else pair[0]
    return text.format(**kwargs)
