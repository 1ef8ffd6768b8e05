"""Study: is single-path Pathfinder a usable labelled approximation for ``reproduce --fast``?

Issue 20 allows the fast build to replace MCMC by "a clearly labelled approximation such as
Pathfinder or ADVI, checked against MCMC". pymc-extras' Pathfinder needs PyMC < 6.4 (this
environment has 6.4) and blackjax's needs a JAX log density, so this script ports the
single-path algorithm of Zhang, Carpenter, Gelman and Vehtari (2022) onto the package's numba
log density (:mod:`attunestats.hierarchical.kernel`), following pymc-extras 0.15.1
(``inference/pathfinder/bfgs_sample.py``: the diagonal update of the inverse Hessian and the
compact L-BFGS factors). It is a prototype for this comparison only; the package does not use
it. SIMULATED data (the bundled release).

It fits the paper-sized behaviour model (task ``om``, default structure) once with Pathfinder
(L-BFGS path from the sampler's initial point, history 6, 5 ELBO draws per iterate, 1,000
draws from the best iterate's Gaussian) and once with the package's MCMC (4 chains x (500 +
500)), and prints, per quantity, the shift of the Pathfinder mean in MCMC posterior SDs and the
ratio of the SDs, plus the importance-sampling effective sample size of the 1,000 draws.

    .venv/bin/python benchmarks/study_pathfinder.py [--seed 1]
"""

from __future__ import annotations

import argparse
import time
import types
import warnings

import numpy as np


def _alpha_step(a: np.ndarray, s: np.ndarray, z: np.ndarray) -> np.ndarray:
    """pymc-extras ``alpha_step_numpy``: the diagonal of the inverse-Hessian estimate."""
    A, B, C = np.sum(a * z * z), np.sum(z * s), np.sum(s * s / a)
    if abs(B) < 1e-14 * (np.sum(z * z) + 1e-30) or C <= 0:
        return a.copy()
    out = 1.0 / (A / (B * a) + z * z / B - A * s * s / (B * C * a * a))
    return a.copy() if (not np.all(np.isfinite(out)) or np.any(out <= 0)) else out


def _gaussian_draws(x, g, alpha, S, Z, u):
    """Draws and log q from the local Gaussian (pymc-extras ``_bfgs_sample_pt``, sparse path);
    ``g`` is the gradient of the negative log density, ``S``/``Z`` its position/gradient
    differences (N x J)."""
    N, J = S.shape
    E = np.triu(S.T @ Z) + np.eye(J) * 1e-8
    AZ = alpha[:, None] * Z
    beta = np.concatenate([AZ, S], axis=1)
    E_inv = np.linalg.solve(E, np.eye(J))
    dd = E_inv.T @ (np.diag(np.diag(E)) + Z.T @ AZ) @ E_inv
    gamma = np.block([[np.zeros((J, J)), -E_inv], [-E_inv.T, dd]])
    Q, R = np.linalg.qr(beta / np.sqrt(alpha)[:, None], mode="reduced")
    L = np.linalg.cholesky(np.eye(2 * J) * (1 + 1e-8) + R @ gamma @ R.T).T
    logdet = 2 * np.sum(np.log(np.abs(np.diag(L)))) + np.sum(np.log(alpha))
    mu = x - (alpha * g + beta @ (gamma @ (beta.T @ g)))
    phi = (
        mu[:, None] + np.sqrt(alpha)[:, None] * (Q @ ((L - np.eye(2 * J)) @ (Q.T @ u.T)) + u.T)
    ).T
    logq = -0.5 * (logdet + np.sum(u * u, axis=1) + N * np.log(2 * np.pi))
    return np.ascontiguousarray(phi), logq


