"""The figure a reproduce script's rule chooses, as data: of the candidates scored on both
splits (the last and the averaged checkpoints, ...), the one with the best val score; its
test score is the figure to quote.

    python docs/chosen_figure.py OUT [--val=val] [--test=test_2016_flickr]
                                     [--tag=BLEU_lowercased_tokenized] [--seed=1]
                                     [--command=...] [--commit=...]

reads the JSON scores that t2t-bleu --scores_json (or python -m t2t_lite.metrics.evalb
--scores_json, whose tag is bracket_f1) wrote as OUT/SPLIT.CANDIDATE.scores.json and writes
OUT/figure.json: every candidate's val and test scores, the chosen one, and the rule
in words, with the record's own fields: "figure" (the chosen test score), "seeds" (--seed's
val, test and chosen candidate; an ensemble's --seed names its members' seeds), "date",
"machine", "command" (--command) and "commit" (--commit, the commit trained; default: the
checkout's now). A docs/headline_results.json entry that names such a file, copied under
docs/figures/, takes its figure, val, rule, command, machine and date from it
(docs/reference_pages.py).
"""

import argparse
import glob
import json
import os
import sys

from record_context import commit, machine, today

SUFFIX = ".scores.json"


def split_scores(out_dir, split, tag):
  """{candidate: score} of the files OUT/SPLIT.CANDIDATE.scores.json."""
  scores = {}
  for path in sorted(glob.glob(os.path.join(glob.escape(out_dir), f"{split}.*{SUFFIX}"))):
    candidate = os.path.basename(path)[len(split) + 1:-len(SUFFIX)]
    with open(path, encoding="utf-8") as f:
      scores[candidate] = json.load(f)[tag]["score"]
  return scores


def chosen_figure(out_dir, val_split, test_split, tag):
  """{"tag", "candidates": {name: {"val", "test"}}, "chosen", "val", "test", "rule"}."""
  val, test = split_scores(out_dir, val_split, tag), split_scores(out_dir, test_split, tag)
  candidates = {name: {"val": val[name], "test": test[name]} for name in val if name in test}
  if not candidates:
    raise ValueError(f"{out_dir}: no candidate scored on both {val_split} and {test_split} "
                     f"(files {val_split}.NAME{SUFFIX} and {test_split}.NAME{SUFFIX})")
  chosen = max(candidates, key=lambda name: candidates[name]["val"])
  others = ", ".join(f"{name} {scores['val']:.2f}" for name, scores in candidates.items()
                     if name != chosen)
  return {"tag": tag, "candidates": candidates, "chosen": chosen,
          "val": candidates[chosen]["val"], "test": candidates[chosen]["test"],
          "rule": f"the candidate {val_split} chose: {chosen} {candidates[chosen]['val']:.2f}"
                  + (f" against {others}" if others else "")}


def main(argv):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("out_dir")
  parser.add_argument("--val", default="val")
  parser.add_argument("--test", default="test_2016_flickr")
  parser.add_argument("--tag", default="BLEU_lowercased_tokenized")
  parser.add_argument("--seed", default="1",
                      help="The run's seed, or an ensemble's members' (5-8).")
  parser.add_argument("--command", default="")
  parser.add_argument("--commit", default="")
  args = parser.parse_args(argv[1:])
  try:
    figure = chosen_figure(args.out_dir, args.val, args.test, args.tag)
  except (OSError, ValueError, KeyError) as error:
    print(f"chosen_figure.py: error: {error}", file=sys.stderr)
    return 2
  seed = int(args.seed) if args.seed.isdigit() else args.seed
  record = dict(figure, figure=figure["test"], seeds=[{
      "seed": seed, "val": figure["val"], "test": figure["test"], "chosen": figure["chosen"]}],
      date=today(), machine=machine(), command=args.command, commit=args.commit or commit())
  path = os.path.join(args.out_dir, "figure.json")
  with open(path, "w", encoding="utf-8") as f:
    json.dump(record, f, indent=1)
  print(f"{path}: {args.test} {figure['test']:.2f} ({figure['rule']})")
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
