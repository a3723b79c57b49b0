"""The project: which files belong together, and the only place the lint touches the disk.

:mod:`.project` pairs one mapper cfg with the prototxt, caffemodel, mean files and image lists it
names (a :class:`~nnie_lsp.project.project.Project`; a prototxt alone is a project too) and keeps
the parses in content caches; :mod:`.cfg_files` reads the files a cfg names, each with the entry
naming it and where it was looked for; :mod:`.sources` says where text comes from (disk, or an
editor's unsaved buffer over it) and why a file was not read; :mod:`.repository` tells a file the
checkout does not hold (git-ignored, LFS) from a wrong path; :mod:`.settings` is
``[tool.nnie-lint]`` and the overrides; :mod:`.card_lookup` finds the model card that covers a cfg.

The rules, the lint driver, the triage, the editor and the faces import this package.

May import: core, readers.
"""
