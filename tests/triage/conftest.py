"""Fixtures: seeded-fault dump sets generated from the REAL MTCNN models (OpenCV Caffe forward +
numpy NNIE emulation), written in the real formats. Generated once per session."""
from __future__ import annotations

from pathlib import Path

import pytest

from nnie_lsp.testing.shared_files import shared_dir

DATA = Path(__file__).resolve().parent.parent / "data" / "triage"
DET1_DIR = DATA / "mtcnn"  # det1.prototxt with a 48x48 input (P-Net is fully convolutional)


def _shared_mtcnn() -> Path | None:
    here = Path(__file__).resolve()
    for base in [shared_dir()]:
        p = base / "corpus" / "models" / "mtcnn"
        if (p / "det2.caffemodel").is_file():
            return p
    return None


SHARED = _shared_mtcnn()
IMAGE = Path(__file__).resolve().parents[2] / "examples" / "triage" / "test1.jpg"  # MTCNN test1.jpg (MIT)


@pytest.fixture(scope="session")
def scenario_dirs(tmp_path_factory):
    from nnie_lsp.testing.scenarios import scenarios, write_scenario

    root = tmp_path_factory.mktemp("scenarios")
    cache: dict = {}

    def get(name: str) -> dict:
        if name not in cache:
            sc = scenarios()[name]
            model_dir = DET1_DIR if sc.model == "det1" else SHARED
            if model_dir is None:
                pytest.skip("shared MTCNN det2 model not available")
            cache[name] = write_scenario(sc, root / name, model_dir, IMAGE)
            cache[name]["scenario"] = sc
        return cache[name]

    return get


@pytest.fixture(scope="session")
def triaged(scenario_dirs):
    from nnie_lsp.triage.pipeline import run_compare

    cache: dict = {}

    def get(name: str) -> dict:
        if name not in cache:
            p = scenario_dirs(name)
            cache[name] = run_compare(p["caffe"], p["nnie"], sim16=p.get("nnie16"), cfg=p["cfg"],
                                      prototxt=p["prototxt"]).to_json()
        return cache[name]

    return get
