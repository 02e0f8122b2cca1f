"""Times t2t_lite's Transformer on a GPU (Keras's JAX and TensorFlow backends) against PyTorch.

    KERAS_BACKEND=jax python -m bench.gpu [--only=training,decoding] [--models=base,big]
        [--tokens=8192,32768] [--decode_models=base,big] [--output=docs/benchmarks.md]
        [--json=results.json] [--in_process] [--tf_target=DIR | --no_tf] [--no_torch]
        [--torch_modes=eager,compile] [--deadline_minutes=M]
    python -m bench.gpu --from_json=a.json,b.json    # the section from saved runs' results
    python -m bench.gpu --from_json=tf.json --output=- --record=NAME   # their record alone
    python -m bench.gpu --smoke [--output=PATH]      # a tiny model on any CPU, in seconds

Each row (a measurement) runs in a fresh process unless --in_process (or
--smoke): its own device memory and peak. The TensorFlow rows (t2t_lite's
TrainStep with XLA, decoding under tf.function(jit_compile=True)) always run in
fresh processes with KERAS_BACKEND=tensorflow, taking TensorFlow from
--tf_target (an offline bundle unpacked there: tools/offline_bundle/) or
from this Python; without either they are left out, as with --no_tf. The GPU
section of --output is replaced between its markers (document.py), and its tables'
record written beside it (docs/figures/bench_gpu_jax.json, bench/figure_records.py;
--record names another); --smoke writes only where told. With --deadline_minutes, rows
not started by then are left out (their cell says so) and no row runs past it: list the
rows that matter most first (--models=big,base --tokens=32768,8192).
Where one command may run only so long, measure in parts and write once:

    python -m bench.gpu --only=training --models=base --output=- --json=base.json
    python -m bench.gpu --only=training --models=big --output=- --json=big.json
    python -m bench.gpu --only=decoding --output=- --json=decoding.json
    python -m bench.gpu --from_json=base.json,big.json,decoding.json
"""

import argparse
import importlib.machinery
import json
import os
import sys
import tempfile
import time

from bench import figure_records, peers, report
from bench.gpu import document, machine, rows, settings, tables, use_jax_backend
from t2t_lite.files.atomic_files import write_text_atomic

DOCUMENT = os.path.join("docs", "benchmarks.md")


def tensorflow_target(args):
  """-> the TensorFlow rows' "tf_target": the bundle's install folder, "" (this Python's
  TensorFlow), or None: no TensorFlow rows (--no_tf, or no TensorFlow to be found)."""
  if args.no_tf:
    return None
  if args.tf_target:
    site = os.path.join(os.path.abspath(args.tf_target), "site")
    if importlib.machinery.PathFinder.find_spec("tensorflow", [site]) is None:
      raise SystemExit(f"bench.gpu: no TensorFlow in {site}: unpack the offline bundle there "
                       f"(tools/offline_bundle/offline_bundle.py unpack --target={args.tf_target})")
    return os.path.abspath(args.tf_target)
  # The path finder, not sys.modules: this process may hold TensorFlow off on purpose.
  found = importlib.machinery.PathFinder.find_spec("tensorflow")
  return "" if found is not None else None


def jobs(plan, parts, tf_target=None, torch=True, torch_modes=("eager", "compile")):
  """[job] of the plan: the machine first, then training and decoding rows in table order;
  the TensorFlow rows after t2t_lite's JAX rows unless `tf_target` is None; PyTorch's
  where installed, unless not `torch`: its training rows in `torch_modes` (eager,
  compile)."""
  base = {"plan": plan.to_dict()}
  have_torch = torch and not peers.missing("torch")
  planned = [dict(base, kind="machine")]
  if "training" in parts:
    for model in plan.train_models:
      for tokens in plan.token_batches:
        planned.append(dict(base, kind="train_t2t_lite", model=model, tokens=tokens))
        if tf_target is not None:
          planned.append(dict(base, kind="train_t2t_lite_tf", model=model, tokens=tokens,
                              tf_target=tf_target))
        if have_torch:
          planned += [dict(base, kind="train_torch", model=model, tokens=tokens,
                           compile=mode == "compile") for mode in torch_modes]
  if "decoding" in parts:
    for model in plan.decode_models:
      planned.append(dict(base, kind="decode_t2t_lite", model=model))
      if tf_target is not None:
        planned.append(dict(base, kind="decode_t2t_lite_tf", model=model, tf_target=tf_target))
      if have_torch:
        planned.append(dict(base, kind="decode_torch", model=model))
  return planned


