"""The log posterior density of a :class:`~.model.HierarchicalModel` and its gradient, in numba.

One compiled kernel serves every model structure and every data set: the structure is data (the
offsets of the parameter blocks in the unconstrained vector, a flag per centred level), so the
kernel is compiled once per machine and loaded from numba's on-disk cache afterwards (about a
second, against 15-20 s for compiling each PyMC model structure through nutpie's numba backend).
It is the same density as the PyMC model of :mod:`.pymc_model`, in the same unconstrained
coordinates and the same order: ``tests/hierarchical/test_kernel.py`` checks the log density (up
to its constant) and the gradient against PyMC's compiled ``logp_dlogp_function`` at random
points of every structure.

Unconstrained coordinates (PyMC's value variables, in this order; absent blocks are skipped):

==  ==================================  =========================================================
 0  ``log sigma_participant``           scales: HalfNormal(s) or Gamma(2, 2 / s) (per scale,
                                        :mod:`.spec`), log transform (jacobian included)
 1  ``log sigma_conversation``
 2  ``log sigma_topic``
 3  ``log sigma_diagnosis_interaction``
 4  ``log sigma_predictor_topic``
 5  ``log sigma_predictor_participant``
 6  ``log sigma_predictor_conversation``
 7  ``log sigma_item``
 8  participant (P)                     ``z`` (non-centred: ``P = U (d * z)``, ``d = sqrt(s^2 +
                                        lambda)``) or ``P`` (centred, MvNormal)
 9  topic (T - 1)                       zero-sum free coordinates of ``z_topic`` or ``v``
10  conversation (K)                    ``z`` or ``C``
11  predictor effect (M - 1)            zero-sum free coordinates
12  diagnosis interaction ((G-1)(M-1))  zero sum over predictors
13  predictor x topic ((M-1)(T-1))      zero sum over both
14  predictor x participant (P (M-1))   zero sum over predictors, non-centred or centred
15  predictor x conversation (K (M-1))  same
16  turn slope (M)
17  task offset (n_tasks - 1)
18  item (I - 1)                        zero-sum free coordinates, non-centred or centred
19  cutpoints (2)                       ordered transform ``(k1, log(k2 - k1))``
20  log precision
21  ``log overdispersion``              HalfNormal, log transform (binomial family with the
                                        ``overdispersion`` term: beta-binomial cells)
==  ==================================  =========================================================

The zero-sum free coordinates are PyMC's (``ZeroSumTransform``): an isometry from ``n - 1``
values onto the vectors of ``n`` values summing to zero, so a ZeroSumNormal(sigma) is iid
Normal(0, sigma) on them.

Likelihoods per observed cell ``i`` with ``eta_i = A[k_i, m_i] + beta[m_i] x_i + tau[task_i] +
q[item_i]`` (``A`` the predictor x conversation grid of the terms that do not vary within a
conversation): binomial ``s eta - n softplus(eta)`` (the binomial coefficient is a constant),
beta-binomial with mean ``mu = logistic(eta)`` and precision ``phi = 1 / overdispersion^2``
(``sum_{j<s} log(a + j) + sum_{j<n-s} log(b + j) - sum_{j<n} log(phi + j)`` with ``a = mu phi``,
``b = phi - a``: the ratio of gamma functions written as the finite product it is for integer
counts), or ordered beta (:mod:`.model`).
"""

from __future__ import annotations

import math

import numpy as np

from attunestats.hierarchical._kernel_math import (
    _digamma,
    _extend,
    _extend_rows,
    _extend_rows_t,
    _extend_t,
    _log1mexp,
    _njit,
    _rising,
    _sigmoid,
    _softplus,
)

# block ids (positions in ``offsets``)
S_P, S_C, S_T, S_G, S_PT, S_PP, S_PC, S_I = range(8)
B_PART, B_TOPIC, B_CONV, B_THETA, B_GAMMA, B_PTOPIC, B_PPART, B_PCONV = range(8, 16)
B_BETA, B_TASK, B_ITEM, B_CUT, B_PREC, B_OD = range(16, 22)
N_BLOCKS = 22
# meta (int64) positions
M_M, M_K, M_P, M_T, M_G, M_NT, M_NI, M_FAMILY = range(8)
C_PART, C_TOPIC, C_CONV, C_ITEM, C_PPART, C_PCONV = range(8, 14)
META_OFFSETS = 14
# prior scales (float64) positions
F_SP, F_SC, F_ST, F_SG, F_SPT, F_SPP, F_SPC, F_SI = range(8)
F_THETA, F_BETA, F_TASK, F_CUTSD, F_CUT1, F_CUT2, F_PRATE, F_OD = range(8, 16)
F_SFAM = 16  # F_SFAM + b: family of scale b's prior, 0 HalfNormal(s), 1 Gamma(2, 2 / s)
N_FMETA = 24
FAMILY_CODE = {"binomial": 0, "ordered_beta": 1}


