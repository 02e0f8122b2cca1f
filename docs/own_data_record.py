"""The record of one docs/reproduce_own_data.sh run, as data: ROOT/record.json.

    python docs/own_data_record.py --root=ROOT --corpus=CORPUS --target=de --minutes=60 \
        --seconds=3612 --command="..."

Reads what the script left in ROOT (decoded/SPLIT.MODEL.TARGET and their .scores.json from
t2t-bleu --scores_json, trainer.log, avg.log, load.tsv, the run's checkpoints) and writes
{"figure": the test sacreBLEU (cased) of run_avg, what the walkthrough's t2t-avg-all kept,
 "candidates": {run, run_avg: {val, test}}, "rule", "auto_choice" (the trainer's
 transformer_auto line), "stop" (its line at the time limit), "averaging" (t2t-avg-all's
 lines), "decoding" (the decode_hparams it chose: run_avg/decoding.json), "repeats" (the
 most frequent test output line's count, and the reference's), "load" (mean and peak load
 average while training), "date", "machine", "command",
 "commit" (the one trained: --commit), "minutes" (0 for a budget in steps), "train_steps"
 (the budget in steps, 0 for one in minutes), "steps" (trained: the last checkpoint's),
 "seconds", "seeds"}.
"""

import argparse
import collections
import json
import os
import statistics
import sys

from record_context import commit, machine, today

TAG = "sacreBLEU_cased"
MODELS = ("run", "run_avg")


def score(root, split, model, target):
  with open(os.path.join(root, "decoded", f"{split}.{model}.{target}.scores.json"),
            encoding="utf-8") as f:
    return json.load(f)[TAG]["score"]


def most_repeated(path):
  """(count, line) of the most frequent line of a text file."""
  with open(path, encoding="utf-8") as f:
    line, count = collections.Counter(f.read().splitlines()).most_common(1)[0]
  return count, line


def lines_with(path, prefix):
  with open(path, encoding="utf-8") as f:
    return [line.rstrip("\n") for line in f if line.startswith(prefix)]


def load_while_training(path):
  with open(path, encoding="utf-8") as f:
    values = [float(line.split()[1]) for line in f if len(line.split()) == 2]
  return {"mean": round(statistics.fmean(values), 2) if values else None,
          "peak": max(values, default=None), "samples": len(values)}


def steps_trained(run_dir):
  """The step of the run's last checkpoint."""
  from t2t_lite.run.checkpoints import checkpoint_paths  # TensorFlow: only here.
  from t2t_lite.run.run_layout import checkpoint_step
  return checkpoint_step(checkpoint_paths(run_dir)[-1])


def record(args):
  from t2t_lite.run.chosen_decoding import read_chosen_decoding  # TensorFlow: only here.
  candidates = {model: {split: score(args.root, split, model, args.target)
                        for split in ("val", "test")} for model in MODELS}
  trainer_log = os.path.join(args.root, "trainer.log")
  stops = lines_with(trainer_log, "--train_minutes=") or [""]
  output_count, output_line = most_repeated(
      os.path.join(args.root, "decoded", f"test.run_avg.{args.target}"))
  reference_count, _ = most_repeated(os.path.join(args.corpus, f"test.{args.target}"))
  return {
      "figure": candidates["run_avg"]["test"],
      "metric": f"{TAG} on {args.corpus}/test.{args.target}",
      "candidates": candidates,
      "rule": "the walkthrough's own: t2t-avg-all keeps the average or the last checkpoint, "
              "whichever scores higher on dev sentences, and decodes it with the length "
              "penalty that scores them highest (run_avg's decoding); run is the last "
              "checkpoint at the problem's; val and test of both are listed",
      "decoding": read_chosen_decoding(os.path.join(args.root, "run_avg")),
      "auto_choice": lines_with(trainer_log, "transformer_auto:"),
      "stop": stops[-1],
      "averaging": lines_with(os.path.join(args.root, "avg.log"), "t2t-avg-all:"),
      "repeats": {"test_output": output_count, "test_output_line": output_line,
                  "reference": reference_count},
      "load": load_while_training(os.path.join(args.root, "load.tsv")),
      "date": today(), "machine": machine(),
      "command": args.command, "commit": args.commit or commit(), "minutes": args.minutes,
      "train_steps": args.train_steps, "steps": steps_trained(os.path.join(args.root, "run")),
      "seconds": args.seconds, "seeds": [{"seed": args.seed, "val": candidates["run_avg"]["val"],
                                          "test": candidates["run_avg"]["test"]}]}


def main(argv):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  for name in ("root", "corpus", "target", "command"):
    parser.add_argument(f"--{name}", required=True)
  parser.add_argument("--minutes", type=float, required=True)
  parser.add_argument("--train_steps", type=int, default=0)
  parser.add_argument("--seconds", type=int, required=True)
  parser.add_argument("--seed", type=int, default=1)
  parser.add_argument("--commit", default="", help="the commit trained (default: the "
                      "checkout's now)")
  args = parser.parse_args(argv[1:])
  data = record(args)
  path = os.path.join(args.root, "record.json")
  with open(path, "w", encoding="utf-8") as f:
    json.dump(data, f, indent=1, ensure_ascii=False)
  print(f"{path}: test {data['figure']:.2f} (val {data['candidates']['run_avg']['val']:.2f})")
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
