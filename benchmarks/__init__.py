"""Benchmarks: matches and tournaments, DixitBench, paper reproductions, throughput."""
