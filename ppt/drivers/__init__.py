"""Drivers: runs that use a network directly (latency survey, synthetic traffic, sampling) and the choice of network."""
