"""The built-in models (setup.py names each as an entry point of `t2t_lite.models`)."""
