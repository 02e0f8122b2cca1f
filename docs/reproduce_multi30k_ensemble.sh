#!/usr/bin/env bash
# Two seeds of docs/reproduce_multi30k.sh's tiny recipe trained side by side, each on its
# own half of the machine's cores (two one-core runs on a 2-core machine: the tiny model's
# ops are too small to keep two cores busy, so two runs train more steps in all than one),
# then decoded as an ensemble (t2t-decoder --output_dir=RUN_A,RUN_B) and scored with
# t2t-bleu on val and test_2016_flickr: the last checkpoints of both, and both averages.
#
#   docs/reproduce_multi30k_ensemble.sh [ende|enfr|ende_lc|enfr_lc] [RUN_ROOT]
#
# Each seed's run, its averages and its own decodings land in RUN_ROOT/seed1 and
# RUN_ROOT/seed2 (logs: RUN_ROOT/seed1.log, ...); the ensemble's in RUN_ROOT/ensemble.
# TRAIN_MINUTES, AVERAGE, BEAM, ALPHA, PRECISION, HPARAMS and MULTI30K are
# reproduce_multi30k.sh's settings and pass through to both runs. The wall time is one
# run's (about 2 h 15 min at the default two hours of training), plus the ensemble's four
# decodings.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIR=${1:-ende_lc}
ROOT=${2:-runs/multi30k_ensemble}
MULTI30K=${MULTI30K:-../shared/data/multi30k}
SOURCE=${PAIR:0:2}
TARGET=${PAIR:2:2}
BIN=.venv/bin
export BEAM=${BEAM:-5} ALPHA=${ALPHA:-1.4}  # reproduce_multi30k.sh's defaults, for both runs.

CORES=$(nproc)
HALF=$(( CORES > 1 ? CORES / 2 : 1 ))
CPU_LISTS=("0-$(( HALF - 1 ))" "$(( CORES > 1 ? HALF : 0 ))-$(( CORES - 1 ))")  # seed 1's, seed 2's
mkdir -p "$ROOT"
PIDS=()
for SEED in 1 2; do
  SEED=$SEED taskset -c "${CPU_LISTS[SEED - 1]}" docs/reproduce_multi30k.sh "$PAIR" \
    "$ROOT/seed$SEED" tiny > "$ROOT/seed$SEED.log" 2>&1 &
  PIDS+=($!)
done
for PID in "${PIDS[@]}"; do
  wait "$PID" || { echo "a seed's run failed: see $ROOT/seed1.log and $ROOT/seed2.log" >&2; exit 1; }
done

RUN1=$ROOT/seed1/${PAIR}_tiny
RUN2=$ROOT/seed2/${PAIR}_tiny
OUT=$ROOT/ensemble
mkdir -p "$OUT"
for SPLIT in val test_2016_flickr; do
  for MODEL in last avg; do
    RUNS=$RUN1,$RUN2; [ "$MODEL" = avg ] && RUNS=${RUN1}_avg,${RUN2}_avg
    NAME=$OUT/$SPLIT.$MODEL.beam$BEAM.$TARGET
    $BIN/t2t-decoder --output_dir="$RUNS" \
      --decode_hparams="beam_size=$BEAM,alpha=$ALPHA" \
      --decode_from_file="$MULTI30K/$SPLIT.$SOURCE" --decode_to_file="$NAME"
    echo "== $SPLIT, ensemble of both seeds' $MODEL checkpoints, beam $BEAM, alpha $ALPHA"
    $BIN/t2t-bleu --translation="$NAME" --reference="$MULTI30K/$SPLIT.$TARGET" --language="$TARGET"
  done
done
