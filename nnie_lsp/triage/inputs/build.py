"""Which build the NNIE dumps are checked against: the `.wk` beside the cfg.

``compare`` and the report say it (``build`` in the JSON, docs/triage-schema.md): the `.wk` the
cfg's ``[instruction_name]`` names (:mod:`nnie_lsp.readers.mapper.wk_files`), its bit widths, mapper
version [I] and outputs -- and, when the NNIE dumps are an emulation ``nnie-triage emulate`` wrote,
whether the emulation ran the bits that build has.  No `.wk` beside the cfg: nothing is said.
"""

from __future__ import annotations

import os


def build_of(cfg: str | None, sim: str | None = None) -> dict | None:
    """The ``build`` object of a comparison of ``sim`` (the NNIE dump folder) for ``cfg``, or None."""
    if not cfg or not os.path.isfile(cfg):
        return None
    from nnie_lsp.project.project import load_project

    found = load_project(cfg_path=cfg).wk
    if found is None:
        return None
    out: dict = {"path": found.path, "readable": found.model is not None}
    if found.model is None:
        out["error"] = str(found.error.message) if found.error is not None else "cannot be read"
        return out
    model = found.model
    from nnie_lsp.readers.wk.describe import census_counts

    census = model.census()
    out.update(intact=model.intact, damage=[d.message for d in model.damage], bits=model.bits,
               census=census_counts(census) if census is not None else None,
               mapper_version={"value": model.mapper_version, "status": "inferred"},
               outputs=[n.name for n in model.outputs], temp_buffer=model.temp_buffer,
               newer_sources=[name for name, _ in found.newer_sources])
    emulated = _emulated_bits(sim)
    if emulated is not None:
        out["sim_emulation"] = emulated
        built = {"8-bit": {8}, "16-bit": {16}, "mixed": {8, 16}}.get(model.bits, set())
        bits, hp = emulated["bits"], emulated["hp_layers"]
        ran = {bits} | ({16} if hp else set())
        out["sim_matches_build"] = bool(built) and ran == built
    return out


def _emulated_bits(sim: str | None) -> dict | None:
    """``{bits, hp_layers}`` of an emulation folder nnie-triage wrote, else None."""
    if not sim or not os.path.isdir(sim):
        return None
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    manifest = read_manifest(sim)
    if not manifest or manifest.get("command") != "emulate":
        return None
    return {"bits": int(manifest.get("bits") or 8), "hp_layers": list(manifest.get("hp_layers") or ())}


def build_lines(doc: dict) -> list[str]:
    """The report's lines about the build (none without a `.wk` beside the cfg)."""
    build = doc.get("build")
    if not build:
        return []
    path = build["path"]
    try:
        shown = os.path.relpath(path)
    except ValueError:
        shown = path
    if not build.get("readable"):
        return [f"Build: {shown} beside the cfg cannot be read ({build.get('error')}): which build the NNIE dumps "
                "stand for is not known"]
    lines = [f"Build checked against: {shown} — {build['bits']} [I] ({build.get('census')}), mapper "
             f"{build['mapper_version']['value']} [I], {len(build.get('outputs') or [])} output(s)"]
    if build.get("damage"):
        lines.append(f"  the .wk is damaged: {build['damage'][0]}")
    if build.get("newer_sources"):
        lines.append(f"  by file time the .wk is older than {', '.join(build['newer_sources'])} (file times lie after a "
                     "copy or checkout)")
    if "sim_matches_build" in build and not build["sim_matches_build"]:
        emulated = build["sim_emulation"]
        hp = f" with {len(emulated['hp_layers'])} layer(s) at 16 bit" if emulated["hp_layers"] else ""
        lines.append(f"  the NNIE dumps are an {emulated['bits']}-bit emulation{hp}, the .wk a {build['bits']} build: "
                     "this comparison does not judge that build")
    return lines
