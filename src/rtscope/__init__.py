"""rtscope: measure how well an operating system serves real-time work.

This package is the analyzer: it runs the C probe on a target, validates and stores the result documents
the probe writes, and compares, scores, draws and exports them. Its parts, and the one way their imports
run (tests/test_layers.py holds them to it):

    cli → commands → execution → targets, loads, store, analysis, render, exporters → model

- commands/   one module per subcommand: parse arguments, call the layers below, print
- execution/  measuring a request under loads on a target; campaigns (spec, matrix, resume, progress)
- targets/    where the probe runs and the transport that reaches it (the only way to touch that machine)
- loads/      disturbance loads: their kinds, and a session that runs them through the target's transport
- store/      the results store: SQLite by default, a lab's PostgreSQL, one interface
- analysis/   statistics, grouping (the one rule), the comparison with verdicts, the judge, the score
- render/     text, HTML and SVG: what commands and the report draw from the result documents
- exporters/  runs and comparisons in other tools' formats (CSV, JSON, cyclictest, LAVA, JUnit)
- model/      result documents (validation, units, labels), requests, the bench catalogue, value parsing
- errors, paths, files: the base every part may use.

Loads may use targets (their transport); exporters may use render (markdown) and analysis; render may
use analysis. Nothing imports commands/.
"""

from rtscope import paths

# One version for the probe and the analyzer: the probe's, which builds without Python (pyproject.toml reads it
# from here).
__version__ = paths.probe_version()
