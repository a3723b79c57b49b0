"""TODO docstring for core."""
