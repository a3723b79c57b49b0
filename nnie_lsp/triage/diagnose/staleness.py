"""NNIE dumps made with other inputs than the ones triage reads now (T008), or that only file times
suggest are older than the cfg (T009); both registered here beside the code that emits them.

How it is known, best first:

- an emulation ``nnie-triage emulate`` wrote: its manifest (``nnie-triage-dumps.json``) holds the
  content record of every input that decides what it computes (:mod:`..inputs.run_record`: the
  preprocessing with the mean file's values, compile_mode, the net, the weights, the images, the
  model card, the other keys) — exact; a value-neutral change (a comment, a reformatted mean file)
  is no change.  Older manifests hold the cfg's key values only (``cfg_keys``), compared as text;
- the mapper's own dumps that an earlier triage of this cfg saw (the record beside the cfg,
  :mod:`..store`, holds the same content record and the dump folder's stamp): when the folder is
  unchanged since that run and the inputs changed, the dumps predate the change — exact;
- otherwise, the mapper's dumps whose newest file is older than the cfg's last change: file times
  only (a copy or a checkout reorders them), so T009 is an info hint and no fix is withheld.

When the dumps are known to predate the inputs (T008), T008 comes first and every other finding's
fix is withheld: a fix computed from dumps of the old cfg may undo what changed since (T102
proposing ``[RGB_order] BGR`` right after the user set RGB); such a finding's message is replaced by
the wording of what it found without its advice (never the undo).  Importing this module loads no numpy.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from collections.abc import Mapping

from nnie_lsp.core.diagnostics import Diagnostic, Severity
from nnie_lsp.rules.triage_common import register_finding

#: Keys that do not change what the mapper (or the emulation) computes.
IRRELEVANT_KEYS = frozenset({"instruction_name", "is_simulation", "log_level", "is_check_prototxt"})
#: The cfg must be newer than the newest dump by more than this (seconds) for the time hint.
MTIME_MARGIN_S = 2.0
_ENTRY = re.compile(r"^\s*\[([A-Za-z_][\w.]*)\]\s*(.*?)\s*$")


def cfg_values(text: str) -> dict[str, list[str]]:
    """key -> its values in order (a key repeats once per network input), comments dropped."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        m = _ENTRY.match(line)
        if m:
            out.setdefault(m.group(1), []).append(m.group(2))
    return out


def cfg_digest(cfg: str | Path | None) -> str | None:
    """SHA-256 of the cfg's text (the manifest says which cfg text the dumps were made with)."""
    if cfg is None:
        return None
    try:
        text = Path(cfg).read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def newest_dump_mtime(folder: str | Path) -> float | None:
    """The modification time of the newest file in `folder` and its direct sub-folders (dot-files
    left out), or None."""
    newest = None
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    subs = [e for e in entries if e.is_dir() and not e.name.startswith(".")]
    for sub in subs:
        try:
            entries += list(os.scandir(sub.path))
        except OSError:
            continue
    for entry in entries:
        try:
            if entry.is_file() and not entry.name.startswith("."):
                t = entry.stat().st_mtime
                newest = t if newest is None else max(newest, t)
        except OSError:
            continue
    return newest


def record_now(cfg: str | Path, manifest: Mapping | None) -> dict:
    """The content record of the inputs as they are now, made with the options the run had
    (those its manifest records; a mapper folder has none)."""
    from nnie_lsp.triage.inputs.run_options import RunOptions
    from nnie_lsp.triage.inputs.run_record import run_record

    options = None
    if manifest is not None and isinstance(manifest.get("options"), Mapping):
        folder = manifest.get("_folder") or "."
        options = RunOptions.from_manifest(manifest, folder, str(cfg))
    return run_record(str(cfg), prototxt=options.prototxt if options else None,
                      caffemodel=options.caffemodel if options else None,
                      images=list(options.image) if options else (),
                      overrides=options.overrides if options else None)


def check(cfg: str | Path | None, sim: str | Path | None, manifest: dict | None, earlier=None) -> dict | None:
    """None when the NNIE dumps in `sim` are not known to predate the inputs of `cfg`; else
    ``{"how": "record" | "earlier" | "manifest", "changes": [(key, old, new), …]}`` (T008) or
    ``{"how": "mtime", "dumps": …, "cfg": …}`` (T009, a hint).  `earlier`: the stored result of an
    earlier triage of this cfg (:class:`..store.StoredTriage`), for the mapper's own dumps."""
    if cfg is None or sim is None or not Path(cfg).is_file() or not Path(sim).is_dir():
        return None
    from nnie_lsp.triage.inputs.run_record import changes as record_changes

    recorded = (manifest or {}).get("inputs_record")
    if isinstance(recorded, dict):
        now = record_now(cfg, {**manifest, "_folder": str(sim)})
        found = record_changes(recorded, now)
        return {"how": "record", "changes": found, "folder": str(sim)} if found else None
    legacy = (manifest or {}).get("cfg_keys")
    if isinstance(legacy, dict):   # an emulation of an older nnie-triage: the cfg's key values
        now = _legacy_keys(cfg)
        found = []
        for key in sorted(set(legacy) | set(now)):
            old, new = legacy.get(key) or [], now.get(key) or []
            if list(old) != list(new):
                found.append((key, ", ".join(map(str, old)) or "-", ", ".join(new) or "-"))
        return {"how": "manifest", "changes": found, "folder": str(sim)} if found else None
    if manifest is not None:   # an emulation of an older nnie-triage: no record, and its file times say little
        return None
    seen = _seen_by_earlier(earlier, sim)
    if seen is not None:
        found = record_changes(seen, record_now(cfg, None))
        return {"how": "earlier", "changes": found, "folder": str(sim)} if found else None
    newest = newest_dump_mtime(Path(sim))
    cfg_time = Path(cfg).stat().st_mtime
    if newest is None or cfg_time <= newest + MTIME_MARGIN_S:
        return None
    import datetime

    def iso(t: float) -> str:
        return datetime.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")

    return {"how": "mtime", "dumps": iso(newest), "cfg": iso(cfg_time), "folder": str(sim)}