def pathfinder(model, seed: int, *, J: int = 6, K: int = 5, M: int = 1000):
    from scipy.optimize import minimize

    from attunestats.hierarchical.kernel import logp_grad
    from attunestats.hierarchical.layout import initial_point, kernel_args

    args, N = kernel_args(model)

    def neg(x):
        g = np.empty(N)
        v = logp_grad(x, g, *args)
        return -v, -g

    def logp(x):
        return logp_grad(x, np.empty(N), *args)

    rng = np.random.default_rng(seed)
    x0 = initial_point(model, rng)
    path = [(x0.copy(), *neg(x0))]

    def callback(intermediate_result):
        x = intermediate_result.x
        path.append((x.copy(), *neg(x)))

    minimize(neg, x0, jac=True, method="L-BFGS-B", callback=callback,
             options={"maxiter": 1000, "maxcor": J, "ftol": 1e-10, "gtol": 1e-8})  # fmt: skip
    alpha, S, Z, best = np.ones(N), [], [], (-np.inf, None)
    for i in range(1, len(path)):
        s, z = path[i][0] - path[i - 1][0], path[i][2] - path[i - 1][2]
        if s @ z > 1e-11 * (z @ z):
            alpha = _alpha_step(alpha, s, z)
            S, Z = (S + [s])[-J:], (Z + [z])[-J:]
        if not S:
            continue
        state = (path[i][0], path[i][2], alpha.copy(), np.array(S).T, np.array(Z).T)
        phi, logq = _gaussian_draws(*state, rng.standard_normal((K, N)))
        elbo = np.mean([logp(p) for p in phi] - logq)
        if np.isfinite(elbo) and elbo > best[0]:
            best = (elbo, state, i)
    phi, logq = _gaussian_draws(*best[1], rng.standard_normal((M, N)))
    log_w = np.array([logp(p) for p in phi]) - logq
    return phi, log_w, len(path), best[2]


def _quantities(model, Q):
    import xarray as xr

    from attunestats.hierarchical.fit import _add_participant_means
    from attunestats.hierarchical.layout import DIMS, constrained
    from attunestats.hierarchical.summaries import posterior_quantities

    post = constrained(model, Q)
    coords = model.coords()
    coords["cutpoint"] = ["1", "2"]
    dv = {n: (("chain", "draw", *DIMS.get(n, ())), a[None]) for n, a in post.items()}
    used = {d for n in post for d in DIMS.get(n, ())}
    ds = xr.Dataset(dv, coords={"chain": [0], "draw": np.arange(len(Q)),
                                **{d: coords[d] for d in used}})  # fmt: skip
    dt = _add_participant_means(xr.DataTree.from_dict({"posterior": ds}), model, 1)
    return posterior_quantities(types.SimpleNamespace(model=model, idata=dt))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    import attunestats as at
    from attunestats.hierarchical import behaviour_model_from_scores, fit
    from attunestats.hierarchical.fit import _kernel_ready
    from attunestats.hierarchical.summaries import posterior_quantities

    print("[SIMULATED: the bundled release]")
    _kernel_ready()
    model = behaviour_model_from_scores(at.score(at.load_bundled_release()), task="om")
    t = time.perf_counter()
    phi, log_w, n_iter, best = pathfinder(model, args.seed)
    t_pf = time.perf_counter() - t
    w = np.exp(log_w - log_w.max())
    print(f"Pathfinder: {t_pf:.1f} s, {n_iter} L-BFGS iterates, best ELBO at iterate {best}, "
          f"importance-sampling ESS of 1,000 draws {w.sum() ** 2 / (w**2).sum():.1f}")  # fmt: skip
    t = time.perf_counter()
    res = fit(model, draws=500, tune=500, chains=4, rng=args.seed, progress_bar=False)
    print(f"MCMC 4 x (500 + 500): {time.perf_counter() - t:.1f} s, gate passed: {res.passed}")
    mc, pf = posterior_quantities(res), _quantities(model, phi)
    print(f"{'quantity':30s} {'|shift| / sd (median, max)':>28s} {'sd ratio (median, range)':>28s}")
    for name in mc:
        if name not in pf or name == "participant_effect":
            continue
        a, b = mc[name][0].reshape(len(mc[name][0]), -1), pf[name][0].reshape(len(phi), -1)
        z, r = np.abs(b.mean(0) - a.mean(0)) / a.std(0), b.std(0) / a.std(0)
        print(f"{name:30s} {np.median(z):13.2f} {z.max():13.2f} {np.median(r):13.2f} "
              f"[{r.min():.2f}, {r.max():.2f}]")  # fmt: skip


if __name__ == "__main__":
    main()
