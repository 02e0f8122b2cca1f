"""Command-line entry points; installed as `t2t_lite.bin`."""