def _legacy_keys(cfg) -> dict[str, list[str]]:
    try:
        text = Path(cfg).read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return {}
    return {k: v for k, v in cfg_values(text).items() if k not in IRRELEVANT_KEYS}


def _seen_by_earlier(earlier, sim) -> dict | None:
    """The content record an earlier triage made when it read these very dumps (the folder's stamp
    unchanged since), else None."""
    if earlier is None:
        return None
    from nnie_lsp.triage.store import folder_stamp

    recorded = (earlier.result.get("inputs") or {}).get("inputs_record") if isinstance(earlier.result, dict) else None
    stamp = earlier.stamps.get("sim") if isinstance(earlier.stamps, Mapping) else None
    if not isinstance(recorded, dict) or not stamp or earlier.input_path("sim") is None:
        return None
    if os.path.abspath(earlier.input_path("sim")) != os.path.abspath(str(sim)) or folder_stamp(str(sim)) != stamp:
        return None
    return recorded


def is_predating(stale: Mapping | None) -> bool:
    """The dumps are known to predate the inputs (T008: fixes withheld), not only hinted (T009)."""
    return stale is not None and stale.get("how") != "mtime"


register_finding(
    __name__,
    "T008", "dumps-older-than-cfg", Severity.WARNING, 1,
    summary=("The NNIE dumps were made with other inputs than the cfg's now", "NNIE dump 的输入与当前 cfg 不同"),
    messages={
        "emulation": ("the NNIE dumps were made with other inputs than the cfg's now ({changes}): regenerate the "
                      "emulation (`nnie-triage compare --regenerate`, or \"Regenerate and triage again\" in the "
                      "editor); the findings below describe the old inputs and their fixes are withheld",
                      "NNIE dump 的输入与当前 cfg 不同（{changes}）：请重新生成仿真"
                      "（`nnie-triage compare --regenerate`，或编辑器中的\"Regenerate and triage again\"）；"
                      "以下结论描述的是旧输入，其修复已暂不提供"),
        "earlier": ("the NNIE dumps in {folder} are the same files an earlier triage of this cfg read, and since then "
                    "{changes}: re-run nnie_mapper with the cfg as it is now; the findings below describe the old "
                    "inputs and their fixes are withheld",
                    "{folder} 中的 NNIE dump 与此前一次分析读取的文件相同，而此后 {changes}：请用当前 cfg 重新运行 "
                    "nnie_mapper；以下结论描述的是旧输入，其修复已暂不提供"),
        "withheld": ("fix withheld: the NNIE dumps predate the cfg (T008)",
                     "修复暂不提供：NNIE dump 早于当前 cfg（T008）"),
    },
    docs="""
    ## What it finds
    NNIE dumps made with other inputs than those triage reads now: an emulation whose manifest
    (`nnie-triage-dumps.json`) records, by content, other preprocessing (the cfg's keys, the mean
    file's values), another compile_mode, net, weights, image list or images, or another model
    card; or the mapper's own dumps that an earlier triage of this cfg read (its record beside the
    cfg, `.nnie-triage/`) and that are unchanged since, while those inputs changed.  A change that
    changes no value (a comment, a reformatted mean file, another file with the same numbers) is
    not one.

    ## Why
    Every finding compares the Caffe side with what the NNIE side computed, and the NNIE side
    follows the inputs it was made with.  After a fix (T102 `[RGB_order] RGB`, T104's mean file),
    the old dumps still show the old problem, and a fix computed from them would undo the one just
    made.  So the other findings' fixes are withheld, and their messages say what the old dumps
    show without advice, until the dumps are made again: guide step 1 (compare every layer on one
    image) needs both sides made with the same inputs.

    ## Example
    ```
    T008 the NNIE dumps were made with other inputs than the cfg's now (RGB_order: BGR → RGB):
    regenerate the emulation
    ```

    ## Fix
    None in the cfg: run nnie_mapper again with the current cfg, or, for an emulation nnie-triage
    wrote, `nnie-triage compare --cfg … --regenerate` (the editor: `nnie.triage` with
    `regenerate: true`).
    """,
    docs_zh="NNIE dump 的输入与 triage 当前读取的不同：仿真的清单（nnie-triage-dumps.json）按内容记录的预处理（cfg 配置项、均值文件的数值）、"
            "compile_mode、网络、权重、图像列表或图像、模型卡与当前不同；或此前一次分析读取过且此后未变的 mapper dump，而这些输入已改变。"
            "不改变任何数值的修改（注释、重新排版的均值文件）不算。修改后旧 dump 仍显示旧问题，根据它算出的修复会撤销刚做的修改，"
            "因此其它结论的修复暂不提供，其消息只说明旧 dump 上看到的情况。请用当前 cfg 重新运行 nnie_mapper，或对 nnie-triage 生成的仿真使用 "
            "`nnie-triage compare --regenerate`。")


