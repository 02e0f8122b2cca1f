#!/usr/bin/env bash
# The WSJ-sample parsing runs of docs/results.md, through t2t_lite's own commands:
#   datagen (the sample split by file) -> trainer (greedy dev bracket F1 at every
#   evaluation, curves.png) -> t2t-avg-all -> t2t-decoder (greedy, and the problem's
#   preset: beam 21, alpha 0.3, input + 300; both under the count and bracket rules, and
#   with word leaves the copy rule; the preset once more without the bracket rule and,
#   with word leaves, once without the copy rule) -> EVALB (COLLINS.prm) on the dev and
#   test files -> OUT/figure.json: the test F1 of the candidate dev chose
#   (docs/chosen_figure.py).
#
#   docs/reproduce_parsing.sh [RUN_ROOT] [words|tags]
#
# words (the default): parsing_english_ptb16k_words, each leaf the word itself; tags:
# parsing_english_ptb16k, each leaf the word's POS tag.
# PTB: a directory of Penn Treebank .mrg files; default: the WSJ sample in the shared data
# folder beside the project. TRAIN_STEPS (default 3000: 15 to 35 minutes of training on
# 2 CPU cores, evaluations included), EVAL_EVERY and SAVE_EVERY (steps between dev
# evaluations, 500, and between checkpoints, 250: the last 5 are averaged) and HPARAMS
# (overrides of transformer_parsing_small, default none) are read from the environment;
# docs/results.md's best parser is
#   TRAIN_STEPS=10000 EVAL_EVERY=1000 SAVE_EVERY=500 \
#   HPARAMS=layer_prepostprocess_dropout=0.2 docs/reproduce_parsing.sh runs/ptbw10k
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${1:-runs/ptb}
LEAVES=${2:-words}
PTB=${PTB:-../shared/data/ptb_sample/combined}
TRAIN_STEPS=${TRAIN_STEPS:-3000}
EVAL_EVERY=${EVAL_EVERY:-500}
SAVE_EVERY=${SAVE_EVERY:-250}
HPARAMS=${HPARAMS:-}
case $LEAVES in
  words) PROBLEM=parsing_english_ptb16k_words ;;
  tags) PROBLEM=parsing_english_ptb16k ;;
  *) echo "unknown leaves $LEAVES: words or tags" >&2; exit 2 ;;
esac
DATA=$ROOT/data
RUN=$ROOT/run
AVG=$ROOT/avg
OUT=$ROOT/decoded
BIN=.venv/bin
COMMIT=$($BIN/python docs/record_context.py commit)  # The commit trained, kept for the record.
COMMAND="$(printf '%q ' "$0" "$@")(TRAIN_STEPS=$TRAIN_STEPS EVAL_EVERY=$EVAL_EVERY SAVE_EVERY=$SAVE_EVERY HPARAMS=$HPARAMS)"

# 3,900 trees make too little text for 16k pieces: a 4k vocabulary, brackets atomic.
[ -f "$DATA/$PROBLEM-test.json" ] || \
  $BIN/t2t-datagen --problem=$PROBLEM --tmp_dir="$PTB" --data_dir="$DATA" --vocab_size=4000

$BIN/t2t-trainer --problem=$PROBLEM --hparams_set=transformer_parsing_small \
  --hparams="$HPARAMS" --data_dir="$DATA" --output_dir="$RUN" --train_steps="$TRAIN_STEPS" \
  --random_seed=1 --local_eval_frequency="$EVAL_EVERY" --eval_steps=0 \
  --eval_decode_sentences=100 --decode_hparams=beam_size=1 --save_checkpoints_steps="$SAVE_EVERY" \
  --save_checkpoints_secs=0 --keep_checkpoint_max=20

# The last 5 checkpoints averaged.
# The recipe's own averaging: the last 5 checkpoints, no dev check (fixed before test).
$BIN/t2t-avg-all --model_dir="$RUN" --output_dir="$AVG" --n=5 --window=1 --dev_sentences=0

mkdir -p "$OUT"
for SPLIT in dev test; do
  $BIN/python docs/ptb_split_files.py "$PTB" $SPLIT "$OUT/$SPLIT.words" "$OUT/$SPLIT.gold"
done
for MODEL in last avg; do
  DIR=$RUN; [ "$MODEL" = avg ] && DIR=$AVG
  DECODINGS=(greedy preset); [ "$MODEL" = avg ] && DECODINGS+=(preset_no_bracket_rule)
  [ "$MODEL" = avg ] && [ "$LEAVES" = words ] && DECODINGS+=(preset_no_copy_rule)
  for DECODING in "${DECODINGS[@]}"; do
    case $DECODING in
      greedy) HPARAMS=beam_size=1 ;;
      preset) HPARAMS="" ;;
      preset_no_bracket_rule) HPARAMS=bracket_rule=False ;;
      preset_no_copy_rule) HPARAMS=copy_rule=False ;;
    esac
    for SPLIT in dev test; do
      NAME=$OUT/$SPLIT.$MODEL.$DECODING
      $BIN/t2t-decoder --output_dir="$DIR" --decode_hparams="$HPARAMS" \
        --decode_from_file="$OUT/$SPLIT.words" --decode_to_file="$NAME.trees"
      echo "== $SPLIT, $MODEL checkpoint, $DECODING decoding"
      $BIN/python -m t2t_lite.metrics.evalb "$OUT/$SPLIT.gold" "$NAME.trees" \
        --scores_json="$NAME.scores.json" > "$NAME.evalb"
      grep -E "^(Number of (Valid|Error) sentence|Bracketing (Recall|Precision|FMeasure)) " \
        "$NAME.evalb" | head -6
    done
  done
done

# The figure to quote: the test F1 of the candidate with the best dev F1 (OUT/figure.json).
$BIN/python docs/chosen_figure.py "$OUT" --val=dev --test=test --tag=bracket_f1 \
  --commit="$COMMIT" --command="$COMMAND"
