"""One measurement of `python -m bench.gpu` (a "row"), run here or in a fresh process.

    python -m bench.gpu.rows JOB.json RESULT.json     # what `run_isolated` starts

A job is a JSON object: {"kind": ..., "plan": settings.Plan fields, ...}:
  machine:         the device and its matmul peak (machine.py, matmul.py);
  train_t2t_lite:  t2t_lite's jitted step (jax_training.py); "model", "tokens";
  train_torch:     the PyTorch peer (peers/torch_gpu_training.py); also "compile";
  decode_t2t_lite: t2t_lite's `decode_ids` (jax_decoding.py) for every
                   (beam, batch) of the plan, smallest first; "model";
  decode_torch:    the PyTorch cached decoder (peers/torch_cached_decoding.py)
                   over the same weights, copied from t2t_lite's model;
  train_t2t_lite_tf, decode_t2t_lite_tf: the same on Keras's TensorFlow backend
                   (tf_rows.py): t2t_lite's TrainStep with XLA, decode_ids under
                   tf.function(jit_compile=True). Always in a fresh process with
                   KERAS_BACKEND=tensorflow; "tf_target": an offline bundle's install
                   folder (tools/offline_bundle/) to take TensorFlow from, or "".
In a fresh process each training row's peak memory is its own; JAX cannot
reset its peak, so a decoding process reports the peak so far after each case.
"""

import json
import os
import subprocess
import sys
import time
import traceback
import warnings

import numpy as np

from bench.gpu import use_jax_backend
from bench.gpu.settings import Plan

ROW_TIMEOUT_S = 480


def random_ids(vocab_size, sentences, length, seed):
  """[sentences, length] int32 ids in [2, vocab_size): no padding, no EOS."""
  return np.random.default_rng(seed).integers(2, vocab_size, (sentences, length)).astype(np.int32)


