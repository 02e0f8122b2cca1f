#!/usr/bin/env bash
# t2t_lite on TensorFlow on a GPU machine with no internet and no TensorFlow, from the
# offline bundle (t2t_lite/offline_bundle.py). One stage per call, each well inside 10 minutes:
#
#   bash bench/gpu/run_tf_on_device.sh unpack           # ~3 min: join, install, GPU seen?
#   bash bench/gpu/run_tf_on_device.sh two_replicas     # ~1 min: MirroredStrategy, 2 logical GPUs
#   bash bench/gpu/run_tf_on_device.sh bench_training   # ~8 min: JAX and TF steps, base and big
#   bash bench/gpu/run_tf_on_device.sh bench_decoding   # ~6 min: JAX and TF decoding
#   bash bench/gpu/run_tf_on_device.sh multi30k_train   # ~9 min: datagen, t2t-trainer (XLA, bf16)
#   bash bench/gpu/run_tf_on_device.sh multi30k_decode  # ~5 min: avg-all, decoder beam 4,
#                                                       #   exporter, t2t-bleu on test_2016_flickr
#
# Before the first stage the bundle's parts must be in $BUNDLE (default /tmp/bundle) on the
# device machine, and for the Multi30k stages the raw files in $MULTI30K (default
# /tmp/multi30k). The device tool carries at most 64 MiB a call (the working tree counted in)
# and the machine keeps files only while it stays warm (30 s after a call, 30 min at most),
# so a session carries one part per call, back to back. Here, once:
#
#   python t2t_lite/offline_bundle.py pack --out=/work/bundles/gpu312 --python_version=3.12 \
#     --max_part_mib=60                         # or reuse the bundle there: 43 parts
#   echo /.carry/ >> .git/info/exclude; mkdir -p .carry/multi30k
#   ln -f /work/bundles/gpu312/* .carry/        # hard links: nothing is copied
#   ln -f ../shared/data/multi30k/*.en ../shared/data/multi30k/*.de .carry/multi30k/
#
# then device calls, each right after the last (N = 001 .. 042):
#   run(carry=[".carry/manifest.json", ".carry/bundle.part000"],
#     command="mkdir -p /tmp/bundle && mv .carry/manifest.json .carry/bundle.part000 /tmp/bundle/")
#   run(carry=[".carry/bundle.partN"], command="mv .carry/bundle.partN /tmp/bundle/")
#   ... the last part (5 MiB) with ".carry/multi30k" too, and
#       "mv .carry/multi30k /tmp/multi30k; ls /tmp/bundle | wc -l" (44: 43 parts, the manifest)
# and then the stages above, also back to back. Afterwards: rm -r .carry (the hard links) here.
# Device time: about 43 carrying calls, then the stages; a session's 30 minutes may not hold
# them all (the Multi30k stages can go to a second session, which carries the parts again).
set -euo pipefail
cd "$(dirname "$0")/../.."
STAGES="unpack|two_replicas|bench_training|bench_decoding|multi30k_train|multi30k_decode"
STAGE=${1:?usage: run_tf_on_device.sh $STAGES}
BUNDLE=${BUNDLE:-/tmp/bundle}
TARGET=${TARGET:-/tmp/t2t_tf}
RUNS=${RUNS:-/tmp/t2t_runs}
MULTI30K=${MULTI30K:-/tmp/multi30k}
TRAIN_MINUTES=${TRAIN_MINUTES:-8}
HPARAMS_SET=${HPARAMS_SET:-transformer_small_multi30k}  # docs/results.md's Multi30k rows' set
RESULTS=${OUT:-$RUNS/results}
PYTHON=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-1}
mkdir -p "$RUNS" "$RESULTS"

with_tensorflow() {  # Runs "$@" with the bundle's TensorFlow, CUDA 12 libraries and ptxas.
  (source "$TARGET/env.sh" && KERAS_BACKEND=tensorflow "$@")
}

case "$STAGE" in
  unpack)
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
    time "$PYTHON" t2t_lite/offline_bundle.py unpack --bundle="$BUNDLE" --target="$TARGET"
    # The checkout's t2t_lite over the bundle's (the bundle may be older than the checkout),
    # built with the bundle's setuptools and wheel.
    PYTHONPATH="$TARGET/site" "$PYTHON" -m pip install -q --no-index --no-deps \
      --no-build-isolation --upgrade --target="$TARGET/site" .
    with_tensorflow "$PYTHON" - <<'EOF'
import tensorflow as tf
gpus = tf.config.list_physical_devices("GPU")
print("TensorFlow", tf.__version__, "GPUs:", gpus, "built for CUDA",
      tf.sysconfig.get_build_info().get("cuda_version"))
assert gpus, "TensorFlow registers no GPU: see the 'Cannot dlopen' lines above"
# XLA on the GPU: needs ptxas and libdevice from the bundle's nvidia/cuda_nvcc.
f = tf.function(lambda a: tf.nn.softmax(a @ a), jit_compile=True)
print("XLA on the GPU:", f(tf.ones([256, 256], tf.bfloat16)).device, "ok")
EOF
    ;;
  two_replicas)
    "$PYTHON" -m bench.gpu.two_replicas --tf_target="$TARGET" | tee "$RESULTS/two_replicas.txt"
    ;;
  bench_training)
    KERAS_BACKEND=jax "$PYTHON" -m bench.gpu --only=training --no_torch --tf_target="$TARGET" \
      --output=- --json="$RESULTS/tf_training.json" | tee "$RESULTS/tf_training.txt"
    ;;
  bench_decoding)
    KERAS_BACKEND=jax "$PYTHON" -m bench.gpu --only=decoding --no_torch --tf_target="$TARGET" \
      --output=- --json="$RESULTS/tf_decoding.json" | tee "$RESULTS/tf_decoding.txt"
    ;;
  multi30k_train)
    with_tensorflow bash -c "
      set -euo pipefail
      time t2t-datagen --problem=translate_ende_multi30k --tmp_dir='$MULTI30K' \
        --data_dir='$RUNS/data'
      time t2t-trainer --problem=translate_ende_multi30k --hparams_set=$HPARAMS_SET \
        --data_dir='$RUNS/data' --output_dir='$RUNS/ende' --xla --mixed_precision=bfloat16 \
        --train_steps=100000 --train_minutes=$TRAIN_MINUTES --random_seed=1 \
        --local_eval_frequency=2000 --eval_steps=0 --save_checkpoints_steps=500 \
        --save_checkpoints_secs=0 --keep_checkpoint_max=20" 2>&1 | tee "$RESULTS/multi30k_train.log"
    ;;
  multi30k_decode)
    with_tensorflow bash -c "
      set -euo pipefail
      time t2t-avg-all --model_dir='$RUNS/ende' --output_dir='$RUNS/ende_avg' --n=5
      time t2t-decoder --output_dir='$RUNS/ende_avg' --decode_hparams=beam_size=4 \
        --decode_from_file='$MULTI30K/test_2016_flickr.en' \
        --decode_to_file='$RESULTS/test_2016_flickr.avg.beam4.de'
      time t2t-exporter --output_dir='$RUNS/ende_avg'
      t2t-bleu --translation='$RESULTS/test_2016_flickr.avg.beam4.de' \
        --reference='$MULTI30K/test_2016_flickr.de' --language=de" \
      2>&1 | tee "$RESULTS/multi30k_decode.log"
    ;;
  *)
    echo "run_tf_on_device.sh: error: unknown stage $STAGE" >&2
    exit 2
    ;;
esac
