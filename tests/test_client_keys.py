"""The VS Code client's three cfg key lists are generated from nnie_lsp/readers/cfg/keys.py and up to date.

Regenerates the artefacts in memory with ``scripts/gen_client_keys.py`` and compares them with the
files on disk; a failure means: run ``python scripts/gen_client_keys.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys

import pytest

from nnie_lsp.readers.cfg.keys import ATC_KEYS, KEYS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIENT = os.path.join(ROOT, "vscode-client")


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "gen_client_keys", os.path.join(ROOT, "scripts", "gen_client_keys.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


generator = _load_generator()


def _read(*parts: str) -> str:
    with open(os.path.join(CLIENT, *parts), encoding="utf-8") as fh:
        return fh.read()


def test_the_three_artefacts_match_the_key_table():
    stale = generator.stale_paths()
    assert stale == [], f"run `python scripts/gen_client_keys.py`: {stale} out of date with keys.py"


def test_every_key_of_the_table_is_in_every_artefact():
    every_key = set(KEYS) | set(ATC_KEYS)
    ts_keys = re.findall(r"^  '([A-Za-z0-9_]+)',$", _read("src", "cfgKeys.ts"), re.M)
    package = json.loads(_read("package.json"))
    first_line = next(lang["firstLine"] for lang in package["contributes"]["languages"]
                      if lang["id"] == "nnie-cfg")
    begin = json.loads(_read("syntaxes", "nnie-cfg.tmLanguage.json"))["repository"]["entry"]["begin"]
    first_line_rx = re.compile(first_line)
    for key in sorted(every_key):
        assert key in ts_keys, key
        assert first_line_rx.match(f"[{key}] 1"), key
        assert re.search(rf"[(|]{key}[|)]", begin), key
    # the keys the old hand-written lists lacked
    for key in ("align_bytes", "marked_prototxt", "output_wk_name"):
        assert key in ts_keys and key in first_line and key in begin


def test_groups_follow_the_status_of_each_key():
    groups = generator.key_groups()
    assert groups.mapper[:2] == ("prototxt_file", "caffemodel_file")
    assert {"instruction_name", "instructions_name", "gfpq_param_file", "RGB_order"} <= set(groups.mapper)
    assert {"align_bytes", "marked_prototxt", "output_wk_name"} <= set(groups.lookalike)
    assert set(ATC_KEYS) <= set(groups.lookalike)
    assert not set(groups.mapper) & set(groups.lookalike)
    assert set(groups.known) == set(KEYS) | set(ATC_KEYS)
    for name in groups.lookalike:
        assert name in ATC_KEYS or KEYS[name].status == "unverified", name


def test_a_changed_key_table_makes_the_artefacts_stale():
    groups = generator.key_groups()
    grown = generator.KeyGroups(groups.mapper + ("brand_new_key",), groups.lookalike)
    assert generator.stale_paths(grown) == [
        os.path.join("vscode-client", "src", "cfgKeys.ts"),
        os.path.join("vscode-client", "package.json"),
        os.path.join("vscode-client", "syntaxes", "nnie-cfg.tmLanguage.json"),
    ]
    moved = generator.KeyGroups(groups.mapper[:-1], (groups.mapper[-1],) + groups.lookalike)
    # a key changing group changes the lists and the grammar; firstLine holds both groups alike
    assert generator.stale_paths(moved) == [
        os.path.join("vscode-client", "src", "cfgKeys.ts"),
        os.path.join("vscode-client", "syntaxes", "nnie-cfg.tmLanguage.json"),
    ]


def test_generated_grammar_and_first_line_behave():
    groups = generator.key_groups()
    begin = re.compile(generator.entry_begin_pattern(groups))
    m = begin.match("[instructions_name] inst")
    assert m and m.group(2) == "instructions_name" and m.group(3) is None
    m = begin.match("  [ align_bytes ] 16")
    assert m and m.group(3) == "align_bytes" and m.group(2) is None
    m = begin.match("[net_type2] 0")  # a known key as a prefix is still an unknown key
    assert m and m.group(4) == "net_type2" and m.group(2) is None
    first = re.compile(generator.first_line_pattern(groups.known))
    assert first.match("[net_type] 0") and not first.match("# [net_type] 0")
    assert not first.match("[metadata]")


def test_bad_key_names_are_refused():
    with pytest.raises(SystemExit, match="not a plain identifier"):
        generator.check_names(["good_key", "bad key"])
    with pytest.raises(SystemExit, match="listed twice"):
        generator.check_names(["net_type", "net_type"])


def test_check_mode_reports_stale_files(tmp_path, monkeypatch, capsys):
    stale_ts = tmp_path / "cfgKeys.ts"
    stale_ts.write_text("// an old hand-written list\n", encoding="utf-8")
    artefacts = dict(generator.ARTEFACTS)
    render = artefacts.pop(generator.KEYS_TS)
    monkeypatch.setattr(generator, "ARTEFACTS", {str(stale_ts): render, **artefacts})
    assert generator.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert stale_ts.read_text(encoding="utf-8") == "// an old hand-written list\n"


# ---------------------------------------------------------------- one cfg sniffer, two languages

SAMPLES = os.path.join(ROOT, "tests", "data", "cfg_sniff_samples.json")


def _samples() -> list[dict]:
    with open(SAMPLES, encoding="utf-8") as fh:
        return json.load(fh)["samples"]


def test_the_client_applies_the_servers_key_line():
    from nnie_lsp.readers.file_kinds import MAPPER_CFG_KEY_LINE

    ts = _read("src", "cfgKeys.ts")
    assert f"export const CFG_KEY_LINE = {generator._ts_string(MAPPER_CFG_KEY_LINE)};" in ts
    assert "new RegExp(CFG_KEY_LINE)" in _read("src", "sniff.ts")


def test_the_key_line_is_what_bracket_key_reads():
    from nnie_lsp.readers.cfg.reader import bracket_key
    from nnie_lsp.readers.file_kinds import MAPPER_CFG_KEY_LINE

    pattern = re.compile(MAPPER_CFG_KEY_LINE)
    lines = [line for sample in _samples() for line in sample["text"].splitlines()]
    assert lines
    for line in lines:
        match = pattern.match(line)
        assert bracket_key(line) == (match.group(1) if match else None), repr(line)


@pytest.mark.parametrize("sample", _samples(), ids=lambda s: s["name"])
def test_the_server_sniffs_every_sample_as_the_samples_say(sample):
    from nnie_lsp.readers import file_kinds
    from nnie_lsp.readers.cfg.reader import looks_like_mapper_cfg

    assert looks_like_mapper_cfg(sample["text"]) is sample["mapper_cfg"]
    kind = file_kinds.sniff("sample.cfg", sample["text"].encode("utf-8"))
    assert kind == (file_kinds.MAPPER_CFG if sample["mapper_cfg"] else file_kinds.OTHER_CFG)
    # the client differs only where the sample says so, and says why
    assert ("client" in sample) == ("why" in sample)
    assert sample.get("client", sample["mapper_cfg"]) in (True, False)
