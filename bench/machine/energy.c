/* energy.c — the energy pass: a row's products over a window between two
 * changes of a counter (see energy.h; the counters: energy_meters.c). */
#include "bench/machine/energy.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/machine/energy_meters.h"

#define ENERGY_CHUNK_S    2e-3   /* products between two looks at the counter's reader */
#define ENERGY_SETTLE_S   0.02   /* products before a window may open: the counter lags the power */
#define ENERGY_CHAIN_S    5e-3   /* a pass this soon after another's opens its window there */
#define ENERGY_STUCK_S    1.0    /* a counter still for this long under products is dead */
#define ENERGY_NAP_NS     200000 /* between two readings of a counter that reads at once (RAPL) */
#define ENERGY_MARGIN_S   0.015  /* woken this long before the change expected to close a window */
#define ENERGY_MARGIN_MAX 0.5    /* the margin learnt: at most this share of the period */
#define ENERGY_LATE_WAKES 4      /* sleeps again at most this often after waking past a change */

/* The side's counter as read: when the reading began and ended (NVML's
 * takes milliseconds) and what it held. */
typedef struct {
    double from, to;
    double uj[SPB_ENERGY_ZONES];
} reading;

static int take_reading(const spb_energy_meters *m, int gpu, reading *r, char *why)
{
    r->from = timing_now();
    int ok = read_counter(m, gpu, r->uj, why);
    r->to = timing_now();
    return ok;
}

static int counter_moved(const spb_energy_meters *m, int gpu, const reading *a, const reading *b)
{
    for (int z = 0; z < energy_zone_count(m, gpu); z++)
        if (a->uj[z] != b->uj[z]) return 1;
    return 0;
}

/* The change between two readings: after the first began, before the
 * second ended; taken mid-way. */
static spb_energy_edge change_between(int gpu, const reading *before, const reading *after)
{
    spb_energy_edge edge = {.valid = 1,
                            .gpu = gpu,
                            .at = 0.5 * (before->from + after->to),
                            .half_gap = 0.5 * (after->to - before->from),
                            .seen = after->to};
    memcpy(edge.uj, after->uj, sizeof edge.uj);
    return edge;
}

/* The counter's reader, a thread beside the products (so they run on
 * while it reads). It reads without pause until the window opens on a
 * change (the first after ENERGY_SETTLE_S of products, unless open
 * already holds one), then sleeps until just before the change that can
 * close it (from the counter's period, when known), and reads again until
 * that change: inside the window it reads only at its end, since a read
 * of NVML's counter slows the products beside it. Then it sets done. */
typedef struct {
    const spb_energy_meters *m;
    int gpu;
    double start;
    spb_energy_window window;
    spb_energy_edge open, close;
    spb_energy found; /* clocks and throttling, read under load */
    pthread_mutex_t lock;
    int done, quit; /* under lock: the reader finished; the products failed */
    int dead;       /* the counter did not move under products */
    spb_status status;
    char msg[SPB_MSG_LEN];
} counter_reader;

static int reader_flag(counter_reader *r, int *flag, int set)
{
    pthread_mutex_lock(&r->lock);
    if (set) *flag = 1;
    int value = *flag;
    pthread_mutex_unlock(&r->lock);
    return value;
}

/* Reads until the counter moves from *last (a change after `after`
 * seconds of the pass, when given); the change into *seen. 0 when it
 * failed or was told to quit (r->status says which). */
static int next_change(counter_reader *r, reading *last, double after, spb_energy_edge *seen)
{
    char why[SPB_MSG_LEN] = "";
    double moved_at = last->to;
    for (reading now; r->status == SPB_OK && !reader_flag(r, &r->quit, 0); *last = now) {
        if (!r->gpu) nanosleep(&(struct timespec){0, ENERGY_NAP_NS}, NULL);
        if (!take_reading(r->m, r->gpu, &now, why)) {
            r->status = spb_fail(r->msg, SPB_ERR_IO, "%s", why);
        } else if (counter_moved(r->m, r->gpu, last, &now)) {
            *seen = change_between(r->gpu, last, &now);
            moved_at = now.to;
            if (last->from >= after) {
                *last = now;
                return 1;
            }
        } else if (now.to - moved_at > ENERGY_STUCK_S) { /* a working counter moves: stuck */
            r->dead = 1;
            r->status = spb_fail(r->msg, SPB_ERR_IO,
                                 "the %s energy counter did not move over %.2g s of products: a "
                                 "dead counter, not 0 W",
                                 r->gpu ? "GPU's" : "CPU's", now.to - moved_at);
        }
    }
    return 0;
}

/* Sleeps until `until` (timing_now's clock), in slices, unless told to quit. */
static void sleep_until(counter_reader *r, double until)
{
    for (double left; (left = until - timing_now()) > 0 && !reader_flag(r, &r->quit, 0);) {
        double nap = left < 0.01 ? left : 0.01;
        nanosleep(&(struct timespec){0, (long)(nap * 1e9)}, NULL);
    }
}

