"""Link failures: which router-to-router links are down, as a static map every router knows.

A failure map is chosen once, before a run, from the preset's ``network``
section (the ``failures`` part of its settings,
:mod:`ppt.interconnects.networks.settings`), which the ``--fail-*`` flags of
``ppt traffic``, ``run``, ``replay`` and ``topology`` set too:

* ``fail_links`` -- the share of the links of ``fail_class`` that fail: a
  percentage string such as ``"5%"`` or a fraction such as ``0.05``, in
  ``[0, 100 %)``.  ``round(share x links of the class)`` links fail, drawn
  uniformly without replacement by ``numpy.random.default_rng(fail_seed)``,
  so one seed always gives one map.  The share counts the links of one
  network plane (the topology's links).
* ``fail_class`` -- ``local`` (inside a group), ``global`` (between groups)
  or ``all`` (default) router-to-router links; topologies without groups
  have only ``all``.
* ``fail_seed`` -- integer seed of the draw (default 0).
* ``fail_file`` -- instead of a share: a text file naming the failed links,
  one per line as ``ROUTER PORT`` (either end of the link; ``#`` starts a
  comment).  Naming a port pins down one link even where two routers share
  parallel links (Aries trunks).

A failed link is unusable in both directions.  Terminal (node) links never
fail.  A share of 0 and no file give no failure map at all, so the run is
byte-identical to one without the keys.  Every bad value is a one-line
:class:`~ppt.errors.ConfigError` raised before anything runs or is written.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ppt.errors import ConfigError

CLASSES = ("all", "local", "global")


@dataclass(frozen=True)
class FailureSpec:
    """What to fail: ``share`` (fraction in [0, 1)) of the ``link_class`` links drawn with ``seed``,
    or the links listed in ``file``.  In a network of several planes each plane draws its own map
    (``plane``; plane 0 draws with ``seed`` alone, as a single plane does); a file's links fail in
    every plane."""

    share: float = 0.0
    link_class: str = "all"
    seed: int = 0
    file: str | None = None
    plane: int = 0

    @classmethod
    def from_settings(cls, settings) -> "FailureSpec":
        """The failure keys of a preset's network settings (``fail_links``, ``fail_class``, ``fail_seed``,
        ``fail_file``; :class:`~ppt.interconnects.networks.settings.NetworkSettings`)."""
        share = parse_share(settings.fail_links)
        link_class = settings.fail_class
        if link_class not in CLASSES:
            raise ConfigError(f"network.fail_class = {link_class!r} is unknown; choose one of: {', '.join(CLASSES)}")
        seed = settings.fail_seed
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ConfigError(f"network.fail_seed must be a whole number >= 0, got {seed!r}")
        file = settings.fail_file
        if file is not None and not isinstance(file, str):
            raise ConfigError(f"network.fail_file must be a file name, got {file!r}")
        if file is not None and share > 0.0:
            raise ConfigError("network sets both fail_links (a random share) and fail_file (a list of links); keep one")
        return cls(share, link_class, seed, file)

    @property
    def active(self) -> bool:
        return self.share > 0.0 or self.file is not None

    def for_plane(self, plane: int) -> "FailureSpec":
        """This map as plane ``plane`` of a multi-plane network draws it."""
        return replace(self, plane=plane)

    def describe(self) -> str:
        """How the map was made, for messages: ``5% of global links, seed 3`` or ``links of FILE``."""
        if self.file is not None:
            return f"the links listed in {Path(self.file).name}"
        plane = f", plane {self.plane}" if self.plane else ""
        return f"{self.share * 100:g}% of {self.link_class} links, seed {self.seed}{plane}"


def parse_share(value) -> float:
    """A failure share: ``"5%"`` or ``0.05`` -> 0.05; ConfigError outside [0, 100 %)."""
    text = str(value).strip()
    try:
        share = float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
        if isinstance(value, bool):
            raise ValueError
    except ValueError:
        share = math.nan
    if not 0.0 <= share < 1.0:
        raise ConfigError(f"network.fail_links must be a share of links in [0, 100%), e.g. 5% or 0.05, got {value!r}")
    return share


def router_links(topology) -> np.ndarray:
    """Every router-to-router link once, as ``(router, port)`` of its lower end, shape ``(links, 2)``,
    in (router, port) order."""
    peer = topology.port_peer
    router, port = np.nonzero(peer >= 0)
    far = peer[router, port] * topology.radix + topology.port_peer_port[router, port]
    lower = router * topology.radix + port < far
    return np.column_stack([router[lower], port[lower]])


def pick_failed(topology, spec: FailureSpec) -> np.ndarray:
    """The failed links of ``spec`` on ``topology``: ``(router, port)`` of the lower ends, sorted."""
    links = router_links(topology)
    if spec.file is not None:
        return _read_file(topology, spec.file, links)
    if spec.link_class != "all":
        is_global = topology.global_ports()
        if is_global is None:
            raise ConfigError(f"network.fail_class = {spec.link_class!r}: a {topology.kind} has no local and "
                              f"global links; use 'all'")
        links = links[is_global[links[:, 0], links[:, 1]] == (spec.link_class == "global")]
    count = round(spec.share * len(links))
    rng = np.random.default_rng([spec.seed, spec.plane] if spec.plane else spec.seed)
    chosen = rng.choice(len(links), size=count, replace=False)
    return links[np.sort(chosen)]


def _read_file(topology, name: str, links: np.ndarray) -> np.ndarray:
    path = Path(name)
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"network.fail_file {name!r} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    radix = topology.radix
    named = {}
    for number, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{path.name} line {number}"
        try:
            router, port = (int(w) for w in words)
        except ValueError:
            raise ConfigError(f"{where}: give a failed link as 'ROUTER PORT', got {line.strip()!r}") from None
        if not (0 <= router < topology.num_routers and 0 <= port < radix) or topology.port_peer[router, port] < 0:
            raise ConfigError(f"{where}: router {router} port {port} is not a router-to-router link of this "
                              f"{topology.kind} ({topology.num_routers} routers, ports 0-{radix - 1})")
        peer, peer_port = int(topology.port_peer[router, port]), int(topology.port_peer_port[router, port])
        key = min(router * radix + port, peer * radix + peer_port)
        if key in named:
            raise ConfigError(f"{where}: router {router} port {port} names the link of line {named[key]} again")
        named[key] = number
    keys = np.array(sorted(named), dtype=np.int64)
    return np.column_stack([keys // radix, keys % radix]) if len(keys) else links[:0]


def apply_failures(topology, spec: FailureSpec):
    """``topology`` with the failed links of ``spec`` removed (the topology itself if none fail)."""
    if not spec.active:
        return topology
    failed = pick_failed(topology, spec)
    return topology.with_failed_links(failed, spec) if len(failed) else topology
