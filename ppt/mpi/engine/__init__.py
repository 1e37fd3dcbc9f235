"""The MPI engine: matching, protocols, networks and collective schedules in C (``core/``), and its
Python side: ranks running programs (:mod:`.program`), trace replay (:mod:`.replay`), parallel windows
(:mod:`.windows`), network and node memory models of one's own (:mod:`.pynet`), and what a run gives
(:mod:`.outcome`, :mod:`.deadlock`)."""
