#!/usr/bin/env bash
# t2t_lite on TensorFlow on a GPU machine with no internet and no TensorFlow, from the
# offline bundle (tools/offline_bundle/). One stage per call, each well inside 10 minutes
# (times from H200 sessions with the site bundle below):
#
#   bash bench/gpu/run_tf_on_device.sh all              # at most ALL_MINUTES (8): unpack,
#                                                       #   replicas_train, serving, then
#                                                       #   bench_training's rows (ALL_BENCH_ARGS)
#                                                       #   until the minutes are up; each
#                                                       #   stage timed in $OUT/stages.tsv
#   bash bench/gpu/run_tf_on_device.sh unpack           # 56-67 s: join, extract (34-41 s), GPU, XLA
#   bash bench/gpu/run_tf_on_device.sh two_replicas     # 51 s: MirroredStrategy, 2 logical GPUs
#   bash bench/gpu/run_tf_on_device.sh replicas_train   # datagen; t2t-trainer with two replicas
#                                                       #   (2 logical GPUs of GPU 0, XLA,
#                                                       #   PRECISION) for REPLICA_STOP, the same
#                                                       #   command again (the resume) for
#                                                       #   RESUME_STOP; t2t-exporter (SavedModel,
#                                                       #   CTranslate2)
#   bash bench/gpu/run_tf_on_device.sh serving          # replicas_train's export on the GPU and
#                                                       #   on 2 of the machine's cores: batch 1,
#                                                       #   batch 64, t2t-serve under 64 clients
#                                                       #   (bench/gpu/serving.py)
#   bash bench/gpu/run_tf_on_device.sh bench_training   # 1.6 min a model at one batch
#                                                       #   (BENCH_ARGS): JAX and TF steps,
#                                                       #   PyTorch's unless --no_torch
#   bash bench/gpu/run_tf_on_device.sh bench_decoding   # JAX and TF decoding (PyTorch's
#                                                       #   too unless --no_torch)
#   bash bench/gpu/run_tf_on_device.sh multi30k_train   # datagen, t2t-trainer (XLA,
#                                                       #   PRECISION): TRAIN_MINUTES + 45 s
#                                                       #   (5.7 min for 5)
#   bash bench/gpu/run_tf_on_device.sh multi30k_decode  # 2.8 min: avg-all, decoder (averaged),
#                                                       #   exporter, decoder (last), t2t-bleu
#                                                       #   on test_2016_flickr
#
# SMOKE=1 rehearses the same stages on any CPU with this checkout's Python and its TensorFlow
# (no bundle: unpack only installs the checkout into $TARGET/site, as on the GPU), tiny: a few steps of training, a few sentences served,
# bench.gpu --smoke; `SMOKE=1 MULTI30K=DIR OUT=DIR bash bench/gpu/run_tf_on_device.sh all`
# (`make rehearse-gpu`: tests/test_gpu_session.py runs it, before a GPU session).
#
# Before the first stage the bundle's parts must be in $BUNDLE (default /tmp/bundle) on the
# device machine, and for the Multi30k stages the raw files in $MULTI30K (default
# /tmp/multi30k). The device tool carries at most 64 MiB a call (the working tree counted in)
# and the machine keeps files only while it stays warm (30 s after a call, 30 min at most),
# so a session carries one part per call, back to back. The machine has CUDA 13's libraries
# (PyTorch's and JAX's) and a CUDA toolkit, so the small bundle fits: Python 3.12, the site
# folder installed here, the machine's CUDA (tools/offline_bundle/offline_site.py). Here, once:
#
#   python tools/offline_bundle/offline_bundle.py pack --out=/work/bundles/site312 \
#     --python_version=3.12 --site --host_cuda --max_part_mib=60 \
#     --extras=serve,ctranslate2  # 7 parts, 412 MiB without the extras (t2t-serve's aiohttp,
#                                 # CTranslate2: the serving stage's)
#   echo /.carry/ >> .git/info/exclude; mkdir -p .carry/multi30k
#   ln -f /work/bundles/site312/* .carry/       # hard links: nothing is copied
#   cp ../shared/data/multi30k/*.en ../shared/data/multi30k/*.de .carry/multi30k/
#
# then device calls, each right after the last (about 5 s of device time each; the first,
# which starts the machine, took 30 s; all seven parts, 55 s):
#   run(carry=[".carry/manifest.json", ".carry/bundle.part000"],
#     command="mkdir -p /tmp/bundle && mv .carry/manifest.json .carry/bundle.part000 /tmp/bundle/")
#   run(carry=[".carry/bundle.partN"], command="mv .carry/bundle.partN /tmp/bundle/")
#   ... the last part with ".carry/multi30k" too, "mv .carry/multi30k /tmp/multi30k", and
#   the unpack stage; then the other stages, also back to back. Afterwards, here:
#   rm -r .carry (the hard links). The full bundle (pack without --site: 43 parts of wheels,
#   CUDA 12's own libraries) is carried the same way, for a machine without CUDA.
set -euo pipefail
cd "$(dirname "$0")/../.."
STAGES="all|unpack|two_replicas|replicas_train|serving|bench_training|bench_decoding|multi30k_train|multi30k_decode"
STAGE=${1:?usage: run_tf_on_device.sh $STAGES}
SMOKE=${SMOKE:-}
BUNDLE=${BUNDLE:-/tmp/bundle}
TARGET=${TARGET:-/tmp/t2t_tf}
RUNS=${RUNS:-/tmp/t2t_runs}
MULTI30K=${MULTI30K:-/tmp/multi30k}
TRAIN_MINUTES=${TRAIN_MINUTES:-8}
PRECISION=${PRECISION:-bfloat16}  # t2t-trainer's --mixed_precision: bfloat16 or float16
HPARAMS_SET=${HPARAMS_SET:-transformer_tiny_multi30k}  # docs/results.md's best Multi30k set
# Beam 4 with that set's val-chosen alpha; all 1,000 test sentences in one batch: XLA
# compiles the search once per (batch, width), tens of seconds each on a GPU.
DECODE_HPARAMS=${DECODE_HPARAMS:-beam_size=4,alpha=1.4,batch_size=1000}
DECODE_RUNS=${DECODE_RUNS:-ende_avg ende}  # the averaged checkpoint first, then the last
# On an H200 the step's XLA compile took about a minute per batch shape, and the default
# length buckets are 35: in 2.5 minutes the trainer made 2 steps. One bucket instead: every
# batch padded to 63 tokens (the longest Multi30k pair has 53), 256 sentences of them, which
# hold about the recipe's 4,096 real tokens (batch_size counts padded tokens).
TRAIN_HPARAMS=${TRAIN_HPARAMS:-min_length_bucket=64,length_bucket_step=2,batch_size=16384}
RESULTS=${OUT:-$RUNS/results}
BENCH_ARGS=${BENCH_ARGS:-}  # e.g. "--models=big --tokens=32768 --repeats=3 --no_torch"
PYTHON=${PYTHON:-python3}
ALL_MINUTES=${ALL_MINUTES:-8}
if [ -n "$SMOKE" ]; then  # The same program, tiny, on this machine's CPU and Python.
  REPLICA_STOP=${REPLICA_STOP:---train_steps=2}
  RESUME_STOP=${RESUME_STOP:---train_steps=4}
  REPLICA_FLAGS=${REPLICA_FLAGS:---xla}  # bfloat16 on a CPU: slow, and not what it checks.
  REPLICA_HPARAMS=${REPLICA_HPARAMS:-min_length_bucket=64,length_bucket_step=2,batch_size=512}
  SERVING_ARGS=${SERVING_ARGS:---count=8 --alone=2 --seconds=2}
  ALL_BENCH_ARGS=${ALL_BENCH_ARGS:---smoke --torch_modes=compile}
