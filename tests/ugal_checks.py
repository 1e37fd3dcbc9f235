"""A check shared by the dragonfly and Slim Fly routing tests: where UGAL-type routings leave MIN."""


def bias_decisions(topo, adaptive, minimal, pairs, size_B: int, skip) -> tuple[int, int]:
    """(packets tried, packets sent off the minimal port) at their source router, when the minimal
    first port holds the adaptive routing's bias (``ugal_bias_packets`` packets) plus one byte and
    every other port is idle.

    Asserts on the way that an idle router and exactly the bias on the minimal port both keep the
    minimal port.  ``skip(src_router, dst_router)`` leaves out pairs
    with nothing to choose."""
    tried = diverted = 0
    for uid, (src, dst) in enumerate(pairs):
        src, dst = int(src), int(dst)
        router = int(topo.node_router[src])
        if skip(router, int(topo.node_router[dst])):
            continue
        min_port = minimal.route(minimal.packet(uid, src, dst, size_B), router)[0]
        occupancy = [0.0] * topo.radix
        assert adaptive.route(adaptive.packet(uid, src, dst, size_B), router, occupancy)[0] == min_port
        occupancy[min_port] = adaptive.ugal_bias_packets * size_B
        assert adaptive.route(adaptive.packet(uid, src, dst, size_B), router, occupancy)[0] == min_port
        occupancy[min_port] += 1
        diverted += adaptive.route(adaptive.packet(uid, src, dst, size_B), router, occupancy)[0] != min_port
        tried += 1
    return tried, diverted
