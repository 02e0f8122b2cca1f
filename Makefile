# make demo: set everything up, then run the main job on the built-in offline default:
#            German->English on the Ding dictionary's example sentences.
# make test: set everything up, then run the test suite (the full tier; CI runs it).
# make test-fast: the unit tier only: no subprocesses, no training beyond a few steps.
# make rehearse-gpu: the GPU session's script, rehearsed on the CPU (before a GPU session).
# make docs: the guide (docs/) built into site/ with MkDocs, strict: a broken link fails.
# make dist: an sdist and a wheel in dist/ (python -m build), to install elsewhere.

# Recipes in bash with pipefail: a failing command before a pipe (| tee) fails the recipe.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

DEMO_DIR := demo_output
DEMO_PROBLEM := translate_deen_ding8k
DEMO_DATA := $(DEMO_DIR)/data
DEMO_RUN := $(DEMO_DIR)/run
DEMO_TIMELINE := $(DEMO_DIR)/timeline.tsv
DEMO_STEPS ?= 2000
DING := /usr/share/trans/de-en

.PHONY: demo demo-start test test-fast rehearse-gpu install clean bench bench-gpu docs dist

install: $(STAMP)

$(STAMP): setup.py
	@test -n "$(PYTHON)" || { echo "make: no python3.11 found; install Python 3.11 or pass PYTHON=/path/to/python3.11"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --editable ".[test]"
	touch $(STAMP)

# Debian's trans-de-en package holds the demo's sentences (never shipped with t2t_lite).
$(DING):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get install -y trans-de-en || { apt-get update && apt-get install -y trans-de-en; }; \
	else \
	  echo "make demo needs Debian's package trans-de-en: run 'sudo apt-get install trans-de-en', then make demo again"; exit 1; \
	fi

$(DEMO_DATA)/$(DEMO_PROBLEM)-test.json: $(STAMP) | $(DING)
	$(BIN)/t2t-datagen --problem=$(DEMO_PROBLEM) --data_dir=$(DEMO_DATA) --tmp_dir=$(DEMO_DIR)/tmp

# Minutes on a laptop CPU: tensor2tensor's tiny model with 2,048-token batches, a short
# warmup and a learning rate that peaks at 3.1e-3, 2,000 steps (about 18 epochs: the dev
# BLEU still rises where the dev loss has turned); greedy dev decoding (sacreBLEU); seed 1
# (weights, dropout and the input order), so a rerun on the same machine gives the same run.
DEMO_RUN_FLAGS = --problem=$(DEMO_PROBLEM) --hparams_set=transformer_tiny \
  --hparams=batch_size=2048,learning_rate_warmup_steps=400,learning_rate_constant=0.7 \
  --data_dir=$(DEMO_DATA) --output_dir=$(DEMO_RUN) --eval_steps=0 --decode_hparams=beam_size=1 \
  --random_seed=1

# Ends with three translations, the greedy BLEU of the whole dev split and the run's record
# (docs/demo_record.py: $(DEMO_DIR)/record.json, the time of each phase in $(DEMO_TIMELINE)).
demo: demo-start $(STAMP) $(DEMO_DATA)/$(DEMO_PROBLEM)-test.json
	@echo "prepared $$(date +%s)" >> $(DEMO_TIMELINE)
	$(BIN)/t2t-trainer $(DEMO_RUN_FLAGS) --train_steps=$(DEMO_STEPS) --local_eval_frequency=1000 \
	  --save_checkpoints_steps=1000
	@echo "trained $$(date +%s)" >> $(DEMO_TIMELINE)
	printf 'Sie schüttelte traurig den Kopf.\nDas Wetter ist heute schön.\nIch habe keine Zeit.\n' | \
	  $(BIN)/t2t-decoder --output_dir=$(DEMO_RUN) --decode_interactive
	@echo "translated $$(date +%s)" >> $(DEMO_TIMELINE)
	$(BIN)/t2t-trainer $(DEMO_RUN_FLAGS) --schedule=evaluate --eval_decode_sentences=100000 \
	  | tee $(DEMO_DIR)/evaluate.log
	@echo "evaluated $$(date +%s)" >> $(DEMO_TIMELINE)
	@$(BIN)/python docs/demo_record.py --demo_dir=$(DEMO_DIR)

# Said first: how long the demo takes (docs/figures/demo_ding.json, its record on 2 cores).
demo-start:
	@echo "make demo: about 11 minutes on 2 CPU cores (install, data, 2,000 training steps; its record: docs/figures/demo_ding.json); it needs Debian's trans-de-en; run it again to resume"
	@mkdir -p $(DEMO_DIR)
	@echo "start $$(date +%s)" > $(DEMO_TIMELINE)
	@echo "installed $$(test -e $(STAMP) && echo 1 || echo 0)" >> $(DEMO_TIMELINE)

# Test files are spread over TEST_WORKERS processes (pytest-xdist; each file on one worker).
# Each tier's run writes its record (its minutes and counts, tests/tier_record.py) there.
TEST_WORKERS ?= 2
TIER_RECORDS := .pytest_cache/tier_records

test: $(STAMP)
	T2T_TEST_RECORD=$(TIER_RECORDS)/full.json $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder \
	  -m "not gpu_rehearsal" tests

# Before a GPU session: its script's every stage, rehearsed on the CPU (about 6 minutes).
rehearse-gpu: $(STAMP)
	$(BIN)/python -m pytest -q -m gpu_rehearsal tests

test-fast: $(STAMP)
	T2T_TEST_RECORD=$(TIER_RECORDS)/unit.json $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile -m "not slow" tests

docs: $(STAMP)
	$(BIN)/python docs/reference_pages.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The wheel is built from the sdist, so what the sdist leaves out, the wheel lacks too
# (tests/test_wheel.py installs it in a fresh venv and runs every command from there).
dist: $(STAMP)
	$(BIN)/python -m build --outdir dist .

# make bench: benchmarks against peers (PyTorch, keras-hub) in bounded time; writes docs/benchmarks.md.
bench: $(STAMP)
	$(BIN)/pip install --quiet --editable ".[bench]"
	$(BIN)/python -m bench

# make bench-gpu: on a GPU machine with JAX (CUDA), Keras and PyTorch, no TensorFlow (nor this
# venv) needed: t2t_lite's training step and decoding against PyTorch's; writes the GPU
# section of docs/benchmarks.md. PYTHON=... picks the interpreter that has them.
bench-gpu:
	KERAS_BACKEND=jax $(PYTHON) -m bench.gpu

clean:
	rm -rf $(VENV) .venv-* $(DEMO_DIR) site dist *.egg-info
