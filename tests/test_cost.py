"""The training-cost line's CPU peak: measured once per machine, then read back."""

import json

from t2t_lite.training import cost


def test_cpu_peak_is_measured_once_per_machine(tmp_path, monkeypatch):
  monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
  measurements = []
  monkeypatch.setattr(cost, "measured_cpu_peak", lambda: measurements.append(1) or 1.5e11)
  assert cost.cpu_peak()[0] == 1.5e11
  assert cost.cpu_peak()[0] == 1.5e11
  assert len(measurements) == 1
  cache = tmp_path / "t2t_lite" / "cpu_matmul_peak.json"
  assert json.loads(cache.read_text())["flops"] == 1.5e11

  cache.write_text(json.dumps({"machine": "another CPU", "flops": 1.0}))
  assert cost.cpu_peak()[0] == 1.5e11 and len(measurements) == 2
  cache.write_text("not json")
  assert cost.cpu_peak()[0] == 1.5e11 and len(measurements) == 3
  # A peak cached by another way of measuring (an older version) is measured again.
  machine = json.loads(cache.read_text())["machine"]
  assert machine.endswith(" | " + cost.PEAK_MEASUREMENT)
  old_way = machine[:-len(" | " + cost.PEAK_MEASUREMENT)]
  cache.write_text(json.dumps({"machine": old_way, "flops": 1.0}))
  assert cost.cpu_peak()[0] == 1.5e11 and len(measurements) == 4


def test_the_measured_peak_is_the_fastest_trial(monkeypatch):
  """Trials timed at 3, 1 and 2 seconds: the 1-second one sets the peak (a busy machine
  only ever slows a trial down)."""
  readings = iter([0.0, 3.0, 10.0, 11.0, 20.0, 22.0])  # Each trial's start and end.
  monkeypatch.setattr(cost.time, "perf_counter", lambda: next(readings))
  peak = cost.measured_cpu_peak(size=64, trials=3, products_per_trial=2)
  assert peak == 2 * 64 ** 3 * 2 / 1.0


def test_an_unwritable_cache_still_gives_the_peak(tmp_path, monkeypatch):
  blocker = tmp_path / "file"
  blocker.write_text("")
  monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # A file: no directory can go under it.
  monkeypatch.setattr(cost, "measured_cpu_peak", lambda: 2e11)
  assert cost.cpu_peak()[0] == 2e11


def test_gpu_peaks_of_known_gpus_and_none_for_others():
  assert cost.gpu_peak_flops("NVIDIA H100 80GB HBM3") == 989e12
  assert cost.gpu_peak_flops("NVIDIA H200") == 989e12
  assert cost.gpu_peak_flops("NVIDIA H100 PCIe") == 756e12  # Not the SXM part's peak.
  assert cost.gpu_peak_flops("NVIDIA A100-SXM4-80GB") == 312e12
  assert cost.gpu_peak_flops("NVIDIA RTX PRO 6000") is None
  assert cost.gpu_peak_flops("NVIDIA L40S") is None and cost.gpu_peak_flops("NVIDIA A10G") is None
  assert cost.gpu_peak_flops("NVIDIA L4") == 121e12


def test_the_cached_peak_only_rises_and_is_measured_again_when_a_run_comes_too_close(
    tmp_path, monkeypatch):
  """A peak measured on a busy machine is too low and flatters every later run: the cache
  keeps the fastest measurement, and a run above PLAUSIBLE_CPU_MFU of it measures anew."""
  monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
  monkeypatch.setattr(cost, "_measured_in_this_process", False)
  measured = iter([1.0e11, 0.8e11, 1.2e11])  # Busy, busier, quiet.
  monkeypatch.setattr(cost, "measured_cpu_peak", lambda: next(measured))
  peak, description = cost.cpu_peak()
  assert peak == 1.0e11 and "the fastest of 1 measurement on this machine" in description
  plausible = cost.PLAUSIBLE_CPU_MFU * 1.0e11
  assert cost.cpu_peak(achieved_flops=plausible)[0] == 1.0e11  # Not measured again.
  assert cost.cpu_peak(achieved_flops=plausible * 1.01)[0] == 1.0e11  # 0.8e11: kept 1.0e11.
  peak, description = cost.cpu_peak(achieved_flops=0.9e11)
  assert peak == 1.2e11 and "the fastest of 3 measurements" in description


def test_a_stale_cached_peak_is_measured_anew(tmp_path, monkeypatch):
  monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
  measured = iter([2.0e11, 1.0e11])
  monkeypatch.setattr(cost, "measured_cpu_peak", lambda: next(measured))
  assert cost.cpu_peak()[0] == 2.0e11
  cache = tmp_path / "t2t_lite" / "cpu_matmul_peak.json"
  entry = json.loads(cache.read_text())
  entry["first"] -= (cost.PEAK_CACHE_DAYS + 1) * 86400
  cache.write_text(json.dumps(entry))
  assert cost.cpu_peak()[0] == 1.0e11  # Started over: the old machine's peak is gone.


def test_the_cost_line_says_where_the_peak_came_from():
  line = cost.cost_line(6e12, 60.0, 2e11, "CPU float32 matmul peak: the fastest of 3 "
                        "measurements on this machine, the last on 2026-11-24")
  assert line.endswith("MFU 50.0% of 2e+11 FLOP/s (CPU float32 matmul peak: the fastest of 3 "
                       "measurements on this machine, the last on 2026-11-24)")


def test_each_of_the_first_processes_measures_once(tmp_path, monkeypatch):
  """Until the cache holds TRUSTED_MEASUREMENTS, every process (a run at another moment,
  under another load) measures once more, and the fastest is kept."""
  monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
  measured = iter([1.0e11, 1.3e11, 1.1e11])
  monkeypatch.setattr(cost, "measured_cpu_peak", lambda: next(measured))
  for process, expected in enumerate([1.0e11, 1.3e11, 1.3e11], 1):
    monkeypatch.setattr(cost, "_measured_in_this_process", False)  # A new process.
    assert cost.cpu_peak()[0] == expected
    assert cost.cpu_peak()[0] == expected  # Once per process.
  monkeypatch.setattr(cost, "_measured_in_this_process", False)
  peak, description = cost.cpu_peak()  # Trusted now: no fourth measurement.
  assert peak == 1.3e11
  assert f"the fastest of {cost.TRUSTED_MEASUREMENTS} measurements" in description


def test_a_process_held_to_fewer_cores_measures_its_own_peak(tmp_path, monkeypatch):
  # Under taskset or a container's cpuset the cached peak of all the cores would understate
  # the run's model-FLOPs utilisation.
  monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
  monkeypatch.setattr(cost, "_measured_in_this_process", True)
  monkeypatch.setattr(cost, "usable_cores", lambda: 2)
  monkeypatch.setattr(cost, "measured_cpu_peak", lambda: 2.0e11)
  assert cost.cpu_peak()[0] == 2.0e11
  monkeypatch.setattr(cost, "usable_cores", lambda: 1)
  monkeypatch.setattr(cost, "measured_cpu_peak", lambda: 1.0e11)
  assert cost.cpu_peak()[0] == 1.0e11
