"""A run directory as one object (`Run`), below both training and the commands that use a
trained model.

  run_directory.py  `Run`: a run's hparams, problem, vocabularies, model and strategy; a
                    training run's hold on its directory (one writer, no stub after a
                    failed start).
  run_layout.py     every name t2t_lite gives a file or folder in a run directory.
  description.py    the files by which a run describes itself: hparams, problem, vocabulary,
                    flags.
  checkpoints.py    checkpoints: listed, the newest that reads restored, saved atomically.
  chosen_decoding.py  decoding.json: the decoding settings chosen on dev for a run's model.
  digests.py        what a run depends on, by SHA-256: its vocabulary copies, its data's marker.
  translating.py    what a run and an ensemble share: text in, text out, as t2t-decoder does.
  ensemble.py       several run directories decoded as an ensemble (--output_dir=A,B).
  output_paths.py   the guard of every path a command writes: no link, no input, no file of a
                    run's or a data directory's own.

    from t2t_lite.run import Run
    Run.open("RUN").translate(["Resumption of the session"])
"""

from t2t_lite.run.run_directory import Run  # noqa: F401
