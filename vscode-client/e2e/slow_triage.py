"""The nnie-triage command of the e2e test (the server's NNIE_LSP_TRIAGE_CMD hook).

While the file named by NNIE_E2E_SLOW_MARKER exists it writes its pid to <marker>.started and
sleeps, so that the test can press Cancel on the progress notification and check that this
process was ended. Otherwise it runs the real `python -m nnie_lsp.cli.triage` with its arguments
(the same Python and import path: the bundled server's).
"""

import os
import sys
import time

marker = os.environ.get("NNIE_E2E_SLOW_MARKER")
if marker and os.path.exists(marker):
    with open(marker + ".started", "w", encoding="utf-8") as handle:
        handle.write(str(os.getpid()))
    time.sleep(300)
    sys.exit(3)
os.execv(sys.executable, [sys.executable, "-m", "nnie_lsp.cli.triage", *sys.argv[1:]])