else
  # A minute of training with its compile, then half a minute more from the checkpoint
  # (--train_minutes is the run's total across restarts: 1.5 resumes for the half minute).
  REPLICA_STOP=${REPLICA_STOP:---train_steps=1000000 --train_minutes=1}
  RESUME_STOP=${RESUME_STOP:---train_steps=1000000 --train_minutes=1.5}
  REPLICA_FLAGS=${REPLICA_FLAGS:---xla --mixed_precision=$PRECISION}
  REPLICA_HPARAMS=${REPLICA_HPARAMS:-$TRAIN_HPARAMS}
  SERVING_ARGS=${SERVING_ARGS:-}
  # Big at 32k first (the ≥ 45% goal's row), then 8k, then base; PyTorch compiled only.
  ALL_BENCH_ARGS=${ALL_BENCH_ARGS:---models=big,base --tokens=32768,8192 --repeats=3 --torch_modes=compile}
fi
export PYTHONUNBUFFERED=1 TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-1}
mkdir -p "$RUNS" "$RESULTS"

with_tensorflow() {  # Runs "$@" with the bundle's TensorFlow, its CUDA libraries and ptxas.
  if [ -n "$SMOKE" ]; then  # This Python's TensorFlow; t2t_lite and its commands installed
    # into $TARGET/site by unpack, as on the GPU machine (not the checkout's editable one).
    (export PATH="$TARGET/site/bin:$(dirname "$(command -v "$PYTHON")"):$PATH" \
       PYTHONPATH="$TARGET/site" KERAS_BACKEND=tensorflow && "$@")
  else
    (source "$TARGET/env.sh" && KERAS_BACKEND=tensorflow "$@")
  fi
}

