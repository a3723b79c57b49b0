"""Measurement: per-pair metrics and thresholds, the per-layer rows in network order, input codes, several images."""
