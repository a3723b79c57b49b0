"""The cfg line parser shipped as lark's standalone parser (issue 11, start-up).

``nnie_lsp/readers/cfg/standalone_parser.py`` is generated from ``nnie_lsp/grammar/mapper_cfg.lark`` by
``scripts/gen_cfg_parser.py``; these tests fail when it is stale or parses any line differently
from lark compiling the grammar, and check that reading a cfg never imports lark.
"""

from __future__ import annotations

import glob
import hashlib
import os
import random
import subprocess
import sys

import pytest

from nnie_lsp.readers.cfg import reader, standalone_parser
from nnie_lsp.testing.shared_files import shared_dir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = str(shared_dir() / "corpus")

TRICKY_LINES = [
    "", " ", "\t", "\r", "[a] b", "[a]b", "[a]", "[a] ", "[a] #c", "[a] b #c", "[a] b#c", "[a] b  # c  ",
    "# comment", "   # indented", "#", "[", "]", "[]", "[ a ] b", "[a b] c", "[a[b] c", "a = b", "// x", "; x",
    "[a]\u3000b", "[a] \u00a0b", "[a] b c d", "[a] ./x y/z # w", "[image_list] ./list.txt   # 30 images",
    "[a] b\x0bc", "[a]\fb", "x" * 5000, "[" + "k" * 3000 + "] " + "v " * 2000, "[a] " + "#" * 50,
]


def _both():
    standalone = reader._build_standalone_parser()
    compiled = reader._build_lark_parser()
    assert standalone is not None, "the standalone parser did not load (stale or missing module)"
    return standalone, compiled


def _corpus_lines() -> list[str]:
    lines = []
    for path in sorted(glob.glob(os.path.join(CORPUS, "**", "*.cfg"), recursive=True)
                       + glob.glob(os.path.join(ROOT, "examples", "**", "*.cfg"), recursive=True)
                       + glob.glob(os.path.join(ROOT, "tests", "**", "*.cfg"), recursive=True)):
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
        lines += text.replace("\r\n", "\n").split("\n")
    return lines


def test_module_was_generated_from_the_shipped_grammar():
    with open(reader.GRAMMAR_PATH, "rb") as fh:
        assert standalone_parser.GRAMMAR_SHA256 == hashlib.sha256(fh.read()).hexdigest(), (
            "run: python scripts/gen_cfg_parser.py")
    assert reader._line_grammar().parser.__class__.__module__ == standalone_parser.__name__


def test_generator_check_agrees():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_cfg_parser.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def _tree_shape(grammar, line: str):
    """The parse as plain data (rule names, token types, texts, offsets) or the error class name."""
    try:
        tree = grammar.parser.parse(line)
    except grammar.LarkError as exc:
        return ("error", type(exc).__name__)

    def walk(node):
        if isinstance(node, grammar.Tree):
            return (str(node.data), [walk(child) for child in node.children])
        return (node.type, str(node), node.start_pos, node.end_pos)
    return walk(tree)


def test_standalone_parses_every_line_as_lark_does():
    standalone, compiled = _both()
    lines = TRICKY_LINES + _corpus_lines()
    assert len(lines) > 200  # the corpus is there
    rng = random.Random(11)
    alphabet = "[]# \t\r\f\vab=.;/\u3000\u00a0"
    lines += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 14))) for _ in range(3000)]
    for line in lines:
        assert _tree_shape(standalone, line) == _tree_shape(compiled, line), repr(line)


def test_a_stale_module_falls_back_to_lark(monkeypatch):
    monkeypatch.setattr(standalone_parser, "GRAMMAR_CRC32", -1)
    assert reader._build_standalone_parser() is None
    monkeypatch.setattr(reader, "_grammar", None)
    doc = reader.parse_cfg("[a] b # c\n[bad\n")
    assert [e.value for e in doc.entries] == ["b"] and len(doc.errors) == 1
    assert reader._grammar is not None and reader._grammar.parser.__class__.__module__.startswith("lark")
    monkeypatch.setattr(reader, "_grammar", None)


def test_reading_a_cfg_does_not_import_lark():
    code = ("import sys\nfrom nnie_lsp.readers.cfg.reader import parse_cfg\n"
            "doc = parse_cfg('[prototxt_file] ./a.prototxt\\n[bad\\n')\n"
            "assert len(doc.entries) == 1 and len(doc.errors) == 1\n"
            "print(sorted(m for m in sys.modules if m == 'lark' or m.startswith('lark.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("line", ["[a] " + "v" * (1 << 20), "#" + "x " * (1 << 19), "[" + "k" * (1 << 20) + "] v"])
def test_a_megabyte_line_parses(line):
    doc = reader.parse_cfg(line + "\n[b] c\n")
    assert [e.key for e in doc.entries][-1] == "b"


def _grammar_parse(line: str):
    """The line's parse through the parser only (no fast path)."""
    saved = reader._fast_line
    reader._fast_line = lambda content: None
    try:
        return reader._parse_line.__wrapped__(line)
    finally:
        reader._fast_line = saved


def test_fast_path_parses_every_line_as_the_grammar_does():
    """Issue 18 start-up: the grammar is regular, so a pattern reads every line the grammar
    accepts, with the same spans; the parser is asked only about the others (errors)."""
    lines = TRICKY_LINES + _corpus_lines() + ["[a] #", "[a]  #  ", "# x  ", "[a] b # ", "[a] b #", "[k]\t\tv\t#\tc\t",
                                              "\x0b[k] v", "[k]\x0b", "[k] v\x0b#\x0b"]
    rng = random.Random(18)
    alphabet = "[]# \t\r\f\vab=.;/\u3000\u00a0"
    lines += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 14))) for _ in range(5000)]
    for line in lines:
        slow = _grammar_parse(line)
        fast = reader._fast_line(line)
        if slow.kind == "error":
            assert fast is None, repr(line)
        else:
            assert fast == slow, repr(line)


def test_reading_a_well_formed_cfg_does_not_load_the_line_parser():
    code = ("import sys\nfrom nnie_lsp.readers.cfg.reader import parse_cfg\n"
            "doc = parse_cfg('# c\\n[prototxt_file] ./a.prototxt  # x\\n\\n[norm_type] 0\\n')\n"
            "assert len(doc.entries) == 2 and not doc.errors\n"
            "print('nnie_lsp.readers.cfg.standalone_parser' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_bracket_key_reads_what_the_sniffing_pattern_read():
    """``looks_like_mapper_cfg`` finds a line's ``[key]`` with str methods (issue 18 start-up: the
    pattern it replaced cost about 0.4 ms to compile); both agree on every line."""
    import re

    pattern = re.compile(r"^[ \t\ufeff]*\[([^\[\]\s]+)\]")
    rng = random.Random(4)
    alphabet = "[]# \t\r\f\v\ufeff\u3000\u00a0\x1cab_."
    lines = TRICKY_LINES + _corpus_lines() + ["\ufeff[prototxt_file] a", "[a]]", "[[a]", "[a\u3000b] c", "[é] x"]
    lines += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12))) for _ in range(20000)]
    for line in lines:
        match = pattern.match(line)
        assert reader.bracket_key(line) == (match.group(1) if match else None), repr(line)
    assert reader.looks_like_mapper_cfg("# x\n  [RGB_order] BGR\n") and not reader.looks_like_mapper_cfg("[metadata]\n")
