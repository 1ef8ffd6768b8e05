# attunestats: `make reproduce` (main job) and `make test` (test suite) set everything up first.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
# Keep PyTensor's compile cache in one place (warm cache: ~2 s per model instead of ~20 s).
export PYTENSOR_FLAGS ?= base_compiledir=$(HOME)/.cache/attunestats/pytensor
# Plugins we do not use cost seconds per pytest process; load ours explicitly.
export PYTEST_DISABLE_PLUGIN_AUTOLOAD ?= 1
PYTEST := $(PY) -m pytest -p _hypothesis_pytestplugin -p xdist.plugin

.PHONY: setup reproduce notebooks test test-slow lint bench clean

$(VENV)/.installed: pyproject.toml
	@python_bin="$$(bash .ci/find-python)" && echo "using $$python_bin" && \
	  ( [ -x $(PY) ] || "$$python_bin" -m venv $(VENV) ) && \
	  $(PY) -m pip install --quiet --upgrade pip && \
	  $(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

setup: $(VENV)/.installed

## Main job: rebuild every table and figure from the bundled simulated release.
reproduce: setup
	$(VENV)/bin/attunestats reproduce

## Notebooks: the jupytext sources notebooks/NN_*.py are edited; this syncs their paired .ipynb.
notebooks: setup
	$(VENV)/bin/jupytext --sync notebooks/[0-9][0-9]_*.py

## Test suite (what CI runs): everything but the long `slow` studies, and every docstring example.
test: setup
	$(VENV)/bin/ruff check attunestats tests benchmarks notebooks
	$(PYTEST) -n 2 --doctest-modules attunestats tests

## Long simulation studies (coverage, size, recovery), behind the `slow` marker.
test-slow: setup
	$(PYTEST) -m slow -n 2

lint: setup
	$(VENV)/bin/ruff check attunestats tests benchmarks notebooks
	$(VENV)/bin/ruff format --check attunestats tests benchmarks notebooks

bench: setup
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
