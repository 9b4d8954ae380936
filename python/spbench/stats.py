"""stats.py — the statistics the results helpers share: Student's t
quantiles (compare's Welch intervals, report's intervals over matrices), a
geometric mean with its 95% interval, and compare's estimates: the
Hodges-Lehmann shift with its Mann-Whitney interval, Welch's interval on
per-process medians, and the spread between two runs."""
import math
import statistics


def incomplete_beta(a, b, x):
    """The regularized incomplete beta function I_x(a, b), by its continued
    fraction (modified Lentz), on the side where it converges fast."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - incomplete_beta(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                     + b * math.log(1 - x)) / a
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-14:
            break
    return front * f


def t_quantile(p, df):
    """The p quantile (p > 0.5) of Student's t with df degrees of freedom
    (df need not be whole: Welch's), by bisection on its distribution."""
    def upper_tail(t):
        return 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    low, high = 0.0, 1e3
    for _ in range(200):
        mid = 0.5 * (low + high)
        if upper_tail(mid) > 1 - p:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def geomean(values):
    """The geometric mean of the positive values (NaN without one)."""
    mean = geomean_interval(values)[0]
    return float("nan") if mean is None else mean


def geomean_interval(values):
    """The geometric mean of positive values and its 95% interval (Student's
    t on their logarithms); the interval is None under two values."""
    logs = [math.log(v) for v in values if v > 0]
    if not logs:
        return None, None, None
    mean = statistics.fmean(logs)
    if len(logs) < 2:
        return math.exp(mean), None, None
    half = t_quantile(0.975, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


# ---- compare's estimates -----------------------------------------------------------

Z95 = 1.959963984540054
EXACT_MAX = 25  # the U distribution is counted exactly up to this many samples a side
CHI2_1_MEDIAN = 0.4549364231195724  # the median of chi-square with one degree of freedom
DRIFT_MIN_ROWS = 8  # fewer rows with an interval cannot tell the spread between runs

_U_COUNTS = {}


def u_counts(n, m):
    """How many arrangements of n and m samples give each U = 0..n*m."""
    if (n, m) in _U_COUNTS:
        return _U_COUNTS[(n, m)]
    if n == 0 or m == 0:
        counts = [1]
    else:
        # U(n, m) = U(n-1, m) + m when the largest sample is one of the n, else U(n, m-1)
        a, b = u_counts(n - 1, m), u_counts(n, m - 1)
        counts = [0] * (n * m + 1)
        for u, c in enumerate(a):
            counts[u + m] += c
        for u, c in enumerate(b):
            counts[u] += c
    _U_COUNTS[(n, m)] = counts
    return counts


def cut(n, m, alpha=0.05):
    """The number of the n*m differences left out at each end of the
    interval: the largest k with P(U <= k - 1) <= alpha / 2 (0: the samples
    are too few for an interval at this level)."""
    if n <= EXACT_MAX and m <= EXACT_MAX:
        counts = u_counts(n, m)
        total = float(sum(counts))
        k, below = 0, 0.0
        while k < len(counts) and (below + counts[k]) / total <= alpha / 2:
            below += counts[k]
            k += 1
        return k
    mean, sd = n * m / 2.0, math.sqrt(n * m * (n + m + 1) / 12.0)
    return max(0, int(math.floor(mean - Z95 * sd + 0.5)))


def shift(base, new):
    """(ratio, low, high) of NEW over BASE from their samples, or (ratio,
    None, None) when they are too few for an interval."""
    lb = sorted(math.log(v) for v in base if v > 0)
    ln = sorted(math.log(v) for v in new if v > 0)
    if not lb or not ln:
        return None, None, None
    diffs = sorted(y - x for x in lb for y in ln)
    count = len(diffs)
    mid = count // 2
    estimate = diffs[mid] if count % 2 else 0.5 * (diffs[mid - 1] + diffs[mid])
    k = cut(len(lb), len(ln))
    if k < 1:
        return math.exp(estimate), None, None
    return math.exp(estimate), math.exp(diffs[k - 1]), math.exp(diffs[count - k])


def welch(base, new):
    """(ratio, low, high) of NEW over BASE from per-process medians: Welch's
    t interval on their logarithms (the process is the unit that varies);
    (ratio, None, None) with fewer than 2 processes a side."""
    lb = [math.log(v) for v in base if v > 0]
    ln = [math.log(v) for v in new if v > 0]
    if not lb or not ln:
        return None, None, None
    diff = sum(ln) / len(ln) - sum(lb) / len(lb)
    if len(lb) < 2 or len(ln) < 2:
        return math.exp(diff), None, None

    def var(xs):
        mean = sum(xs) / len(xs)
        return sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)

    vb, vn = var(lb) / len(lb), var(ln) / len(ln)
    se2 = vb + vn
    if se2 == 0:
        return math.exp(diff), math.exp(diff), math.exp(diff)
    df = se2 ** 2 / (vb ** 2 / (len(lb) - 1) + vn ** 2 / (len(ln) - 1))
    half = t_quantile(0.975, df) * math.sqrt(se2)
    return math.exp(diff), math.exp(diff - half), math.exp(diff + half)


def log_se(ratio, low, high):
    """The standard error of log(ratio) that a 95% interval implies (None
    without one): a t interval of few processes gives a wide one, as it
    should."""
    if low is None or not ratio:
        return None
    return (math.log(high) - math.log(low)) / (2 * Z95)


def median(xs):
    xs = sorted(xs)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else 0.5 * (xs[mid - 1] + xs[mid])


def run_spread(pairs):
    """The spread between two runs that the rows' own intervals leave out:
    tau such that the rows' log ratios, about their median, scatter as
    normal errors of variance se^2 + tau^2 would (the median of the
    squared standardized deviations is chi-square(1)'s median). About the
    median, so a change of every row moves the centre and not tau; by
    medians, so up to half the rows may have changed. None when fewer than
    DRIFT_MIN_ROWS rows have an interval: too few to tell."""
    rows = [(math.log(p["ratio"]), p["se"]) for p in pairs if p["se"] is not None]
    if len(rows) < DRIFT_MIN_ROWS:
        return None
    centre = median(d for d, _ in rows)
    spread = [((d - centre) ** 2, se * se) for d, se in rows]

    def excess(tau2):
        return median(dev / (var + tau2) if var + tau2 > 0 else math.inf
                      for dev, var in spread) - CHI2_1_MEDIAN

    if excess(0.0) <= 0:
        return 0.0
    low, high = 0.0, max(dev for dev, _ in spread) / CHI2_1_MEDIAN
    for _ in range(100):
        mid = 0.5 * (low + high)
        if excess(mid) > 0:
            low = mid
        else:
            high = mid
    return math.sqrt(high)
