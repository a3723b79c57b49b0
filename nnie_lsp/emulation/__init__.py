"""The NNIE side, emulated: the mapper's 8-bit log quantization, input codes and emulated dump sets.

May import: core, readers, project, reference.
"""
