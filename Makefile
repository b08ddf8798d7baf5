# bleu-harness: the two commands of the README, and the developer loop.
#   make demo       create .venv if missing, install, run the comparison on the built-in fixtures
#   make test       create .venv if missing, install dev extras, ruff + mypy + pytest on two
#                   workers with every oracle (installs the OS packages the oracles need in one
#                   step, tools/system-deps.sh, when missing and we are root, and builds .venv-tf,
#                   TensorFlow for the keras-hub tests)
#   make test-full  make test with every property's full example count and the full WMT21 report
#   make check      ruff, mypy and the tests that need no oracle, browser or real data
#   make sanitize   the compiled kernels built with AddressSanitizer and UBSan (in build/sanitize,
#                   beside the installed one) and their tests run against that build
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Real evaluation data lives beside the repo (never copied into it).
SHARED_DATA := $(abspath ../shared/data)
ifneq ($(wildcard $(SHARED_DATA)),)
export BLEU_HARNESS_DATA ?= $(SHARED_DATA)
endif
# Hugging Face's `bleu` module (bleu.py + nmt_bleu.py as evaluate.load("bleu") runs them) lives
# beside the repo too; without it the evaluate adapter falls back to the HF cache, then the Hub.
SHARED_EVALUATE := $(abspath ../shared/reference-impls/hf-evaluate/bleu)
ifneq ($(wildcard $(SHARED_EVALUATE)/bleu.py),)
export BLEU_HARNESS_EVALUATE_MODULE ?= $(SHARED_EVALUATE)
endif
# torchmetrics needs torch: this CPU wheel is installed first, so that the extras never
# pull a multi-GB CUDA build.
TORCH := torch==2.13.0
PIP := $(BIN)/python -m pip --disable-pip-version-check -q
# Packages are installed by uv (pinned; pip installs it into .venv first), which resolves and
# unpacks in parallel. pip's find-links folder (where a machine keeps local wheels such as the
# CPU torch) is passed on, since uv does not read pip's configuration.
UV_PIN := uv==0.13.9
FIND_LINKS := $(strip $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null)))
UV = $(BIN)/uv pip install --quiet $(if $(FIND_LINKS),--find-links $(FIND_LINKS))
# Bytecode is written and reused (some machines set PYTHONDONTWRITEBYTECODE=1, which makes every
# process recompile the package and pytest rewrite every test module again).
unexport PYTHONDONTWRITEBYTECODE
# pytest on two workers; a test module's tests stay on one worker (module fixtures are built
# once) unless the module spreads them itself (see tests/conftest.py). One BLAS/OpenMP thread
# per worker: two workers with a thread pool each would oversubscribe two cores.
PYTEST := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m pytest -q -n 2 --dist loadgroup

.PHONY: demo test test-full check lint typecheck system-deps tf-env oracles format clean bench sanitize

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: | $(BIN)/python
	$(PIP) install $(UV_PIN)

# setup.py builds the compiled kernels (harness/bleu/_native.c, harness/statistics/_kendall.c)
# with the machine's C compiler.
$(VENV)/.stamp-run: pyproject.toml setup.py harness/bleu/_native.c harness/statistics/_kendall.c | $(BIN)/uv
	$(UV) --python $(BIN)/python $(TORCH)
	$(UV) --python $(BIN)/python -e '.[peers,cjk]'
	touch $@

$(VENV)/.stamp-dev: pyproject.toml $(VENV)/.stamp-run
	$(UV) --python $(BIN)/python -e '.[peers,cjk,dask,dev]'
	touch $@

demo: $(VENV)/.stamp-run
	$(BIN)/bleu-harness demo

lint: $(VENV)/.stamp-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.stamp-dev
	$(BIN)/mypy

# What the oracle tests need beside .venv; built while mypy runs.
oracles: system-deps tf-env

# The doctests of harness/ run with the tests. A failure hypothesis finds is kept in
# .hypothesis/ and replayed first on the next run.
test: $(VENV)/.stamp-dev
	@$(MAKE) --no-print-directory -j3 lint typecheck oracles
	BLEU_HARNESS_TEST_DEPTH=default $(PYTEST) --doctest-modules harness tests

test-full: $(VENV)/.stamp-dev
	@$(MAKE) --no-print-directory -j3 lint typecheck oracles
	BLEU_HARNESS_TEST_DEPTH=full $(PYTEST) --doctest-modules harness tests

# The inner loop: no oracle script, browser, TensorFlow or real data, a few examples per property.
check: $(VENV)/.stamp-dev
	@$(MAKE) --no-print-directory -j2 lint typecheck
	BLEU_HARNESS_TEST_DEPTH=check BLEU_HARNESS_DATA= $(PYTEST) -m "not oracle and not realdata and not browser and not slow" --doctest-modules harness tests

