"""Benchmarks: our workloads against the plain Python limit, baselines and peer libraries."""
