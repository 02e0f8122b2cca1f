"""The built-in problems; installed as `t2t_lite.problems`. Each module here is one dataset's
problems, whole: its text, its published files' digests, its decoding presets and its
registration (`@PROBLEMS.register`). The registry imports every module of this folder, so a
new problem is one new file (docs/architecture.md, "Adding a problem"); the problems
reference (docs/reference/problems.md, `t2t-trainer --registry_help`) is this folder's map.
"""
