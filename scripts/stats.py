"""stats.py — the statistics the results helpers share: Student's t
quantiles (compare's Welch intervals, report's intervals over matrices)
and a geometric mean with its 95% interval."""
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
