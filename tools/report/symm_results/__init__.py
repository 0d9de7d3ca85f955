"""Reading symm's result files and making reports, roofline plots, an index and
regression checks from them (tools/report/symm-report, tools/report/perf-check)."""
