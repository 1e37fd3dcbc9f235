"""A simulated machine: a system preset turned into a network model and a node model."""
from __future__ import annotations

from functools import cached_property

from ppt.errors import ConfigError
from ppt.hardware.presets import CORES, PROCESSOR

class Machine:
    """System preset ``preset`` (a dict from :func:`ppt.hardware.systems.load_system`).

    ``network_kind`` is ``"packet"`` (packet-level model of the preset's
    topology) or ``"analytic"`` (contention-free latency/bandwidth model with
    the same hop counts).
    """

    def __init__(self, preset: dict, network_kind: str = "packet", seed: int = 0):
        from ppt.interconnects.networks.kinds import network_kinds
        if network_kind not in network_kinds():
            raise ConfigError(f"unknown network kind {network_kind!r}; choose one of: {', '.join(network_kinds())}")
        self.preset = preset
        self.name = preset.get("name", "?")
        self.network_kind = network_kind
        self.seed = seed
        node = preset["node"]
        self.cores_per_node = CORES.read(node, "node")
        from ppt.interconnects.networks.settings import NetworkSettings
        #: The preset's ``network`` section, read and checked once (here, before any run); each component
        #: reads its part (:mod:`ppt.interconnects.networks.settings`).
        self.network_settings = NetworkSettings.from_preset(preset)
        from ppt.provenance import note_machine
        note_machine(preset, network_kind, seed, self.network_settings.routing)   # what a result's provenance names

    @cached_property
    def topology(self):
        """The preset's topology, without the links the failure map (``network.fail_*``) takes down."""
        from ppt.interconnects.topologies.failures import apply_failures
        from ppt.interconnects.topologies.registry import build_topology
        return apply_failures(build_topology(self.preset["topology"]), self.network_settings.failures)

    @cached_property
    def node_model(self):
        from ppt.hardware.presets import load_processor
        return load_processor(PROCESSOR.read(self.preset["node"], "node"))

    @property
    def num_nodes(self) -> int:
        return int(self.topology.num_nodes)

    def network(self):
        """A fresh network model of this machine's kind (networks hold per-run state)."""
        from ppt.interconnects.networks.kinds import build_network
        return build_network(self.network_kind, self)
