"""Scenarios, synthetic nets and strategies used by tests, benchmarks and examples (never by the product itself).

May import: anything (scaffolding for tests and benchmarks; nothing shipped imports it).
"""
