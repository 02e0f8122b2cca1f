"""The offline bundle's one kind of error: a mistake the user can fix."""


class BundleError(Exception):
  """A mistake the user can fix: printed as one line, `t2t-offline-bundle: error: ...`."""
