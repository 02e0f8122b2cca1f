"""`python -m bench` chooses its runs: the AVX2-kernel rerun only where it means something."""

import importlib
import os

bench_main = importlib.import_module("bench.__main__")


def test_avx512_machines_rerun_training_throughput_on_avx2_kernels(monkeypatch):
  monkeypatch.setattr(bench_main.report, "vector_extension", lambda: "AVX-512")
  chosen = bench_main.runs(["training_throughput", "memory"])
  assert [(program, environment) for program, _, environment in chosen] == [
      ("training_throughput", None), ("training_throughput", bench_main.AVX2_KERNELS),
      ("memory", None)]


def test_avx2_machines_and_other_programs_run_once(monkeypatch):
  monkeypatch.setattr(bench_main.report, "vector_extension", lambda: "AVX2")
  assert [program for program, _, _ in bench_main.runs(["training_throughput", "memory"])] == [
      "training_throughput", "memory"]
  monkeypatch.setattr(bench_main.report, "vector_extension", lambda: "AVX-512")
  assert [program for program, _, _ in bench_main.runs(["memory"])] == ["memory"]


def test_the_environment_is_written_as_a_shell_takes_it():
  assert bench_main.environment_text(None) == ""
  assert bench_main.environment_text({"A": "1", "B": "--flag=2"}) == "A=1 B=--flag=2 "


def test_held_kernels_are_read_from_the_environment(monkeypatch):
  monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
  assert bench_main.report.kernels_held_to() == ""
  monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "avx2")
  assert bench_main.report.kernels_held_to() == "AVX2"


def test_the_machine_description_names_the_kernel_choosing_flags(monkeypatch):
  monkeypatch.setattr(bench_main.report, "_cpu_flags", lambda: {"avx2", "fma", "sse4_2"})
  lines = bench_main.report.machine_description()
  assert "CPU flags that choose the matmul and vector kernels: avx2 fma" in lines


def test_a_runs_settled_rate_leaves_out_its_first_steps():
  from bench.real_batches import _rate_after
  # (step, wall time, target tokens): a slow first step, then 100 tokens a second.
  summaries = [(1, 10.0, 50.0), (2, 11.0, 100.0), (3, 12.0, 100.0), (4, 14.0, 200.0)]
  assert _rate_after(summaries, 1) == 400.0 / 4.0
  assert _rate_after(summaries, 2) == 300.0 / 3.0


def test_the_trainer_rate_reads_what_the_trainer_writes(trained_run):
  """bench.real_batches reads t2t-trainer's own summaries: every step, in order."""
  from bench.real_batches import _summaries
  _, output_dir, _ = trained_run
  tokens = _summaries(os.path.join(output_dir, "train"), "target_tokens")
  assert [step for step, _, _ in tokens] == list(range(1, 61))
  assert all(count > 0 for _, _, count in tokens)
  wall_times = [wall_time for _, wall_time, _ in tokens]
  assert wall_times == sorted(wall_times)


def test_decoding_without_a_cache_gives_the_cached_models_ids():
  """bench.decoding_speed's "no cache" row: its search grows the cache as the model's does
  (past the first capacity of 16 positions) and finds the same tokens."""
  import numpy as np
  from bench import ours
  from bench.forced_length import ForcedLength
  from t2t_lite.registry import hparams_for
  model = ours.build_model(hparams_for("transformer_test_small"), 40)
  inputs = np.random.default_rng(0).integers(2, 40, size=(3, 6)).astype("int32")
  inputs[1, 4:] = 0  # A shorter sentence.
  for beam_size in (1, 2):
    cached = ours.decoder(ForcedLength(model), beam_size, 0.6, 20, jit_compile=False)(inputs)
    uncached = ours.decoder(ours.Uncached(model), beam_size, 0.6, 20, jit_compile=False)(inputs)
    assert cached.shape[1] > 16 and np.array_equal(cached, uncached)
