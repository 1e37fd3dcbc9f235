"""Processor presets: data files ``processors/<name>.json`` loaded as :class:`NodeModel`.

Each file holds the fields :meth:`NodeModel.from_config` reads plus
``references`` (citations by id), ``sources`` (for every number, the ``[id]``
of the references it comes from, or how it was derived) and ``notes``
(estimates and caveats).
"""
from __future__ import annotations

from pathlib import Path

from ppt.config import preset_names, read_preset
from ppt.hardware.node import NodeModel
from ppt.params import Param

PROCESSORS_DIR = Path(__file__).with_name("processors")
#: A system preset's ``node`` section: the processor model of its nodes and their cores.
PROCESSOR = Param("processor", "processor preset of the nodes (see hardware/processors) or a .json file", str)
CORES = Param("cores", "cores of one node, one MPI rank each by default", int, positive=True)
NODE_PARAMS = (PROCESSOR, CORES)


def list_processors() -> list[str]:
    """Names of the built-in processor presets."""
    return preset_names(PROCESSORS_DIR)


def read_processor_config(name_or_path: str) -> dict:
    """The raw preset dict for a built-in name or a ``.json`` file path."""
    return read_preset(PROCESSORS_DIR, name_or_path, "processor")


def load_processor(name_or_path: str) -> NodeModel:
    """The node model of a built-in processor preset (or a ``.json`` processor file)."""
    return NodeModel.from_config(read_processor_config(name_or_path), where=f"processor {name_or_path!r}")