/* The reading on waking before the change that closes the window. A
 * busy machine may wake the reader after that change: then it sleeps
 * again until just before the next one (rather than reading through a
 * period, which slows the products), and *quiet says a change went
 * unseen. 0 when a read failed. */
static int wake_before_change(counter_reader *r, reading before, double period, double *margin,
                              reading *woke, int *quiet)
{
    for (int wakes = 0;; wakes++) {
        char why[SPB_MSG_LEN] = "";
        if (!take_reading(r->m, r->gpu, woke, why)) {
            r->status = spb_fail(r->msg, SPB_ERR_IO, "%s", why);
            return 0;
        }
        if (!counter_moved(r->m, r->gpu, &before, woke)) return 1;
        *quiet = 0;
        r->found.late_wakes++;
        if (!(period > 0) || wakes == ENERGY_LATE_WAKES) return 1;
        /* the change came sooner than the margin allowed for (the
         * counter's jitter, or the machine woke the reader late): a wider
         * margin, which costs reads, not a period */
        *margin = fmin(2 * *margin, ENERGY_MARGIN_MAX * period);
        double next = r->open.at + ceil((woke->to - r->open.at) / period) * period;
        if (next - woke->to < 2 * ENERGY_MARGIN_S) return 1; /* near: read up to it */
        before = *woke;
        sleep_until(r, next - *margin);
    }
}

/* How a window closes: on the steps-th change of the counter (period
 * apart), at least `need` after it opened; the reader sleeps until `wait`
 * after the opening. */
typedef struct {
    int steps;
    double period, need, wait;
} window_plan;

/* The window's plan: a whole number of the counter's periods, less a
 * margin for its jitter (learnt: wider after a late wake, narrower after
 * each pass that woke in time). A window of several steps needs the
 * period: where no pass has learnt it yet and this pass opened the window
 * on *last, it reads through all but the window's last step, counting
 * them (once a run and side: one step's length, on a busy machine, is
 * known only to the reads' delays, which a wrong period would carry into
 * every later window). */
static window_plan plan_window(counter_reader *r, reading *last, double margin)
{
    window_plan p = {.steps = 1, .period = r->open.period, .need = r->window.seconds};
    spb_energy_edge next;
    int counted = 0;
    if (r->open.valid && !(p.period > 0) && last)
        while (counted < r->window.periods - 1 && next_change(r, last, 0, &next)) counted++;
    if (counted > 0) p.period = (next.at - r->open.at) / counted;
    p.wait = p.need;
    if (p.period > 0) { /* the steps-th change, give or take its jitter */
        p.steps = (int)ceil(fmax(p.need, r->window.periods * p.period) / p.period - 1e-9);
        p.wait = fmax(p.need, p.steps * p.period - margin);
        p.need = fmax(p.need, (p.steps - 0.5) * p.period);
    }
    return p;
}

static void *read_counter_beside(void *arg)
{
    counter_reader *r = arg;
    spb_throttle_mark before, after;
    if (r->gpu) energy_throttle_mark(r->m, &before);
    char why[SPB_MSG_LEN] = "";
    reading last;
    spb_energy_edge seen;
    int opened_here = 0;
    r->status = SPB_OK;
    if (!r->open.valid) { /* a chained window is open already: no read inside it */
        if (!take_reading(r->m, r->gpu, &last, why))
            r->status = spb_fail(r->msg, SPB_ERR_IO, "%s", why);
        else if (next_change(r, &last, r->start + ENERGY_SETTLE_S, &seen)) {
            seen.period = r->open.period; /* learnt before: kept */
            seen.margin = r->open.margin;
            r->open = seen;
            opened_here = 1;
        }
    }
    if (r->gpu && r->open.valid) read_clocks(r->m, &r->found); /* under load */
    double margin = r->open.margin > 0 ? r->open.margin : ENERGY_MARGIN_S;
    const window_plan plan = plan_window(r, opened_here ? &last : NULL, margin);
    const double period = plan.period, need = plan.need, wait = plan.wait;
    const int steps = plan.steps;
    reading last_step = {0}; /* the counter before the closing change, as last read */
    memcpy(last_step.uj, r->open.uj, sizeof last_step.uj);
    if (r->open.valid && steps > 1) { /* one read mid-way through the last step */
        sleep_until(r, r->open.at + (steps - 0.5) * period);
        if (!take_reading(r->m, r->gpu, &last_step, why))
            r->status = spb_fail(r->msg, SPB_ERR_IO, "%s", why);
    }
    if (r->open.valid) sleep_until(r, r->open.at + wait);
    reading woke;
    int quiet = 1; /* no change unseen while asleep */
    int closed = r->open.valid && r->status == SPB_OK &&
                 wake_before_change(r, last_step, period, &margin, &woke, &quiet);
    /* the throttle counters now, not after the close: their reads take
     * milliseconds, and the next row's pass chains only if it starts
     * within ENERGY_CHAIN_S of the change */
    if (closed && r->gpu) energy_throttle_mark(r->m, &after);
    while (closed && (closed = next_change(r, &woke, 0, &seen)) && seen.at - r->open.at < need)
        quiet = 0;
    if (closed) {
        r->close = seen;
        /* one period from a window with no change unseen in its last step,
         * averaged with those before (each is placed only to its readings'
         * gaps, and NVML's period jitters) */
        double one = (seen.at - r->open.at) / steps;
        r->close.period = !quiet ? period : period > 0 ? 0.75 * period + 0.25 * one : one;
        r->close.margin = quiet ? fmax(ENERGY_MARGIN_S, 0.9 * margin) : margin;
        if (r->gpu) energy_throttled_between(r->m, &before, &after, &r->found);
    }
    reader_flag(r, &r->done, 1);
    return NULL;
}

