"""Classic Mac line ends (a lone ``\\r``) are line ends everywhere: cfg, prototxt, image lists, mean
text, the reference's reading of the cfg, and ``--fix`` keeps them.  A project whose every file
ends its lines with ``\\r`` lints exactly as the same project with ``\\n``."""

from __future__ import annotations

import os
import shutil

from hypothesis import assume, given, settings, strategies as st

from nnie_lsp.cli.lint import main
from nnie_lsp.lint import lint
from nnie_lsp.project.project import load_project
from nnie_lsp.core.text import LineIndex, apply_edits, detect_newline, split_lines, TextEdit, Range

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "project")
TEXT_FILES = ("tiny_face_inst.cfg", "model.prototxt", "images.txt", "mean.txt")


def _project(tmp_path, newline: str):
    dest = tmp_path / ("cr" if newline == "\r" else "crlf" if newline == "\r\n" else "lf")
    shutil.copytree(EXAMPLE, dest)
    for name in TEXT_FILES:
        data = (dest / name).read_bytes().replace(b"\r\n", b"\n")
        (dest / name).write_bytes(data.replace(b"\n", newline.encode()))
    return dest


def _findings(folder) -> list[tuple]:
    run = lint([str(folder)])
    return sorted((os.path.basename(d.path), d.code, d.range, d.message) for d in run.diagnostics)


def test_a_project_with_cr_line_ends_lints_as_with_lf(tmp_path):
    lf, cr, crlf = (_findings(_project(tmp_path, nl)) for nl in ("\n", "\r", "\r\n"))
    assert lf and cr == lf and crlf == lf
    codes = {code for _name, code, _r, _m in cr}
    assert {"NN016", "NN301", "NN302", "NN106", "NN006"} <= codes   # prototxt, cfg, image list read


def test_the_cfg_is_read_for_the_triage_as_with_lf(tmp_path):
    """The reference and the triage read the cfg alone (load_project without the prototxt)."""
    def facts(newline):
        folder = _project(tmp_path, newline)
        project = load_project(cfg_path=str(folder / "tiny_face_inst.cfg"), load_prototxt=False)
        assert project.config is not None
        return ([(e.key, e.value) for e in project.cfg.entries], [m.values for m in project.means],
                repr(project.image_lists).replace(str(folder), "<p>"),
                repr(project.preprocessing).replace(str(folder), "<p>"))
    cr, lf = facts("\r"), facts("\n")
    assert cr == lf
    assert ("prototxt_file", "./model.prototxt") in cr[0] and cr[1] == [(104.0, 117.0, 123.0)]


def test_fix_keeps_cr_line_ends(tmp_path, capsys):
    folder = _project(tmp_path, "\r")
    assert main([str(folder), "--fix", "--exit-zero", "--quiet"]) == 0
    capsys.readouterr()
    for name in ("tiny_face_inst.cfg", "model.prototxt"):
        data = (folder / name).read_bytes()
        assert b"\n" not in data and data.count(b"\r") > 5, name
    # fixed: the findings with safe fixes are gone, and a second --fix changes nothing
    again = _findings(folder)
    assert not {"NN016", "NN301", "NN302", "NN106"} & {code for _n, code, _r, _m in again}


def test_the_server_reads_a_cr_buffer_as_lines(tmp_path):
    """An editor buffer with lone \r (Neovim's fileformat=mac sends them) is linted as lines."""
    from nnie_lsp.project.project import DiskProvider

    folder = _project(tmp_path, "\n")
    cfg = str(folder / "tiny_face_inst.cfg")
    text = (folder / "tiny_face_inst.cfg").read_text()
    as_lf = lint(cfg, provider=DiskProvider({cfg: text})).diagnostics
    as_cr = lint(cfg, provider=DiskProvider({cfg: text.replace("\n", "\r")})).diagnostics
    assert [(d.code, d.range) for d in as_cr] == [(d.code, d.range) for d in as_lf] and as_lf


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab #[]\t", max_size=8), min_size=1, max_size=8),
       st.lists(st.sampled_from(["\n", "\r", "\r\n"]), min_size=8, max_size=8))
def test_line_index_treats_every_line_end_alike(lines, ends):
    text = "".join(line + ends[i] for i, line in enumerate(lines))
    # a lone \r, then an empty line ended by \n, is one \r\n line end: not this case
    assume(all(not (ends[i] == "\r" and lines[i + 1] == "" and ends[i + 1].startswith("\n"))
               for i in range(len(lines) - 1)))
    index = LineIndex(text)
    assert [index.line_text(i) for i in range(index.line_count)] == lines + [""]
    assert [line.rstrip("\r") for line in split_lines(text)] == lines + [""]
    for offset in range(len(text) + 1):
        pos = index.position(offset)
        assert 0 <= pos.character <= len(index.line_text(pos.line))
        assert index.offset(pos) <= offset


def test_fixes_insert_the_files_own_line_end():
    cr = "[a] 1\r[b] 2\r"
    assert detect_newline(cr) == "\r" and detect_newline("x\r\ny\n") == "\r\n" and detect_newline("x") == "\n"
    end = LineIndex(cr).position(len(cr))
    assert apply_edits(cr, [TextEdit(Range(end, end), "[c] 3\n")]) == "[a] 1\r[b] 2\r[c] 3\r"
