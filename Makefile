# attunestats: `make reproduce` (main job) and `make test` (test suite) set everything up first.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
# Keep PyTensor's compile cache in one place (warm cache: ~2 s per model instead of ~20 s).
export PYTENSOR_FLAGS ?= base_compiledir=$(HOME)/.cache/attunestats/pytensor
# Plugins we do not use cost seconds per pytest process; load ours explicitly.
export PYTEST_DISABLE_PLUGIN_AUTOLOAD ?= 1
PYTEST := $(PY) -m pytest -p _hypothesis_pytestplugin -p xdist.plugin

.PHONY: setup reproduce notebooks test test-slow study-inference study-independent lint bench clean docs r-crosscheck

$(VENV)/.installed: pyproject.toml
	@python_bin="$$(bash .ci/find-python)" && echo "using $$python_bin" && \
	  ( [ -x $(PY) ] || "$$python_bin" -m venv $(VENV) ) && \
	  $(PY) -m pip install --quiet --upgrade pip && \
	  $(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

setup: $(VENV)/.installed

## Main job: rebuild every table and figure from the bundled simulated release. Fits that fail the
## MCMC diagnostics gate are stamped "diagnostics failed" in every output built from them and
## listed in MANIFEST.json and at the end of the build; without --allow-failed-fits the build
## would exit 1 on them (a fit that fails is refitted once with longer chains first; on the
## bundled release and the default seed every fit passes, one after its refit: README).
reproduce: setup
	$(VENV)/bin/attunestats reproduce --allow-failed-fits

## Notebooks: the jupytext sources notebooks/NN_*.py are edited; this syncs their paired .ipynb.
notebooks: setup
	$(VENV)/bin/jupytext --sync notebooks/[0-9][0-9]_*.py

## R for the second opinions (lme4 GLMM, clubSandwich CR2, mvtnorm max-|t| quantiles): the tests
## that compare with R skip, saying why, when it is missing. On a Debian machine where we are root
## it is installed once from Debian's packages (about a minute); ATTUNESTATS_NO_R=1 skips that.
R_PACKAGES := r-base-core r-cran-lme4 r-cran-clubsandwich r-cran-mvtnorm
R_CHECK := for (p in c("lme4", "clubSandwich", "mvtnorm")) library(p, character.only = TRUE)
r-crosscheck:
	@if command -v Rscript >/dev/null && Rscript -e '$(R_CHECK)' >/dev/null 2>&1; then \
	  echo "R cross-checks: $$(Rscript -e 'cat(R.version.string)' 2>/dev/null)"; \
	elif [ -n "$$ATTUNESTATS_NO_R" ]; then \
	  echo "R cross-checks: skipped (ATTUNESTATS_NO_R is set)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "R cross-checks: installing $(R_PACKAGES) from Debian (ATTUNESTATS_NO_R=1 skips this)"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  { apt-get install -y -q --no-install-recommends $(R_PACKAGES) >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null 2>&1 && \
	      apt-get install -y -q --no-install-recommends $(R_PACKAGES) >/dev/null 2>&1; }; } \
	    || echo "R cross-checks: apt-get failed; the tests that compare with R will be skipped"; \
	else \
	  echo "R cross-checks: no R here, and installing it needs root and apt-get; those tests are skipped"; \
	fi

## Test suite (what CI runs): everything but the long `slow` studies, and every docstring example.
test: setup r-crosscheck
	$(VENV)/bin/ruff check attunestats tests benchmarks notebooks
	@rm -rf $(DOCS_NB)
	ATTUNESTATS_KEEP_NOTEBOOKS=$(CURDIR)/$(DOCS_NB)/notebooks \
	  $(PYTEST) -n 2 --doctest-modules attunestats tests
	$(MAKE) --no-print-directory docs DOCS_NOTEBOOKS=reuse

## Documentation site (docs/_build/html): the notebooks are executed on the bundled simulated
## release in fast mode first (reused while notebooks/ and attunestats/ are unchanged), then Sphinx
## builds with warnings as errors. DOCS_NOTEBOOKS=skip renders them without outputs;
## DOCS_NOTEBOOKS=reuse (make test) takes the notebooks the test suite executed, if all are there.
DOCS_NB := docs/_build/paper_figures
DOCS_NOTEBOOKS ?= run
docs: setup
	@mkdir -p docs/_build; if [ "$(DOCS_NOTEBOOKS)" = reuse ] && \
	    [ "$$(ls $(DOCS_NB)/notebooks/[0-9][0-9]_*.ipynb 2>/dev/null | wc -l)" = "$$(ls notebooks/[0-9][0-9]_*.py | wc -l)" ]; then \
	  echo "docs: reusing the notebooks the test suite executed (fast mode, bundled simulated release)"; \
	elif [ "$(DOCS_NOTEBOOKS)" != skip ] && { [ ! -f $(DOCS_NB)/MANIFEST.json ] || \
	    [ -n "$$(find notebooks attunestats -name '*.py' -newer $(DOCS_NB)/MANIFEST.json | head -1)" ]; }; then \
	  echo "docs: executing the notebooks (fast mode, bundled simulated release)"; \
	  start=$$(date +%s); \
	  $(VENV)/bin/attunestats reproduce --fast --notebooks --out $(DOCS_NB) > docs/_build/reproduce.log 2>&1 \
	    || { tail -40 docs/_build/reproduce.log; exit 1; }; \
	  echo "docs: notebooks executed in $$(( $$(date +%s) - start )) s"; \
	fi
	@start=$$(date +%s); \
	ATTUNESTATS_DOCS_NOTEBOOKS=$(if $(filter skip,$(DOCS_NOTEBOOKS)),none,$(DOCS_NB)/notebooks) \
	  $(VENV)/bin/sphinx-build -W --keep-going -q -b html docs docs/_build/html && \
	  echo "docs: built docs/_build/html in $$(( $$(date +%s) - start )) s"

## Long simulation studies (coverage, size, recovery), behind the `slow` marker.
test-slow: setup
	$(PYTEST) -m slow -n 2

study-inference: setup  # the participant coverage grid (hours on 2 cores; resumable: rerun to continue)
	$(VENV)/bin/python benchmarks/study_participant_coverage.py --replicates 300 --out studies/participant_coverage

study-independent: setup  # the same question on releases of a generator outside the package (about 35 min; resumable)
	@for c in icc0 icc01 icc05 unb_icc0 unb_icc01 unb_icc05; do \
		$(PY) benchmarks/independent_generator/study.py $$c 200 10000 || exit 1; done
	$(PY) benchmarks/independent_generator/analyze.py > benchmarks/independent_generator/results/analysis_out.txt

lint: setup
	$(VENV)/bin/ruff check attunestats tests benchmarks notebooks
	$(VENV)/bin/ruff format --check attunestats tests benchmarks notebooks

bench: setup
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
