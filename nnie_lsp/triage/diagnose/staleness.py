"""NNIE dumps made with an older cfg than the one triage reads (T008, registered here beside the
code that emits it).

Two ways to know:

- an emulation ``nnie-triage emulate`` wrote: its manifest (``nnie-triage-dumps.json``) records
  the digest of the cfg text and the values of its keys (:func:`cfg_record`); a relevant key whose
  value differs from the cfg's now is a change the dumps do not reflect (exact);
- dumps of another tool (nnie_mapper): the newest dump file is older than the cfg's last change
  (file modification times: a hint only — a copy or a checkout can reorder them).

When the dumps predate the cfg, T008 comes first and every other finding's fix is withheld: a fix
computed from dumps of the old cfg may undo what changed since (T102 proposing ``[RGB_order] BGR``
right after the user set RGB).  The finding's text stays, with a note that the fix is withheld.
Importing this module loads no numpy.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from collections.abc import Mapping

from ...diagnostics import Diagnostic, Severity
from ...rules.triage_common import register_finding

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


def cfg_record(cfg: str | Path | None) -> dict:
    """What an emulation's manifest records of the cfg it was made with: ``cfg_sha256`` (its whole
    text) and ``cfg_keys`` (each relevant key's values)."""
    if cfg is None:
        return {}
    try:
        text = Path(cfg).read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return {}
    keys = {k: v for k, v in cfg_values(text).items() if k not in IRRELEVANT_KEYS}
    return {"cfg_sha256": hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest(), "cfg_keys": keys}


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


def check(cfg: str | Path | None, sim: str | Path | None, manifest: dict | None) -> dict | None:
    """None when the NNIE dumps in `sim` are not known to predate `cfg`; else ``{"how": "manifest",
    "changes": [(key, old, new), …]}`` or ``{"how": "mtime", "dumps": …, "cfg": …}`` (ISO times)."""
    if cfg is None or sim is None or not Path(cfg).is_file() or not Path(sim).is_dir():
        return None
    recorded = (manifest or {}).get("cfg_keys")
    if isinstance(recorded, dict):
        now = cfg_record(cfg).get("cfg_keys", {})
        changes = []
        for key in sorted(set(recorded) | set(now)):
            old, new = recorded.get(key) or [], now.get(key) or []
            if list(old) != list(new):
                changes.append((key, ", ".join(map(str, old)) or "-", ", ".join(new) or "-"))
        return {"how": "manifest", "changes": changes, "folder": str(sim)} if changes else None
    if manifest is not None:   # an emulation of an older nnie-triage: no record, and its file times say little
        return None
    newest = newest_dump_mtime(Path(sim))
    cfg_time = Path(cfg).stat().st_mtime
    if newest is None or cfg_time <= newest + MTIME_MARGIN_S:
        return None
    import datetime

    def iso(t: float) -> str:
        return datetime.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")

    return {"how": "mtime", "dumps": iso(newest), "cfg": iso(cfg_time), "folder": str(sim),
            "emulation": manifest is not None and manifest.get("command") == "emulate"}


register_finding(
    __name__,
    "T008", "dumps-older-than-cfg", Severity.WARNING, 1,
    summary=("The NNIE dumps were made with an older cfg", "NNIE dump 是用旧的 cfg 生成的"),
    messages={
        "emulation": ("the NNIE dumps were made with the old cfg ({changes}): re-run nnie_mapper, or regenerate the "
                      "emulation (`nnie-triage compare --regenerate`, or \"Regenerate and triage again\" in the "
                      "editor); the findings below describe the old cfg and their fixes are withheld",
                      "NNIE dump 是用旧的 cfg 生成的（{changes}）：请重新运行 nnie_mapper，或重新生成仿真"
                      "（`nnie-triage compare --regenerate`，或编辑器中的\"Regenerate and triage again\"）；"
                      "以下结论描述的是旧 cfg，其修复已暂不提供"),
        "mtime": ("the NNIE dumps were made with the old cfg: re-run nnie_mapper, or regenerate the emulation "
                  "(judged by file times only: the newest dump in {folder} is from {dumps}, the cfg changed at "
                  "{cfg}); the findings below may describe the old cfg and their fixes are withheld",
                  "NNIE dump 是用旧的 cfg 生成的：请重新运行 nnie_mapper，或重新生成仿真（仅根据文件时间判断："
                  "{folder} 中最新的 dump 时间为 {dumps}，cfg 修改于 {cfg}）；以下结论可能描述的是旧 cfg，其修复已暂不提供"),
        "withheld": ("fix withheld: the NNIE dumps predate the cfg (T008)",
                     "修复暂不提供：NNIE dump 早于当前 cfg（T008）"),
    },
    docs="""
    ## What it finds
    NNIE dumps made with another cfg than the one triage reads: an emulation whose manifest
    (`nnie-triage-dumps.json`) records other values of the cfg's keys, or mapper dumps whose
    newest file is older than the cfg's last change (file times: a hint only).

    ## Why
    Every finding compares the Caffe side with what the NNIE side computed, and the NNIE side
    follows the cfg it was made with.  After a fix to the cfg (T102 `[RGB_order] RGB`), the old
    dumps still show the old problem, and a fix computed from them would undo the one just made.
    So the other findings' fixes are withheld until the dumps are made again: guide step 1 (compare
    every layer on one image) needs both sides made with the same cfg.

    ## Example
    ```
    T008 the NNIE dumps were made with the old cfg (RGB_order: BGR → RGB): re-run nnie_mapper, or
    regenerate the emulation
    ```

    ## Fix
    None in the cfg: run nnie_mapper again with the current cfg, or, for an emulation nnie-triage
    wrote, `nnie-triage compare --cfg … --regenerate` (the editor: `nnie.triage` with
    `regenerate: true`).
    """,
    docs_zh="NNIE dump 不是用 triage 读取的当前 cfg 生成的：仿真的清单（nnie-triage-dumps.json）记录的 cfg 配置项取值与当前不同，"
            "或 mapper dump 中最新的文件早于 cfg 的最后修改（仅根据文件时间，作为提示）。NNIE 侧的结果取决于生成它时的 cfg；"
            "修改 cfg 后（如 T102 设置 [RGB_order] RGB），旧 dump 仍显示旧问题，根据它算出的修复会撤销刚做的修改，因此其它结论的修复暂不提供。"
            "请用当前 cfg 重新运行 nnie_mapper，或对 nnie-triage 生成的仿真使用 `nnie-triage compare --regenerate`。")


def add_finding(builder, stale: dict) -> None:
    """T008 first: on the first changed key (an emulation), else on the cfg's first entry."""
    src = builder.sources
    if stale["how"] == "manifest":
        changes = "; ".join(f"{k}: {old} → {new}" for k, old, new in stale["changes"])
        key = stale["changes"][0][0]
        place = src.cfg_place(key) or src.cfg_home()
        builder.add("T008", "emulation", place=place, cfg_key=key if src.cfg_place(key) else None, changes=changes)
    else:
        builder.add("T008", "mtime", place=src.cfg_home(), folder=stale["folder"], dumps=stale["dumps"],
                    cfg=stale["cfg"])


def is_stale(findings) -> bool:
    """A result's findings (JSON objects) hold T008: its NNIE dumps predate the cfg."""
    return any(isinstance(f, Mapping) and f.get("code") == "T008" for f in findings or [])


def withhold_fixes(builder, items: list[Diagnostic]) -> list[Diagnostic]:
    """Every finding's fix removed (T008's reason appended to its message)."""
    note = builder.text("T008", "withheld")
    return [d._replace(fix=None, message=f"{d.message} ({note})") if d.fix is not None and d.code != "T008" else d
            for d in items]