def training_batch(plan, tokens):
  """(inputs, targets) of `tokens` target tokens: sentences of plan.sentence_length each side."""
  sentences = max(1, tokens // plan.sentence_length)
  return (random_ids(plan.vocab_size, sentences, plan.sentence_length, 1),
          random_ids(plan.vocab_size, sentences, plan.sentence_length, 2))


def decode_cases(plan):
  """[(beam_size, batch)] of the plan, fewest hypotheses first (JAX's peak only grows)."""
  cases = [(beam, batch) for batch in plan.decode_batches for beam in plan.beam_sizes]
  return sorted(cases, key=lambda case: (case[0] * case[1], case[0]))


def decode_inputs(plan, batch):
  return random_ids(plan.vocab_size, batch, plan.input_length, 3)


def run_machine(job, plan):
  """The device; its matmul peak on a GPU, or in a smoke run (a full-size one would take
  minutes on a CPU, whose rows are refused anyway)."""
  from bench.gpu import machine, matmul
  described = machine.describe()
  if described["platform"] != "gpu" and not plan.smoke:
    return {"machine": described}
  flops, dtype = matmul.matmul_flops_per_second(plan.matmul_size)
  return {"machine": described, "matmul_flops": flops, "matmul_dtype": dtype,
          "matmul_size": plan.matmul_size}


def _set_jax_precision():
  """mixed_bfloat16 on a GPU, float32 elsewhere; -> the policy's name."""
  import jax
  import keras
  policy = "mixed_bfloat16" if jax.default_backend() == "gpu" else "float32"
  keras.config.set_dtype_policy(policy)
  return policy


def run_train_t2t_lite(job, plan):
  from bench.gpu import jax_training, machine, timing
  policy = _set_jax_precision()
  inputs, targets = training_batch(plan, job["tokens"])
  step = jax_training.JaxTrainStep(plan.hparams(job["model"]), plan.vocab_size, inputs, targets)
  seconds, loss = timing.seconds_per_step(step, jax_training.wait, plan.steps, plan.repeats,
                                          plan.warmup)
  return {"seconds": seconds, "loss": float(loss), "tokens": int(np.count_nonzero(targets)),
          "sentences": int(targets.shape[0]), "peak_bytes": machine.memory_in_use_peak(),
          "precision": policy, "device": _jax_device()}


def _torch_device():
  import torch
  return "cuda" if torch.cuda.is_available() else "cpu"


def run_train_torch(job, plan):
  from bench.gpu import timing
  from bench.peers import torch_gpu_training as peer
  device = _torch_device()
  inputs, targets = training_batch(plan, job["tokens"])
  peer.reset_peak_memory(device)
  step = peer.TorchStep(plan.hparams(job["model"]), plan.vocab_size, inputs, targets, device,
                        bfloat16=device == "cuda",
                        compile=plan.torch_compile_backend if job["compile"] else None)
  seconds, loss = timing.seconds_per_step(step, lambda _: peer.synchronize(device), plan.steps,
                                          plan.repeats, plan.warmup)
  return {"seconds": seconds, "loss": float(loss), "tokens": int(np.count_nonzero(targets)),
          "sentences": int(targets.shape[0]), "peak_bytes": peer.peak_memory_bytes(device),
          "precision": "bfloat16 autocast" if device == "cuda" else "float32",
          "device": device}


def _jax_device():
  import jax
  return jax.default_backend()


def run_decode_t2t_lite(job, plan):
  from bench.gpu import jax_decoding, jax_training, machine, timing
  policy = _set_jax_precision()
  model = jax_training.build_model(plan.hparams(job["model"]), plan.vocab_size)
  results = []
  for beam, batch in decode_cases(plan):
    decode = jax_decoding.decoder(model, beam, plan.alpha, plan.extra_length)
    inputs = decode_inputs(plan, batch)
    seconds, ids = timing.seconds_per_call(lambda: decode(inputs), plan.repeats, warmup=1)
    results.append({"beam": beam, "batch": batch, "seconds": seconds, "ids": ids.tolist(),
                    "tokens": int(jax_decoding.emitted_tokens(ids).sum()),
                    "peak_bytes": machine.memory_in_use_peak(), "precision": policy,
                    "device": _jax_device()})
  return {"cases": results}


def run_decode_torch(job, plan):
  import torch
  from bench.gpu import jax_decoding, jax_training, timing
  from bench.peers import torch_gpu_training as peer_training
  from bench.peers.torch_cached_decoding import decode
  from bench.peers.torch_transformer import TorchTransformer
  device = _torch_device()
  hparams = plan.hparams(job["model"])
  # The same weights as t2t_lite's row: its model, built on the same seed, copied.
  ours = jax_training.build_model(hparams, plan.vocab_size)
  model = TorchTransformer(hparams, plan.vocab_size)
  with warnings.catch_warnings():  # JAX arrays are read-only; copy_weights_from copies them.
    warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
    model.copy_weights_from(ours)
  del ours
  model = model.to(device).eval()
  results = []
  for beam, batch in decode_cases(plan):
    inputs = decode_inputs(plan, batch)
    peer_training.reset_peak_memory(device)
    seconds, ids = timing.seconds_per_call(
        lambda: decode(model, inputs, beam, plan.extra_length, bfloat16=device == "cuda"),
        plan.repeats, warmup=1)
    results.append({"beam": beam, "batch": batch, "seconds": seconds, "ids": ids.tolist(),
                    "tokens": int(jax_decoding.emitted_tokens(ids).sum()),
                    "peak_bytes": peer_training.peak_memory_bytes(device),
                    "precision": "bfloat16 autocast" if device == "cuda" else "float32",
                    "device": device, "torch_threads": torch.get_num_threads()})
  return {"cases": results}


def _set_up_tensorflow(plan):
  """-> (dtype policy, device) of a TensorFlow row; only a smoke run goes on without a GPU
  (a full-size row on a CPU would only run into its timeout)."""
  from bench.gpu import tf_rows
  policy, device = tf_rows.set_up_device()
  if device != "gpu" and not plan.smoke:
    raise RuntimeError("TensorFlow registers no GPU (TF_CPP_MIN_LOG_LEVEL=0 shows which CUDA "
                       "library failed to open)")
  return policy, device


def run_train_t2t_lite_tf(job, plan):
  from bench.gpu import tf_rows, timing
  policy, device = _set_up_tensorflow(plan)
  inputs, targets = training_batch(plan, job["tokens"])
  tf_rows.reset_peak()
  step = tf_rows.TfTrainStep(plan.hparams(job["model"]), plan.vocab_size, inputs, targets)
  start = time.perf_counter()
  step()  # Traces and compiles: timed apart from the steps.
  first = time.perf_counter() - start
  seconds, loss = timing.seconds_per_step(step, tf_rows.no_wait, plan.steps, plan.repeats,
                                          max(plan.warmup - 1, 0))
  return {"seconds": seconds, "loss": float(loss), "tokens": int(np.count_nonzero(targets)),
          "sentences": int(targets.shape[0]), "peak_bytes": tf_rows.peak_bytes(),
          "precision": f"{policy}, XLA", "device": device, "first_step_seconds": first,
          "tensorflow": tf_rows.tf.__version__}


def run_decode_t2t_lite_tf(job, plan):
  from bench.gpu import model as bench_model, tf_rows, timing
  policy, device = _set_up_tensorflow(plan)
  model = bench_model.build_model(plan.hparams(job["model"]), plan.vocab_size)
  results = []
  for beam, batch in decode_cases(plan):
    tf_rows.reset_peak()
    decode = tf_rows.decoder(model, beam, plan.alpha, plan.extra_length)
    inputs = decode_inputs(plan, batch)
    seconds, ids = timing.seconds_per_call(lambda: decode(inputs), plan.repeats, warmup=1)
    results.append({"beam": beam, "batch": batch, "seconds": seconds, "ids": ids.tolist(),
                    "tokens": int(bench_model.emitted_tokens(ids).sum()),
                    "peak_bytes": tf_rows.peak_bytes(), "precision": f"{policy}, XLA",
                    "device": device, "tensorflow": tf_rows.tf.__version__})
  return {"cases": results}


KINDS = {"machine": run_machine, "train_t2t_lite": run_train_t2t_lite,
         "train_torch": run_train_torch, "decode_t2t_lite": run_decode_t2t_lite,
         "decode_torch": run_decode_torch, "train_t2t_lite_tf": run_train_t2t_lite_tf,
         "decode_t2t_lite_tf": run_decode_t2t_lite_tf}
# Rows on Keras's TensorFlow backend: never in a process whose Keras runs on JAX.
TENSORFLOW_KINDS = ("train_t2t_lite_tf", "decode_t2t_lite_tf")


def run_here(job):
  """Runs `job` in this process -> its result, or {"error": the exception's last lines}."""
  try:
    return KINDS[job["kind"]](job, Plan.from_dict(job["plan"]))
  except Exception:  # A failed row is reported in its table; the others still run.
    return {"error": traceback.format_exc(limit=-3).strip()}


def run_isolated(job, name, timeout=ROW_TIMEOUT_S):
  """Runs `job` in a fresh Python process (its own device memory and peak) -> its result.

  name: a path prefix for the job's and the result's JSON files.
  """
  with open(f"{name}.job.json", "w", encoding="utf-8") as f:
    json.dump(job, f)
  env = dict(os.environ)
  if job["kind"] == "decode_torch":
    env["JAX_PLATFORMS"] = "cpu"  # JAX only builds the weights to copy: keep it off the GPU.
  if job["kind"] in TENSORFLOW_KINDS:
    env["KERAS_BACKEND"] = "tensorflow"
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if job.get("tf_target"):
      sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
          os.path.abspath(__file__)))), "tools", "offline_bundle"))
      from bundle_environment import installed_environment
      env = installed_environment(job["tf_target"], env)
  try:
    done = subprocess.run([sys.executable, "-m", "bench.gpu.rows", f"{name}.job.json",
                           f"{name}.result.json"], env=env, timeout=timeout,
                          capture_output=True, text=True)
  except subprocess.TimeoutExpired:
    return {"error": f"no result within {timeout} s"}
  if done.returncode != 0 or not os.path.exists(f"{name}.result.json"):
    return {"error": f"exit status {done.returncode}: {done.stderr.strip()[-1500:]}"}
  with open(f"{name}.result.json", encoding="utf-8") as f:
    return json.load(f)


def main(job_path, result_path):
  use_jax_backend()
  with open(job_path, encoding="utf-8") as f:
    job = json.load(f)
  result = run_here(job)
  with open(result_path, "w", encoding="utf-8") as f:
    json.dump(result, f)


if __name__ == "__main__":
  main(*sys.argv[1:3])
