"""The triage reads a cfg one way, the lint's (load_project without the prototxt): the findings'
Sources and the case-1 fit get the same document, and what they got before from read_cfg (the path as
given, the entries, the encoding; the same error for a cfg that cannot be read)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from nnie_lsp.readers.cfg.reader import read_cfg
from nnie_lsp.project.project import load_project
from nnie_lsp.triage.diagnose.builder import Sources, read_cfg_project
from nnie_lsp.triage.diagnose.preprocess_fit import fit_preprocessing

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "triage" / "channel_swap"


@pytest.fixture
def work(tmp_path, monkeypatch):
    shutil.copy(EXAMPLE / "sim.cfg", tmp_path / "sim.cfg")
    for name in ("images.txt", "mean.txt"):
        if (EXAMPLE / name).exists():
            shutil.copy(EXAMPLE / name, tmp_path / name)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    return tmp_path


def test_sources_read_the_cfg_as_the_lint_does_and_as_read_cfg_did(work):
    given = "../sim.cfg"
    sources = Sources.read(cfg_path=given)
    old = read_cfg(given)
    assert sources.cfg.path == given == old.path
    assert sources.cfg == old   # entries, comments, errors, encoding, bom, newline
    assert sources.config.doc is sources.cfg
    lint = load_project(cfg_path=given, load_prototxt=False)
    assert sources.project.preprocessing == lint.preprocessing
    assert [e.value for e in sources.project.cfg.entries] == [e.value for e in lint.cfg.entries]


@pytest.mark.parametrize("name", ["missing.cfg", "."])
def test_an_unreadable_cfg_fails_as_before(work, name):
    with pytest.raises(OSError) as before:
        read_cfg(name)
    with pytest.raises(OSError) as now:
        Sources.read(cfg_path=name)
    assert now.value.strerror == before.value.strerror and str(now.value) == str(before.value)
    with pytest.raises(OSError):
        read_cfg_project(name)


def test_the_fit_reads_the_same_cfg_from_the_sources(work):
    rng = np.random.default_rng(0)
    ref = rng.normal(size=(3, 6, 6))
    sim = ref[::-1] * 0.5
    sources = Sources.read(cfg_path="../sim.cfg")
    by_path = fit_preprocessing(ref, sim, cfg_path="../sim.cfg")
    by_project = fit_preprocessing(ref, sim, cfg_path="../sim.cfg", cfg_project=sources.project)
    assert by_project.to_dict() == by_path.to_dict()
    assert by_path.edits


def test_a_case_1_diagnosis_reads_the_cfg_once(scenario_dirs, monkeypatch):
    """The fit takes the cfg the findings' Sources read (``cfg_project``), not a second reading."""
    import nnie_lsp.project.project
    from nnie_lsp.triage.pipeline import run_compare
    from nnie_lsp.triage.diagnose import builder

    p = scenario_dirs("channel_swap")
    reads: list[str] = []

    def counting(load):
        def load_project(*args, **kwargs):
            if kwargs.get("cfg_path") is not None:
                reads.append(str(kwargs["cfg_path"]))
            return load(*args, **kwargs)
        return load_project

    monkeypatch.setattr(nnie_lsp.project.project, "load_project", counting(nnie_lsp.project.project.load_project))
    monkeypatch.setattr(builder, "load_project", counting(builder.load_project))
    result = run_compare(p["caffe"], p["nnie"], cfg=p["cfg"], prototxt=p["prototxt"]).to_json()
    assert result["case"] == 1 and result["preprocessing"]["edits"]
    assert reads == [str(p["cfg"])]
