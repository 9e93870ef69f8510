# The two commands a new user runs: `make matrix` and `make test`. Both install what they need.
PYTHON ?= $(shell command -v python3.11 || command -v python3.12 || command -v python3.13 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: matrix test test-docker test-ray test-xla test-gpu report atlas images device-check bench-overhead bench-timing docs clean

$(BIN)/.installed: pyproject.toml harness/pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "error: the runner needs Python 3.11+ on the host; set PYTHON=/path/to/python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ./harness -e '.[test,ray]'
	@touch $@

matrix: $(BIN)/.installed  ## run every cell of matrix.toml this host can run, then merged.json and a summary
	$(BIN)/runner matrix $(if $(BASE),--base $(BASE)) $(if $(COMPILER),--compiler $(COMPILER)) \
		$(foreach i,$(INCLUDE),--include $(i)) $(foreach s,$(SKIP),--skip $(s)) $(if $(LANES),--lanes $(LANES)) \
		$(if $(CACHED_BESIDE),$(if $(filter 0 no,$(CACHED_BESIDE)),--no-cached-beside,--cached-beside)) \
		$(if $(REPEATS),--repeats $(REPEATS)) $(if $(BUDGET_S),--budget-s $(BUDGET_S)) $(if $(DRY_RUN),--dry-run)

test: $(BIN)/.installed  ## the project's tests; builds the CPU framework venvs on first use
	@scripts/browser.sh >/dev/null  # the report test opens report.html in headless Chromium
	$(BIN)/pytest

test-docker: $(BIN)/.installed  ## the Docker end-to-end check; starts (then stops) dockerd if no engine answers
	scripts/docker-engine.sh start
	$(BIN)/pytest -m docker tests/docker; status=$$?; scripts/docker-engine.sh stop; exit $$status

test-ray: $(BIN)/.installed  ## the Ray end-to-end check: a head and workers started (then stopped) on this machine
	$(BIN)/pytest -m ray tests/ray

test-xla: $(BIN)/.installed  ## torch_xla on the CPU (PJRT_DEVICE=CPU): its fallback ops; downloads about 4 GB once
	$(BIN)/pytest -m xla tests/xla

report: $(BIN)/.installed  ## report.md, report.html and figures/ of the latest run (RUN=results/<id> for another)
	$(BIN)/runner report $(RUN)

atlas: $(BIN)/.installed  ## a static site of every run in results/reference/ (and RESULTS=folders) in site/; open site/index.html
	$(BIN)/runner report --site --out site results/reference/*/ $(RESULTS)

images: $(BIN)/.installed  ## build the images of matrix.toml's cells (BASE=image to build on an offline base)
	$(BIN)/runner images build $(if $(BASE),--base $(BASE))

# No .venv, no network, no Docker: the interpreter measured is PYTHON itself (its own frameworks and pytest).
device-check:  ## on a GPU or TPU machine: every framework PYTHON has, on every device it sees, within BUDGET_S (840)
	$(PYTHON) scripts/device_check.py --python $(PYTHON) $(if $(RESULTS),--out $(RESULTS)) \
	  $(foreach f,$(FUNCTIONS),--functions '$(f)') $(foreach o,$(CENSUS_OPS),--census-ops '$(o)') $(if $(STEPS),--steps $(STEPS)) \
	  $(if $(BUDGET_S),--budget-s $(BUDGET_S)) $(if $(LANES),--lanes $(LANES)) $(if $(DRY_RUN),--dry-run)

# The user guide's tools (pyproject.toml's `docs` extra) go into .venv beside the runner, only when asked for.
$(BIN)/.docs-installed: $(BIN)/.installed pyproject.toml
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[docs]'
	@touch $@

# -E reads every page each time (an unchanged page would not repeat its warning), -W makes a warning fail the
# build, -n reports every link to a page or heading that does not exist, --keep-going lists them all first.
# External links are not checked: that needs the network, and the guide keeps them to a minimum.
docs: $(BIN)/.docs-installed  ## the user guide, docs/ into docs/_build/html (open index.html there)
	$(BIN)/sphinx-build -E -W --keep-going -n -q -b html docs docs/_build/html

# The real-GPU tests alone (tests/gpu; `make test` runs them too), in PYTHON as device-check runs it: its own
# frameworks and pytest, no .venv, no network. Only tests/gpu's files are loaded (not tests/conftest.py).
test-gpu:  ## on a GPU machine: the runner reads its GPU, judges its torch right, runs a torch and a JAX cell quick
	$(PYTHON) -m pytest -m gpu --confcutdir tests/gpu -p no:cacheprovider tests/gpu

bench-overhead: $(BIN)/.installed
	$(BIN)/python benchmarks/harness_overhead.py

bench-timing: $(BIN)/.installed
	$(BIN)/python benchmarks/timing_accuracy.py

clean:
	rm -rf $(VENV) docs/_build