def run_jobs(planned, in_process, timeout, stop_without_gpu, deadline_minutes=None):
  """Runs each job, printing progress -> [(job, result)]; stops after the machine row when
  `stop_without_gpu` and JAX sees no GPU. TensorFlow rows run in fresh processes always.
  deadline_minutes: rows not started that long after the first are left out, and a row
  in its own process gets what time is left at most."""
  done = []
  started = time.perf_counter()
  deadline = started + 60 * deadline_minutes if deadline_minutes else None
  with tempfile.TemporaryDirectory(prefix="t2t_bench_gpu_") as scratch:
    for index, job in enumerate(planned):
      label = " ".join(f"{key}={job[key]}" for key in ("kind", "model", "tokens", "compile")
                       if key in job)
      print(f"== {label}", flush=True)
      start = time.perf_counter()
      left = timeout if deadline is None else min(timeout, deadline - start)
      if left <= 0:
        done.append((job, {"error": f"not run: past --deadline_minutes={deadline_minutes:g}"}))
        continue
      here = in_process and job["kind"] not in rows.TENSORFLOW_KINDS
      result = (rows.run_here(job) if here else
                rows.run_isolated(job, os.path.join(scratch, f"job{index}"),
                                  max(1, round(left))))
      print(f"   {time.perf_counter() - start:.0f} s" +
            (f"; {result['error'].splitlines()[-1]}" if "error" in result else ""), flush=True)
      done.append((job, result))
      if job["kind"] == "machine" and stop_without_gpu and \
          result.get("machine", {}).get("platform") != "gpu":
        break
  return done


def build_tables(plan, done, isolated):
  """-> (the machine row's result, [Table]); isolated: each row ran in its own process."""
  machine_result = next((result for job, result in done if job["kind"] == "machine"), {})
  training = [(job, result) for job, result in done if job["kind"].startswith("train")]
  decoding = [(job, result) for job, result in done if job["kind"].startswith("decode")]
  built = []
  if training:
    built.append(tables.training_table(plan, machine_result, training, isolated))
  if decoding:
    built.append(tables.decoding_table(plan, decoding))
  missing = peers.missing("torch")
  if missing:
    for table in built:
      table.notes.append(missing)
  return machine_result, built


def load_runs(paths):
  """Saved runs (--json) merged in order into one run: {"plan", "rows", "command",
  "seconds", "isolated", "date", "commit"}; the first run's machine row, date and commit
  stand for all."""
  merged = {"rows": [], "command": [], "seconds": 0.0, "isolated": True}
  for path in paths:
    with open(path, encoding="utf-8") as f:
      saved = json.load(f)
    merged.setdefault("plan", saved["plan"])
    for field in ("date", "commit"):  # Runs saved before records kept them have neither.
      merged.setdefault(field, saved.get(field))
    have_machine = any(job["kind"] == "machine" for job, _ in merged["rows"])
    merged["rows"] += [(job, result) for job, result in saved["rows"]
                       if job["kind"] != "machine" or not have_machine]
    merged["command"].append(saved["command"])
    merged["seconds"] += saved["seconds"]
    merged["isolated"] = merged["isolated"] and saved["isolated"]
  plan = merged["plan"]
  for field, prefix in (("train_models", "train"), ("decode_models", "decode")):
    plan[field] = list(dict.fromkeys(job["model"] for job, _ in merged["rows"]
                                     if job["kind"].startswith(prefix)))
  merged["command"] = "\n".join(merged["command"])
  return merged


def measure(args, argv):
  """Runs the plan the arguments describe -> {"plan", "rows", "command", "seconds", "isolated"}."""
  plan = make_plan(args)
  isolated = not (args.in_process or args.smoke)
  parts = args.only.split(",")
  if set(parts) - {"training", "decoding"}:
    raise SystemExit(f"bench.gpu: --only takes training, decoding; not {args.only}")
  start = time.perf_counter()
  torch_modes = args.torch_modes.split(",")
  if set(torch_modes) - {"eager", "compile"}:
    raise SystemExit(f"bench.gpu: --torch_modes takes eager, compile; not {args.torch_modes}")
  done = run_jobs(jobs(plan, parts, tensorflow_target(args), not args.no_torch, torch_modes),
                  not isolated, args.row_timeout, stop_without_gpu=not args.smoke,
                  deadline_minutes=args.deadline_minutes)
  return {"plan": plan.to_dict(), "rows": done, "seconds": time.perf_counter() - start,
          "command": " ".join(["KERAS_BACKEND=jax python -m bench.gpu"] + argv),
          "isolated": isolated, "date": figure_records.today(),
          "commit": figure_records.checkout_commit()}


