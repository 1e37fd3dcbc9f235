"""The network kinds by name: every kind's module, loaded here, registers itself with
:func:`~ppt.interconnects.networks.network.register_network`; ``--network NAME`` looks it up here."""
from __future__ import annotations

import ppt.interconnects.networks.analytic  # noqa: F401  (each module registers its kind)
import ppt.interconnects.networks.flownet  # noqa: F401
import ppt.interconnects.networks.packetnet  # noqa: F401
from ppt.errors import ConfigError
from ppt.interconnects.networks.network import NETWORKS, Network
from ppt.interconnects.networks.nodememory import NodeMemory


def network_kinds() -> list[str]:
    """Names of the registered network kinds."""
    return sorted(NETWORKS)


def build_network(kind: str, machine) -> Network:
    """A fresh network of ``kind`` for ``machine`` (networks hold per-run state), built from its
    network settings (``machine.network_settings``, :mod:`ppt.interconnects.networks.settings`)."""
    try:
        cls = NETWORKS[kind]
    except KeyError:
        raise ConfigError(f"unknown network kind {kind!r}; choose one of: {', '.join(sorted(NETWORKS))}") from None
    planes = machine.network_settings.rails.planes
    if planes != 1 and not cls.models_planes:
        raise ConfigError(f"network.planes = {planes}: only the packet network models several planes; "
                          f"use --network packet or drop the setting")
    net = cls.from_machine(machine)
    net.node_memory = NodeMemory.from_machine(machine)
    return net