# harness/bleu/_native.c built with AddressSanitizer and UBSan into $(SANITIZE_DIR) (the installed
# module is left alone), then the tests of the kernels and of the fast path that uses them, with
# harness.bleu.native loading that build (BLEU_HARNESS_NATIVE_PATH). Python itself is not
# instrumented: libasan is preloaded, Python allocates through malloc so that ASan sees every
# buffer, and leaks are not reported (CPython leaves its own at exit). Any sanitizer report
# stops the run with an error (pytest captures only Python's output, so the report shows).
SANITIZE_DIR := build/sanitize
SANITIZE_TESTS := tests/test_native.py tests/test_native_hardening.py tests/test_native_build.py \
	tests/test_fastpath.py tests/test_hashed.py tests/test_cache.py tests/test_kendall_interval.py
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

sanitize: $(VENV)/.stamp-dev
	rm -rf $(SANITIZE_DIR)
	CFLAGS="$(SANITIZE_FLAGS) -fno-wrapv -g" LDFLAGS="$(SANITIZE_FLAGS)" $(BIN)/python setup.py -q \
	  build_ext --force --build-lib $(SANITIZE_DIR)/lib --build-temp $(SANITIZE_DIR)/tmp
	@so=$$(ls $(CURDIR)/$(SANITIZE_DIR)/lib/harness/bleu/_native*.so 2>/dev/null); \
	kendall=$$(ls $(CURDIR)/$(SANITIZE_DIR)/lib/harness/statistics/_kendall*.so 2>/dev/null); \
	asan=$$($${CC:-gcc} -print-file-name=libasan.so); \
	if [ -z "$$so" ] || [ -z "$$kendall" ] || [ ! -f "$$asan" ]; then \
	  echo "sanitize: no sanitized build (see above) or no libasan ($$asan)"; exit 1; \
	fi; \
	echo "sanitize: $$so, $$kendall, preloading $$asan"; \
	export LD_PRELOAD="$$asan" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 BLEU_HARNESS_NATIVE_PATH="$$so" \
	  BLEU_HARNESS_KENDALL_PATH="$$kendall"; \
	$(BIN)/python -c "from harness.bleu import native; assert native.module().__file__ == '$$so'" && \
	$(BIN)/python -c "from harness.statistics import kendall_interval as k; assert k.KERNEL.__file__ == '$$kendall'" && \
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -q -p no:cacheprovider --capture=sys $(SANITIZE_TESTS)

# Everything the suite needs from the operating system (XML::Twig for mteval-v13a.pl, Chromium
# for the HTML report's browser test, g++ for fairseq's libbleu, Java for the PTB tokenizer),
# checked and installed in one serial step that waits for the package manager's lock; it says
# what it found and what it installed. Under CI=true a package it cannot install stops make test
# here; otherwise the tests that need it skip.
system-deps:
	@bash tools/system-deps.sh

# tests/test_profile_keras.py runs keras-hub's real BLEU metric, which needs TensorFlow: too
# heavy for the project's own environment, so it lives in $(TF_VENV) (built once; the stamp
# holds the pins, so changing them rebuilds it). tensorflow-text goes in without its
# dependencies, which would pull the full (GPU) tensorflow wheel beside tensorflow-cpu. When
# the build fails, say so: those tests skip, and fail under CI=true.
TF_VENV := .venv-tf
TF_PINS := tensorflow-cpu==2.21.0 keras==3.15.1 keras-hub==0.32.0
TF_NODEPS := tensorflow-text==2.21.1

tf-env: | $(BIN)/uv
	@if [ "$$(cat $(TF_VENV)/.stamp 2>/dev/null)" = "$(TF_PINS) $(TF_NODEPS)" ]; then \
	  :; \
	else \
	  echo "building $(TF_VENV) ($(TF_PINS) $(TF_NODEPS)) for tests/test_profile_keras.py"; \
	  rm -rf $(TF_VENV); \
	  if $(PYTHON) -m venv $(TF_VENV) && $(UV) --python $(TF_VENV)/bin/python $(TF_PINS) && \
	     $(UV) --python $(TF_VENV)/bin/python --no-deps $(TF_NODEPS) && \
	     $(TF_VENV)/bin/python -c "import keras_hub" >/dev/null 2>&1; then \
	    echo "$(TF_PINS) $(TF_NODEPS)" > $(TF_VENV)/.stamp; \
	  else \
	    echo "NOTE: could not build $(TF_VENV) (TensorFlow for keras-hub's BLEU); the"; \
	    echo "      keras-hub tests skip (and fail under CI=true). Retry with: make tf-env"; \
	  fi; \
	fi

format: $(VENV)/.stamp-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Issue 13's performance targets beside the ratios measured in this run (~15 min; the commands
# need the real data). `python benchmarks/bench_targets.py --readme` also rewrites README's table.
bench: $(VENV)/.stamp-run
	$(BIN)/python benchmarks/bench_targets.py

clean:
	rm -rf $(VENV) $(TF_VENV) build *.egg-info .pytest_cache .hypothesis .ruff_cache
