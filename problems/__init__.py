"""The built-in problems; installed as `t2t_lite.problems` (setup.py names each problem
as an entry point of `t2t_lite.problems`)."""