# --------------------------------------------------------------------------------------------
# the kernel
# --------------------------------------------------------------------------------------------
@_njit
def logp_grad(
    q: np.ndarray,
    grad: np.ndarray,
    meta: np.ndarray,
    offsets: np.ndarray,
    fmeta: np.ndarray,
    p_of_k: np.ndarray,
    t_of_k: np.ndarray,
    g_of_k: np.ndarray,
    U: np.ndarray,
    lam: np.ndarray,
    c_k: np.ndarray,
    c_m: np.ndarray,
    c_x: np.ndarray,
    c_task: np.ndarray,
    c_item: np.ndarray,
    c_a: np.ndarray,
    c_b: np.ndarray,
    c_c: np.ndarray,
) -> float:
    """Log posterior density (up to a constant) at ``q``; writes its gradient into ``grad``.

    Cell data: binomial ``c_a`` successes, ``c_b`` trials (``c_c`` unused); ordered beta
    ``c_a`` category (0 exact zero, 1 exact one, 2 interior), ``c_b`` log(y), ``c_c``
    log(1 - y).
    """
    M = meta[M_M]
    K = meta[M_K]
    P = meta[M_P]
    T = meta[M_T]
    G = meta[M_G]
    NT = meta[M_NT]
    NI = meta[M_NI]
    family = meta[M_FAMILY]
    for i in range(grad.shape[0]):
        grad[i] = 0.0
    lp = 0.0

    # ------------------------------------------------------------ scales (log transform)
    sig = np.zeros(8)
    for b in range(8):
        o = offsets[b]
        if o >= 0:
            s = math.exp(q[o])
            sig[b] = s
            sc = fmeta[b]
            if fmeta[F_SFAM + b] > 0.5:  # Gamma(2, r): log s - r s, plus the jacobian q
                r = 2.0 / sc
                lp += 2.0 * q[o] - r * s
                grad[o] += 2.0 - r * s
            else:  # HalfNormal(sc)
                lp += -0.5 * (s / sc) ** 2 + q[o]
                grad[o] += -((s / sc) ** 2) + 1.0
    dsig = np.zeros(8)  # dL/dsigma from the rest of the model

    # ------------------------------------------------------------ participants
    sP = sig[S_P]
    d = np.empty(P)
    for j in range(P):
        d[j] = math.sqrt(sP * sP + lam[j])
    Pint = np.zeros(P)
    w = np.zeros(P)  # U' P (centred) or d * z (non-centred)
    op = offsets[B_PART]
    if meta[C_PART] == 1:
        for i in range(P):
            Pint[i] = q[op + i]
        for j in range(P):
            acc = 0.0
            for i in range(P):
                acc += U[i, j] * Pint[i]
            w[j] = acc
            lp += -0.5 * acc * acc / (d[j] * d[j]) - math.log(d[j])
    else:
        for j in range(P):
            z = q[op + j]
            w[j] = d[j] * z
            lp += -0.5 * z * z
        for i in range(P):
            acc = 0.0
            for j in range(P):
                acc += U[i, j] * w[j]
            Pint[i] = acc

    # ------------------------------------------------------------ topics
    v = np.zeros(max(T, 1))
    ft = np.zeros(max(T - 1, 0))
    ot = offsets[B_TOPIC]
    sT = sig[S_T]
    if ot >= 0:
        for i in range(T - 1):
            ft[i] = q[ot + i]
        _extend(ft, v)
        if meta[C_TOPIC] == 1:
            ss = 0.0
            for i in range(T - 1):
                ss += ft[i] * ft[i]
            lp += -0.5 * ss / (sT * sT) - (T - 1) * math.log(sT)
        else:
            for i in range(T - 1):
                lp += -0.5 * ft[i] * ft[i]
            for i in range(T):
                v[i] *= sT

    # ------------------------------------------------------------ conversations
    sC = sig[S_C]
    C = np.empty(K)
    mean_c = np.empty(K)
    oc = offsets[B_CONV]
    for k in range(K):
        mean_c[k] = Pint[p_of_k[k]] + (v[t_of_k[k]] if ot >= 0 else 0.0)
    if meta[C_CONV] == 1:
        for k in range(K):
            C[k] = q[oc + k]
            r = (C[k] - mean_c[k]) / sC
            lp += -0.5 * r * r
        lp += -K * math.log(sC)
    else:
        for k in range(K):
            z = q[oc + k]
            C[k] = mean_c[k] + sC * z
            lp += -0.5 * z * z

    # ------------------------------------------------------------ predictor-level terms
    A = np.empty((K, M))
    for k in range(K):
        for m in range(M):
            A[k, m] = C[k]
    theta = np.zeros(M)
    oth = offsets[B_THETA]
    if oth >= 0:
        sd = fmeta[F_THETA]
        for i in range(M - 1):
            lp += -0.5 * (q[oth + i] / sd) ** 2
        _extend(q[oth : oth + M - 1], theta)
        for k in range(K):
            for m in range(M):
                A[k, m] += theta[m]
    og = offsets[B_GAMMA]
    zg = np.zeros((max(G - 1, 0), M))
    if og >= 0:
        fg = q[og : og + (G - 1) * (M - 1)].reshape((G - 1, M - 1))
        for i in range(fg.shape[0]):
            for j in range(fg.shape[1]):
                lp += -0.5 * fg[i, j] * fg[i, j]
        _extend_rows(fg, zg)
        sG = sig[S_G]
        for k in range(K):
            g = g_of_k[k]
            if g > 0:
                for m in range(M):
                    A[k, m] += sG * zg[g - 1, m]
    opt = offsets[B_PTOPIC]
    ztp = np.zeros((M, max(T, 1)))
    if opt >= 0:
        fpt = q[opt : opt + (M - 1) * (T - 1)].reshape((M - 1, T - 1))
        for i in range(M - 1):
            for j in range(T - 1):
                lp += -0.5 * fpt[i, j] * fpt[i, j]
        rows = np.zeros((M - 1, T))
        _extend_rows(fpt, rows)  # along topics
        col = np.zeros(M)
        tmp = np.zeros(M - 1)
        for j in range(T):
            for i in range(M - 1):
                tmp[i] = rows[i, j]
            _extend(tmp, col)  # along predictors
            for i in range(M):
                ztp[i, j] = col[i]
        sPT = sig[S_PT]
        for k in range(K):
            t = t_of_k[k]
            for m in range(M):
                A[k, m] += sPT * ztp[m, t]
    # predictor x participant (b) and predictor x conversation (c): values zb, zc, scale s
    opp = offsets[B_PPART]
    zb = np.zeros((P, M))
    fb = np.zeros((P, max(M - 1, 0)))
    if opp >= 0:
        fb = q[opp : opp + P * (M - 1)].reshape((P, M - 1))
        _extend_rows(fb, zb)
        sPP = sig[S_PP]
        mult = 1.0 if meta[C_PPART] == 1 else sPP
        ss = 0.0
        for i in range(P):
            for j in range(M - 1):
                ss += fb[i, j] * fb[i, j]
        if meta[C_PPART] == 1:
            lp += -0.5 * ss / (sPP * sPP) - P * (M - 1) * math.log(sPP)
        else:
            lp += -0.5 * ss
        for k in range(K):
            p = p_of_k[k]
            for m in range(M):
                A[k, m] += mult * zb[p, m]
    opc = offsets[B_PCONV]
    zc = np.zeros((K, M))
    fc = np.zeros((K, max(M - 1, 0)))
    if opc >= 0:
        fc = q[opc : opc + K * (M - 1)].reshape((K, M - 1))
        _extend_rows(fc, zc)
        sPC = sig[S_PC]
        mult = 1.0 if meta[C_PCONV] == 1 else sPC
        ss = 0.0
        for i in range(K):
            for j in range(M - 1):
                ss += fc[i, j] * fc[i, j]
        if meta[C_PCONV] == 1:
            lp += -0.5 * ss / (sPC * sPC) - K * (M - 1) * math.log(sPC)
        else:
            lp += -0.5 * ss
        for k in range(K):
            for m in range(M):
                A[k, m] += mult * zc[k, m]

    # ------------------------------------------------------------ row-level terms
    beta = np.zeros(M)
    ob = offsets[B_BETA]
    if ob >= 0:
        sd = fmeta[F_BETA]
        for m in range(M):
            beta[m] = q[ob + m]
            lp += -0.5 * (beta[m] / sd) ** 2
    tau = np.zeros(max(NT, 1))
    ota = offsets[B_TASK]
    if ota >= 0:
        sd = fmeta[F_TASK]
        for j in range(1, NT):
            tau[j] = q[ota + j - 1]
            lp += -0.5 * (tau[j] / sd) ** 2
    qi = np.zeros(max(NI, 1))
    fi = np.zeros(max(NI - 1, 0))
    oi = offsets[B_ITEM]
    sI = sig[S_I]
    if oi >= 0:
        for i in range(NI - 1):
            fi[i] = q[oi + i]
        _extend(fi, qi)
        ss = 0.0
        for i in range(NI - 1):
            ss += fi[i] * fi[i]
        if meta[C_ITEM] == 1:
            lp += -0.5 * ss / (sI * sI) - (NI - 1) * math.log(sI)
        else:
            lp += -0.5 * ss
            for i in range(NI):
                qi[i] *= sI
    k1 = 0.0
    k2 = 0.0
    phi = 0.0
    ocut = offsets[B_CUT]
    oprec = offsets[B_PREC]
    if family == 1:
        k1 = q[ocut]
        k2 = k1 + math.exp(q[ocut + 1])
        csd = fmeta[F_CUTSD]
        r1 = (k1 - fmeta[F_CUT1]) / csd
        r2 = (k2 - fmeta[F_CUT2]) / csd
        lp += -0.5 * (r1 * r1 + r2 * r2) + q[ocut + 1]
        phi = math.exp(q[oprec])
        lp += -fmeta[F_PRATE] * phi + q[oprec]
    ood = offsets[B_OD]
    has_od = family == 0 and ood >= 0
    od = 0.0
    if has_od:  # HalfNormal(F_OD) on the overdispersion, log transform; phi = 1 / od^2
        od = math.exp(q[ood])
        lp += -0.5 * (od / fmeta[F_OD]) ** 2 + q[ood]
        phi = 1.0 / (od * od)

    # ------------------------------------------------------------ likelihood
    dA = np.zeros((K, M))
    dbeta = np.zeros(M)
    dtau = np.zeros(max(NT, 1))
    dq = np.zeros(max(NI, 1))
    dk1 = 0.0
    dk2 = 0.0
    dphi = 0.0
    if family == 1:
        psi_phi = _digamma(phi)
        lg_phi = math.lgamma(phi)
    else:
        psi_phi = 0.0
        lg_phi = 0.0
    has_task = ota >= 0
    has_item = oi >= 0
    phi_log = np.zeros(1)
    phi_inv = np.zeros(1)
    if family == 0:
        if has_od:
            # the phi part depends on the trials only: log(phi (phi + 1) ... (phi + n - 1)) and
            # its derivative for every n up to the largest
            n_max = 0
            for i in range(c_b.shape[0]):
                if c_b[i] > n_max:
                    n_max = int(c_b[i])
            phi_log = np.zeros(n_max + 1)
            phi_inv = np.zeros(n_max + 1)
            for j in range(n_max):
                phi_log[j + 1] = phi_log[j] + math.log(phi + j)
                phi_inv[j + 1] = phi_inv[j] + 1.0 / (phi + j)
        for i in range(c_k.shape[0]):
            k = c_k[i]
            m = c_m[i]
            xi = c_x[i]
            eta = A[k, m] + beta[m] * xi
            if has_task:
                eta += tau[c_task[i]]
            if has_item:
                eta += qi[c_item[i]]
            s_ = c_a[i]
            n_ = c_b[i]
            if has_od:  # beta-binomial
                mu = min(max(_sigmoid(eta), 1e-12), 1.0 - 1e-12)
                al = mu * phi
                la, da = _rising(al, s_)
                lb, db = _rising(phi - al, n_ - s_)
                ni = int(n_)
                lp += la + lb - phi_log[ni]
                g = phi * mu * (1.0 - mu) * (da - db)
                dphi += mu * da + (1.0 - mu) * db - phi_inv[ni]
            else:  # binomial: one exp, softplus(eta) = max(eta, 0) + log1p(e), sigmoid from e
                e = math.exp(-abs(eta))
                inv = 1.0 / (1.0 + e)
                if eta > 0.0:
                    sp = eta + math.log1p(e)
                    sg = inv
                else:
                    sp = math.log1p(e)
                    sg = e * inv
                lp += s_ * eta - n_ * sp
                g = s_ - n_ * sg
            dA[k, m] += g
            dbeta[m] += g * xi
            if has_task:
                dtau[c_task[i]] += g
            if has_item:
                dq[c_item[i]] += g
    else:
        for i in range(c_k.shape[0]):
            k = c_k[i]
            m = c_m[i]
            eta = A[k, m] + beta[m] * c_x[i] + tau[c_task[i]] + qi[c_item[i]]
            cat = c_a[i]
            if cat == 0.0:
                a1 = _sigmoid(eta - k1)
                lp += -_softplus(eta - k1)
                g = -a1
                dk1 += a1
            elif cat == 1.0:
                a2c = _sigmoid(k2 - eta)  # 1 - L(eta - k2)
                lp += -_softplus(k2 - eta)
                g = a2c
                dk2 -= a2c
            else:
                la1 = -_softplus(k1 - eta)
                la2 = -_softplus(k2 - eta)
                logD = la1 + _log1mexp(la2 - la1)
                a1 = math.exp(la1)
                a2 = math.exp(la2)
                D = math.exp(logD)
                g = 1.0 - a1 - a2
                dk1 -= a1 * (1.0 - a1) / D
                dk2 += a2 * (1.0 - a2) / D
                mu = _sigmoid(eta)
                if mu < 1e-12:
                    mu = 1e-12
                elif mu > 1.0 - 1e-12:
                    mu = 1.0 - 1e-12
                al = mu * phi
                be = phi - al
                logy = c_b[i]
                log1my = c_c[i]
                lp += (
                    logD
                    + (al - 1.0) * logy
                    + (be - 1.0) * log1my
                    + lg_phi
                    - math.lgamma(al)
                    - math.lgamma(be)
                )
                pa = _digamma(al)
                pb = _digamma(be)
                g += phi * mu * (1.0 - mu) * (logy - log1my - pa + pb)
                dphi += mu * (logy - pa) + (1.0 - mu) * (log1my - pb) + psi_phi
            dA[k, m] += g
            dbeta[m] += g * c_x[i]
            dtau[c_task[i]] += g
            dq[c_item[i]] += g

    # ------------------------------------------------------------ back-propagation
    if family == 1:
        csd = fmeta[F_CUTSD]
        dk1 += -(k1 - fmeta[F_CUT1]) / (csd * csd)
        dk2 += -(k2 - fmeta[F_CUT2]) / (csd * csd)
        grad[ocut] += dk1 + dk2
        grad[ocut + 1] += dk2 * (k2 - k1) + 1.0
        grad[oprec] += phi * (dphi - fmeta[F_PRATE]) + 1.0
    if has_od:  # d/d log(od) = -2 phi d/d phi
        grad[ood] += -2.0 * phi * dphi - (od / fmeta[F_OD]) ** 2 + 1.0
    if ob >= 0:
        sd = fmeta[F_BETA]
        for m in range(M):
            grad[ob + m] += dbeta[m] - beta[m] / (sd * sd)
    if ota >= 0:
        sd = fmeta[F_TASK]
        for j in range(1, NT):
            grad[ota + j - 1] += dtau[j] - tau[j] / (sd * sd)
    if oi >= 0:
        gf = np.zeros(NI - 1)
        if meta[C_ITEM] == 1:
            _extend_t(dq[:NI], gf)
            ss = 0.0
            for i in range(NI - 1):
                grad[oi + i] += gf[i] - fi[i] / (sI * sI)
                ss += fi[i] * fi[i]
            dsig[S_I] += ss / (sI * sI * sI) - (NI - 1) / sI
        else:
            _extend_t(dq[:NI], gf)
            acc = 0.0
            for i in range(NI):
                acc += dq[i] * qi[i] / sI
            for i in range(NI - 1):
                grad[oi + i] += sI * gf[i] - fi[i]
            dsig[S_I] += acc
    # grid A -> conversation intercepts and the predictor-level terms
    dC = np.zeros(K)
    for k in range(K):
        acc = 0.0
        for m in range(M):
            acc += dA[k, m]
        dC[k] = acc
    if oth >= 0:
        dth = np.zeros(M)
        for k in range(K):
            for m in range(M):
                dth[m] += dA[k, m]
        gf = np.zeros(M - 1)
        _extend_t(dth, gf)
        sd = fmeta[F_THETA]
        for i in range(M - 1):
            grad[oth + i] += gf[i] - q[oth + i] / (sd * sd)
    if og >= 0:
        sG = sig[S_G]
        dz = np.zeros((G - 1, M))
        for k in range(K):
            g = g_of_k[k]
            if g > 0:
                for m in range(M):
                    dz[g - 1, m] += dA[k, m]
        acc = 0.0
        for i in range(G - 1):
            for m in range(M):
                acc += dz[i, m] * zg[i, m]
                dz[i, m] *= sG
        dsig[S_G] += acc
        gf = np.zeros((G - 1, M - 1))
        _extend_rows_t(dz, gf)
        fg = q[og : og + (G - 1) * (M - 1)].reshape((G - 1, M - 1))
        for i in range(G - 1):
            for j in range(M - 1):
                grad[og + i * (M - 1) + j] += gf[i, j] - fg[i, j]
    if opt >= 0:
        sPT = sig[S_PT]
        dz = np.zeros((M, T))
        for k in range(K):
            t = t_of_k[k]
            for m in range(M):
                dz[m, t] += dA[k, m]
        acc = 0.0
        for m in range(M):
            for t in range(T):
                acc += dz[m, t] * ztp[m, t]
                dz[m, t] *= sPT
        dsig[S_PT] += acc
        # transpose of (extend along predictors) o (extend along topics)
        dcol = np.zeros(M - 1)
        drows = np.zeros((M - 1, T))
        colg = np.zeros(M)
        for t in range(T):
            for m in range(M):
                colg[m] = dz[m, t]
            _extend_t(colg, dcol)
            for i in range(M - 1):
                drows[i, t] = dcol[i]
        gf = np.zeros((M - 1, T - 1))
        _extend_rows_t(drows, gf)
        fpt = q[opt : opt + (M - 1) * (T - 1)].reshape((M - 1, T - 1))
        for i in range(M - 1):
            for j in range(T - 1):
                grad[opt + i * (T - 1) + j] += gf[i, j] - fpt[i, j]
    if opp >= 0:
        sPP = sig[S_PP]
        dz = np.zeros((P, M))
        for k in range(K):
            p = p_of_k[k]
            for m in range(M):
                dz[p, m] += dA[k, m]
        gf = np.zeros((P, M - 1))
        if meta[C_PPART] == 1:
            _extend_rows_t(dz, gf)
            ss = 0.0
            for i in range(P):
                for j in range(M - 1):
                    grad[opp + i * (M - 1) + j] += gf[i, j] - fb[i, j] / (sPP * sPP)
                    ss += fb[i, j] * fb[i, j]
            dsig[S_PP] += ss / (sPP**3) - P * (M - 1) / sPP
        else:
            acc = 0.0
            for i in range(P):
                for m in range(M):
                    acc += dz[i, m] * zb[i, m]
                    dz[i, m] *= sPP
            dsig[S_PP] += acc
            _extend_rows_t(dz, gf)
            for i in range(P):
                for j in range(M - 1):
                    grad[opp + i * (M - 1) + j] += gf[i, j] - fb[i, j]
    if opc >= 0:
        sPC = sig[S_PC]
        gf = np.zeros((K, M - 1))
        if meta[C_PCONV] == 1:
            _extend_rows_t(dA, gf)
            ss = 0.0
            for i in range(K):
                for j in range(M - 1):
                    grad[opc + i * (M - 1) + j] += gf[i, j] - fc[i, j] / (sPC * sPC)
                    ss += fc[i, j] * fc[i, j]
            dsig[S_PC] += ss / (sPC**3) - K * (M - 1) / sPC
        else:
            acc = 0.0
            dz = np.empty((K, M))
            for i in range(K):
                for m in range(M):
                    acc += dA[i, m] * zc[i, m]
                    dz[i, m] = dA[i, m] * sPC
            dsig[S_PC] += acc
            _extend_rows_t(dz, gf)
            for i in range(K):
                for j in range(M - 1):
                    grad[opc + i * (M - 1) + j] += gf[i, j] - fc[i, j]
    # conversations -> participants, topics
    dP = np.zeros(P)
    dv = np.zeros(max(T, 1))
    if meta[C_CONV] == 1:
        ss = 0.0
        for k in range(K):
            r = (C[k] - mean_c[k]) / (sC * sC)
            grad[oc + k] += dC[k] - r
            dP[p_of_k[k]] += r
            if ot >= 0:
                dv[t_of_k[k]] += r
            ss += (C[k] - mean_c[k]) ** 2
        dsig[S_C] += ss / (sC**3) - K / sC
    else:
        acc = 0.0
        for k in range(K):
            z = q[oc + k]
            grad[oc + k] += sC * dC[k] - z
            acc += dC[k] * z
            dP[p_of_k[k]] += dC[k]
            if ot >= 0:
                dv[t_of_k[k]] += dC[k]
        dsig[S_C] += acc
    if ot >= 0:
        gf = np.zeros(T - 1)
        if meta[C_TOPIC] == 1:
            _extend_t(dv[:T], gf)
            ss = 0.0
            for i in range(T - 1):
                grad[ot + i] += gf[i] - ft[i] / (sT * sT)
                ss += ft[i] * ft[i]
            dsig[S_T] += ss / (sT**3) - (T - 1) / sT
        else:
            acc = 0.0
            for i in range(T):
                acc += dv[i] * v[i] / sT
            dsig[S_T] += acc
            _extend_t(dv[:T], gf)
            for i in range(T - 1):
                grad[ot + i] += sT * gf[i] - ft[i]
    # participants: P = U w
    uTdP = np.zeros(P)
    for j in range(P):
        acc = 0.0
        for i in range(P):
            acc += U[i, j] * dP[i]
        uTdP[j] = acc
    if meta[C_PART] == 1:
        acc = 0.0
        for j in range(P):
            d2 = d[j] * d[j]
            acc += (w[j] * w[j] / (d2 * d2) - 1.0 / d2) * sP
        for i in range(P):
            s_ = 0.0
            for j in range(P):
                s_ += U[i, j] * w[j] / (d[j] * d[j])
            grad[op + i] += dP[i] - s_
        dsig[S_P] += acc
    else:
        acc = 0.0
        for j in range(P):
            z = q[op + j]
            grad[op + j] += d[j] * uTdP[j] - z
            acc += uTdP[j] * z * sP / d[j]
        dsig[S_P] += acc
    # chain rule of the log scales
    for b in range(8):
        o = offsets[b]
        if o >= 0:
            grad[o] += sig[b] * dsig[b]
    return lp


