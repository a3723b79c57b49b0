"""What ``nnie.reference`` / ``nnie.emulate`` need from the cfg, checked before anything is asked
or run: the net (``[prototxt_file]``), the trained weights (``[caffemodel_file]``) and the image
each input runs (the last line of its ``[image_list]``, the image the mapper dumps), unless the
editor gave them.

Each problem is said in the user's terms, at the cfg line that names the file, with the lint's own
words for it (NN006: "file not found … (looked in …)", "not in this checkout: Git ignores it", "a
Git LFS pointer"): the editor shows it before the output folder question, and the server refuses a
job with it (a job never starts on inputs that cannot be read).  No LSP types here.
"""

from __future__ import annotations

import os
from typing import Mapping, NamedTuple

from nnie_lsp.core import i18n
from nnie_lsp.core.diagnostics import Diagnostic
from nnie_lsp.core.text import Range

#: What each file is for the tools, and the cfg key that names it.
NEEDED = (("prototxt", "prototxt_file"), ("caffemodel", "caffemodel_file"))


class InputProblem(NamedTuple):
    message: str
    path: str          # the cfg
    range: Range       # the value of the cfg entry concerned (line 1 when it has none)
    key: str | None    # the cfg key, when the cfg has it

    def to_json(self) -> dict:
        return {"message": self.message, "path": self.path, "key": self.key,
                "line": self.range.start.line, "character": self.range.start.character,
                "end_line": self.range.end.line, "end_character": self.range.end.character}


def check(kind: str, cfg: str, paths: Mapping[str, str | None], *, images_given: bool, lang: str = "en",
          provider=None) -> list[InputProblem]:
    """The problems that keep `kind` ("reference" or "emulate") from running on `cfg`; `paths`
    holds the prototxt and caffemodel the job would use (given, or found beside the cfg)."""
    from nnie_lsp.lint import lint
    from nnie_lsp.project.repository import is_lfs_pointer

    run = lint(cfg, provider=provider, kind="cfg", lang=lang)
    project = run.project
    tool = i18n.t(f"tool.{kind}", lang)
    name = os.path.basename(cfg)
    findings = {d.range.start.line: d for d in run.diagnostics if d.code in ("NN006", "NN005")}
    out: list[InputProblem] = []
    cfg_doc = project.cfg
    if cfg_doc is None:
        return [InputProblem(i18n.t("tool.no_cfg", lang, tool=tool, cfg=name), cfg, Range.point(0, 0), None)]
    config = project.config
    for what, key in NEEDED:
        path = paths.get(what)
        entry = config.entry(key) if config is not None else None
        where = entry.value_range if entry is not None else Range.point(0, 0)
        if path and os.path.isfile(path):
            if what == "caffemodel" and is_lfs_pointer(path):
                out.append(InputProblem(i18n.t("tool.needs", lang, tool=tool, what=i18n.t(f"tool.{what}", lang),
                                               why=i18n.t("tool.lfs", lang, file=os.path.basename(path))),
                                        cfg, where, key if entry is not None else None))
            continue
        if entry is None:
            out.append(InputProblem(i18n.t("tool.unset", lang, tool=tool, what=i18n.t(f"tool.{what}", lang),
                                           cfg=name, cfg_key=key), cfg, where, None))
            continue
        said = findings.get(entry.line)
        why = said.message if said is not None else i18n.t("tool.not_found", lang, cfg_key=key, file=entry.value)
        out.append(InputProblem(i18n.t("tool.needs", lang, tool=tool, what=i18n.t(f"tool.{what}", lang), why=why),
                                cfg, where, key))
    if not images_given:
        out += _image_problems(project, findings, tool, cfg, lang)
    return out


def _image_problems(project, findings: Mapping[int, Diagnostic], tool: str, cfg: str, lang: str) -> list[InputProblem]:
    """The image each input runs: the last line of its [image_list] (module doc)."""
    config = project.config
    entries = config.entries("image_list") if config is not None else []
    if not entries:
        return [InputProblem(i18n.t("tool.unset", lang, tool=tool, what=i18n.t("tool.image", lang),
                                    cfg=os.path.basename(cfg), cfg_key="image_list"), cfg, Range.point(0, 0), None)]
    lists = {id(il.ref.entry): il for il in project.image_lists}
    out = []
    for entry in entries:
        il = lists.get(id(entry))
        what = i18n.t("tool.image", lang)
        if il is None:   # the list itself is missing or unreadable: NN006 says how
            said = findings.get(entry.line)
            why = said.message if said is not None else i18n.t("tool.not_found", lang, cfg_key="image_list", file=entry.value)
            out.append(InputProblem(i18n.t("tool.needs", lang, tool=tool, what=what, why=why), cfg, entry.value_range,
                                    "image_list"))
            continue
        if not il.lines:
            out.append(InputProblem(i18n.t("tool.needs", lang, tool=tool, what=what,
                                           why=i18n.t("tool.empty_list", lang, list=os.path.basename(il.ref.resolved))),
                                    cfg, entry.value_range, "image_list"))
            continue
        last = il.lines[-1]
        if last.resolved is None:
            why = i18n.t("tool.last_image", lang, list=os.path.basename(il.ref.resolved or il.ref.written),
                         line=last.line + 1, image=last.text)
            if getattr(last, "absent", None):
                why += i18n.t("tool.ignored", lang, rule=last.absent)
            out.append(InputProblem(i18n.t("tool.needs", lang, tool=tool, what=what, why=why), cfg, entry.value_range,
                                    "image_list"))
    return out


def first_problem_text(problems: list[InputProblem]) -> str:
    """One line for a message box or an error: ``sim.cfg:2: …`` (and how many more)."""
    first = problems[0]
    text = f"{os.path.basename(first.path)}:{first.range.start.line + 1}: {first.message}"
    if len(problems) > 1:
        text += f" (+{len(problems) - 1})"
    return text
