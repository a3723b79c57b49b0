"""TODO docstring for readers."""
