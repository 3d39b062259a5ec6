"""One module per section, each exposing ``build``: given a subject (render.subjects — one run, or a
report's runs, or a report's runs and one metric), the section as data (render.document), or None
when the subject has nothing for it. Views (render.summary, render.report, render.comparison) list the
sections they show; adding a section is adding a module here and naming it in a view's list."""
