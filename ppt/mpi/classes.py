"""Traffic classes of one MPI job's messages: the ``mpi.class_of`` setting, read here and nowhere else.

A mapping from kinds of message to traffic classes of the packet network
(``network.traffic_classes``; see docs/guide/traffic-classes.md):

* ``"collectives"``: every message of a collective call, and the library's
  own exchanges on a communicator's collective context (communicator
  creation, an intercommunicator's setup);
* ``"point-to-point"``: every point-to-point message no tag range holds, and
  one-sided (RMA) transfers;
* ``"LO-HI"`` or ``"TAG"``: point-to-point messages whose tag is in
  ``[LO, HI]`` (or is TAG), on any communicator.

A message no key covers stays in its job's class (a job list's ``"class"``,
else 0).  A rendezvous's control messages and data go in the class of the
send.  Tag ranges must not overlap; each class must be one the network has.
"""
from __future__ import annotations

from dataclasses import dataclass

from ppt.errors import ConfigError
from ppt.params import Param

#: The setting's declaration (a key of the ``mpi`` section).
CLASS_OF = Param("class_of", "traffic class of the job's messages by kind: \"collectives\", \"point-to-point\" "
                 "and tag ranges \"LO-HI\" mapped to class numbers (null: every message in its job's class)",
                 None, None, shape="mapping")

#: The class of a kind no key names: the sending node's (its job's).
JOB_CLASS = -1
_WHERE = "mpi.class_of"


def _class(value, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{_WHERE}[{key!r}] must be a class number (0, 1, ...), got {value!r}")
    return value


def _tag_range(key: str) -> tuple[int, int]:
    low, _, high = key.partition("-")
    try:
        bounds = int(low), int(high or low)
    except ValueError:
        raise ConfigError(f"{_WHERE} key {key!r} is none of \"collectives\", \"point-to-point\" or a tag "
                          f"range \"LO-HI\"") from None
    if not 0 <= bounds[0] <= bounds[1]:
        raise ConfigError(f"{_WHERE} tag range {key!r} must have 0 <= LO <= HI")
    return bounds


@dataclass(frozen=True)
class MessageClasses:
    """The classes of a job's messages (:data:`JOB_CLASS`: the job's own): collectives', untagged
    point-to-point's, and per tag range ``(low, high, class)``, ascending."""

    collectives: int = JOB_CLASS
    point_to_point: int = JOB_CLASS
    tag_ranges: tuple = ()

    @classmethod
    def read(cls, value) -> "MessageClasses":
        """The setting's value (a mapping, or None: no classes), checked."""
        if value is None:
            return cls()
        if not isinstance(value, dict):
            raise ConfigError(f"{_WHERE} must be a mapping such as {{\"collectives\": 1}}, got {value!r}")
        kinds = {"collectives": JOB_CLASS, "point-to-point": JOB_CLASS}
        ranges = []
        for key, number in value.items():
            if key in kinds:
                kinds[key] = _class(number, key)
            else:
                ranges.append((*_tag_range(str(key)), _class(number, key)))
        ranges.sort()
        for before, after in zip(ranges, ranges[1:]):
            if after[0] <= before[1]:
                raise ConfigError(f"{_WHERE} tag ranges {before[0]}-{before[1]} and {after[0]}-{after[1]} overlap")
        return cls(kinds["collectives"], kinds["point-to-point"], tuple(ranges))

    @property
    def on(self) -> bool:
        """Some kind of message has a class of its own."""
        return self != MessageClasses()

    def check(self, count: int, network: str) -> None:
        """ConfigError if a class is not one of the ``count`` of the job's network (named ``network``)."""
        highest = max(self.collectives, self.point_to_point, *(c for _, _, c in self.tag_ranges))
        if highest >= count:
            raise ConfigError(f"{_WHERE} names traffic class {highest}, but {network} has {count} "
                              f"class{'es' if count > 1 else ''}; classes count from 0")
