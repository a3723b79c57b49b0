"""A folder's mapper logs are read: the one beside a cfg with that cfg, any other on its own (as
`nnie-lint mapper_error.log` reads it) -- a folder never skips a log the file mode reads."""

from __future__ import annotations

import shutil
from pathlib import Path

from nnie_lsp.lint import lint

DATA = Path(__file__).parents[1] / "data" / "mapper"
ATC = ("ATC start working now, please wait for a moment.\n"
       "[ERROR] op type [Upsample] of node \"Resize_120\" is not supported\n"
       "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n")


def _codes(run, name):
    return sorted(d.code for d in run.diagnostics if Path(d.path).name == name)


def test_a_log_without_a_cfg_is_read_in_folder_mode_as_in_file_mode(tmp_path):
    (tmp_path / "run").mkdir()
    shutil.copy(DATA / "mapper_error.log", tmp_path / "run" / "mapper_error.log")
    (tmp_path / "atc").mkdir()
    (tmp_path / "atc" / "convert.log").write_text(ATC, encoding="utf-8")
    folder = lint([str(tmp_path)])
    alone = lint([str(tmp_path / "run" / "mapper_error.log")])
    assert _codes(folder, "mapper_error.log") == _codes(alone, "mapper_error.log") and "NN401" in _codes(alone, "mapper_error.log")
    assert _codes(folder, "convert.log") == ["NN403", "NN403"]
    assert len(folder.mapper_logs) == 2


def test_the_log_beside_a_cfg_is_read_with_it_not_twice(tmp_path):
    shutil.copy(DATA / "mapper_error.log", tmp_path / "mapper_error.log")
    (tmp_path / "net.cfg").write_text("[prototxt_file] ./net.prototxt\n[image_type] 1\n[norm_type] 0\n"
                                      "[mean_file] null\n", encoding="utf-8")
    run = lint([str(tmp_path)])
    assert run.mapper_logs == [] and [d.code for d in run.diagnostics].count("NN402") == 1
