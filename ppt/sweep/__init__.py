"""Parameter sweeps over any result-producing command: grid, runner, per-point store, table and plot."""
