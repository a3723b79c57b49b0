"""nnie-triage: compare a Caffe reference run with the NNIE side (mapper, simulator or board dumps)
layer by layer, say which case of the vendor's guide it is, and build the fix.

One entry (:mod:`.pipeline`) and one subpackage per stage:

- :mod:`.inputs` — what lies beside a cfg (dumps, runs, image sets, folder names);
- :mod:`.align` — the passes that pair tensors (names, positions, dot nodes, values);
- :mod:`.measure` — metrics, thresholds, per-layer rows, several images;
- :mod:`.diagnose` — the guide's decision tree, one module per case, each registering its T-codes;
- :mod:`.report` — text, markdown, HTML and JSON renderings, the support bundle;
- :mod:`.hp_plan` — which layers to mark ``_hp``.

Importing this package (or any :mod:`.inputs` module) loads no numpy: the editor's server reads
folder names and stored results without paying for the numerical stack.

May import: core, readers, project, rules, lint, reference, emulation.
"""
