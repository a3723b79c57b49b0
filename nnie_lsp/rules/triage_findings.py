"""Triage findings (T-codes) registered in the engine's rule registry.

Filled in by the "triage findings as engine diagnostics" work of issue #7.
"""
