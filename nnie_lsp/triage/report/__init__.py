"""Reports: terminal, JSON, markdown and HTML renderings of a triage result, and the step-6 support bundle."""
