"""May import: core, readers, project, conversion.
"""
