"""The UI strings of the language server (hover labels, action titles,
errors), English + Simplified Chinese.

Every text in two languages is an ``(English, Simplified Chinese)`` pair; :func:`pick` is the one
place that chooses between them (:mod:`.lang`, re-exported here).  Engine texts
(diagnostic messages, fix titles, rule docs) come from the rule registry in the language asked of
:func:`nnie_lsp.lint.lint_project`; :data:`UI` only holds the strings the editor features add around
them.  ``tests/server/lsp/test_features.py`` checks that every id has both texts and the same
``{placeholders}``.
"""

from __future__ import annotations

from typing import Mapping

from nnie_lsp.core.lang import LANGUAGES, is_zh, language, pick  # noqa: F401  (the one en/zh choice, re-exported)


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
    # hover: the status words of docs/field-facts.md's tags (the English words are the page's own;
    # features/fact_tags.py)
    "facts.status.C": ("confirmed", "已确认"),
    "facts.status.C-u": ("confirmed only by user reports", "仅由用户报告确认"),
    "facts.status.I": ("inferred", "推断"),
    "facts.status.?": ("unknown", "未知"),
    "facts.corpus": ("corpus", "语料"),
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
    "triage.bad_args": ("{command} expects one object argument: {error}",
                        "{command} 需要一个对象参数：{error}"),
    "triage.low": ("cosine {cosine} against Caffe is below {threshold} ({status}){hint}",
                   "与 Caffe 的余弦相似度 {cosine} 低于 {threshold}（{status}）{hint}"),
    "triage.first": (": first divergence", "：首个分歧层"),
    # triage results in the editor (lens, stale marks, fixes, stored results, jobs)
    "triage.step.0": ("step 0 (before mapping): fix the ONNX → Caffe conversion, convert again and compare again",
                      "第 0 步（映射之前）：修正 ONNX → Caffe 转换，重新转换后再对比"),
    "triage.step.1": ("step 1: read the NNIE dumps again with the right fixed-point scale and compare again",
                      "第 1 步：用正确的定点缩放重新读取 NNIE dump 后再比较"),
    "triage.step.2": ("step 2: fix the preprocessing in the cfg", "第 2 步：修正 cfg 中的预处理"),
    "triage.step.3": ("step 3: quantization — `_hp` layers with compile_mode 2 (or compile_mode 1)",
                      "第 3 步：量化 — 用 compile_mode 2 标记 `_hp` 层（或 compile_mode 1）"),
    "triage.step.4": ("step 4: layer matching — de-inplace / compare in the right layout",
                      "第 4 步：层匹配 — 拆分原位层 / 按正确的排布比较"),
    "triage.step.5": ("step 5: check the post-processing", "第 5 步：检查后处理"),
    "triage.step.6": ("step 6: make a support bundle (nnie-triage bundle)",
                      "第 6 步：打包问题材料（nnie-triage bundle）"),
    # dumps that carry no case (nnie_lsp/triage/diagnose/bad_dumps.py): the result's `bad_dumps.kind`
    "triage.step.bad_dumps.input_size": ("step 1: make the Caffe and the NNIE dumps for one input size, then compare "
                                         "again", "第 1 步：按同一输入尺寸重新生成 Caffe 与 NNIE 的 dump，然后再比较"),
    "triage.step.bad_dumps.non_finite": ("step 1: make the dumps that hold NaN/Inf again, then compare again",
                                         "第 1 步：重新生成含有 NaN/Inf 的 dump，然后再比较"),
    "triage.summary_case": ("Case {case}: {verdict}", "情形 {case}：{verdict}"),
    "triage.summary_inconclusive": ("Inconclusive: {verdict}", "无法判定：{verdict}"),
    "triage.summary_inconclusive_bare": ("Inconclusive", "无法判定"),
    "triage.summary_first": ("; first divergence: {layer}", "；首个分歧层：{layer}"),
    "triage.summary_caveat": (" — caveat: {caveat}", "——注意：{caveat}"),
    "card.create": ("Create the model card {card} from a draft (how the net was trained, read from {files})",
                    "根据草稿创建模型卡片 {card}（网络的训练方式，读取自 {files}）"),
    "card.add": ("Add this net to the model card {card} from a draft (read from {files})",
                 "根据草稿把此网络加入模型卡片 {card}（读取自 {files}）"),
    "triage.stale": (" [stale: {reasons} — run triage again]", " [已过期：{reasons} — 请重新运行排查]"),
    "triage.stale_reason": ("{what} changed after the run", "运行后{what}已改动"),
    "triage.fixed_reason": ("{count} of its fixes applied since the run", "运行后已应用其中 {count} 个修复"),
    "triage.fixed_note": (" [fixed since the run — make the NNIE dumps again with the current cfg, then triage again to confirm]",
                          " [运行后已修复 — 请用当前 cfg 重新生成 NNIE dump，再重新排查以确认]"),
    "triage.what.cfg": ("the cfg", "cfg 文件"),
    "triage.what.prototxt": ("the prototxt", "prototxt 文件"),
    "triage.what.reference": ("the Caffe dumps", "Caffe dump 数据"),
    "triage.what.sim": ("the NNIE dumps", "NNIE dump 数据"),
    "triage.what.sim16": ("the 16-bit run's dumps", "16 比特运行的 dump 数据"),
    "triage.what.dot": ("cnn_net_tree.dot", "cnn_net_tree.dot 文件"),
    "triage.what.framework": ("the ONNX model's dumps", "ONNX 模型的 dump 数据"),
    "triage.what.onnx": ("the ONNX model", "ONNX 模型"),
    "triage.what.board": ("the board's dumps", "板端 dump 数据"),
    "triage.lens": ("NNIE triage: {summary} · next: {step}", "NNIE 精度排查：{summary} · 下一步：{step}"),
    "triage.lens_stale": ("[stale] ", "[已过期] "),
    "triage.lens_apply": ("Apply triage fixes ({count})", "应用排查修复（{count}）"),
    "triage.lens_rerun": ("Run triage again", "重新运行排查"),
    # the loop after a fix: dumps older than the cfg, regenerate, confirmed fixed
    "triage.regenerate": ("Regenerate and triage again", "重新生成仿真并再次排查"),
    "triage.remap": ("re-run nnie_mapper with the current cfg, then triage again",
                     "请用当前 cfg 重新运行 nnie_mapper，然后再次排查"),
    "triage.step.regenerate": ("regenerate the emulation with the current cfg, then triage again",
                               "用当前 cfg 重新生成仿真，然后再次排查"),
    "triage.lens_remap": ("The NNIE dumps predate the cfg: {remap}", "NNIE dump 早于当前 cfg：{remap}"),
    "triage.summary_old_dumps": ("{what}; the findings describe the old cfg", "{what}；以下结论描述的是旧 cfg"),
    "triage.old_dumps": ("The NNIE dumps were made with the old cfg", "NNIE dump 是用旧的 cfg 生成的"),
    "triage.confirmed": ("Confirmed fixed: {items}", "已确认修复：{items}"),
    "triage.save_first": ("save {file} first: the emulation is made again from the cfg on disk",
                          "请先保存 {file}：仿真将根据磁盘上的 cfg 重新生成"),
    "triage.fix_all": ("Apply all triage fixes ({count})", "应用全部排查修复（{count}）"),
    "triage.left_out": (" — {count} left out: {reason}", " — 未包含 {count} 项：{reason}"),
    "triage.cannot_create": ("this fix creates {file}, and this editor cannot create files through LSP: "
                             "create it by hand or apply the fix with nnie-triage",
                             "此修复会新建 {file}，但当前编辑器不支持通过 LSP 新建文件：请手动创建，或用 nnie-triage 应用修复"),
    "triage.exists_now": ("{file} exists now (the fix was made to create it): run triage again",
                          "{file} 现已存在（此修复原本要新建它）：请重新运行排查"),
    "triage.no_fixes": ("no triage fix applies now (none, or the result is stale: run triage again)",
                        "目前没有可应用的排查修复（没有修复，或结果已过期：请重新运行排查）"),
    "triage.report_at": ("NNIE triage report: {path}", "NNIE 精度排查报告：{path}"),
    "triage.no_result": ("no stored triage result for {what}", "{what} 没有已保存的排查结果"),
    "triage.store_failed": ("could not store the triage result: {error}", "无法保存排查结果：{error}"),
    "triage.store_unreadable": ("skipping a stored triage result: {error}", "跳过无法读取的排查结果：{error}"),
    "job.title.reference": ("NNIE reference (Caffe forward)", "NNIE 参考输出（Caffe 前向）"),
    "job.title.emulate": ("NNIE emulation", "NNIE 仿真"),
    "job.running": ("running… {seconds} s", "运行中…{seconds} 秒"),
    "job.done": ("done: {message}", "完成：{message}"),
    "job.busy": ("{command} is already running for {what}", "{command} 已在为 {what} 运行"),
    # workspace diagnostics (lint.workspace; server/workspace_lint.py)
    "workspace.title": ("NNIE: linting the workspace", "NNIE：正在检查整个工作区"),
    "workspace.scanning": ("looking for cfg and prototxt files…", "正在查找 cfg 和 prototxt 文件…"),
    "workspace.progress": ("{done}/{total} files", "{done}/{total} 个文件"),
    "workspace.done": ("workspace: {files} file(s) linted, {problems} problem(s) in the files not open ({seconds} s)",
                       "工作区：已检查 {files} 个文件，未打开的文件中有 {problems} 个问题（{seconds} 秒）"),
    "workspace.capped": ("nnie-lsp: the workspace holds more than {limit} cfg/prototxt files: only the first {limit} "
                         "are in the Problems list (workspace diagnostics, {roots}); open a sub-folder as the workspace "
                         "to cover it all",
                         "nnie-lsp：工作区中的 cfg/prototxt 文件超过 {limit} 个：问题列表只包含前 {limit} 个"
                         "（工作区诊断，{roots}）；请把子文件夹作为工作区打开以覆盖全部文件"),
    "workspace.capped_short": ("(capped at {limit} files)", "（上限 {limit} 个文件）"),
    # a missing optional package (nnie_lsp/core/extras.py): never an internal error
    "extra.missing": ("{needed_by} needs {what} (the Python module {module}), which {python} cannot import.",
                      "{needed_by}需要 {what}（Python 模块 {module}），但 {python} 无法导入它。"),
    "extra.missing_in_hook": ("{needed_by} needs {what} (the Python module {module}), which the pre-commit "
                              "hook's environment does not have.",
                              "{needed_by}需要 {what}（Python 模块 {module}），但 pre-commit 钩子的环境中没有它。"),
    "extra.fix_hook": ("To run it in the hook, use the hook id {hook} (it installs the \"{extra}\" extra) in "
                       ".pre-commit-config.yaml instead of nnie-lint.",
                       "要在钩子中运行它，请在 .pre-commit-config.yaml 中改用钩子 {hook}（它会安装 \"{extra}\" 可选依赖），"
                       "而不是 nnie-lint。"),
    "extra.fix_pip": ("Install it into that Python, then run the command again: {command} (what nnie-lsp's "
                      "\"{extra}\" extra adds).",
                      "请把它安装到该 Python 中，然后重新运行命令：{command}（即 nnie-lsp 的 \"{extra}\" 可选依赖）。"),
    "extra.fix_ensurepip": ("That virtual environment has no pip: add pip, then install it: {command}",
                            "该虚拟环境没有 pip：请先添加 pip 再安装：{command}"),
    "extra.why_managed": ("pip does not install into {python}: the system's package manager owns it (PEP 668).",
                          "pip 不会安装到 {python}：它由系统包管理器管理（PEP 668）。"),
    "extra.why_no_pip": ("{python} has no pip.", "{python} 没有 pip。"),
    "extra.fix_apt": ("Install the system's package: {apt}", "请安装系统软件包：{apt}"),
    "extra.fix_apt_or_venv": ("Install the system's package: {apt} — or make a virtual environment with it ({venv}) "
                              "and set nnie.interpreter to {venv_python}.",
                              "请安装系统软件包：{apt} — 或者创建包含它的虚拟环境（{venv}），"
                              "并把 nnie.interpreter 设为 {venv_python}。"),
    "extra.fix_venv": ("Make a virtual environment with it: {venv} — then set nnie.interpreter to {venv_python}.",
                       "请创建包含它的虚拟环境：{venv} — 然后把 nnie.interpreter 设为 {venv_python}。"),
    "extra.fix_other_python": ("Set nnie.interpreter to a Python 3.10 or newer that has pip (or {what}).",
                               "请把 nnie.interpreter 设为带有 pip（或 {what}）的 Python 3.10 或更新版本。"),
    # what nnie.reference / nnie.emulate need from the cfg (features/triage/tool_inputs.py)
    "tool.reference": ("The Caffe reference", "Caffe 参考输出"),
    "tool.emulate": ("The NNIE emulation", "NNIE 仿真"),
    "tool.prototxt": ("the net (the prototxt)", "网络（prototxt）"),
    "tool.caffemodel": ("the trained weights (the caffemodel)", "训练好的权重（caffemodel）"),
    "tool.image": ("the image it runs", "要运行的图片"),
    "tool.needs": ("{tool} needs {what}: {why}", "{tool}需要{what}：{why}"),
    "tool.unset": ("{tool} needs {what}, but {cfg} sets no [{cfg_key}] and none was found beside it: add "
                   "[{cfg_key}] to the cfg",
                   "{tool}需要{what}，但 {cfg} 没有设置 [{cfg_key}]，旁边也没有找到：请在 cfg 中添加 [{cfg_key}]"),
    "tool.not_found": ("[{cfg_key}] {file}: file not found", "[{cfg_key}] {file}：文件不存在"),
    "tool.lfs": ("{file} is a Git LFS pointer, not the file (its content was not fetched): `git lfs pull` fetches it",
                 "{file} 是 Git LFS 指针而不是文件本身（内容未下载）：`git lfs pull` 可下载"),
    "tool.empty_list": ("image list {list} names no images", "图片列表 {list} 是空的"),
    "tool.last_image": ("the last image of {list} (line {line}: {image}), the one the mapper dumps, is not found",
                        "{list} 的最后一张图片（第 {line} 行：{image}，即 mapper 导出的那张）不存在"),
    "tool.ignored": (" (not in this checkout: Git ignores it, {rule})", "（不在当前检出中：Git 忽略了它，{rule}）"),
    "tool.no_cfg": ("{tool}: {cfg} cannot be read", "{tool}：无法读取 {cfg}"),
    "job.out_not_empty": ("{out} already holds {count} file(s) of an earlier nnie-triage run: pass overwrite: true "
                          "to replace them, or choose another folder",
                          "{out} 中已有上一次 nnie-triage 运行写入的 {count} 个文件：传入 overwrite: true 以替换它们，"
                          "或选择其他文件夹"),
    "job.out_foreign": ("{out} already holds {count} dump file(s) nnie-triage did not write ({examples}): they are "
                        "never overwritten — choose another folder, or move them away first",
                        "{out} 中已有 {count} 个不是 nnie-triage 写入的 dump 文件（{examples}）：它们不会被覆盖 — "
                        "请选择其他文件夹，或先把它们移走"),
    "triage.no_dumps": ("{path} {why}: it cannot be the folder of {what} — choose the folder that holds the dump "
                        "files", "{path} {why}：它不能作为{what}的文件夹 — 请选择存放 dump 文件的文件夹"),
    "triage.several_cfgs": ("{command}: several cfgs name {prototxt} ({cfgs}): give the cfg to use",
                            "{command}：有多个 cfg 引用 {prototxt}（{cfgs}）：请指定要使用的 cfg"),
    # who wrote a dump folder found beside the cfg (nnie_lsp/triage/inputs/dump_writer.py)
    "inputs.by_mapper": ("{what} beside the cfg (written by nnie_mapper)", "cfg 旁的 {what}（由 nnie_mapper 写入）"),
    "inputs.by_ruyi_caffe": ("{what} beside the cfg (RuyiStudio's Get Caffe Output folder)",
                             "cfg 旁的 {what}（RuyiStudio 的 Get Caffe Output 文件夹）"),
    "inputs.by_emulate": ("{what} beside the cfg (an emulation written by nnie-triage emulate)",
                          "cfg 旁的 {what}（nnie-triage emulate 写入的仿真结果）"),
    "inputs.by_reference": ("{what} beside the cfg (the Caffe reference written by nnie-triage reference)",
                            "cfg 旁的 {what}（nnie-triage reference 写入的 Caffe 参考结果）"),
    "inputs.by_triage": ("{what} beside the cfg (written by nnie-triage)", "cfg 旁的 {what}（由 nnie-triage 写入）"),
    # the inlay hint of a layer with both hops (nnie_lsp/server/triage/annotations.py)
    "triage.hops": ("ONNX→Caffe {framework} · Caffe→NNIE {cosine}", "ONNX→Caffe 余弦 {framework} · Caffe→NNIE 余弦 {cosine}"),
    "triage.hop_shape": ("size differs", "尺寸不同"),
    "triage.hop_missing": ("not compared", "未比较"),
    "inputs.by_onnx_reference": ("{what} beside the cfg (ONNX Runtime, written by nnie-triage reference --onnx)",
                                 "cfg 旁的 {what}（ONNX Runtime，由 nnie-triage reference --onnx 写入）"),
    "inputs.by_onnx_name": ("{what} beside the cfg (named as nnie-triage reference --onnx names its output; no "
                            "manifest says what wrote it)",
                            "cfg 旁的 {what}（名称与 nnie-triage reference --onnx 的输出文件夹相同；没有清单说明由谁写入）"),
    "triage.prototxt_missing": ("{cfg} names the prototxt {prototxt}, which does not exist (looked for {where}): "
                                "the layers cannot be matched to the net — fix [prototxt_file] and run triage again",
                                "{cfg} 引用的 prototxt {prototxt} 不存在（查找位置：{where}）：无法把各层与网络对应 — "
                                "请修正 [prototxt_file] 后重新运行排查"),
}


def t(key: str, lang: str = "en", **kwargs) -> str:
    """The UI string `key` in `lang` ("en" or "zh"), formatted with `kwargs`."""
    return pick(UI[key], lang).format(**kwargs)
