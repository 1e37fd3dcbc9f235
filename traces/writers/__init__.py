"""Trace writers: GOAL text and Chakra execution traces from the op-stream form or a model, and synthetic
op-stream traces."""
