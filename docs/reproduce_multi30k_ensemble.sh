#!/usr/bin/env bash
# MEMBERS seeds of docs/reproduce_multi30k.sh's tiny recipe, trained two at a time side by
# side, each on its own half of the machine's cores (two one-core runs on a 2-core machine:
# the tiny model's ops are too small to keep two cores busy, so two runs train more steps
# in all than one), then decoded as an ensemble (t2t-decoder --output_dir=RUN_A,RUN_B,...)
# and scored with t2t-bleu on val and test_2016_flickr: the last checkpoints of all
# members, and all their averages.
#
#   docs/reproduce_multi30k_ensemble.sh [ende|enfr|ende_lc|enfr_lc] [RUN_ROOT]
#
# MEMBERS (default 2): how many seeds. FIRST_SEED (default 1): the first of them; members
# take seeds FIRST_SEED, FIRST_SEED + 1, ... (a rerun of a layout with other seeds:
# FIRST_SEED=5 MEMBERS=4 takes 5-8). Members train in rounds of two, so the
# training's wall time is ceil(MEMBERS / 2) * TRAIN_MINUTES: MEMBERS=4 TRAIN_MINUTES=60
# spends the same two hours of two cores as the default on four one-hour members.
# RIGHT_TO_LEFT (default 0): how many of the members, the last ones, train right to left
# (--hparams=right_to_left=True); the ensemble's decodings then search with the others and
# rerank their beam with all (t2t_lite.decoding.rerank).
# Each seed's run, its averages and its own decodings land in RUN_ROOT/seedN for seed N
# (logs: RUN_ROOT/seedN.log); the ensemble's in RUN_ROOT/ensemble.
# All members read one data folder, RUN_ROOT/data, made by whichever starts first, under a
# lock (one vocabulary for all members, as an ensemble needs).
# TRAIN_MINUTES, AVERAGE, BEAM, ALPHA, PRECISION, HPARAMS and MULTI30K are
# reproduce_multi30k.sh's settings and pass through to every run. The wall time at the
# defaults is about 2 h 15 min: one round's two hours, plus the ensemble's four decodings.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIR=${1:-ende_lc}
ROOT=${2:-runs/multi30k_ensemble}
MEMBERS=${MEMBERS:-2}
FIRST_SEED=${FIRST_SEED:-1}
RIGHT_TO_LEFT=${RIGHT_TO_LEFT:-0}
MULTI30K=${MULTI30K:-../shared/data/multi30k}
SOURCE=${PAIR:0:2}
TARGET=${PAIR:2:2}
BIN=.venv/bin
export BEAM=${BEAM:-5} ALPHA=${ALPHA:-1.4}  # reproduce_multi30k.sh's defaults, for every run.
[[ "$MEMBERS" =~ ^[1-9][0-9]*$ ]] || { echo "MEMBERS must be a positive count, not '$MEMBERS'" >&2; exit 2; }
[[ "$FIRST_SEED" =~ ^(0|[1-9][0-9]*)$ ]] || { echo "FIRST_SEED must be a seed (0, 1, ...), not '$FIRST_SEED'" >&2; exit 2; }
[[ "$RIGHT_TO_LEFT" =~ ^(0|[1-9][0-9]*)$ ]] && (( RIGHT_TO_LEFT < MEMBERS )) || {
  echo "RIGHT_TO_LEFT must be a count below MEMBERS=$MEMBERS (one member at least searches), not '$RIGHT_TO_LEFT'" >&2; exit 2; }
[[ "$BEAM" =~ ^[1-9][0-9]*$ ]] && (( RIGHT_TO_LEFT == 0 || BEAM >= 2 )) || {
  echo "BEAM must be a beam size (2 or more with RIGHT_TO_LEFT members, whose reranking needs a beam), not '$BEAM'" >&2; exit 2; }
LAST_SEED=$(( FIRST_SEED + MEMBERS - 1 ))
FIRST_BACKWARD=$(( LAST_SEED - RIGHT_TO_LEFT + 1 ))  # Seeds from here on train right to left.
export DATA=$ROOT/data
COMMIT=$($BIN/python docs/record_context.py commit)  # The commit trained, kept for the record.
COMMAND="$(printf '%q ' "docs/$(basename "$0")" "$@")(MEMBERS=$MEMBERS FIRST_SEED=$FIRST_SEED RIGHT_TO_LEFT=$RIGHT_TO_LEFT TRAIN_MINUTES=${TRAIN_MINUTES:-120} AVERAGE=${AVERAGE:-20} BEAM=$BEAM ALPHA=$ALPHA PRECISION=${PRECISION:-as the CPU allows} HPARAMS=${HPARAMS:-})"
mkdir -p "$ROOT"  # for the members' logs; each run makes its own folders.

