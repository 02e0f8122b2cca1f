#!/usr/bin/env bash
# The README's "Train on your own data" walkthrough on a corpus folder, as a user runs it,
# then both candidates (the last checkpoint and t2t-avg-all's output) scored on val and
# test, and a record of the run written as data.
#
#   docs/reproduce_own_data.sh CORPUS SOURCE TARGET RUN_ROOT
#
# CORPUS: a folder with train.SOURCE, train.TARGET, val.* and test.* (line-aligned).
# TRAIN_MINUTES (default 60), or TRAIN_STEPS (a budget in steps instead: the same result on
# a busy machine), HPARAMS_SET (default transformer_auto), HPARAMS (overrides, default
# none), VOCAB (default 8192), SEED (default 1).
# Ends with RUN_ROOT/record.json (docs/own_data_record.py): the figure (the test sacreBLEU
# of what t2t-avg-all kept, which its dev check chose), every candidate's val and test, the
# steps trained, the machine, its load while training, the command and the commit.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=$1
SOURCE=$2
TARGET=$3
ROOT=$4
BIN=.venv/bin
MINUTES=${TRAIN_MINUTES:-60}
STEPS=${TRAIN_STEPS:-0}
if [ "$STEPS" -gt 0 ]; then BUDGET=--train_steps=$STEPS; MINUTES=0; else BUDGET=--train_minutes=$MINUTES; fi
mkdir -p "$ROOT"
LOAD=$ROOT/load.tsv
COMMIT=$($BIN/python docs/record_context.py commit)  # The commit trained, kept for the record.

$BIN/t2t-datagen --problem=translate_from_files --data_dir="$ROOT/data" \
  --train_source="$CORPUS/train.$SOURCE" --train_target="$CORPUS/train.$TARGET" \
  --dev_source="$CORPUS/val.$SOURCE" --dev_target="$CORPUS/val.$TARGET" \
  --vocab_size="${VOCAB:-8192}"

# The load average every 30 seconds while the run trains: a busy machine trains fewer steps.
( while true; do echo "$(date +%s) $(cut -d' ' -f1 /proc/loadavg)"; sleep 30; done ) > "$LOAD" &
SAMPLER=$!
trap 'kill $SAMPLER 2>/dev/null || true' EXIT
START=$(date +%s)
$BIN/t2t-trainer --problem=translate_from_files --data_dir="$ROOT/data" \
  --output_dir="$ROOT/run" --hparams_set="${HPARAMS_SET:-transformer_auto}" \
  --hparams="${HPARAMS:-}" "$BUDGET" --random_seed="${SEED:-1}" \
  2>&1 | tee "$ROOT/trainer.log"  # Its lines to stderr too: the time limit's line.
END=$(date +%s)
kill $SAMPLER

$BIN/t2t-avg-all --model_dir="$ROOT/run" --output_dir="$ROOT/run_avg" --n=20 | tee "$ROOT/avg.log"

OUT=$ROOT/decoded
mkdir -p "$OUT"
for SPLIT in val test; do
  for MODEL in run run_avg; do
    NAME=$OUT/$SPLIT.$MODEL.$TARGET
    $BIN/t2t-decoder --output_dir="$ROOT/$MODEL" --decode_from_file="$CORPUS/$SPLIT.$SOURCE" \
      --decode_to_file="$NAME"
    $BIN/t2t-bleu --translation="$NAME" --reference="$CORPUS/$SPLIT.$TARGET" \
      --language="$TARGET" --scores_json="$NAME.scores.json"
  done
done
$BIN/python docs/own_data_record.py --root="$ROOT" --corpus="$CORPUS" --target="$TARGET" \
  --minutes="$MINUTES" --train_steps="$STEPS" --seconds=$((END - START)) --seed="${SEED:-1}" \
  --commit="$COMMIT" \
  --command="$(printf '%q ' "$0" "$@") (TRAIN_MINUTES=$MINUTES TRAIN_STEPS=$STEPS HPARAMS_SET=${HPARAMS_SET:-transformer_auto} HPARAMS=${HPARAMS:-} VOCAB=${VOCAB:-8192} SEED=${SEED:-1})"
