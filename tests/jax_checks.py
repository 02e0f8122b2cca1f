"""Run with KERAS_BACKEND=jax: every JAX-backend check, one after the other, in this one
process (a process per check would pay the imports and JAX's compiles of the same small
ops again: about a third more time).

    python jax_checks.py OUT_DIR    (checks that save arrays write them there)

Each check prints its own result lines (see its doc). A check that fails prints its
traceback to stderr and the others still run; the exit status is 1 if any failed.
"""

import os
import runpy
import sys
import traceback

CHECKS = ("jax_backend_check.py", "jax_decoding_check.py", "test_attention.py",
          "jax_dropout_check.py")


def main():
  failed = []
  for check in CHECKS:
    try:
      runpy.run_path(os.path.join(os.path.dirname(__file__), check), run_name="__main__")
    except BaseException:  # An assertion, or a SystemExit of the check's own.
      failed.append(check)
      print(f"{check} failed:", file=sys.stderr)
      traceback.print_exc()
  sys.exit(1 if failed else 0)


main()
