"""Process-oriented parallel discrete-event engine (Simian-style).

``Simulation`` runs ``Entity`` services at timestamped events; ``Process``
greenlets inside entities can sleep, hibernate and be woken.
"""
from ppt.engine.core import Simulation
from ppt.engine.entity import Entity
from ppt.engine.process import Process, ProcessError

__all__ = ["Simulation", "Entity", "Process", "ProcessError"]
