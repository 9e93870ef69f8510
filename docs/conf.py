# Sphinx configuration of the user guide (`make docs` builds it into docs/_build/html).
# The pages are Markdown, read by MyST; a warning fails the build (`-W --keep-going -n` in the Makefile), so a
# link to a page or heading that does not exist stops it. External links are not checked: the build runs where
# only PyPI is reachable, so the guide keeps them to a minimum.
project = "portability-runner"
author = "portability-runner developers"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
# Every heading down to ### gets an anchor, so `page.md#a-heading` links resolve (and fail the build when wrong).
myst_heading_anchors = 3
# Code blocks name their language; one without a name is printed as it is.
highlight_language = "none"
html_theme = "furo"
html_title = "portability-runner user guide"
