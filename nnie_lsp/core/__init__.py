"""The engine's core types, below everything else.

Positions, ranges, edits and decoding (:mod:`.text`); diagnostics and fixes (:mod:`.diagnostics`)
and their one JSON shape (:mod:`.diagnostic_json`); immutable records cheap to define
(:mod:`.records`); the en/zh choice (:mod:`.lang`) and the editor's UI strings (:mod:`.i18n`); the
one guarded way to read a user's file (:mod:`.safe_io`) and to replace one (:mod:`.atomic_write`);
the parse cache keyed by content (:mod:`.content_cache`); optional packages and what to say when one
is missing (:mod:`.extras`); the one TOML parser (:mod:`.toml`); the registry of every code, lint
rules (NN…) and triage findings (T…) alike (:mod:`.registry`, its generated index
:mod:`.rule_index`, and :mod:`.catalogue`, which loads the registering modules by name on demand).

Every package imports this one; it imports no other package of nnie_lsp (the catalogue finds rule
modules by name at run time, never by an import statement).

May import: nothing.
"""
