"""The atlas: a static site of many runs' results (`runner report --site`, `make atlas`), read from file:// or any
static host, no server and no network.

    index.html                     the function x setup grid, filterable (framework, device, verdict, name)
    study.html                     the 2023 study's headline figures beside ours on its functions
    functions/<function>.html      one function: every setup, every release's declared support, the study
    setups/<setup>.html            one setup: its header facts (device, driver, build, numerics, packages)
    cells/<setup>--<function>.html one function on one setup: its cases, and the command that reruns them
    atlas.css, atlas.js, atlas.json

sources.py reads the folders, model.py makes the pages' data from the report's own tables (runner.view,
runner.report), releases.py and study.py the per-release and study views, pages.py and site.py write it.
"""
