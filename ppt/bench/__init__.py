"""Speed benchmarks reported by ``ppt bench`` (figures are ratios measured in one run)."""