with_jax() {  # Runs "$@" with the machine's JAX and the bundle's Keras alone (the TF rows
  # take the rest of the bundle: bench.gpu's --tf_target).
  if [ -n "$SMOKE" ]; then
    (export KERAS_BACKEND=jax JAX_PLATFORMS=cpu && "$@")
  else
    (export PYTHONPATH="$TARGET/keras_site" KERAS_BACKEND=jax && "$@")
  fi
}

tf_target() {  # bench.gpu's flag for the TensorFlow rows' TensorFlow.
  if [ -z "$SMOKE" ]; then echo "--tf_target=$TARGET"; fi
}

timed_stage() {  # Runs stage $1 of this script, its seconds and exit status in stages.tsv.
  local start status
  start=$(date +%s)
  echo "=== stage $1"
  set +e
  bash "$0" "$1"
  status=$?
  set -e
  printf '%s\t%s\t%s\n' "$1" "$(( $(date +%s) - start ))" "$status" >> "$RESULTS/stages.tsv"
  return $status
}

case "$STAGE" in
  all)
    ALL_START=$(date +%s)
    printf 'stage\tseconds\texit status\n' > "$RESULTS/stages.tsv"
    timed_stage unpack || { cat "$RESULTS/stages.tsv"; exit 1; }
    if timed_stage replicas_train; then
      timed_stage serving || true
    else
      echo "all: replicas_train failed, so serving has no export to serve: left out" >&2
    fi
    LEFT=$(( ALL_MINUTES * 60 - ($(date +%s) - ALL_START) ))
    if [ "$LEFT" -gt 30 ]; then
      # 15 s for the last row's process to end and the tables to be written.
      BENCH_ARGS="$ALL_BENCH_ARGS --deadline_minutes=$(awk "BEGIN {print ($LEFT - 15) / 60}")" \
        timed_stage bench_training || true
    else
      echo "all: ${LEFT} s of the ${ALL_MINUTES} minutes left: bench_training left out" >&2
    fi
    echo "all: $(( $(date +%s) - ALL_START )) s"
    cat "$RESULTS/stages.tsv"
    ! grep -qP '\t[1-9][0-9]*$' "$RESULTS/stages.tsv"
    ;;
  unpack)
    if [ -n "$SMOKE" ]; then
      echo "smoke: no bundle to unpack; TensorFlow from $(command -v "$PYTHON")"
    else
      nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
      time "$PYTHON" tools/offline_bundle/offline_bundle.py unpack --bundle="$BUNDLE" \
        --target="$TARGET"
    fi
    # The checkout's t2t_lite over the bundle's (the bundle may be older than the checkout),
    # built with the bundle's setuptools and wheel.
    PYTHONPATH="$TARGET/site" "$PYTHON" -m pip install -q --no-index --no-deps \
      --no-build-isolation --upgrade --target="$TARGET/site" .
    if [ -n "$SMOKE" ]; then exit 0; fi
    with_tensorflow "$PYTHON" bench/gpu/tf_gpu_check.py
    # Keras alone (the machine lacks it, and namex and optree) for the JAX rows.
    mkdir -p "$TARGET/keras_site"
    ln -sf "$TARGET"/site/{keras,namex,optree}* "$TARGET/keras_site/"
    ;;
  two_replicas)
    with_jax "$PYTHON" -m bench.gpu.two_replicas $(tf_target) | tee "$RESULTS/two_replicas.txt"
    ;;
  replicas_train)
    # t2t-trainer itself with two replicas, stopped by REPLICA_STOP and resumed by the same
    # command (RESUME_STOP: where it ends), on Multi30k; then the run exported for serving.
    with_tensorflow bash -c "
      set -euo pipefail
      time t2t-datagen --problem=translate_ende_multi30k --tmp_dir='$MULTI30K' \
        --data_dir='$RUNS/data'
      for STOP in '$REPLICA_STOP' '$RESUME_STOP'; do
        time '$PYTHON' -m bench.gpu.logical_gpus --replicas=2 -- \
          --problem=translate_ende_multi30k --hparams_set=$HPARAMS_SET \
          --hparams='$REPLICA_HPARAMS' --data_dir='$RUNS/data' --output_dir='$RUNS/replicas' \
          $REPLICA_FLAGS \$STOP --schedule=train --random_seed=1 --save_checkpoints_steps=100
        grep model_checkpoint_path '$RUNS/replicas/checkpoint' | head -1
      done
      time t2t-exporter --output_dir='$RUNS/replicas'
      time t2t-exporter --output_dir='$RUNS/replicas' --export_format=ctranslate2 ||
        echo 'replicas_train: no CTranslate2 export (the serving stage goes on without it)'" \
      2>&1 | tee "$RESULTS/replicas_train.log"
    ;;
  serving)
    with_tensorflow "$PYTHON" -m bench.gpu.serving --export_dir="$RUNS/replicas/export" \
      --ct2_dir="$RUNS/replicas/ctranslate2" --sentences="$MULTI30K/test_2016_flickr.en" \
      $SERVING_ARGS --json="$RESULTS/serving.json" 2>&1 | tee "$RESULTS/serving.txt"
    ;;
  bench_training)
    with_jax "$PYTHON" -m bench.gpu --only=training $(tf_target) $BENCH_ARGS \
      --output=- --json="$RESULTS/tf_training.json" | tee "$RESULTS/tf_training.txt"
    ;;
  bench_decoding)
    with_jax "$PYTHON" -m bench.gpu --only=decoding $(tf_target) $BENCH_ARGS \
      --output=- --json="$RESULTS/tf_decoding.json" | tee "$RESULTS/tf_decoding.txt"
    ;;
  multi30k_train)
    # docs/reproduce_multi30k.sh's tiny recipe (one seed), under a GPU's time budget.
    # PRECISION=float16 trains with Keras's LossScaleOptimizer (dynamic loss scaling).
    with_tensorflow bash -c "
      set -euo pipefail
      time t2t-datagen --problem=translate_ende_multi30k --tmp_dir='$MULTI30K' \
        --data_dir='$RUNS/data'
      time t2t-trainer --problem=translate_ende_multi30k --hparams_set=$HPARAMS_SET \
        --hparams='$TRAIN_HPARAMS' --data_dir='$RUNS/data' --output_dir='$RUNS/ende' \
        --xla --mixed_precision=$PRECISION \
        --train_steps=1000000 --train_minutes=$TRAIN_MINUTES --random_seed=1 \
        --local_eval_frequency=4000 --eval_decode_sentences=300 --eval_steps=0 \
        --decode_hparams=beam_size=1,batch_size=300 --save_checkpoints_steps=150 \
        --save_checkpoints_secs=0 --keep_checkpoint_max=20" 2>&1 | tee "$RESULTS/multi30k_train.log"
    ;;
  multi30k_decode)
    # The average of the last 20 checkpoints (3,000 steps: the linear decay) decoded on
    # test_2016_flickr and exported as a SavedModel; then the last checkpoint decoded.
    with_tensorflow bash -c "
      set -euo pipefail
      time t2t-avg-all --model_dir='$RUNS/ende' --output_dir='$RUNS/ende_avg' --n=20 --window=1 --dev_sentences=0
      for RUN in $DECODE_RUNS; do
        time t2t-decoder --output_dir=\"$RUNS/\$RUN\" --decode_hparams='$DECODE_HPARAMS' \
          --decode_from_file='$MULTI30K/test_2016_flickr.en' \
          --decode_to_file=\"$RESULTS/test_2016_flickr.\$RUN.de\"
        t2t-bleu --translation=\"$RESULTS/test_2016_flickr.\$RUN.de\" \
          --reference='$MULTI30K/test_2016_flickr.de' --language=de
        if [ \$RUN = ende_avg ]; then time t2t-exporter --output_dir='$RUNS/ende_avg'; fi
      done" 2>&1 | tee "$RESULTS/multi30k_decode.log"
    ;;
  *)
    echo "run_tf_on_device.sh: error: unknown stage $STAGE" >&2
    exit 2
    ;;
esac
