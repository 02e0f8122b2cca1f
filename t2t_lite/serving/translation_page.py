"""The page at / (page.html beside this file): a box for a sentence, its translation, its
n-best list and its attention maps, drawn from the server's own API (:predict, then
POST /page/attention). `/?sentence=...` translates the sentence as the page opens.
Where the served model has no layers to draw from, the page says why."""

import html
import importlib.resources


def page_html(model_name, description):
  """The page's HTML for the model served as `model_name` (`description`: what it is)."""
  text = importlib.resources.files("t2t_lite.serving").joinpath("page.html").read_text(
      encoding="utf-8")
  return (text.replace("__MODEL_NAME__", html.escape(model_name, quote=True))
          .replace("__DESCRIPTION__", html.escape(description)))
