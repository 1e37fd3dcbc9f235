"""Network kinds: the packet, flow and analytic networks behind one contract (``network.py``), and what they share."""
