# The two set-up commands a new user needs: `make demo` and `make test`.
# `make demo` installs only what the demo needs (prfeval with its `all` extra); `make test` adds
# the test toolchain (pytest, hypothesis, scikit-learn, pytrec_eval, ruff) on top.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_STAMP := $(VENV)/.installed-demo
TEST_STAMP := $(VENV)/.installed-test

.PHONY: install native demo test quick lint bench docs clean

# The editable installs leave the compiled pass to `make native` (PRFEVAL_BUILD_NATIVE=0), which
# builds it once, in place; `pip install .` and `python -m build` build it into the wheel
# (setup.py), with cargo on the PATH.
# No `pip install --upgrade pip`: Python >= 3.11 ships a pip (>= 22.3) that does editable
# installs from pyproject.toml, and the upgrade cost a download on every fresh clone.
$(DEMO_STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	PRFEVAL_BUILD_NATIVE=0 $(BIN)/python -m pip install --quiet -e '.[all]'
	$(MAKE) --no-print-directory native
	# An editable install writes no bytecode; compile it once, as a wheel install does.
	$(BIN)/python -m compileall -q src/prfeval
	touch $(DEMO_STAMP)

$(TEST_STAMP): $(DEMO_STAMP)
	PRFEVAL_BUILD_NATIVE=0 $(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP)

install: $(DEMO_STAMP)

# The compiled pass over TREC runs (native/pass: Rust, no dependencies, so it builds offline),
# copied into the package. Without cargo prfeval reads every run with Arrow alone.
NATIVE_LIB := src/prfeval/_native/libprfeval_pass.so
# (Copied under another name, then renamed: a process using the old library keeps it.)
native:
	@if ! command -v cargo >/dev/null 2>&1; then \
	  echo "cargo not found: no compiled pass, prfeval reads runs with Arrow"; \
	elif cargo build --release --offline --quiet --manifest-path native/pass/Cargo.toml; then \
	  mkdir -p src/prfeval/_native && \
	  cp native/pass/target/release/libprfeval_pass.so $(NATIVE_LIB).new && \
	  mv -f $(NATIVE_LIB).new $(NATIVE_LIB); \
	else echo "the compiled pass did not build: prfeval reads runs with Arrow"; fi

# Built again when its sources change, so that a checkout that pulls a new function of the
# library does not keep a copy without it (which would not load, and turn the pass off).
NATIVE_STAMP := $(VENV)/.native-built
$(NATIVE_STAMP): $(DEMO_STAMP) native/pass/Cargo.toml $(wildcard native/pass/src/*.rs)
	$(MAKE) --no-print-directory native
	touch $(NATIVE_STAMP)

demo: $(DEMO_STAMP) $(NATIVE_STAMP)
	$(BIN)/prfeval demo

# The suite in TEST_WORKERS processes (pytest-xdist), a test module to a process at a time, so
# that a module's shared fixtures (a Spark session, a rendered report) are made once.
TEST_WORKERS ?= 2
# pytest rewrites each test module's asserts on import; with PYTHONDONTWRITEBYTECODE set (as in
# many containers) it cannot keep the result, and every worker redoes all of it (about 5 s of a
# worker's collection). The bytecode goes to .pytest_cache, out of the source folders.
PYTEST := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(CURDIR)/.pytest_cache/pycache \
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

test: $(TEST_STAMP) $(NATIVE_STAMP)
	$(BIN)/ruff check src tests bench setup.py
	$(BIN)/python -m mypy
	@if command -v cargo >/dev/null 2>&1; then \
	  cargo test --offline --quiet --manifest-path native/pass/Cargo.toml; fi
	$(PYTEST)

# Everything but the tests that start Spark or a browser, read the demo's output, run
# processes under load, read large files or need a process of their own (CI and `make test`
# run those too).
quick: $(TEST_STAMP) $(NATIVE_STAMP)
	$(BIN)/ruff check src tests bench setup.py
	$(PYTEST) -m "not slow"

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests bench setup.py
	$(BIN)/python -m mypy

# The documentation site, into site/ (strict: a broken link or docstring fails the build).
docs: $(TEST_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench: $(TEST_STAMP)
	PRFEVAL_BUILD_NATIVE=0 $(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build dist site src/*.egg-info .pytest_cache .ruff_cache .mypy_cache prfeval-demo \
		native/pass/target src/prfeval/_native