# Stops members' scripts: their commands first (a trainer saves on SIGTERM), then the
# scripts (set -e there, so they would stop on their own too).
stop_members() {
  for PID in "$@"; do pkill -TERM -P "$PID"; kill "$PID"; done 2>/dev/null || true
}

# Waits for a round's members; the first to fail stops the others at once.
wait_for_round() {
  local RUNNING=("$@") STILL PID
  while (( ${#RUNNING[@]} )); do
    STILL=()
    for PID in "${RUNNING[@]}"; do
      if kill -0 "$PID" 2>/dev/null; then
        STILL+=("$PID")
      elif ! wait "$PID"; then
        stop_members "$@"
        return 1
      fi
    done
    RUNNING=("${STILL[@]}")
    if (( ${#RUNNING[@]} )); then sleep 5; fi
  done
}

CORES=$(nproc)
HALF=$(( CORES > 1 ? CORES / 2 : 1 ))
CPU_LISTS=("0-$(( HALF - 1 ))" "$(( CORES > 1 ? HALF : 0 ))-$(( CORES - 1 ))")  # a round's first, second
PIDS=()
trap 'stop_members "${PIDS[@]}"; exit 130' INT TERM  # No member trains on without the script.
for (( FIRST = FIRST_SEED; FIRST <= LAST_SEED; FIRST += 2 )); do
  PIDS=()
  for (( SEED = FIRST; SEED <= LAST_SEED && SEED < FIRST + 2; SEED++ )); do
    MEMBER_HPARAMS=${HPARAMS:-}
    (( SEED >= FIRST_BACKWARD )) && MEMBER_HPARAMS+=${MEMBER_HPARAMS:+,}right_to_left=True
    HPARAMS=$MEMBER_HPARAMS SEED=$SEED taskset -c "${CPU_LISTS[SEED - FIRST]}" docs/reproduce_multi30k.sh "$PAIR" \
      "$ROOT/seed$SEED" tiny > "$ROOT/seed$SEED.log" 2>&1 &
    PIDS+=($!)
  done
  wait_for_round "${PIDS[@]}" || {
    echo "a seed's run failed: see the logs $ROOT/seed*.log" >&2; exit 1; }
done
trap - INT TERM

LAST=""; AVERAGED=""
for (( SEED = FIRST_SEED; SEED <= LAST_SEED; SEED++ )); do
  RUN=$ROOT/seed$SEED/${PAIR}_tiny
  LAST+=${LAST:+,}$RUN
  AVERAGED+=${AVERAGED:+,}${RUN}_avg
done
OUT=$ROOT/ensemble
mkdir -p "$OUT"
for SPLIT in val test_2016_flickr; do
  for MODEL in last avg; do
    RUNS=$LAST; [ "$MODEL" = avg ] && RUNS=$AVERAGED
    NAME=$OUT/$SPLIT.$MODEL.beam$BEAM.$TARGET
    $BIN/t2t-decoder --output_dir="$RUNS" \
      --decode_hparams="beam_size=$BEAM,alpha=$ALPHA" \
      --decode_from_file="$MULTI30K/$SPLIT.$SOURCE" --decode_to_file="$NAME"
    WHAT="ensemble of all $MEMBERS seeds' $MODEL checkpoints"
    (( RIGHT_TO_LEFT )) && WHAT="the $(( MEMBERS - RIGHT_TO_LEFT )) left-to-right seeds' $MODEL checkpoints, their beam reranked by all $MEMBERS, the $RIGHT_TO_LEFT right-to-left ones among them"
    echo "== $SPLIT, $WHAT, beam $BEAM, alpha $ALPHA"
    $BIN/t2t-bleu --translation="$NAME" --reference="$MULTI30K/$SPLIT.$TARGET" --language="$TARGET" \
      --scores_json="$NAME.scores.json"
  done
done
# The figure val chose, as data (OUT/figure.json).
$BIN/python docs/chosen_figure.py "$OUT" --seed="$FIRST_SEED-$LAST_SEED" --commit="$COMMIT" \
  --command="$COMMAND"
