"""Replay in the LogGP model (ppt.traces.loggp, ``ppt replay --loggp``): GOAL schedules timed as LogGOPSim
times them, checked against closed forms of LogGP (o per send and receive, L on the wire, (s-1) G per
message, g between two messages at a NIC) and against LogGOPSim's published dissemination example."""
import json
import math

import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.traces.loggp import LogGP, loggp_job
from ppt.traces.readers.goal import parse
from ppt.traces.replay import replay

#: LogGOPSim's default parameters (L, o, g, G in s and s/B).
DEFAULTS = LogGP(2.5e-6, 1.5e-6, 1e-6, 6e-9)


def times(text: str, params: LogGP) -> tuple:
    """(predicted s, each rank's finish s) of the GOAL schedule ``text`` replayed in ``params``."""
    trace = parse(text)
    result = replay(trace, loggp_job(trace.num_ranks, params))
    return result["predicted_s"], [rank["finish_s"] for rank in result["per_rank"]]


def message_s(p: LogGP, nbytes: int) -> float:
    """A lone message from the start of its send to its receive: o + L + (s-1) G + o."""
    return p.o + p.L + (nbytes - 1) * p.G + p.o


def schedule(ranks: dict, num_ranks: int) -> str:
    """GOAL text: rank -> its statement lines."""
    return f"num_ranks {num_ranks}\n" + "".join(f"rank {r} {{\n" + "\n".join(lines) + "\n}\n"
                                                for r, lines in ranks.items())


@pytest.mark.parametrize("nbytes", [1, 4000])
def test_ping_pong_takes_two_messages(nbytes):
    """Rank 0 sends, rank 1 answers once it has received: 2 (2o + L + (s-1) G)."""
    text = schedule({0: [f"a: send {nbytes}b to 1", f"b: recv {nbytes}b from 1", "b requires a"],
                     1: [f"a: recv {nbytes}b from 0", f"b: send {nbytes}b to 0", "b requires a"]}, 2)
    predicted, finish = times(text, DEFAULTS)
    one = message_s(DEFAULTS, nbytes)
    assert predicted == pytest.approx(2 * one, rel=1e-12)
    assert finish[1] == pytest.approx(one + DEFAULTS.o, rel=1e-12)     # its answer's send overhead


def test_chain_adds_one_message_per_link():
    """Rank i receives from i-1 and then sends to i+1: the last rank ends at (k-1)(2o + L + (s-1) G)."""
    k, nbytes = 6, 1 << 14
    ranks = {0: [f"s: send {nbytes}b to 1"]}
    for r in range(1, k):
        ranks[r] = [f"r: recv {nbytes}b from {r - 1}"]
        if r < k - 1:
            ranks[r] += [f"s: send {nbytes}b to {r + 1}", "s requires r"]
    predicted, finish = times(schedule(ranks, k), DEFAULTS)
    assert finish == pytest.approx([r * message_s(DEFAULTS, nbytes) + (DEFAULTS.o if r < k - 1 else 0)
                                                 for r in range(k)], rel=1e-12)
    assert predicted == pytest.approx((k - 1) * message_s(DEFAULTS, nbytes), rel=1e-12)


@pytest.mark.parametrize("params", [LogGP(2.5e-6, 0.5e-6, 2e-6, 1e-9), DEFAULTS], ids=["g>o", "o>g"])
def test_fan_out_from_one_rank_is_spaced_by_the_larger_of_o_and_the_gap(params):
    """Rank 0 sends k independent messages of s bytes: the j-th starts at (j-1) max(o, g + (s-1) G), so
    receiver j ends at that + 2o + L + (s-1) G and rank 0 at the last start + o."""
    k, nbytes = 8, 500
    ranks = {0: [f"s{j}: send {nbytes}b to {j}" for j in range(1, k + 1)]}
    ranks.update({j: [f"r: recv {nbytes}b from 0"] for j in range(1, k + 1)})
    predicted, finish = times(schedule(ranks, k + 1), params)
    spacing = max(params.o, params.g + (nbytes - 1) * params.G)
    starts = [(j - 1) * spacing for j in range(1, k + 1)]
    assert finish[1:] == pytest.approx([start + message_s(params, nbytes) for start in starts], rel=1e-12)
    assert finish[0] == pytest.approx(starts[-1] + params.o, rel=1e-12)
    assert predicted == pytest.approx((k - 1) * spacing + message_s(params, nbytes), rel=1e-12)


def dissemination(num_ranks: int, nbytes: int) -> str:
    """The dissemination barrier as GOAL: in round k each rank sends to rank + 2^k and receives from
    rank - 2^k; its next send requires that receive (the form of LogGOPSim's dissemination_16.goal)."""
    ranks = {}
    for r in range(num_ranks):
        lines, step, prev = [], 1, None
        while step < num_ranks:
            lines += [f"s{step}: send {nbytes}b to {(r + step) % num_ranks}",
                      f"r{step}: recv {nbytes}b from {(r - step) % num_ranks}"]
            if prev:
                lines.append(f"s{step} requires {prev}")
            prev, step = f"r{step}", step * 2
        ranks[r] = lines
    return schedule(ranks, num_ranks)


@pytest.mark.parametrize("params", [DEFAULTS, LogGP(1e-6, 3e-7, 2e-7, 2e-9)])
def test_dissemination_barrier_of_16_ranks(params):
    """ceil(log2 P) rounds, each one message, 2o + L + (s-1) G (g + (s-1) G is below that): every rank ends
    at ceil(log2 16) (2o + L + (s-1) G)."""
    nbytes = 8
    predicted, finish = times(dissemination(16, nbytes), params)
    expected = math.ceil(math.log2(16)) * message_s(params, nbytes)
    assert finish == pytest.approx([expected] * 16, rel=1e-12)
    assert predicted == pytest.approx(expected, rel=1e-12)


def test_loggopsim_dissemination_example_ends_at_22000_ns(tmp_path, capsys):
    """LogGOPSim's README: dissemination_16.goal (1-byte messages) with the default parameters ends every
    host at 22000 ns; the same through the command line's preset."""
    path = tmp_path / "dissemination_16.goal"
    path.write_text(dissemination(16, 1))
    assert main(["replay", str(path), "--loggp", "loggopsim", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["predicted_s"] == pytest.approx(22000e-9, rel=1e-12)
    assert [rank["finish_s"] for rank in result["per_rank"]] == pytest.approx([22000e-9] * 16, rel=1e-12)


@pytest.mark.parametrize("text", ["1,2,3", "a,b,c,d", "0,1e-6,1e-6,1e-9", "1e-6,-1,0,0", "inf,0,0,0", "fast"])
def test_bad_parameters_are_one_line(text):
    with pytest.raises(ConfigError, match="give L,o,g,G as four numbers") as info:
        LogGP.parse(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("extra", [["--system", "fattree-4-3"], ["--network", "flow"], ["--ranks-per-node", "2"]])
def test_loggp_with_a_system_option_is_one_line(tmp_path, capsys, extra):
    path = tmp_path / "d.goal"
    path.write_text(dissemination(4, 1))
    assert main(["replay", str(path), "--loggp", "loggopsim", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--loggp replaces the system, so {extra[0]} has no meaning" in err


def test_replay_without_system_or_loggp_is_one_line(tmp_path, capsys):
    path = tmp_path / "d.goal"
    path.write_text(dissemination(4, 1))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give --system SYSTEM (or --loggp" in err