def parse_args(argv):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--smoke", action="store_true",
                      help="A tiny model on any device, in process: checks the program.")
  parser.add_argument("--only", default="training,decoding")
  parser.add_argument("--models", help="Training rows' models: base,big (default both).")
  parser.add_argument("--tokens", help="Target tokens per training step, e.g. 8192,32768.")
  parser.add_argument("--decode_models", help="Decoding rows' models: base,big.")
  parser.add_argument("--steps", type=int)
  parser.add_argument("--repeats", type=int)
  parser.add_argument("--in_process", action="store_true",
                      help="Every row in this process (peak memory then accumulates).")
  parser.add_argument("--tf_target", help="Where an offline bundle was unpacked: the "
                      "TensorFlow rows take TensorFlow (and CUDA 12) from there.")
  parser.add_argument("--no_tf", action="store_true", help="Leave the TensorFlow rows out.")
  parser.add_argument("--no_torch", action="store_true", help="Leave PyTorch's rows out.")
  parser.add_argument("--torch_modes", default="eager,compile",
                      help="PyTorch's training rows: eager, compile (torch.compile), or both.")
  parser.add_argument("--row_timeout", type=int, default=rows.ROW_TIMEOUT_S)
  parser.add_argument("--deadline_minutes", type=float,
                      help="Rows not started this many minutes after the first are left out.")
  parser.add_argument("--output", help="The document whose GPU section is replaced "
                      "(default docs/benchmarks.md; with --smoke, none; '-': none).")
  parser.add_argument("--json", help="Also save the results here (for --from_json).")
  parser.add_argument("--from_json", help="Comma-separated saved results: write the section "
                      "from them, measuring nothing.")
  parser.add_argument("--record", help="Write the tables' record as docs/figures/bench_NAME"
                      ".json (default: gpu_jax, where the section is written; none with "
                      "--output=- unless named).")
  return parser.parse_args(argv)


def make_plan(args):
  plan = settings.smoke() if args.smoke else settings.full()
  for field, value in (("train_models", args.models), ("decode_models", args.decode_models)):
    if value:
      setattr(plan, field, tuple(value.split(",")))
  if args.tokens:
    plan.token_batches = tuple(int(n) for n in args.tokens.split(","))
  for field in ("steps", "repeats"):
    if getattr(args, field):
      setattr(plan, field, getattr(args, field))
  unknown = set(plan.train_models + plan.decode_models) - set(plan.models)
  if unknown:
    raise SystemExit(f"bench.gpu: unknown model(s) {', '.join(sorted(unknown))}; "
                     f"known: {', '.join(plan.models)}")
  return plan


def main(argv=None):
  argv = sys.argv[1:] if argv is None else argv
  args = parse_args(argv)
  if args.smoke:  # Compiling cheaply matters more than the code's speed: it checks the program.
    os.environ.setdefault("XLA_FLAGS", settings.SMOKE_XLA_FLAGS)
  use_jax_backend()
  if os.environ.get("KERAS_BACKEND") != "jax":
    raise SystemExit(f"bench.gpu runs on Keras's JAX backend; KERAS_BACKEND is "
                     f"{os.environ.get('KERAS_BACKEND')!r}")
  run = load_runs(args.from_json.split(",")) if args.from_json else measure(args, argv)
  if args.json and not args.from_json:
    write_text_atomic(args.json, json.dumps(run))
  plan = settings.Plan.from_dict(run["plan"])
  machine_result, built = build_tables(plan, run["rows"], run["isolated"])
  if "machine" not in machine_result:
    raise SystemExit(f"bench.gpu: the machine row failed: {machine_result.get('error')}")
  if machine_result["machine"]["platform"] != "gpu" and not plan.smoke:
    raise SystemExit(f"bench.gpu: JAX sees no GPU (its device: "
                     f"{machine_result['machine']['device']}); run it on a GPU machine, or "
                     f"check the program here with --smoke")
  report.emit(built)
  output = args.output or (None if plan.smoke else DOCUMENT)
  output = None if output == "-" else output
  machine_lines = machine.description_lines(machine_result["machine"])
  if output:
    body = document.section_body(machine_lines, built, run["command"], run["seconds"] / 60,
                                 plan.smoke, run["isolated"])
    document.write_section(output, body)
    print(f"\nwrote the GPU section of {output}")
  record_name = args.record or (document.RECORD_NAME if output else None)
  if record_name:
    source = figure_records.WRITTEN + (" (a smoke run: a tiny model, no GPU measured)"
                                       if plan.smoke else "")
    path = figure_records.write_record(
        figure_records.figures_folder(output or DOCUMENT), record_name, built, machine_lines,
        run["command"], run["seconds"] / 60, date=run.get("date"), commit=run.get("commit"),
        source=source)
    print(f"wrote its record, {path}")


if __name__ == "__main__":
  main()
