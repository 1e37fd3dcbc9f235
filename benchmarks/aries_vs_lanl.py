"""The two Aries experiments LANL's original PPT was timed on, on the same 25-group Aries.

1. an 8-byte latency survey from node 0 to all 9,599 other nodes;
2. one 1 MiB message from node 0 to a node of the farthest (last) group.

LANL PPT on this machine: 11.1 s and 33.4 s (1.06 M events).  Prints our
wall times, event counts and the speed-up factors.
"""
from __future__ import annotations

import time

from ppt.hardware.systems import load_system
from ppt.drivers.survey import latency_survey
from ppt.machine import Machine

LANL_SURVEY_S = 11.1
LANL_MESSAGE_S = 33.4


def one_message(machine, nbytes: int) -> dict:
    began = time.perf_counter()
    net = machine.network()
    sim = net.simulation(comm=None)
    dst = net.num_nodes - 1
    arrived = []
    net.nic(sim, dst).host = lambda payload: arrived.append(sim.now)
    net.nic(sim, 0).send_message(dst, nbytes, None)
    sim.run()
    return {"wall_s": time.perf_counter() - began, "events": sim.events, "latency_s": arrived[0],
            "packets": net.counters()["delivered"]}


def main() -> None:
    machine = Machine(load_system("aries-25g"))
    began = time.perf_counter()
    survey = latency_survey(machine, 8)
    survey_s = time.perf_counter() - began
    print(f"latency survey, {survey['count']} messages: {survey_s:.2f} s wall, {survey['events']:,} events; "
          f"min/mean/max {survey['min_s'] * 1e6:.3f}/{survey['mean_s'] * 1e6:.3f}/{survey['max_s'] * 1e6:.3f} us; "
          f"{LANL_SURVEY_S / survey_s:.1f}x faster than LANL PPT ({LANL_SURVEY_S} s)")
    msg = one_message(machine, 1 << 20)
    print(f"1 MiB to the farthest group: {msg['wall_s']:.2f} s wall, {msg['events']:,} events, "
          f"{msg['packets']:,} packets (incl. responses), delivered after {msg['latency_s'] * 1e6:.1f} us; "
          f"{LANL_MESSAGE_S / msg['wall_s']:.1f}x faster than LANL PPT ({LANL_MESSAGE_S} s)")


if __name__ == "__main__":
    main()
