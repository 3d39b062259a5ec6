"""What commands and the report draw, in one section model (document): views list section builders
(sections/), whose data the renderers draw as terminal text (text), markdown (markdown) or an HTML page
with inline SVG (page, svg). Views: summary (show, run), comparison (compare), report (report)."""
