"""The flag machinery of the commands: every flag generated from a dataclass field, once.

  command_line.py         every command's flags from dataclass fields; what every command checks.
  flag_bounds.py          the range a flag declares on its field, and the one check of it.
  shared_settings.py      the settings several commands take, each declared once.
  tensor2tensor_names.py  tensor2tensor's flag names and values that t2t_lite takes beside its own.
  overrides.py            tensor2tensor's override strings, "a=1,b=0.2", typed by a dataclass.
"""
