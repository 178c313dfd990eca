"""The benchmark tools: reading Google Benchmark JSON (results), the
threshold gate (thresholds), the baseline comparison (compare), the
bandwidth plot (plot), the benchmark step of CI (run_all), the cold start
(cold_start) and the side-by-side measurements (side_by_side,
harness_overhead, table)."""
