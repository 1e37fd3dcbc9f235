"""mpi4py's spellings beside the simulated MPI's own, so one script runs on mpi4py and on PPT.

The simulated MPI's names follow PEP 8 (``comm.split``, ``group.incl``,
``status.source``).  Scripts written for mpi4py say ``comm.Split``,
``group.Incl``, ``status.Get_source()``, ``comm.Allreduce(sendbuf, recvbuf)``;
:func:`mpi4py_names` gives each class those names from :data:`MPI4PY_NAMES`,
the one place they are listed, when this module is imported (the ``MPI``
object's own by its decorator in :mod:`ppt.mpi.surface.api`).  The classes
know nothing of this module; it imports them:

* a string names the PEP 8 attribute it stands for: the same function object,
  so the call is counted and timed under the same MPI name;
* ``_get("attr")`` turns an attribute into mpi4py's ``Get_attr()`` method;
* the buffer calls (``Send``, ``Recv``, ``Bcast``, ``Allreduce``, ...) take
  mpi4py's buffer arguments (:mod:`ppt.mpi.surface.buffers.arguments`) and move the data for
  real: :mod:`ppt.mpi.surface.communicators.bufp2p` (point to point, requests, statuses) and
  :mod:`ppt.mpi.surface.communicators.bufcoll` (collectives);
* the calls that make communicators of other kinds (``Create_cart``,
  ``Create_graph``, ``Create_intercomm`` ...) are their modules' own
  (:mod:`ppt.mpi.surface.topology.cart`, :mod:`ppt.mpi.surface.topology.graph`,
  :mod:`ppt.mpi.surface.communicators.intercomm`), given to ``Comm`` under both names;
* :mod:`ppt.mpi.surface.environment` holds the functions of the ``MPI`` module
  itself (``Wtick``, ``Get_processor_name``, ``Compute_dims``, ...).

mpi4py names a class does not model fail with one line naming them
(:mod:`ppt.mpi.unsupported`).  A script written for mpi4py then runs on
both with no shim::

    def main(MPI):
        comm = MPI.COMM_WORLD
        ...
    if __name__ == "__main__":          # on mpi4py
        from mpi4py import MPI
        main(MPI)
    # on PPT: MPIJob(...).run(main)
"""
from __future__ import annotations

import inspect

from ppt.mpi import constants
from ppt.mpi.collectives import ops
from ppt.mpi.surface import environment
from ppt.mpi.surface.communicators import bufcoll, bufp2p, intercomm
from ppt.mpi.surface.topology import cart, graph, neighbor
from ppt.mpi.surface.buffers.arguments import BOTTOM, IN_PLACE
from ppt.mpi.surface.topology.cart import Cartcomm
from ppt.mpi.surface.communicators.comm import Comm
from ppt.mpi.surface.buffers.datatypes import DATATYPES, ORDER_C, ORDER_FORTRAN, TYPEDICT, Datatype
from ppt.mpi.surface.topology.graph import Distgraphcomm, Graphcomm
from ppt.mpi.surface.communicators.group import Group
from ppt.mpi.surface.communicators.intercomm import Intercomm
from ppt.mpi.surface.communicators.message import Message
from ppt.mpi.surface.communicators.persistent import Prequest
from ppt.mpi.surface.core.requests import Request, Status
from ppt.mpi.surface.rma.window import Win
from ppt.mpi.errors import MPIError
from ppt.mpi.unsupported import Unsupported, mpi4py_api, refuse


def _get(attr: str):
    """mpi4py's ``Get_<attr>()`` for attribute or property ``attr``."""
    def get(self):
        return getattr(self, attr)
    get.__name__ = f"Get_{attr}"
    return get


def _set_name(self, name: str) -> None:
    self.name = name


def _value(value):
    """A method returning ``value`` whatever its arguments."""
    return lambda self, *args, **kwargs: value


#: The classes of mpi4py that PPT's simulated MPI does not model: ``MPI.File`` and the like are placeholders
#: whose use raises the one-line error.
UNSUPPORTED_CLASSES = ("File", "Session", "Info", "Errhandler", "Grequest", "Topocomm", "Pickle", "buffer",
                       "memory")

_COMM = {
    "Get_rank": _get("rank"), "Get_size": _get("size"), "Get_name": _get("name"), "Set_name": _set_name,
    "Get_group": _get("group"), "Split": "split", "Split_type": "split_type", "Dup": "dup", "Clone": "dup",
    "Dup_with_info": "dup_with_info", "Idup": "idup", "Idup_with_info": "idup_with_info", "Free": "free",
    "Create": "create", "Create_group": "create_group", "Compare": "compare", "Abort": "abort",
    "Get_topology": _get("topology"),
    "Is_inter": _value(False), "Is_intra": _value(True),
    "Get_attr": "get_attr", "Set_errhandler": "set_errhandler", "Barrier": "barrier", "Ibarrier": "ibarrier",
    "Send_init": "send_init", "Ssend_init": "ssend_init", "Bsend_init": "bsend_init", "Rsend_init": "rsend_init",
    "Recv_init": "recv_init",
    **bufp2p.COMM, **bufcoll.COMM, **cart.COMM, **graph.COMM, **intercomm.COMM,
}

#: mpi4py's Topocomm: every communicator with a topology has neighbours (``inedges``, ``outedges``) and the
#: neighbourhood collectives over them.
_TOPOCOMM = {
    "indegree": property(lambda self: len(self.inedges)), "outdegree": property(lambda self: len(self.outedges)),
    "degrees": property(lambda self: (len(self.inedges), len(self.outedges))),
    "inoutedges": property(lambda self: (self.inedges, self.outedges)), **neighbor.COMM,
}

