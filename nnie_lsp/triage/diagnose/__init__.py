"""Diagnosis: the guide's decision tree and one module per case, each building engine Diagnostics."""
