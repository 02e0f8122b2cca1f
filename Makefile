# make demo: set everything up, then run the main job on the built-in offline default.
# make test: set everything up, then run the test suite.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEMO_DIR := demo_output

.PHONY: demo test install clean

install: $(STAMP)

$(STAMP): setup.py
	@test -n "$(PYTHON)" || { echo "make: no python3.11 found; install Python 3.11 or pass PYTHON=/path/to/python3.11"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --editable ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/t2t-trainer --registry_help
	$(BIN)/t2t-trainer --hparams_set=transformer_base --vocab_size=37000 --summary

test: $(STAMP)
	$(BIN)/python -m pytest -q tests

clean:
	rm -rf $(VENV) $(DEMO_DIR) *.egg-info
