"""Triage inputs: the folder names of an NNIE project, the dumps and runs found beside a cfg, image sets."""
