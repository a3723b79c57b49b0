"""The cheap record bases of nnie-lint's start-up path (issue 18; :mod:`nnie_lsp.core.records`).

:data:`~nnie_lsp.core.records.NamedTuple` must build the same class as ``typing.NamedTuple``, and
:class:`~nnie_lsp.core.records.FrozenRecord` keep what the cfg side's frozen dataclasses gave their
users (fields, defaults, equality, hashing, immutability, repr, ``dataclasses.replace``).  The
speed itself is measured by ``benchmarks/bench_startup.py``, never here.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
import types
import typing
from functools import cached_property
from types import MappingProxyType

import pytest

from nnie_lsp.readers.cfg.keys import KEYS
from nnie_lsp.readers.cfg.preprocessing import NormType
from nnie_lsp.readers.cfg.reader import CfgDocument, parse_cfg
from nnie_lsp.core.records import FrozenInstanceError, FrozenRecord, NamedTuple

SOURCE = '''
from __future__ import annotations

class Point(NT):
    """A point."""
    x: int
    y: str | None = None
    z: tuple[int, ...] = ()
    LIMIT = 3

    def norm(self) -> int:
        return self.x

    @property
    def double(self) -> int:
        return self.x * 2

class Bare(NT):
    a: int
'''


def _build(name: str, base) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module  # pickle finds the classes by module and name
    exec(SOURCE, {"NT": base, "__name__": name}, module.__dict__)
    return module


def _shape(module):
    point, bare = module.Point, module.Bare
    p = point(1, z=(2,))
    return (point._fields, point._field_defaults, point.__doc__, bare.__doc__, point.__qualname__, point.__mro__[1:],
            repr(p), p.norm(), p.double, point.LIMIT, p._replace(x=5), p._asdict(), p == (1, None, (2,)),
            hash(p) == hash((1, None, (2,))), pickle.loads(pickle.dumps(p)) == p, point.__match_args__,
            sorted(k for k in vars(point) if k not in ("__annotations__", "__orig_bases__", "__module__")),
            list(point.__annotations__))


def test_named_tuple_builds_what_typing_builds():
    theirs = _shape(_build("records_typing_probe", typing.NamedTuple))
    ours = _shape(_build("records_fast_probe", NamedTuple))
    assert ours == theirs


def test_named_tuple_keeps_annotations_as_written():
    module = _build("records_fast_probe_notes", NamedTuple)
    assert module.Point.__annotations__ == {"x": "int", "y": "str | None", "z": "tuple[int, ...]"}
    assert typing.get_type_hints(module.Point)["x"] is int


def test_named_tuple_refuses_what_typing_refuses():
    with pytest.raises(TypeError, match="Non-default namedtuple field b"):
        class Late(NamedTuple):
            a: int = 1
            b: int
    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):
        class Overwrite(NamedTuple):
            a: int

            def _replace(self, **kw):
                return self


class Item(FrozenRecord):
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()


class Doc(FrozenRecord, not_compared=("index",)):
    text: str
    index: object
    newline: str = "\n"

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split(self.newline)


class Spec(FrozenRecord, eq=False):
    name: str
    docs: typing.Mapping[str, str] = MappingProxyType({})

    def __post_init__(self) -> None:
        object.__setattr__(self, "docs", MappingProxyType(dict(self.docs)))


def test_frozen_record_is_a_frozen_dataclass_to_its_users():
    a = Item("a", 2)
    assert (a.name, a.size, a.tags) == ("a", 2, ())
    assert a == Item(name="a", size=2) and a != Item("a", 3) and hash(a) == hash(Item("a", 2))
    assert a != ("a", 2, ()) and Item("a") == Item("a", 0, ())
    assert repr(a) == "Item(name='a', size=2, tags=())"
    with pytest.raises(FrozenInstanceError):
        a.size = 3
    with pytest.raises(AttributeError):  # as dataclasses.FrozenInstanceError
        del a.name
    with pytest.raises(TypeError, match="missing required argument: 'name'"):
        Item()
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Item("a", colour=1)
    with pytest.raises(TypeError, match="multiple values for argument 'name'"):
        Item("a", name="b")
    with pytest.raises(TypeError, match="takes 3 field arguments but 4 were given"):
        Item("a", 1, (), 4)
    with pytest.raises(TypeError, match="'b' without a default follows one with a default"):
        class Late(FrozenRecord):
            a: int = 1
            b: int
    assert a._replace(size=5) == Item("a", 5)
    assert pickle.loads(pickle.dumps(a)) == a and copy.deepcopy(a) == a


def test_not_compared_fields_and_cached_properties():
    d = Doc("a\nb", index=object())
    assert d == Doc("a\nb", index=object()) and hash(d) == hash(Doc("a\nb", index=1))
    assert repr(d) == "Doc(text='a\\nb', newline='\\n')"
    assert d.lines == ["a", "b"] and d.lines is d.lines  # cached on the frozen instance


def test_identity_equality_and_post_init():
    s = Spec("k", {"a": "b"})
    assert s != Spec("k", {"a": "b"}) and s == s and hash(s) == object.__hash__(s)
    assert isinstance(s.docs, MappingProxyType) and dict(s.docs) == {"a": "b"}


def test_dataclasses_functions_work_on_records():
    """Code outside the start-up path (triage) calls dataclasses.replace on a CfgDocument."""
    doc = parse_cfg("[prototxt_file] ./a.prototxt # x\n[norm_type] 0\n", "a.cfg")
    assert dataclasses.is_dataclass(doc)
    moved = dataclasses.replace(doc, path="b.cfg")
    assert type(moved) is CfgDocument and moved.path == "b.cfg" and moved.entries == doc.entries
    assert moved.line_index is doc.line_index and moved.line_kinds == doc.line_kinds
    assert [f.name for f in dataclasses.fields(doc)] == list(CfgDocument._fields)
    assert {f.name for f in dataclasses.fields(doc) if not f.compare} == {"line_index", "line_kinds"}
    assert dataclasses.asdict(NormType(1, "none", True)) == {"value": 1, "mean_kind": "none", "scales": True}
    assert doc._replace(bom=True) == dataclasses.replace(doc, bom=True)
    spec = KEYS["norm_type"]
    assert dataclasses.replace(spec, doc_en="x").value_docs == spec.value_docs


def test_cfg_records_compare_and_hash_as_before():
    one = parse_cfg("[a] b # c\n# [d] e\n[bad\n")
    two = parse_cfg("[a] b # c\n# [d] e\n[bad\n")
    assert one == two and one.entries[0] == two.entries[0] and hash(one.entries[0]) == hash(two.entries[0])
    assert one.comments[0].looks_like_entry() and one.errors[0] == two.errors[0]
    assert KEYS["norm_type"] == KEYS["norm_type"] and KEYS["norm_type"] != KEYS["image_type"]
    assert {NormType(1, "none", True), NormType(1, "none", scales=True)} == {NormType(1, "none", True)}
