"""TODO docstring for project."""
