#!/usr/bin/env python3
"""Prints the polynomials of internal/weigh's AVX2 loops (logPolyAVX2, expPolyAVX2 in
weigh_amd64.go) as Go literals, highest degree first, with their largest errors:

  Q(z) = 2 atanh(s) / (s ln 2), z = s^2 in [0, ((sqrt2-1)/(sqrt2+1))^2], degree 6, so that
         log2(m) = s Q(s^2), s = (m-1)/(m+1), m in [sqrt(1/2), sqrt 2); its error is given
         as the error of log2(m), s times Q's
  P(g) = 2^g, g in [-1/2, 1/2], degree 10; relative error

Each interpolates its function at Chebyshev nodes (within a small factor of the least largest
error a polynomial of its degree can have), in 60-digit decimal arithmetic, and is rounded to
float64; the errors are those of the rounded coefficients. Standard library only:

  python3 scripts/weigh-avx2-poly.py
"""
from decimal import Decimal as D, getcontext

getcontext().prec = 60
EPS = D(10) ** -58
PI = D("3.14159265358979323846264338327950288419716939937510582097494459")
LN2 = D(2).ln()


def cos(x):
    x = x % (2 * PI)
    s, t, k = D(1), D(1), 0
    while abs(t) >= EPS:
        k += 2
        t = -t * x * x / (k * (k - 1))
        s += t
    return s


def q(z):
    """2 atanh(s) / (s ln 2) for z = s^2: 2/ln2 (1 + z/3 + z^2/5 + ...)."""
    s, t, k = D(0), D(1), 0
    while t >= EPS:
        s += t / (2 * k + 1)
        t *= z
        k += 1
    return 2 * s / LN2


def p(g):
    return (g * LN2).exp()


def interpolate(f, a, b, n):
    """The coefficients, lowest degree first, of the polynomial of degree n through f at the
    n+1 Chebyshev nodes of [a, b], from the Vandermonde system by Gauss-Jordan elimination."""
    m = n + 1
    xs = [(a + b) / 2 + (b - a) / 2 * cos(PI * (2 * j + 1) / (2 * m)) for j in range(m)]
    rows = [[x**k for k in range(m)] + [f(x)] for x in xs]
    for i in range(m):
        piv = max(range(i, m), key=lambda r: abs(rows[r][i]))
        rows[i], rows[piv] = rows[piv], rows[i]
        for r in range(m):
            if r != i:
                f_ = rows[r][i] / rows[i][i]
                rows[r] = [rows[r][c] - f_ * rows[i][c] for c in range(m + 1)]
    return [float(rows[i][m] / rows[i][i]) for i in range(m)]


def horner(cs, x):
    r = D(0)
    for c in reversed(cs):
        r = r * x + D(c)
    return r


def show(name, cs, err):
    print(f"// {name}: largest error {float(err):.2g}")
    print(", ".join(c.hex() for c in reversed(cs)) + ",")


zmax = ((D(2).sqrt() - 1) / (D(2).sqrt() + 1)) ** 2
cs = interpolate(q, D(0), zmax, 6)
zs = [zmax * j / 4000 for j in range(4001)]
show("logPoly, of log2(m)", cs, max(abs(horner(cs, z) - q(z)) * z.sqrt() for z in zs))

cs = interpolate(p, D("-0.5"), D("0.5"), 10)
gs = [D(j - 4000) / 8000 for j in range(8001)]
show("expPoly, relative", cs, max(abs(horner(cs, g) - p(g)) / p(g) for g in gs))
