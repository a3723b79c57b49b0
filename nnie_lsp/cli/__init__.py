"""The command-line faces, argument parsing and output only: ``nnie-lint`` (:mod:`.lint`, its
renderers :mod:`.output`), ``nnie-triage`` (:mod:`.triage` and its ``triage_*`` subcommands) and
``nnie-lsp`` (:mod:`.lsp`, which starts :mod:`nnie_lsp.server`).  Nothing else imports this package.

May import: core, readers, project, rules, lint, reference, emulation, triage, card_draft, server.
"""
