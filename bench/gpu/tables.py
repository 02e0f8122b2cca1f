"""The tables of `python -m bench.gpu`, from the rows' results.

Training: ms per step, target tokens/s, MFU against the spec peak of the
accelerator (when known) and against the matmul measured in the same run, peak
device memory, and t2t_lite's speed over each peer's. Decoding: sentences/s,
tokens/s and ms per decoding step, and how often each peer's ids equal t2t_lite's.
"""

from bench.report import Table, gib, ratio
from t2t_lite.training.cost import gpu_peak_flops, training_flops

OURS = "t2t_lite, one jax.jit step (stateless_call + loss + stateless_apply)"
OURS_TF = "t2t_lite TrainStep on TensorFlow, XLA (jit_compile)"
TORCH_EAGER = "PyTorch nn.Transformer, eager"
TORCH_COMPILED = "PyTorch nn.Transformer, torch.compile"
OURS_DECODE = "t2t_lite decode_ids, jax.jit"
OURS_DECODE_TF = "t2t_lite decode_ids on TensorFlow, tf.function(jit_compile)"
TORCH_DECODE = "PyTorch, cached, eager loop"


def train_label(job):
  if job["kind"] == "train_t2t_lite":
    return OURS
  if job["kind"] == "train_t2t_lite_tf":
    return OURS_TF
  return TORCH_COMPILED if job["compile"] else TORCH_EAGER


def _memory(result):
  return gib(result["peak_bytes"]) if result.get("peak_bytes") else "-"


def _failure(result):
  """The last line of a failed row's error (the table cell), or None; a row left out
  (--deadline_minutes) says so."""
  if "error" not in result:
    return None
  last = result["error"].strip().splitlines()[-1][:160]
  return last if last.startswith("not run") else "failed: " + last


def training_table(plan, machine_result, rows, isolated):
  """rows: [(job, result)] of training jobs in plan order; isolated: one process per row."""
  device = machine_result.get("machine", {}).get("device", "")
  peak = gpu_peak_flops(device) if machine_result.get("machine", {}).get("platform") == "gpu" else None
  measured = machine_result.get("matmul_flops")
  ours = {(job["model"], job["tokens"]): result["seconds"] for job, result in rows
          if job["kind"] == "train_t2t_lite" and "seconds" in result}
  body, notes = [], []
  for job, result in rows:
    hparams = plan.hparams(job["model"])
    cells = [job["model"], f"{job['tokens']:,}", train_label(job)]
    failure = _failure(result)
    if failure:
      body.append(cells + [failure] + ["-"] * 5)
      continue
    seconds, tokens = result["seconds"], result["tokens"]
    flops = training_flops(hparams, plan.vocab_size, tokens, tokens, plan.sentence_length,
                           plan.sentence_length)
    achieved = flops / seconds
    body.append(cells + [
        f"{seconds * 1e3:,.1f}", f"{tokens / seconds:,.0f}",
        f"{100 * achieved / peak:.1f}%" if peak else "-",
        f"{100 * achieved / measured:.1f}%" if measured else "-",
        _memory(result), ratio(ours.get((job["model"], job["tokens"])), seconds)])
  precisions = sorted({f"{train_label(job)}: {result['precision']} on {result['device']}"
                       for job, result in rows if "precision" in result})
  notes.append(f"Random ids, no padding: sentences of {plan.sentence_length} tokens each side, "
               f"vocabulary {plan.vocab_size:,} shared with the softmax; one step is forward, "
               f"label-smoothed loss, backward and Adam. Medians of {plan.repeats} blocks of "
               f"{plan.steps} steps after {plan.warmup} warm-up steps.")
  notes.append("Models: " + "; ".join(f"{name}: {_shape(plan.hparams(name))}"
                                       for name in plan.train_models) +
               ". Dropout where the hparams set puts it, in both implementations.")
  notes.append("Precision: " + "; ".join(precisions) + ".")
  notes.append("MFU: model FLOPs (t2t_lite.training.cost.training_flops) per second over "
               + (f"the spec peak of {device}, {peak / 1e12:,.0f} TFLOP/s dense bf16, and "
                  if peak else "the spec peak (not known for this device: '-'), and ")
               + (f"a {machine_result['matmul_dtype']} {machine_result['matmul_size']}^3 matmul "
                  f"through JAX measured in this run, {_flops_text(measured)}."
                  if measured else "a measured matmul (it failed in this run)."))
  notes.append("Peak memory: JAX's peak_bytes_in_use / torch.cuda.max_memory_allocated" +
               (", each row in its own process" if isolated else
                ", all rows in one process (JAX's peak accumulates)") +
               "; '-' where the device keeps no statistics (CPU).")
  tensorflow = [(job, result) for job, result in rows
                if job["kind"] == "train_t2t_lite_tf" and "seconds" in result]
  if tensorflow:
    notes.append(f"TensorFlow {tensorflow[0][1]['tensorflow']}: t2t_lite.training.train_step."
                 f"TrainStep as t2t-trainer --xla runs it on one GPU (forward, backward and "
                 f"the Adam update compiled by XLA), under the default strategy; "
                 f"each call returns the step's statistics as Python floats, so every step "
                 f"ends synchronised. First step (tracing, XLA compile): " + ", ".join(
                     f"{job['model']} {job['tokens']:,} {result['first_step_seconds']:.0f} s"
                     for job, result in tensorflow) + ". Peak memory: TensorFlow's "
                 "get_memory_info peak, memory growth on.")
  if plan.torch_compile_backend != "inductor":
    notes.append(f"torch.compile backend: {plan.torch_compile_backend}.")
  return Table("Training step on the accelerator",
               ["model", "target tokens/step", "implementation", "ms/step", "target tokens/s",
                "MFU (spec)", "MFU (measured matmul)", "peak memory (GiB)",
                "this ms / t2t_lite ms"], body, notes)


