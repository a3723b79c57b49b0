"""`python -m nnie_lsp`: run the language server over stdio.

May import: cli.
"""

import sys

from nnie_lsp.cli.lsp import main

if __name__ == "__main__":
    sys.exit(main())
