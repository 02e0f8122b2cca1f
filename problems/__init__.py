"""The built-in problems; installed as `t2t_lite.problems`."""
