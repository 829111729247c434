"""Benchmarks, run on the local Slack emulator over real loopback HTTP. See bench/README.md."""
