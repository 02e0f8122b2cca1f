"""Checkpoint averaging (paper section 6.1: the last 5 checkpoints for base, 20 for big).

Which checkpoints: `checkpoint_choice` (the newest n in the end of training); whether the
average beats the newest checkpoint on the dev sentences: `average_dev_check`; the length
penalty the written model decodes with: `alpha_choice`.
"""

import dataclasses
import itertools
import json
import os

import numpy as np
import tensorflow as tf

from t2t_lite.cli.command_line import check_declared
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import replacing_directory, write_text_atomic
from t2t_lite.run import Run
from t2t_lite.run.checkpoints import checkpoint_paths, readable_checkpoints
from t2t_lite.run.chosen_decoding import write_chosen_decoding
from t2t_lite.run.output_paths import check_output_directory
from t2t_lite.run.run_layout import AVERAGE_MARKER, check_run_directory_name, checkpoint_step
from t2t_lite.training.average_settings import AVERAGING, DEFAULT_DEV_SENTENCES
from t2t_lite.training.alpha_choice import AlphaChoice, choose_alpha
from t2t_lite.training.average_dev_check import compare_on_dev


def average_checkpoints(model_dir, output_dir, choice, dev_sentences=DEFAULT_DEV_SENTENCES):
  """Writes the mean of the model weights of the checkpoints of model_dir that `choice` (a
  `CheckpointChoice`) picks to output_dir; or, when the mean decodes the first
  `dev_sentences` dev sentences worse than the newest of them (`compare_on_dev`; 0: no
  check), that newest checkpoint alone, with the length penalty that decodes those dev
  sentences best (`choose_alpha`) in its decoding.json.

  output_dir gets a checkpoint named after the newest averaged step and a copy of
  the run description, so t2t-decoder and t2t-exporter can use it as a run
  directory; its AVERAGE_MARKER file records which checkpoints it holds. It must be new,
  empty, or an earlier average, which is replaced once the new one is complete. A
  checkpoint that does not read is named in a warning and the next older one the choice
  allows is averaged instead; fewer than asked are averaged with a line saying so.
  Returns the written checkpoint's path.
  """
  check_declared(AVERAGING, "dev_sentences", dev_sentences)
  if os.path.realpath(model_dir) == os.path.realpath(output_dir):
    raise UserError(f"--output_dir={output_dir} is --model_dir={model_dir}: averaging must not "
                    f"mix its result with the checkpoints it reads; pass a new directory")
  listed = checkpoint_paths(model_dir)
  if not listed:
    raise UserError(f"--model_dir={model_dir} has no checkpoints; pass a t2t-trainer "
                    f"--output_dir")
  candidates = choice.candidates(listed)
  if not candidates:
    raise UserError(f"--model_dir={model_dir} has no checkpoint from step {choice.min_steps} "
                    f"on; lower --min_steps or wait longer (--wait_minutes)")
  check_run_directory_name(output_dir)
  check_output_directory(output_dir, "--output_dir", "t2t-avg-all", AVERAGE_MARKER)
  shown, output_dir = output_dir, os.path.abspath(output_dir)
  marker = {"model_dir": os.path.abspath(model_dir), **dataclasses.asdict(choice)}
  with replacing_directory(output_dir, AVERAGE_MARKER, json.dumps(marker),
                           f"--output_dir={output_dir}") as staging:
    run = Run.read(model_dir)
    paths = _average_into(run.build_model(), model_dir, candidates, choice.n)
    if len(paths) < choice.n:
      print(choice.shortfall_line(len(paths), listed, len(candidates) - len(paths)),
            flush=True)
    check = None
    if dev_sentences and len(paths) > 1:
      check = compare_on_dev(run, paths[-1], dev_sentences)
      print(check.line(len(paths), shown), flush=True)
    held = paths if check is None or check.average_kept else paths[-1:]
    alpha = _chosen_alpha(run, dev_sentences, staging, shown, check)
    name = run.save_copy(staging, checkpoint_step(paths[-1]))
    marker.update(averaged=_names(paths), holds=_names(held),
                  dev_check=check and check.record(), alpha_choice=alpha and alpha.record())
    write_text_atomic(os.path.join(staging, AVERAGE_MARKER), json.dumps(marker, indent=2))
  written = os.path.join(output_dir, name)
  what = (f"averaged {len(held)} checkpoint(s) ({', '.join(_names(held))})" if held == paths
          else "wrote the last checkpoint alone")
  print(f"{what} into {written}", flush=True)
  return written


def _chosen_alpha(run, dev_sentences, staging, shown, check):
  """The length penalty chosen on dev for run.model (`choose_alpha`), written to the
  staging directory's decoding.json and said in a line; None when none was chosen."""
  choice = choose_alpha(run, dev_sentences)
  if isinstance(choice, AlphaChoice):
    write_chosen_decoding(staging, choice.decode_hparams, choice.record())
    print(choice.line(shown), flush=True)
    return choice
  if choice is not None and check is None:  # The dev check said why already.
    print(f"t2t-avg-all: no length penalty chosen on dev ({choice.reason})", flush=True)
  return None


def _average_into(model, model_dir, candidates, n):
  """Sets `model`'s weights to the mean of the newest n readable checkpoints among
  `candidates` -> their paths, oldest first."""
  checkpoint = tf.train.Checkpoint(model=model)
  paths, sums = [], None
  for path, status in itertools.islice(readable_checkpoints(checkpoint, model_dir, candidates),
                                       n):
    status.assert_existing_objects_matched()
    values = [np.asarray(v, dtype=np.float64) for v in model.weights]
    sums = values if sums is None else [s + v for s, v in zip(sums, values)]
    paths.insert(0, path)
  if not paths:
    raise UserError(f"none of the {len(candidates)} checkpoint(s) of {model_dir} from step "
                    f"{checkpoint_step(candidates[0]):,} on can be read (see the warnings "
                    f"above)")
  for variable, total in zip(model.weights, sums):
    variable.assign((total / len(paths)).astype(variable.dtype))
  return paths


def _names(paths):
  return [os.path.basename(path) for path in paths]
