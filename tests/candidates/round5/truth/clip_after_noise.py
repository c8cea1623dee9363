"""c09 (clip after noise), example pair record 4: (50,50) vs (-50,-50), m = 4, h = 2, sigma = 1, Poisson q = 1/4.
Inside the disk both laws are 3/4 N(0, 4 I) (+ negligible); on the circle the angular densities are
3/4 f0 + 1/4 f_g vs 3/4 f0 + 1/4 f_-g; f0 uniform with mass P(||2N|| > 2) = e^-1/2; f_g by quadrature."""

import numpy as np
from scipy.optimize import brentq

h, s, g = 2.0, 2.0, np.array([50.0, 50.0])
th = np.linspace(-np.pi, np.pi, 200001)
dth = th[1] - th[0]
r = np.linspace(h, 150, 6000)
dr = r[1] - r[0]


def ang(center):
    # angular density of N(center, s^2 I) restricted to radius > h
    out = np.zeros_like(th)
    for k in range(0, len(th), 5000):
        T = th[k : k + 5000][:, None]
        x, y = r * np.cos(T), r * np.sin(T)
        dens = np.exp(-((x - center[0]) ** 2 + (y - center[1]) ** 2) / (2 * s * s)) / (2 * np.pi * s * s)
        out[k : k + 5000] = (dens * r).sum(axis=1) * dr
    return out


f0 = np.full_like(th, np.exp(-h * h / (2 * s * s)) / (2 * np.pi))
fg, fm = ang(g), ang(-g)
pX, pXp = 0.75 * f0 + 0.25 * fg, 0.75 * f0 + 0.25 * fm
print("mass check", (pX * dth).sum() + (1 - np.exp(-0.5)) * 1.0)


def d(e):
    return max((np.maximum(0, pX - np.exp(e) * pXp) * dth).sum(), (np.maximum(0, pXp - np.exp(e) * pX) * dth).sum())


print("eps at delta=1e-3:", brentq(lambda e: d(e) - 1e-3, 0, 30))
