"""Immutable records whose classes are cheap to define (nnie-lint's start-up).

``nnie-lint`` runs from a pre-commit hook on every commit (a cfg with its one-layer
prototxt within 1.6x a bare ``import text_format`` process, measured by
``benchmarks/bench_startup.py``, never by a timed test).  Defining record classes was a large part
of that start-up; the two bases here give the same classes for much less:

- :data:`NamedTuple`: ``typing.NamedTuple`` for type checkers and at run time the same class (a
  ``collections.namedtuple`` with the class body's methods, defaults, docstring and annotations),
  built without ``typing``'s check of every annotation: with ``from __future__ import
  annotations`` each one is a string that ``typing`` compiles into a ``ForwardRef``, which made a
  class cost about 220 µs instead of 60 µs; start-up defines 42 of them.  Use it as
  ``typing.NamedTuple`` (class syntax only; no ``Generic``).
- :class:`FrozenRecord`: what ``@dataclass(frozen=True)`` gives, for the cfg side.  Importing
  :mod:`dataclasses` loads :mod:`inspect` (and ``ast``, ``dis``, ``tokenize``...: about 9 ms of CPU
  here) and each frozen dataclass costs about 1 ms to define (its methods are generated with
  ``exec``); the cfg side defined 16 of them.  A :class:`FrozenRecord` subclass is defined in
  about 15 µs: its methods are shared, written once here.

A :class:`FrozenRecord` subclass declares its fields as a dataclass does, with annotations in the
class body (in order; a default is a class attribute) and gets what the cfg code relied on:

- ``__init__`` taking the fields positionally or by keyword (then ``__post_init__`` if defined);
- immutability: setting or deleting an attribute raises :class:`FrozenInstanceError` (an
  ``AttributeError``, as ``dataclasses.FrozenInstanceError``); ``object.__setattr__`` and
  :func:`functools.cached_property` still work, as on a frozen dataclass;
- ``==`` and ``hash`` over the compared fields, only between instances of the same class
  (``class X(FrozenRecord, eq=False)``: identity, as ``@dataclass(eq=False)``); a field listed in
  ``not_compared`` (class keyword) is left out of both and of ``repr``, as ``field(compare=False,
  repr=False)``;
- ``repr`` as a dataclass writes it; methods defined in the class body win, as with dataclasses;
- ``_replace(**changes)`` (a copy with some fields changed, as ``NamedTuple._replace``), and the
  :mod:`dataclasses` functions (``replace``, ``fields``, ``asdict``, ``is_dataclass``) for code
  that uses them: ``__dataclass_fields__`` is built on first use from a mirror dataclass with the
  same fields, so :mod:`dataclasses` is imported only then.
"""

from __future__ import annotations

import sys
from collections import namedtuple
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # type checkers read the branch above
    def dataclass_transform(**_kwargs):
        return lambda cls: cls

__all__ = ["NamedTuple", "FrozenRecord", "FrozenInstanceError"]

_MISSING = object()


# ---------------------------------------------------------------- NamedTuple

# what typing.NamedTuple refuses in a class body, and what it does not copy onto the class
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                         "_make", "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})


class _NamedTupleMeta(type):
    """Builds ``class X(NamedTuple): ...`` as ``typing.NamedTupleMeta`` does, minus the annotation
    check (the annotations are kept as written)."""

    def __new__(mcls, typename, bases, ns):
        if bases != (_NamedTupleBase,):
            raise TypeError("a NamedTuple class can only inherit from NamedTuple")
        types = ns.get("__annotations__", {})
        default_names = []
        for name in types:
            if name in ns:
                default_names.append(name)
            elif default_names:
                raise TypeError(f"Non-default namedtuple field {name} cannot follow default field"
                                f"{'s' if len(default_names) > 1 else ''} {', '.join(default_names)}")
        cls = namedtuple(typename, list(types), defaults=[ns[name] for name in default_names], module=ns["__module__"])
        cls.__annotations__ = cls.__new__.__annotations__ = dict(types)
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
            if key not in _SPECIAL and key not in cls._fields:
                setattr(cls, key, value)
        return cls


_NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    NamedTuple = _NamedTupleBase


# ---------------------------------------------------------------- FrozenRecord


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record (``dataclasses.FrozenInstanceError``'s role)."""


def _getter(names: tuple[str, ...]):
    """A function from a record to the tuple of its values of ``names``."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


class _DataclassFields:
    """``__dataclass_fields__`` of a record class, built on first use (importing :mod:`dataclasses`
    then) from a mirror dataclass with the same fields, defaults and comparison."""

    def __init__(self) -> None:
        self._cache: dict[type, dict] = {}

    def __get__(self, obj, owner):
        found = self._cache.get(owner)
        if found is None:
            import dataclasses

            specs = []
            for name in owner._fields:
                options: dict[str, Any] = {}
                if name in owner._defaults:
                    default = owner._defaults[name]
                    if type(default).__hash__ is None:  # dataclasses refuses an unhashable default
                        options["default_factory"] = lambda value=default: value
                    else:
                        options["default"] = default
                if name in owner._not_compared:
                    options.update(compare=False, repr=False)
                specs.append((name, owner.__annotations__.get(name, Any), dataclasses.field(**options)))
            mirror = dataclasses.make_dataclass(owner.__name__, specs, frozen=True, eq=owner._eq)
            found = self._cache[owner] = mirror.__dataclass_fields__
        return found


@dataclass_transform(eq_default=True)
class FrozenRecord:
    """Base of the cfg side's immutable records (see the module docstring)."""

    _fields: tuple[str, ...] = ()
    _defaults: dict[str, Any] = {}
    _not_compared: frozenset[str] = frozenset()
    _eq = True
    __dataclass_fields__ = _DataclassFields()

    def __init_subclass__(cls, *, eq: bool = True, not_compared: tuple[str, ...] = (), **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        own = [name for name, kind in cls.__dict__.get("__annotations__", {}).items()
               if not str(kind).startswith(("ClassVar", "typing.ClassVar"))]
        fields = cls._fields + tuple(name for name in own if name not in cls._fields)
        defaults = dict(cls._defaults)
        defaults.update((name, cls.__dict__[name]) for name in own if name in cls.__dict__)
        seen_default = False
        for name in fields:
            if name in defaults:
                seen_default = True
            elif seen_default:
                raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one with a default")
        cls._fields = fields
        cls._field_set = frozenset(fields)
        cls._defaults = defaults
        cls._not_compared = cls._not_compared | frozenset(not_compared)
        cls._eq = eq
        cls._compared = _getter(tuple(name for name in fields if name not in cls._not_compared))
        cls.__match_args__ = fields
        if not eq:  # identity, as @dataclass(eq=False)
            if "__eq__" not in cls.__dict__:
                cls.__eq__ = object.__eq__
            if "__hash__" not in cls.__dict__:
                cls.__hash__ = object.__hash__

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        fields = cls._fields
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} field arguments but {len(args)} were given")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in cls._field_set:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
            values[name] = value
        if len(values) < len(fields):
            for name in fields:
                if name not in values:
                    default = cls._defaults.get(name, _MISSING)
                    if default is _MISSING:
                        raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")
                    values[name] = default
        self.__dict__.update(values)
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared(self) == other._compared(other)

    def __hash__(self) -> int:
        return hash(self._compared(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields if name not in self._not_compared)
        return f"{type(self).__qualname__}({shown})"

    def _replace(self, **changes: Any):
        """A copy with ``changes`` applied (``dataclasses.replace``)."""
        values = {name: getattr(self, name) for name in self._fields}
        unknown = set(changes) - self._field_set
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values.update(changes)
        return type(self)(**values)
