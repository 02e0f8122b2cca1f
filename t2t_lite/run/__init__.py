"""A run directory as one object (`Run`), below both training and the commands that use a
trained model: its description files (`description.py`) and checkpoints (`checkpoints.py`).

    from t2t_lite.run import Run
    Run.open("RUN").translate(["Resumption of the session"])
"""

from t2t_lite.run.run import Run  # noqa: F401
