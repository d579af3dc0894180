# bufsize: the README's two commands are `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PACKAGES := app models validation
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install serve test lint typecheck pytest notebooks import-graph bench validate ns3 ns3-compare clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==25.3
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

# The simulator's compiled core, into numba's on-disk cache (so no first check waits for it),
# again whenever a file it compiles changes (validation/simulator/core/cache.py's SOURCES).
CORE_STAMP := $(VENV)/.core-compiled
CORE_SOURCES := $(wildcard validation/simulator/core/*.py) validation/simulator/layout.py \
	validation/simulator/parameters.py
$(CORE_STAMP): $(STAMP) $(CORE_SOURCES)
	$(BIN)/python -m validation.simulator.warm
	touch $(CORE_STAMP)

install: $(STAMP) $(CORE_STAMP)

serve: $(STAMP) $(CORE_STAMP)
	$(BIN)/bufsize serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/hadolint Dockerfile
	$(BIN)/vulture

typecheck: $(STAMP)
	$(BIN)/mypy $(PACKAGES)

pytest: $(STAMP) $(CORE_STAMP)
	$(BIN)/pytest -n 2 --dist loadgroup

test: lint typecheck pytest

notebooks: $(STAMP)
	$(BIN)/python -m notebooks.render

# Speed figures (printed, never asserted): the simulator and the recommendation engine.
# The API load benchmark needs a running service: see benchmarks/api_load.py.
# Which use cases (app/services/) each edge imports, read from the sources (docs/architecture.md).
import-graph: $(STAMP)
	$(BIN)/python -m tests.import_graph

bench: $(STAMP) $(CORE_STAMP)
	$(BIN)/python benchmarks/simulator_speed.py
	$(BIN)/python benchmarks/recommend_speed.py

# The papers' datasets against the models and the simulator, every row (see README).
validate: $(STAMP) $(CORE_STAMP)
	$(BIN)/bufsize validate full --out validation-report

# ns-3 beside bufsize (studies/ns3_compare.py): the PyPI package ns3 and cppyy, installed
# only by this target (never by install or test). ns-3 runs at the lowest priority.
NS3_STAMP := $(VENV)/.ns3-installed
$(NS3_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,ns3]'
	touch $(NS3_STAMP)

ns3: $(NS3_STAMP)

ns3-compare: $(NS3_STAMP)
	nice -n 19 $(BIN)/python studies/ns3_compare.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
