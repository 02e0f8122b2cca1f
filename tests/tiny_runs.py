"""A tiny run made in-process, once per test run (shared by the workers): synthetic text,
3 steps, a checkpoint after each. Tests copy it before breaking anything. And a tiny run that
learned to translate the synthetic text (`learned_tiny_run`)."""

import os
import shutil

from built_once import built_once
from commands import call
from t2t_lite.data.problem import Sources

TINY_HPARAMS = "batch_size=256,max_length=32"
# The tiny export's decoding (tiny_export): short searches, two hypotheses per sentence.
TINY_SERVING = "beam_size=2,n_best=2,extra_length=8"


def tiny_text(lines=200, offset=0):
  return "".join(f"the number {i + offset} is here\tdie Nummer {i + offset} ist hier\n"
                 for i in range(lines))


def tiny_data(work, vocab_size=300, offset=0):
  """A data_dir of translate_from_files from synthetic TSV text in `work` (another `offset`:
  other sentences, numbered from it)."""
  from t2t_lite.registry import PROBLEMS
  os.makedirs(work, exist_ok=True)
  for split, lines in (("train", 200), ("dev", 20)):
    with open(os.path.join(work, f"{split}.tsv"), "w", encoding="utf-8") as f:
      f.write(tiny_text(lines, offset))
  data_dir = os.path.join(work, "data")
  PROBLEMS["translate_from_files"]().generate_data(
      data_dir, Sources(tmp_dir=work, tsv={split: os.path.join(work, f"{split}.tsv")
                                           for split in ("train", "dev")}),
      vocab_size=vocab_size, progress=False)
  return data_dir


def tiny_train(data_dir, output_dir, train_steps=3, **config):
  """Trains transformer_test_small in this process, saving a checkpoint every step."""
  from t2t_lite.registry import HPARAMS, PROBLEMS
  from t2t_lite.training.config import TrainConfig
  from t2t_lite.training.trainer import train
  settings = dict(schedule="train", save_checkpoints_steps=1, save_checkpoints_secs=0,
                  eval_decode_sentences=0, random_seed=1)
  settings.update(config)
  hparams = HPARAMS["transformer_test_small"]().override(TINY_HPARAMS)
  return train(PROBLEMS["translate_from_files"](), hparams,
               TrainConfig(output_dir=output_dir, train_steps=train_steps, **settings), data_dir)


def tiny_trainer(data_dir, output_dir, *flags):
  """t2t-trainer in this process on the tiny data, as a user types it -> CompletedProcess."""
  return call("t2t-trainer", "--problem=translate_from_files", f"--data_dir={data_dir}",
              f"--output_dir={output_dir}", "--hparams_set=transformer_test_small",
              f"--hparams={TINY_HPARAMS}", "--save_checkpoints_secs=0",
              "--save_checkpoints_steps=100", "--eval_decode_sentences=0", "--random_seed=1",
              *flags)


def tiny_run(tmp_path_factory):
  """(data_dir, output_dir) of the session's tiny run: ckpt-1, ckpt-2, ckpt-3 (built by the
  first worker that asks)."""
  def build(work):
    data_dir = tiny_data(str(work))
    output_dir = os.path.join(work, "run")
    tiny_train(data_dir, output_dir)
    return [data_dir, output_dir]
  return tuple(built_once(tmp_path_factory, "tiny_run", build))


def tiny_export(tmp_path_factory):
  """(output_dir, export_dir): the tiny run and its SavedModel, exported once per test run
  with TINY_SERVING's decoding."""
  def build(work):
    from t2t_lite.export.saved_model import export_run
    _, output_dir = tiny_run(tmp_path_factory)
    return [output_dir, export_run(output_dir, str(work / "export"),
                                   decode_hparams=TINY_SERVING)]
  return tuple(built_once(tmp_path_factory, "tiny_export", build))


# A learning rate that warms up in 20 steps: a tiny run that learns the tiny data.
LEARNING_HPARAMS = TINY_HPARAMS + ",learning_rate_warmup_steps=20,learning_rate_constant=2.0"


def learned_tiny_run(tmp_path_factory):
  """(data_dir, output_dir) of a tiny run that translates the tiny data's dev sentences
  (greedy BLEU above 0): t2t-trainer, 40 steps, ckpt-20 and ckpt-40; its run.json records
  its --data_dir. Built once per test run."""
  def build(work):
    data_dir = tiny_data(str(work))
    output_dir = os.path.join(work, "run")
    result = tiny_trainer(data_dir, output_dir, "--train_steps=40", "--schedule=train",
                          "--save_checkpoints_steps=20", f"--hparams={LEARNING_HPARAMS}")
    assert result.returncode == 0, result.stderr[-2000:]
    return [data_dir, output_dir]
  return tuple(built_once(tmp_path_factory, "learned_tiny_run", build))


def copy_run(output_dir, target):
  """A copy of a run directory to break or extend; returns its path."""
  shutil.copytree(output_dir, target)
  return str(target)


def truncate(path, fraction=0.5):
  """Cuts a file to `fraction` of its size, as a crash or a full disk may."""
  with open(path, "r+b") as f:
    f.truncate(int(os.path.getsize(path) * fraction))


def snapshot(directory, mtimes=False):
  """{path relative to directory: bytes} of every file under `directory`; with mtimes,
  {path: (bytes, mtime_ns)}, so that a file rewritten with the same bytes shows too."""
  files = {}
  for root, _, names in os.walk(directory):
    for name in names:
      path = os.path.join(root, name)
      with open(path, "rb") as f:
        content = f.read()
      files[os.path.relpath(path, directory)] = (
          (content, os.stat(path).st_mtime_ns) if mtimes else content)
  return files
