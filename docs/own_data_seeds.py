"""Records of one docs/reproduce_own_data.sh setting run with several seeds, as one record
whose figure is their mean.

    python docs/own_data_seeds.py OUT RECORD [RECORD ...]

Each RECORD is a record.json that own_data_record.py wrote (or one this wrote): the same
corpus, budget and command but for SEED=. OUT gets the first record's fields with
{"figure": the mean of the seeds' test figures, "candidates": each candidate's mean val
 and test, "seeds": every seed's {seed, val, test}, "spread": {val, test: [lowest,
 highest]}, "runs": each run's own date, machine, load, seconds, steps, commit,
 command and chosen decoding, "date": the newest run's}. A seed given twice, or records
of different settings, are refused in one line.
"""

import json
import re
import statistics
import sys

RUN_FIELDS = ("date", "machine", "load", "seconds", "steps", "commit", "command", "repeats",
              "averaging", "auto_choice", "decoding")
SEED_SETTING = re.compile(r"\bSEED=\d+")


def setting(record):
  """What must be equal across the seeds: the metric, the budget, the command sans SEED."""
  return (record["metric"], record["minutes"], record["train_steps"],
          SEED_SETTING.sub("SEED=", record["command"]).split(" (")[-1])


def runs_of(record):
  """The per-run fields of `record`: its own "runs", or itself as one run."""
  # A record from before t2t-avg-all chose the length penalty has no "decoding".
  return record.get("runs") or [{field: record.get(field) for field in RUN_FIELDS}]


def merged(records):
  """The records as one: the module doc."""
  first = records[0]
  for record in records[1:]:
    if setting(record) != setting(first):
      raise ValueError(f"not one setting: {setting(record)} against {setting(first)}")
  seeds = [seed for record in records for seed in record["seeds"]]
  numbers = [seed["seed"] for seed in seeds]
  if len(set(numbers)) != len(numbers):
    raise ValueError(f"a seed given twice: {sorted(numbers)}")
  runs = [run for record in records for run in runs_of(record)]
  weights = [len(record["seeds"]) for record in records]

  def mean(values):
    return sum(v * w for v, w in zip(values, weights)) / sum(weights)
  candidates = {model: {split: mean([r["candidates"][model][split] for r in records])
                        for split in ("val", "test")} for model in first["candidates"]}
  return {**first,
          "figure": statistics.fmean(seed["test"] for seed in seeds),
          "candidates": candidates,
          "rule": first["rule"].split("; the figure is")[0]
                  + "; the figure is the mean over the seeds of what it kept",
          "seeds": sorted(seeds, key=lambda seed: seed["seed"]),
          "spread": {split: [min(seed[split] for seed in seeds),
                             max(seed[split] for seed in seeds)] for split in ("val", "test")},
          "runs": runs, "date": max(run["date"] for run in runs)}


def main(argv):
  if len(argv) < 3:
    print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
    return 2
  records = []
  for path in argv[2:]:
    with open(path, encoding="utf-8") as f:
      records.append(json.load(f))
  try:
    record = merged(records)
  except ValueError as error:
    print(f"own_data_seeds.py: {error}; give records of one setting, one per seed",
          file=sys.stderr)
    return 2
  with open(argv[1], "w", encoding="utf-8") as f:
    json.dump(record, f, indent=1, ensure_ascii=False)
  print(f"{argv[1]}: test {record['figure']:.2f}, the mean of seeds "
        f"{', '.join(str(seed['seed']) for seed in record['seeds'])}")
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
