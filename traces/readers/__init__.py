"""Trace readers: each turns one format (SST-DUMPI, OTF2, GOAL, Chakra) into the op-stream form."""
