"""Who wrote a dump folder that discovery found beside a cfg, in the words of its rule.

A folder holding nnie-triage's manifest (:data:`.folder_names.DUMP_MANIFEST`, whose ``command``
says ``reference`` or ``emulate``) was written by nnie-triage, whatever its name: the example
projects keep an emulation in ``mapper_quant/`` and a Caffe reference in ``output/``.  Only a folder
without that manifest is the tool's whose folder name it is (nnie_mapper's ``mapper_quant/``,
RuyiStudio's ``output/``: ``docs/field-facts.md`` §9, §10.3).  The difference matters: an
emulation can be made again with the current cfg, the mapper's dumps only by running nnie_mapper.

The words are :mod:`nnie_lsp.core.i18n` keys ``inputs.*`` (English and Chinese).
"""

from __future__ import annotations

import os

from nnie_lsp.core import i18n

#: The manifest's ``command`` -> the i18n key of the rule (any other command: ``inputs.by_triage``).
OWN_COMMANDS = {"emulate": "inputs.by_emulate", "reference": "inputs.by_reference"}
#: Without the manifest: the tool whose folder it is, by role (the framework folder's name is ours:
#: without a manifest only the name says it is the ONNX side).
TOOL_KEYS = {"sim": "inputs.by_mapper", "reference": "inputs.by_ruyi_caffe", "dot": "inputs.by_mapper",
             "framework": "inputs.by_onnx_name"}


def own_command(folder: str) -> str | None:
    """The manifest's ``command`` when nnie-triage wrote `folder` (``""`` when it names none), else None."""
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    manifest = read_manifest(folder) if os.path.isdir(folder) else None
    if manifest is None:
        return None
    command = manifest.get("command")
    return command if isinstance(command, str) else ""


def _manifest_framework(folder: str) -> str | None:
    from nnie_lsp.triage.inputs.image_sets import read_manifest

    manifest = read_manifest(folder) if os.path.isdir(folder) else None
    value = manifest.get("framework") if isinstance(manifest, dict) else None
    return value if isinstance(value, str) else None


def beside_cfg_rule(path: str, role: str, lang: str = "en") -> str:
    """The rule that found `path` beside the cfg for `role` (``sim``, ``reference``, ``dot``):
    ``mapper_quant/ beside the cfg (written by nnie_mapper)``, or, when nnie-triage's manifest is
    there, ``mapper_quant/ beside the cfg (an emulation written by nnie-triage emulate)``."""
    name = os.path.basename(os.path.normpath(path))
    what = name if role == "dot" else name + "/"
    command = own_command(path) if role != "dot" else None
    if role == "framework":   # the ONNX side: its manifest says framework "onnx" (reference --onnx)
        key = "inputs.by_onnx_reference" if _manifest_framework(path) == "onnx" else TOOL_KEYS[role]
    elif command is None:
        key = TOOL_KEYS[role]
    else:
        key = OWN_COMMANDS.get(command, "inputs.by_triage")
    return i18n.t(key, lang, what=what)
