"""Scenarios, synthetic nets and strategies used by tests, benchmarks and examples (never by the product itself)."""
