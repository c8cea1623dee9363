"""The Lemma-1 class of Balle et al. (2016): the largest epsilon at delta over every pair of
isotropic Gaussians N(mu, sigma^2 I_d), N(mu', sigma'^2 I_d) meeting (a) sigma, sigma' >= alpha ||mu - mu'||
and (b) |ln sigma^2 - ln sigma'^2| <= beta (main-text alpha, beta). Scale invariance puts sigma = 1;
the worst case is at a corner: sigma' = e^{beta/2} (or 1) and ||mu - mu'|| = min(1, sigma')/alpha.
Any mechanism whose neighbouring outputs meet (a) and (b) has true epsilon at most this value.
"""

import math

from common import iso_gaussian_epsilon


def lemma1_class_epsilon(epsilon, delta, d, corners=9):
    alpha = 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (d + math.log(2.0 / delta)))
    best = 0.0
    for i in range(corners):
        t = beta / 2.0 * i / (corners - 1)
        s2 = math.exp(t)
        best = max(best, iso_gaussian_epsilon(delta, min(1.0, s2) / alpha, 1.0, s2, d))
    return best, alpha, beta