/* Runs the products in chunks until the reader is done. */
static spb_status products_beside(counter_reader *r, spb_time_calls_fn calls, void *ctx,
                                  int per_chunk)
{
    while (!reader_flag(r, &r->done, 0))
        if (calls(ctx, per_chunk) < 0) {
            reader_flag(r, &r->quit, 1);
            return SPB_ERR_DEVICE;
        }
    return SPB_OK;
}

/* The figures from the window: watts over it, and a product's energy at
 * that power and the product's timed pace (call_seconds). Not the
 * products made within the window: the reads at its end slow them (on an
 * H200 they ran 1.36x their timed time, median), and the GPU's waits
 * would count as their energy. */
static spb_status window_figures(const counter_reader *r, double call_seconds, spb_energy *e,
                                 char *msg)
{
    double joules = joules_between(r->m, r->gpu, r->open.uj, r->close.uj);
    double window = r->close.at - r->open.at;
    if (!(joules > 0) || !(window > 0))
        return spb_fail(msg, SPB_ERR_IO, "the %s energy counter went backwards",
                        r->gpu ? "GPU's" : "CPU's");
    *e = r->found;
    e->watts = joules / window;
    e->joules_per_product = e->watts * call_seconds;
    /* the changes' places, and a chained window's start under the previous
     * row's products (up to the power's whole difference) */
    double from = r->open.at > r->start ? r->open.at : r->start;
    e->err = (r->open.half_gap + r->close.half_gap + (from - r->open.at)) / window;
    e->window_s = window;
    e->periods = r->close.period > 0 ? window / r->close.period : NAN;
    return SPB_OK;
}

spb_status energy_measure(spb_energy_meters *m, int gpu, spb_time_calls_fn calls, void *ctx,
                          double call_seconds, spb_energy_window window, spb_energy_edge *edge,
                          spb_energy *e, char *msg)
{
    if (!energy_available(m, gpu)) return SPB_ERR_DECLINED;
    if (energy_dead_why(m, gpu)[0])
        return spb_fail(msg, SPB_ERR_IO, "%s (found on an earlier row; not read again)",
                        energy_dead_why(m, gpu));
    double chunk = call_seconds > 0 ? floor(ENERGY_CHUNK_S / call_seconds) : 1;
    int per_chunk = chunk < 1 ? 1 : chunk > 1e7 ? 10000000 : (int)chunk;
    counter_reader r = {.m = m, .gpu = gpu, .start = timing_now(), .window = window};
    r.found = *e;
    /* a pass right after another's (the next row of a group) opens its
     * window where that one's closed */
    if (edge && edge->valid && edge->gpu == gpu && r.start - edge->seen < ENERGY_CHAIN_S) {
        r.open = *edge;
        r.found.chained = 1;
    } else if (edge && edge->gpu == gpu) { /* the counter's period and margin, learnt before */
        r.open.period = edge->period;
        r.open.margin = edge->margin;
    }
    if (edge) edge->valid = 0;
    pthread_t reader;
    pthread_mutex_init(&r.lock, NULL);
    if (pthread_create(&reader, NULL, read_counter_beside, &r) != 0) {
        pthread_mutex_destroy(&r.lock);
        return spb_fail(msg, SPB_ERR_IO, "cannot start the energy counter's reader");
    }
    spb_status st = products_beside(&r, calls, ctx, per_chunk);
    pthread_join(reader, NULL);
    pthread_mutex_destroy(&r.lock);
    if (st != SPB_OK) return spb_fail(msg, st, "products failed in the energy pass");
    if (r.status != SPB_OK && r.dead) energy_mark_dead(m, gpu, r.msg);
    if (r.status != SPB_OK) return spb_fail(msg, r.status, "%s", r.msg);
    st = window_figures(&r, call_seconds, e, msg);
    if (st == SPB_OK && edge) *edge = r.close;
    return st;
}
