"""Which layers the NNIE runs at 16 bit: the mapper's rule, read once from the cfg's ``[compile_mode]``
(docs/field-facts.md §3.1, §7.4) and applied by the emulation.

- ``0`` (the default): every layer at 8 bit; `_hp` names are ignored;
- ``1``: every layer at 16 bit (high precision); `_hp` names add nothing;
- ``2``: the layers whose name ends in ``_hp`` at 16 bit, the others at 8 bit.

``nnie-triage emulate --bits 8|16`` overrides the cfg (and says so): 16 runs every layer at 16 bit,
8 every layer at 8 bit except, under ``[compile_mode] 2``, the `_hp` layers (mode 2 is 8 bit with
marks).  ``--hp LAYER`` makes a layer 16-bit whatever the mode (an explicit what-if, recorded in the
manifest).  A ``.wk`` that shows which `_hp` marks a build applied narrows the marks to those
(:func:`hp_mark_applied`): the emulation and the `_hp` planner's oracle
(:mod:`nnie_lsp.triage.hp_plan.oracle`) take which layers run at 16 bit from here alone.
Importing this module loads no numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

#: compile_mode -> (the bits of an unmarked layer, whether `_hp` names run at 16 bit).
COMPILE_MODES: dict[int, tuple[int, bool]] = {0: (8, False), 1: (16, False), 2: (8, True)}
#: A cfg without ``[compile_mode]`` (or with a value outside the table) runs as the mapper's default.
DEFAULT_COMPILE_MODE = 0


@dataclass(frozen=True)
class Precision:
    """The precision one emulation runs with, and where it came from."""

    bits: int                      # every unmarked layer
    hp_names: bool                 # layers named ``*_hp`` run at 16 bit
    compile_mode: int | None       # the cfg's (None: no cfg, or no valid value)
    override: int | None = None    # ``--bits`` when given

    @property
    def source(self) -> str:
        """``--bits`` (an override), ``cfg`` (the cfg's [compile_mode]) or ``default``."""
        if self.override is not None:
            return "--bits"
        return "cfg" if self.compile_mode is not None else "default"

    def describe(self) -> str:
        """One line for the user: what runs at which precision, and why."""
        mode = self.compile_mode if self.compile_mode is not None else DEFAULT_COMPILE_MODE
        what = ("every layer at 16 bit" if self.bits == 16 else
                "8 bit, the `_hp` layers at 16 bit" if self.hp_names else "every layer at 8 bit")
        if self.override is not None:
            cfg_bits, cfg_hp = COMPILE_MODES.get(mode, COMPILE_MODES[DEFAULT_COMPILE_MODE])
            if (cfg_bits, cfg_hp) == (self.bits, self.hp_names):
                return f"{what} (--bits {self.override}, as the cfg's [compile_mode] {mode})"
            return f"{what}: --bits {self.override} overrides the cfg's [compile_mode] {mode}"
        if self.compile_mode is None:
            return f"{what} (no [compile_mode] in the cfg: the mapper's default 0)"
        return f"{what} (the cfg's [compile_mode] {self.compile_mode})"

    def to_json(self) -> dict:
        return {"compile_mode": self.compile_mode, "bits": self.bits, "hp_names": self.hp_names,
                "bits_from": self.source, "bits_override": self.override}


def precision_for(compile_mode: int | None, bits: int | None = None) -> Precision:
    """The mapper's precision for a cfg's `compile_mode`, with an optional ``--bits`` override."""
    mode = compile_mode if compile_mode in COMPILE_MODES else None
    cfg_bits, cfg_hp = COMPILE_MODES[mode if mode is not None else DEFAULT_COMPILE_MODE]
    if bits is None:
        return Precision(cfg_bits, cfg_hp, mode)
    if bits not in (8, 16):
        raise ValueError(f"--bits {bits}: 8 or 16")
    return Precision(bits, bits == 8 and cfg_hp, mode, override=bits)


def hp_mark_applied(layer_name: str, hp_names: bool, built: frozenset[str] | None = None) -> bool:
    """Whether the `_hp` mark of `layer_name` makes it 16-bit in a build: the name ends in ``_hp``,
    the build honours marks (``hp_names``: ``[compile_mode] 2``), and -- when a build's ``.wk``
    says which marks it applied (``built``, :mod:`nnie_lsp.triage.hp_plan.built`) -- it is one of
    them.  The one rule the emulation and the `_hp` planner's oracle both follow."""
    from nnie_lsp.readers.prototxt.layers import is_hp_layer

    return hp_names and is_hp_layer(layer_name) and (built is None or layer_name in built)


def runs_16bit(layer_name: str, precision_bits: int, hp_names: bool, extra: frozenset[str] = frozenset(),
               built: frozenset[str] | None = None) -> bool:
    """Whether a chain whose head is `layer_name` runs at 16 bit (``extra``: ``--hp`` layers, or the
    planner's set; ``built``: the marks a ``.wk`` shows applied, :func:`hp_mark_applied`)."""
    return precision_bits == 16 or layer_name in extra or hp_mark_applied(layer_name, hp_names, built)