#: mpi4py name -> PEP 8 attribute name or function, by class name.  Subclasses inherit them.
MPI4PY_NAMES = {
    "Comm": _COMM,
    "Cartcomm": {
        "Get_dim": _get("ndim"), "dim": property(lambda self: self.ndim), "Get_coords": cart.Get_coords,
        "Get_cart_rank": "cart_rank", "Shift": "cart_shift", "Sub": "sub", "Get_topo": _get("topo"),
        **_TOPOCOMM,
    },
    "Intercomm": {
        "Get_remote_size": _get("remote_size"), "Get_remote_group": _get("remote_group"), "Merge": "merge",
        "Is_inter": _value(True), "Is_intra": _value(False), "Barrier": "barrier", "Dup": "dup", "Clone": "dup",
        "Split": "split", "Create": "create",
    },
    "Graphcomm": {
        "Get_topo": _get("topo"), "Get_dims": _get("dims"), "Get_neighbors": "neighbors_of",
        "Get_neighbors_count": "neighbors_count", "nnodes": property(lambda self: self.dims[0]),
        "nedges": property(lambda self: self.dims[1]), "nneighbors": property(lambda self: len(self.neighbors)),
        **_TOPOCOMM,
    },
    "Distgraphcomm": {
        "Get_dist_neighbors": "dist_neighbors", "Get_dist_neighbors_count": "dist_neighbors_count",
        **_TOPOCOMM,
    },
    "Group": {
        "Get_rank": _get("rank"), "Get_size": _get("size"), "Incl": "incl", "Excl": "excl",
        "Range_incl": "range_incl", "Range_excl": "range_excl", "Translate_ranks": "translate_ranks",
        "Compare": "compare", "Union": "union", "Intersection": "intersection", "Intersect": "intersection",
        "Difference": "difference", "Dup": "dup", "Free": "free",
    },
    "Status": bufp2p.STATUS,
    "Request": bufp2p.REQUEST,
    "Prequest": {"Start": "start", "Startall": "startall", "Free": "free"},
    "Win": {},                          # Win has mpi4py's names itself
    "Message": bufp2p.MESSAGE,
    "Op": {
        "Create": classmethod(lambda cls, function, commute=False: cls.create_mpi4py(function, commute)),
        "Free": "free", "Is_commutative": "is_commutative", "Reduce_local": bufcoll.Reduce_local,
    },
    "MPI": {
        "Wtime": "wtime", "IN_PLACE": IN_PLACE, "BOTTOM": BOTTOM, "Datatype": Datatype, "_typedict": TYPEDICT,
        "Exception": MPIError, **DATATYPES, **environment.FUNCTIONS,
        "ORDER_C": ORDER_C, "ORDER_FORTRAN": ORDER_FORTRAN, "ORDER_F": ORDER_FORTRAN,
        **{name: getattr(constants, name) for name in (
            "IDENT", "CONGRUENT", "SIMILAR", "UNEQUAL", "ROOT", "CART", "GRAPH", "DIST_GRAPH")},
        **constants.KEYVALS, **constants.RMA,
        **{name: getattr(ops, name) for name in ("LXOR", "MAXLOC", "MINLOC", "REPLACE", "NO_OP")},
    },
}


def mpi4py_names(cls):
    """Class decorator: add mpi4py's names of ``cls`` (listed in :data:`MPI4PY_NAMES`), and make a
    lookup of a name mpi4py has and ``cls`` lacks raise the one-line 'not supported' error."""
    for name, target in MPI4PY_NAMES[cls.__name__].items():
        if isinstance(target, str):
            target = inspect.getattr_static(cls, target)   # keeps staticmethods static
        setattr(cls, name, target)
    if "__getattr__" not in cls.__dict__:
        if not hasattr(cls, "freed"):
            cls.freed = False           # read by every mpi_call
        if cls.__name__ == "MPI":
            cls.__getattr__ = _refusing_module_names
        else:
            _refuse_missing(cls)
    return cls


def _refusing_module_names(self, name):
    """``MPI.__getattr__``: an mpi4py class the simulation lacks is an :class:`Unsupported`, any other
    mpi4py name it lacks raises the one-line error, as :func:`refuse` words it for the module."""
    if name.startswith("_"):
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
    world_rank = self._rank.world_rank
    if name in UNSUPPORTED_CLASSES:
        return Unsupported(name, world_rank)
    return refuse("MPI", name, world_rank)


class _Refused:
    """An mpi4py name a class lacks: looking it up raises :func:`refuse`'s error for the class (and rank) it
    is looked up on.  A class attribute, not a ``__getattr__``, so that CPython specializes the class's
    other attribute reads (every ``comm.ctx`` or ``req.q`` of a program's calls)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return refuse(cls.__name__, self.name)
        rank = getattr(obj, "_rank", None)
        return refuse(type(obj).__name__, self.name, None if rank is None else rank.world_rank)


def _refuse_missing(cls) -> None:
    """Give ``cls`` a :class:`_Refused` for every mpi4py name of its kind it lacks."""
    for name in mpi4py_api(cls.__name__) or ():
        if not any(name in klass.__dict__ for klass in cls.__mro__):
            setattr(cls, name, _Refused(name))


#: The classes of the rooms below, each after the class it derives from (a class inherits its base's names).
for _named in (ops.Op, Status, Request, Prequest, Message, Group, Comm, Cartcomm, Graphcomm, Distgraphcomm, Intercomm,
               Win):
    mpi4py_names(_named)
