#!/usr/bin/env bash
# The Multi30k runs of docs/results.md, through t2t_lite's own commands:
#   datagen -> trainer (greedy dev BLEU at every evaluation, curves.png)
#   -> t2t-avg-all -> t2t-decoder (last and averaged checkpoints) -> t2t-bleu on val and
#   test_2016_flickr.
#
#   docs/reproduce_multi30k.sh [ende|enfr|ende_lc|enfr_lc] [RUN_ROOT] [tiny|small]
#
# ende_lc, enfr_lc: the lowercased problems (translate_ende_multi30k_lc), trained as the
#   Multi30k papers train; their outputs are lowercased.
# tiny (the default, the best per CPU hour): transformer_tiny_multi30k, Wu et al. 2021's
#   recipe, trained for TRAIN_MINUTES (default 120) of wall clock, in mixed bfloat16 where
#   the CPU has bfloat16 matmuls (AVX512_BF16 or AMX; else float32; PRECISION=float32 or
#   bfloat16 overrides); greedy BLEU on 300 val sentences every 1,000 steps; the last
#   AVERAGE (default 20) checkpoints, 100 steps apart, averaged (for runs under an hour
#   take 10: 20 reach back into the first half, and lost 1.1 on val for 40-minute
#   members); beam BEAM (5), alpha ALPHA (1.4): the values chosen on val
#   (docs/results.md). About 2 h 10 min on 2 cores.
# small: transformer_small_multi30k for TRAIN_STEPS (default 1000: 20-25 minutes of
#   training on 2 cores of a recent Xeon, up to 1.5 hours on slower 2-core machines), the
#   last 5 checkpoints averaged, greedy and beam 4: the first reference run.
#
# SEED (default 1): the run's random seed; two seeds, each on one core (taskset), make the
# two members of an ensemble (docs/results.md).
# HPARAMS: overrides of the recipe's set, as t2t-trainer's --hparams takes them (e.g.
# attention_dropout=0.1,relu_dropout=0.1); default none.
# MULTI30K: a folder with the unpacked raw files (train.en, val.de, ...); default: the
# shared data folder beside the project. Without the files there, t2t-datagen downloads
# them into it.
# DATA: the folder t2t-datagen writes (default RUN_ROOT/data). Runs started together may
# share one: the first makes it, under a lock, and the others wait for it and reuse it.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIR=${1:-ende}
ROOT=${2:-runs/multi30k}
RECIPE=${3:-tiny}
MULTI30K=${MULTI30K:-../shared/data/multi30k}
SOURCE=${PAIR:0:2}
TARGET=${PAIR:2:2}
PROBLEM=translate_${PAIR:0:4}_multi30k${PAIR:4}
DATA=${DATA:-$ROOT/data}
RUN=$ROOT/$PAIR; [ "$RECIPE" = tiny ] && RUN=$ROOT/${PAIR}_tiny
AVG=${RUN}_avg
OUT=${RUN}_decoded
BIN=.venv/bin

case $RECIPE in
  tiny)
    if [ -z "${PRECISION:-}" ]; then
      PRECISION=float32
      grep -qE 'avx512_bf16|amx_bf16' /proc/cpuinfo 2>/dev/null && PRECISION=bfloat16
    fi
    [[ "$PRECISION" =~ ^(float32|bfloat16)$ ]] || {
      echo "PRECISION must be float32 or bfloat16, not '$PRECISION'" >&2; exit 2; }
    MIXED=""
    [ "$PRECISION" = bfloat16 ] && MIXED=--mixed_precision=bfloat16
    AVERAGE=${AVERAGE:-20}
    TRAIN=(--hparams_set=transformer_tiny_multi30k $MIXED --train_steps=1000000
           --train_minutes="${TRAIN_MINUTES:-120}" --local_eval_frequency=1000
           --eval_decode_sentences=300 --keep_checkpoint_max="$AVERAGE")
    BEAMS=("${BEAM:-5}")
    ALPHA=${ALPHA:-1.4}
    # Checked here, not by t2t-decoder hours later.
    [[ "${BEAMS[0]}" =~ ^[1-9][0-9]*$ ]] || { echo "BEAM must be a beam size, not '$BEAM'" >&2; exit 2; }
    [[ "$ALPHA" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "ALPHA must be a number >= 0, not '$ALPHA'" >&2; exit 2; } ;;
  small)
    AVERAGE=5
    TRAIN=(--hparams_set=transformer_small_multi30k --train_steps="${TRAIN_STEPS:-1000}"
           --local_eval_frequency=200 --eval_decode_sentences=1014 --keep_checkpoint_max=20)
    BEAMS=(1 4)
    ALPHA=0.6 ;;
  *) echo "unknown recipe $RECIPE: tiny or small" >&2; exit 2 ;;
esac
COMMIT=$($BIN/python docs/record_context.py commit)  # The commit trained, kept for the record.
SETTINGS="SEED=${SEED:-1} HPARAMS=${HPARAMS:-} AVERAGE=$AVERAGE BEAMS=${BEAMS[*]} ALPHA=$ALPHA"
case $RECIPE in
  tiny) SETTINGS+=" TRAIN_MINUTES=${TRAIN_MINUTES:-120} PRECISION=$PRECISION" ;;
  small) SETTINGS+=" TRAIN_STEPS=${TRAIN_STEPS:-1000}" ;;
esac
COMMAND="$(printf '%q ' "docs/$(basename "$0")" "$@")($SETTINGS)"

mkdir -p "$DATA"
(
  flock 9
  [ -f "$DATA/$PROBLEM-test.json" ] || \
    $BIN/t2t-datagen --problem="$PROBLEM" --tmp_dir="$MULTI30K" --data_dir="$DATA"
) 9> "$DATA/.datagen.lock"

$BIN/t2t-trainer --problem="$PROBLEM" "${TRAIN[@]}" --hparams="${HPARAMS:-}" \
  --data_dir="$DATA" --output_dir="$RUN" --random_seed="${SEED:-1}" --eval_steps=0 \
  --decode_hparams=beam_size=1 --save_checkpoints_steps=100 --save_checkpoints_secs=0

# The recipe's own averaging: the last AVERAGE checkpoints, wherever they are, and no dev
# check (the script chooses between last and average on val itself).
$BIN/t2t-avg-all --model_dir="$RUN" --output_dir="$AVG" --n="$AVERAGE" --window=1 --dev_sentences=0

mkdir -p "$OUT"
for SPLIT in val test_2016_flickr; do
  for MODEL in last avg; do
    DIR=$RUN; [ "$MODEL" = avg ] && DIR=$AVG
    for BEAM_SIZE in "${BEAMS[@]}"; do
      NAME=$OUT/$SPLIT.$MODEL.beam$BEAM_SIZE.$TARGET
      $BIN/t2t-decoder --output_dir="$DIR" --decode_hparams="beam_size=$BEAM_SIZE,alpha=$ALPHA" \
        --decode_from_file="$MULTI30K/$SPLIT.$SOURCE" --decode_to_file="$NAME"
      echo "== $SPLIT, $MODEL checkpoint, beam $BEAM_SIZE, alpha $ALPHA"
      $BIN/t2t-bleu --translation="$NAME" --reference="$MULTI30K/$SPLIT.$TARGET" \
        --language="$TARGET" --scores_json="$NAME.scores.json"
    done
  done
done
# The figure val chose, as data (OUT/figure.json).
$BIN/python docs/chosen_figure.py "$OUT" --seed="${SEED:-1}" --commit="$COMMIT" \
  --command="$COMMAND"
