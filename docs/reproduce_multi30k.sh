#!/usr/bin/env bash
# The Multi30k reference run of docs/results.md, through t2t_lite's own commands:
#   datagen -> trainer (greedy dev BLEU on all of val at every evaluation, curves.png)
#   -> t2t-avg-all -> t2t-decoder (greedy and beam 4; last and averaged checkpoints)
#   -> t2t-bleu on val and test_2016_flickr.
#
#   docs/reproduce_multi30k.sh [ende|enfr] [RUN_ROOT]
#
# MULTI30K: a folder with the unpacked raw files (train.en, val.de, ...); default: the
# shared data folder beside the project. Without the files there, t2t-datagen downloads
# them into it. TRAIN_STEPS (default 1000: 20-25 minutes of training on 2 cores of a recent
# Xeon, then about 6 minutes of decoding; up to 1.5 hours and 25 minutes on slower 2-core
# machines) is read from the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIR=${1:-ende}
ROOT=${2:-runs/multi30k}
MULTI30K=${MULTI30K:-../shared/data/multi30k}
TRAIN_STEPS=${TRAIN_STEPS:-1000}
SOURCE=${PAIR:0:2}
TARGET=${PAIR:2:2}
PROBLEM=translate_${PAIR}_multi30k
DATA=$ROOT/data
RUN=$ROOT/$PAIR
AVG=$ROOT/${PAIR}_avg
OUT=$ROOT/${PAIR}_decoded
BIN=.venv/bin

[ -f "$DATA/$PROBLEM-test.json" ] || \
  $BIN/t2t-datagen --problem="$PROBLEM" --tmp_dir="$MULTI30K" --data_dir="$DATA"

$BIN/t2t-trainer --problem="$PROBLEM" --hparams_set=transformer_small_multi30k \
  --data_dir="$DATA" --output_dir="$RUN" --train_steps="$TRAIN_STEPS" --random_seed=1 \
  --local_eval_frequency=200 --eval_steps=0 --eval_decode_sentences=1014 \
  --decode_hparams=beam_size=1 --save_checkpoints_steps=100 --save_checkpoints_secs=0 \
  --keep_checkpoint_max=20

# The last 5 checkpoints (500 steps) averaged.
$BIN/t2t-avg-all --model_dir="$RUN" --output_dir="$AVG" --n=5

mkdir -p "$OUT"
for SPLIT in val test_2016_flickr; do
  for MODEL in last avg; do
    DIR=$RUN; [ "$MODEL" = avg ] && DIR=$AVG
    for BEAM in 1 4; do
      NAME=$OUT/$SPLIT.$MODEL.beam$BEAM.$TARGET
      $BIN/t2t-decoder --output_dir="$DIR" --decode_hparams="beam_size=$BEAM" \
        --decode_from_file="$MULTI30K/$SPLIT.$SOURCE" --decode_to_file="$NAME"
      echo "== $SPLIT, $MODEL checkpoint, beam $BEAM"
      $BIN/t2t-bleu --translation="$NAME" --reference="$MULTI30K/$SPLIT.$TARGET" \
        --language="$TARGET"
    done
  done
done