# --------------------------------------------------------------------------------------------
# a model's arguments
# --------------------------------------------------------------------------------------------
def warm_up() -> float:
    """Compile (or load from numba's cache) the kernel for both families; returns seconds."""
    import time

    t0 = time.perf_counter()
    for fam in (0, 1, 2):  # 2: the binomial family with the overdispersion block
        meta = np.zeros(META_OFFSETS + N_BLOCKS, dtype=np.int64)
        meta[[M_M, M_K, M_P, M_T, M_G, M_NT, M_NI]] = (1, 1, 1, 1, 1, 1, 1)
        meta[M_FAMILY] = min(fam, 1)
        offsets = np.full(N_BLOCKS, -1, dtype=np.int64)
        offsets[[S_P, S_C, B_PART, B_CONV]] = (0, 1, 2, 3)
        n = 4
        if fam == 1:
            offsets[B_CUT], offsets[B_PREC] = 4, 6
            n = 7
        if fam == 2:
            meta[M_FAMILY] = 0
            offsets[B_OD] = 4
            n = 5
        fmeta = np.ones(N_FMETA)
        i1 = np.zeros(1, dtype=np.int64)
        f1 = np.full(1, 0.5)
        logp_grad(np.zeros(n), np.zeros(n), meta, offsets, fmeta, i1, i1, i1, np.eye(1),
                  np.ones(1), i1, i1, f1, i1, i1, np.ones(1), np.ones(1), np.ones(1) * -1.0)  # fmt: skip
    return time.perf_counter() - t0
