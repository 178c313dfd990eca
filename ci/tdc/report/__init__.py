"""Reports people look at: one self-contained HTML file per run (tdc.report.run,
tdc report) and per merged fleet matrix (tdc.report.fleet, ci/merge), made
from the Jinja2 templates in templates/ with matplotlib charts embedded."""
