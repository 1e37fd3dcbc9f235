"""GF(q) tables: the field axioms by brute force, the primitive element, and the Conway polynomials."""
import numpy as np
import pytest

from ppt.interconnects.topologies.finitefield import FiniteField, conway_polynomial, prime_power, primitive_root

SMALL = [2, 3, 4, 5, 7, 8, 9, 16, 25, 27]


@pytest.mark.parametrize("q", SMALL)
def test_tables_satisfy_the_field_axioms(q):
    f = FiniteField(q)
    add, mul, e = f.add, f.mul, np.arange(q)
    assert (add == add.T).all() and (mul == mul.T).all()
    assert (add[0] == e).all() and (mul[1] == e).all() and (mul[0] == 0).all()
    assert (add[add[:, :, None], e] == add[e[:, None, None], add[e[None, :], :]]).all()      # (a+b)+c = a+(b+c)
    assert (mul[mul[:, :, None], e] == mul[e[:, None, None], mul[e[None, :], :]]).all()
    assert (mul[e[:, None, None], add[None, :, :]] == add[mul[:, :, None], mul[:, None, :]]).all()   # a(b+c) = ab+ac
    assert (add[f.sub, e[None, :]] == e[:, None]).all()                    # (a - b) + b = a
    assert (mul[e[1:], f.inv[1:]] == 1).all()
    assert all(sorted(mul[a, 1:]) == list(range(1, q)) for a in range(1, q))    # no zero divisors


@pytest.mark.parametrize("q", [3, 4, 5, 8, 9, 13, 16, 25, 27, 32, 49, 81, 121, 125, 128, 163, 243, 256])
def test_the_primitive_element_has_order_q_minus_1(q):
    f = FiniteField(q)
    value, order = f.xi, 1
    while value != 1:
        value, order = f.mul[value, f.xi], order + 1
    assert order == q - 1
    assert sorted(f.exp) == list(range(1, q)) and (f.log[f.exp] == np.arange(q - 1)).all()
    assert f.power(q - 1) == 1 and f.power(-1) == f.inv[f.xi]


@pytest.mark.parametrize("p", [2, 3, 5, 7, 11, 13, 37, 163])
def test_a_prime_field_is_arithmetic_mod_p_and_xi_its_smallest_primitive_root(p):
    f = FiniteField(p)
    a, b = np.meshgrid(np.arange(p), np.arange(p), indexing="ij")
    assert (f.add == (a + b) % p).all() and (f.sub == (a - b) % p).all() and (f.mul == (a * b) % p).all()
    orders = [next(k for k in range(1, p) if pow(g, k, p) == 1) for g in range(1, p)]
    assert f.xi == 1 + orders.index(p - 1)


@pytest.mark.parametrize("q", [4, 8, 9, 16, 25, 27, 64, 81])
def test_an_extension_field_holds_its_prime_field_and_x_is_a_root_of_its_polynomial(q):
    f = FiniteField(q)
    p = f.p
    sub = np.arange(p)
    assert (f.add[:p, :p] == (sub[:, None] + sub) % p).all() and (f.mul[:p, :p] == (sub[:, None] * sub) % p).all()
    value = 0
    for coefficient in reversed(f.polynomial):                  # Horner at x, the element p
        value = f.add[f.mul[value, p], coefficient]
    assert f.xi == p and value == 0


@pytest.mark.parametrize("q", [4, 16, 64, 81, 256, 729])
def test_the_conway_polynomial_is_compatible_with_those_of_the_subfields(q):
    """x^((p^m - 1) / (p^d - 1)) is a root of C(p, d) for each d dividing m; for d = 1 that root is the
    smallest primitive root mod p."""
    f = FiniteField(q)
    p, m = f.p, f.m
    for d in (d for d in range(1, m) if m % d == 0):
        root = f.power((q - 1) // (p ** d - 1))
        value = 0
        for coefficient in reversed(conway_polynomial(p, d)):
            value = f.add[f.mul[value, root], coefficient]
        assert value == 0
    assert f.power((q - 1) // (p - 1)) == primitive_root(p)


@pytest.mark.parametrize("p, m, coefficients", [
    # F. Luebeck's table of Conway polynomials, lowest degree first
    (2, 2, (1, 1, 1)), (2, 3, (1, 1, 0, 1)), (2, 4, (1, 1, 0, 0, 1)), (2, 6, (1, 1, 0, 1, 1, 0, 1)),
    (2, 8, (1, 0, 1, 1, 1, 0, 0, 0, 1)), (3, 2, (2, 2, 1)), (3, 3, (1, 2, 0, 1)), (3, 4, (2, 0, 0, 2, 1)),
    (5, 2, (2, 4, 1)), (7, 2, (3, 6, 1)),
])
def test_conway_polynomials_match_the_published_table(p, m, coefficients):
    assert conway_polynomial(p, m) == coefficients


def test_prime_powers_are_recognised():
    def brute(q):
        return next(((p, m) for p in range(2, q + 1) for m in range(1, q.bit_length() + 1)
                     if p ** m == q and all(p % d for d in range(2, p))), None)

    assert all(prime_power(q) == brute(q) for q in range(0, 300))


@pytest.mark.parametrize("q", [0, 1, 6, 12, 100])
def test_a_field_needs_a_prime_power_order(q):
    with pytest.raises(ValueError, match="prime power"):
        FiniteField(q)