register_finding(
    __name__,
    "T009", "dumps-may-predate-cfg", Severity.INFO, 1,
    summary=("By file times only, the NNIE dumps may predate the cfg", "仅从文件时间看，NNIE dump 可能早于 cfg"),
    messages={
        "mtime": ("the newest NNIE dump in {folder} is from {dumps}, the cfg changed at {cfg}: if the cfg's change "
                  "matters, re-run nnie_mapper (file times only — a copy or a checkout reorders them — so no fix "
                  "is withheld)",
                  "{folder} 中最新的 NNIE dump 时间为 {dumps}，cfg 修改于 {cfg}：若 cfg 的修改有影响，请重新运行 nnie_mapper"
                  "（仅根据文件时间——复制或检出会打乱时间——因此不暂停任何修复）"),
    },
    docs="""
    ## What it finds
    The mapper's own dumps (no manifest of nnie-triage, no earlier triage that read them) whose
    newest file is older than the cfg's last change.

    ## Why
    Guide step 1 compares dumps made with the cfg in use.  File times are a hint, not a fact:
    copying a project, a checkout or a comment edit makes a cfg newer than dumps that describe it
    exactly.  So this is information only and no fix is
    withheld; T008 is given when the content of the inputs is known to differ.  A triage of these
    dumps records their inputs beside the cfg (`.nnie-triage/`), so that the next one knows.

    ## Example
    ```
    T009 the newest NNIE dump in mapper_quant is from 2024-05-02 10:00:00, the cfg changed at
    2024-05-02 11:30:00: if the cfg's change matters, re-run nnie_mapper
    ```

    ## Fix
    None: re-run nnie_mapper if the cfg's change matters.
    """,
    docs_zh="mapper 自己的 dump（没有 nnie-triage 清单，也没有此前读取过它们的分析）中最新的文件早于 cfg 的最后修改。"
            "文件时间只是提示：复制项目、检出或修改注释都会使 cfg 比准确描述它的 dump 更新，因此这只是提示，不暂停任何修复；"
            "确知输入内容不同时给出 T008。")


def add_finding(builder, stale: dict) -> None:
    """T008 first (on the first changed key), or the T009 hint (on the cfg's first entry)."""
    from nnie_lsp.triage.inputs.run_record import cfg_key_of

    src = builder.sources
    if stale["how"] == "mtime":
        builder.add("T009", "mtime", place=src.cfg_home(), folder=stale["folder"], dumps=stale["dumps"],
                    cfg=stale["cfg"])
        return
    changes = "; ".join(f"{k}: {old} → {new}" for k, old, new in stale["changes"])
    key = cfg_key_of(stale["changes"][0][0])
    place = (src.cfg_place(key) if key else None) or src.cfg_home()
    builder.add("T008", "earlier" if stale["how"] == "earlier" else "emulation", place=place,
                cfg_key=key if key and src.cfg_place(key) else None, changes=changes, folder=stale.get("folder"))


#: The next step when the NNIE dumps predate the inputs (T008): the guide's step for the old dumps
#: would act on them ("fix the preprocessing in the cfg" may be the undo of the fix just made).
REMAKE_STEP = {
    "emulation": ("step 1: regenerate the emulation with the current cfg (nnie-triage compare --regenerate), "
                  "then triage again: the findings describe the dumps of the old inputs"),
    "mapper": ("step 1: re-run nnie_mapper with the current cfg, then triage again: the findings describe the "
               "dumps of the old inputs"),
}


def remake_step(stale: Mapping) -> str:
    """The next step in words for dumps known to predate the inputs (T008)."""
    return REMAKE_STEP["mapper" if stale.get("how") == "earlier" else "emulation"]


def is_stale(findings) -> bool:
    """A result's findings (JSON objects) hold T008: its NNIE dumps predate the inputs."""
    return any(isinstance(f, Mapping) and f.get("code") == "T008" for f in findings or [])


def withhold_fixes(builder, items: list[Diagnostic]) -> list[Diagnostic]:
    """Every finding's fix removed (T008's reason appended to a message not already worded for it)."""
    note = builder.text("T008", "withheld")
    out = []
    for d in items:
        if d.fix is None or d.code == "T008":
            out.append(d)
            continue
        worded = "T008" in d.message
        out.append(d._replace(fix=None, alternatives=(), message=d.message if worded else f"{d.message} ({note})"))
    return out
