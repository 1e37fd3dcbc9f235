"""Finite fields GF(q), q = p^m a prime power, as lookup tables over the integers 0 .. q-1.

An element is the integer of its coefficients in base p: a_0 + a_1 x + ... + a_(m-1) x^(m-1) is
a_0 + a_1 p + ... + a_(m-1) p^(m-1) (for m = 1, the residue itself), so 0 and 1 are the field's
zero and one and 0 .. p-1 its prime subfield.

GF(p^m), m > 1, is F_p[x] modulo the Conway polynomial C(p, m), and its primitive element is x
(the integer p).  C(p, m) is the least monic primitive polynomial of degree m over F_p, in the order
below, that is compatible with C(p, d) for every proper divisor d of m: if a is a root of C(p, m),
a^((p^m - 1) / (p^d - 1)) is a root of C(p, d).  Polynomials f = x^m + sum_i (-1)^(m-i) c_i x^i
(c_i in 0 .. p-1) are ordered by (c_(m-1), ..., c_0) lexicographically; C(p, 1) = x - g with g the
smallest primitive root mod p, which is GF(p)'s primitive element.  These are the standard choices
(F. Luebeck's tables of Conway polynomials), so the tables are those other libraries build.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np


def prime_power(q: int) -> tuple[int, int] | None:
    """``(p, m)`` with q = p^m, p prime and m >= 1; None if q is not a prime power."""
    factors = prime_factors(q) if q >= 2 else []
    if len(factors) != 1:
        return None
    p, m = factors[0], 1
    while p ** m < q:
        m += 1
    return p, m


def prime_factors(n: int) -> list[int]:
    """The distinct primes dividing n >= 1, ascending."""
    found, d = [], 2
    while d * d <= n:
        if n % d == 0:
            found.append(d)
            while n % d == 0:
                n //= d
        d += 1
    return found + [n] * (n > 1)


def primitive_root(p: int) -> int:
    """The smallest generator of the multiplicative group mod the prime p."""
    if p == 2:
        return 1
    factors = prime_factors(p - 1)
    return next(g for g in range(2, p) if all(pow(g, (p - 1) // r, p) != 1 for r in factors))


# -- polynomials over F_p: coefficient lists, lowest degree first; reduced ones have length m ---------
def _mulmod(a: list, b: list, f: list, p: int) -> list:
    """a * b modulo the monic f (degree m = len(f) - 1), over F_p."""
    m = len(f) - 1
    prod = [0] * (2 * m - 1)
    for i, ai in enumerate(a):
        if ai:
            for j, bj in enumerate(b):
                prod[i + j] = (prod[i + j] + ai * bj) % p
    for k in range(len(prod) - 1, m - 1, -1):   # x^k = x^(k-m) * (x^m - f)
        top = prod[k]
        if top:
            for i in range(m):
                prod[k - m + i] = (prod[k - m + i] - top * f[i]) % p
    return prod[:m]


def _powmod(a: list, e: int, f: list, p: int) -> list:
    """a^e modulo f over F_p (square and multiply)."""
    result = [1] + [0] * (len(f) - 2)
    while e:
        if e & 1:
            result = _mulmod(result, a, f, p)
        a, e = _mulmod(a, a, f, p), e >> 1
    return result


def _evaluate(g: tuple, a: list, f: list, p: int) -> list:
    """The polynomial g (coefficients lowest first) at the ring element a, modulo f (Horner)."""
    value = [0] * (len(f) - 1)
    for coefficient in reversed(g):
        value = _mulmod(value, a, f, p)
        value[0] = (value[0] + coefficient) % p
    return value


def _candidates(p: int, m: int):
    """The monic polynomials of degree m over F_p with a nonzero constant term, in Conway's order."""
    for rank in range(p ** m):
        c = [(rank // p ** i) % p for i in range(m)]        # c_0 .. c_(m-1); c_(m-1) counts most
        f = [(-c[i] if (m - i) % 2 else c[i]) % p for i in range(m)] + [1]
        if f[0]:
            yield f


@lru_cache(maxsize=None)
def conway_polynomial(p: int, m: int) -> tuple[int, ...]:
    """C(p, m): its m + 1 coefficients, lowest degree first (the last is 1), found as the module
    docstring says."""
    if m == 1:
        return ((-primitive_root(p)) % p, 1)
    order = p ** m - 1
    exponents = [order // r for r in prime_factors(order)]
    subfields = [(order // (p ** d - 1), conway_polynomial(p, d)) for d in range(1, m) if m % d == 0]
    x, one = [0, 1] + [0] * (m - 2), [1] + [0] * (m - 1)

    def is_conway(f: list) -> bool:
        primitive = _powmod(x, order, f, p) == one and all(_powmod(x, e, f, p) != one for e in exponents)
        return primitive and not any(any(_evaluate(g, _powmod(x, e, f, p), f, p)) for e, g in subfields)

    return tuple(next(f for f in _candidates(p, m) if is_conway(f)))


class FiniteField:
    """GF(q) as tables (int32 numpy arrays, elements as in the module docstring): ``add``, ``sub``
    and ``mul`` (q x q, ``sub[a, b]`` = a - b), ``inv`` (q; ``inv[0]`` = 0, which has none),
    ``exp`` (q - 1: ``exp[k]`` = xi^k for the primitive element ``xi``) and ``log`` (q; ``log[0]`` = -1)."""

    def __init__(self, q: int):
        pm = prime_power(q)
        if pm is None:
            raise ValueError(f"GF(q) needs q a prime power, not {q}")
        self.q, (self.p, self.m) = q, pm
        p, m = pm
        self.polynomial = conway_polynomial(p, m)
        self.xi = primitive_root(p) if m == 1 else p
        self.exp = self._powers()
        self.log = np.full(q, -1, dtype=np.int32)
        self.log[self.exp] = np.arange(q - 1, dtype=np.int32)
        digits = (np.arange(q)[:, None] // p ** np.arange(m)) % p           # [element, coefficient]
        weights = p ** np.arange(m)

        def combine(sign: int) -> np.ndarray:
            coefficients = (digits[:, None, :] + sign * digits[None, :, :]) % p
            return (coefficients @ weights).astype(np.int32)

        self.add, self.sub = combine(1), combine(-1)
        logs = self.log[:, None] + self.log[None, :]
        self.mul = np.where((self.log[:, None] < 0) | (self.log[None, :] < 0), 0,
                            self.exp[logs % (q - 1)]).astype(np.int32)
        self.inv = np.zeros(q, dtype=np.int32)
        self.inv[1:] = self.exp[(-self.log[1:]) % (q - 1)]

    def _powers(self) -> np.ndarray:
        """xi^0 .. xi^(q-2) as element integers: multiply by xi (x, for m > 1) modulo the polynomial."""
        p, m, f = self.p, self.m, self.polynomial
        powers = np.empty(self.q - 1, dtype=np.int32)
        coefficients = [1] + [0] * (m - 1)
        for k in range(self.q - 1):
            powers[k] = sum(c * p ** i for i, c in enumerate(coefficients))
            if m == 1:
                coefficients = [coefficients[0] * self.xi % p]
            else:
                top = coefficients[-1]
                coefficients = [(lower - top * fi) % p for lower, fi in zip([0] + coefficients[:-1], f)]
        return powers

    def power(self, k: int) -> int:
        """xi^k (any integer k)."""
        return int(self.exp[k % (self.q - 1)])
