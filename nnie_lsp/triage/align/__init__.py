"""Alignment: the passes that pair reference tensors with NNIE-side tensors (names, positions, dot nodes, values) and their driver."""