def decoding_table(plan, rows):
  """rows: [(job, result)] of decoding jobs; each result holds every (beam, batch) case."""
  ours = {}
  for job, result in rows:
    if job["kind"] == "decode_t2t_lite":
      for case in result.get("cases", []):
        ours[(job["model"], case["beam"], case["batch"])] = case
  length = plan.input_length + plan.extra_length
  body, notes = [], []
  labels = {"decode_t2t_lite": OURS_DECODE, "decode_t2t_lite_tf": OURS_DECODE_TF}
  for job, result in rows:
    label = labels.get(job["kind"], TORCH_DECODE)
    # TensorFlow's Keras draws other initial weights from the same seed: ids not comparable.
    same_weights = job["kind"] != "decode_t2t_lite_tf"
    failure = _failure(result)
    if failure:
      body.append([job["model"], "-", "-", label, failure] + ["-"] * 5)
      continue
    for case in result["cases"]:
      key = (job["model"], case["beam"], case["batch"])
      search = "greedy" if case["beam"] == 1 else f"beam {case['beam']}"
      seconds = case["seconds"]
      base = ours.get(key)
      body.append([job["model"], search, str(case["batch"]), label,
                   f"{case['batch'] / seconds:,.1f}", f"{case['tokens'] / seconds:,.0f}",
                   f"{seconds / length * 1e3:.2f}", _memory(case),
                   ratio(base["seconds"], seconds) if base else "-",
                   f"{_agreement(base['ids'], case['ids']):.0%}" if base and same_weights
                   else "-"])
  notes.append(f"Untrained models, random inputs of {plan.input_length} tokens; EOS is not "
               f"allowed before each sentence's limit (input length + {plan.extra_length}), "
               f"so every implementation emits {length} tokens per sentence. Medians of "
               f"{plan.repeats} calls after one warm-up call (which compiles).")
  notes.append("PyTorch decodes the same weights (copied from t2t_lite's model): a Python loop "
               "of cached steps (bench/peers/torch_cached_decoding.py). 'same ids' compares the "
               "best hypotheses token by token; in bfloat16 an untrained model's near-ties round "
               "either way.")
  notes.append("Peak memory: PyTorch's and TensorFlow's per case; JAX's is the process's peak "
               "so far (cases run smallest first).")
  if any(job["kind"] == "decode_t2t_lite_tf" for job, _ in rows):
    notes.append("TensorFlow decodes weights of its own (Keras on TensorFlow draws other "
                 "initial values from the same seed): its ids are not compared ('-').")
  return Table("Decoding on the accelerator",
               ["model", "search", "batch", "implementation", "sentences/s", "tokens/s",
                "ms per decoding step", "peak memory (GiB)", "this time / t2t_lite time",
                "same ids as t2t_lite"], body, notes)


def _agreement(a, b):
  import numpy as np
  a, b = np.asarray(a), np.asarray(b)
  return float(np.mean(a == b)) if a.shape == b.shape else 0.0


def _flops_text(flops):
  return f"{flops / 1e12:,.1f} TFLOP/s" if flops >= 1e12 else f"{flops / 1e9:,.1f} GFLOP/s"


def _shape(hparams):
  return (f"N={hparams.num_hidden_layers}, d_model {hparams.hidden_size}, d_ff "
          f"{hparams.filter_size}, h {hparams.num_heads}, dropout "
          f"{hparams.layer_prepostprocess_dropout}")
