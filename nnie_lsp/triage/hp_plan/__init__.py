"""Guide step 3 planned: which layers to mark `_hp` (planner, emulation oracle, agreement with real runs, report)."""
