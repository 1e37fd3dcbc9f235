"""Topologies: the static structure of each interconnect (one per module), its routings, link failures and planes."""
