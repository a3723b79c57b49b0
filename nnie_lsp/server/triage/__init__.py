"""The editor's triage: commands, the subprocess runner with progress, stored results."""
