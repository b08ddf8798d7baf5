# bleu-harness: the two commands of the README.
#   make demo   create .venv if missing, install, run the comparison on the built-in fixtures
#   make test   create .venv if missing, install dev extras, ruff check + mypy + pytest (installs perl's
#               XML::Twig for the Moses oracle tests and Chromium for the HTML report's browser
#               test first when missing and we are root, and builds .venv-tf, TensorFlow for
#               the keras-hub tests: make tf-env)
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

.PHONY: demo test perl-deps browser-deps tf-env lint format clean bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# setup.py builds the compiled kernels (harness/bleu/_native.c) with the machine's C compiler.
$(VENV)/.stamp-run: pyproject.toml setup.py harness/bleu/_native.c | $(BIN)/python
	$(PIP) install $(TORCH)
	$(PIP) install -e '.[peers,cjk]'
	touch $@

$(VENV)/.stamp-dev: pyproject.toml $(VENV)/.stamp-run
	$(PIP) install -e '.[peers,cjk,dask,dev]'
	touch $@

demo: $(VENV)/.stamp-run
	$(BIN)/bleu-harness demo

test: $(VENV)/.stamp-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	@$(MAKE) --no-print-directory perl-deps
	@$(MAKE) --no-print-directory browser-deps
	@$(MAKE) --no-print-directory tf-env
	$(BIN)/python -m pytest -q -p no:cacheprovider

# The Moses oracle tests run ../shared/reference-impls/moses/*.pl; mteval-v13a.pl loads XML::Twig
# at start. Install it (Debian: libxml-twig-perl) when we can; otherwise say so: those tests skip,
# and fail under CI=true.
perl-deps:
	@if perl -MXML::Twig -e1 >/dev/null 2>&1; then \
	  :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "installing libxml-twig-perl (XML::Twig, needed by mteval-v13a.pl)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    libxml-twig-perl >/dev/null) || \
	    echo "NOTE: apt-get could not install libxml-twig-perl; the mteval-v13a.pl tests will skip (fail under CI=true)"; \
	else \
	  echo "NOTE: perl or its module XML::Twig is missing and cannot be installed here (needs root and"; \
	  echo "      apt-get). Install libxml-twig-perl (Debian/Ubuntu) or XML::Twig from CPAN; until then"; \
	  echo "      the mteval-v13a.pl oracle tests skip (and fail under CI=true)."; \
	fi

# tests/test_report_browser.py renders the HTML report in headless Chromium. Install it (Debian:
# the chromium package) when we can; otherwise say so: that test skips, and fails under CI=true.
browser-deps:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	  :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "installing chromium (headless browser for tests/test_report_browser.py)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    chromium >/dev/null) || \
	    echo "NOTE: apt-get could not install chromium; the browser test will skip (fail under CI=true)"; \
	else \
	  echo "NOTE: chromium is missing and cannot be installed here (needs root and apt-get)."; \
	  echo "      Install chromium (Debian/Ubuntu: apt-get install -y chromium); until then"; \
	  echo "      tests/test_report_browser.py skips (and fails under CI=true)."; \
	fi

# tests/test_profile_keras.py runs keras-hub's real BLEU metric, which needs TensorFlow: too
# heavy for the project's own environment, so it lives in $(TF_VENV) (built once; the stamp
# holds the pins, so changing them rebuilds it). tensorflow-text goes in without its
# dependencies, which would pull the full (GPU) tensorflow wheel beside tensorflow-cpu. When
# the build fails, say so: those tests skip, and fail under CI=true.
TF_VENV := .venv-tf
TF_PINS := tensorflow-cpu==2.21.0 keras==3.15.1 keras-hub==0.32.0
TF_NODEPS := tensorflow-text==2.21.1
TF_PIP := $(TF_VENV)/bin/python -m pip --disable-pip-version-check -q

tf-env:
	@if [ "$$(cat $(TF_VENV)/.stamp 2>/dev/null)" = "$(TF_PINS) $(TF_NODEPS)" ]; then \
	  :; \
	else \
	  echo "building $(TF_VENV) ($(TF_PINS) $(TF_NODEPS)) for tests/test_profile_keras.py"; \
	  rm -rf $(TF_VENV); \
	  if $(PYTHON) -m venv $(TF_VENV) && $(TF_PIP) install $(TF_PINS) && \
	     $(TF_PIP) install --no-deps $(TF_NODEPS) && \
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
