/* auto_message.h — what the auto kernels' tests read from a prepare message,
 * "chosen: why; timed (us) a 1.2, b 3.4, c -": the candidates timed must be
 * the rule's (in its order), and the row kept must be the fastest of them
 * (as printed). */
#ifndef SPB_AUTO_MESSAGE_H
#define SPB_AUTO_MESSAGE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/kernel_trial.h"
#include "gpu/auto_rules.h"

/* A rule's candidates as "a,b,c", to compare with a test's list. */
static inline void trial_names_join(const spb_trial_names *list, char *names, size_t size)
{
    names[0] = '\0';
    for (int i = 0; i < list->count; i++)
        spb_appendf(names, size, "%s%s", i ? "," : "", list->names[i]);
}

/* A device rule's reason with a guard behind its GPU_AUTO_WHY_LEN bytes,
 * where an overrun would show. */
typedef struct {
    char why[GPU_AUTO_WHY_LEN], guard[SPB_MSG_LEN];
} guarded_reason;

static inline void guarded_reason_init(guarded_reason *r) { memset(r, 'g', sizeof *r); }

/* The reason ended within its bytes, the guard untouched; then ended for
 * printing whatever happened. */
static inline void check_guarded_reason(const char *row, const char *label, guarded_reason *r)
{
    CHECK(memchr(r->why, '\0', sizeof r->why) != NULL, "%s's rule on %s: reason unended", row,
          label);
    size_t intact = 0;
    while (intact < sizeof r->guard && r->guard[intact] == 'g') intact++;
    CHECK(intact == sizeof r->guard, "%s's rule on %s wrote past its reason's %d bytes", row, label,
          GPU_AUTO_WHY_LEN);
    r->why[GPU_AUTO_WHY_LEN - 1] = '\0';
}

static inline void check_trial_message(const char *row, const char *label, const char *msg,
                                       const char *expected)
{
    const char *timed = strstr(msg, "; timed (us) ");
    CHECK(timed != NULL, "%s on %s: no trial in %s", row, label, msg);
    if (!timed) return;
    timed += strlen("; timed (us) ");
    char names[512] = "", chosen[64] = "", fastest[64] = "";
    sscanf(msg, "%63[^:]", chosen);
    double best = INFINITY, chosen_us = NAN;
    for (const char *p = timed; *p;) {
        char name[64] = "";
        double us = NAN;
        int used = 0;
        if (sscanf(p, "%63s %n", name, &used) < 1 || !used) break;
        if (sscanf(p + used, "%lf", &us) < 1) us = INFINITY; /* "-": did not run */
        while (p[used] && p[used] != ',') used++;
        if (us < best) {
            best = us;
            snprintf(fastest, sizeof fastest, "%s", name);
        }
        if (strcmp(name, chosen) == 0) chosen_us = us;
        spb_appendf(names, sizeof names, "%s%s", names[0] ? "," : "", name);
        p += used;
        if (*p == ',') p++;
        while (*p == ' ') p++;
    }
    CHECK(strcmp(names, expected) == 0, "%s on %s timed %s, expected %s (%s)", row, label, names,
          expected, msg);
    /* the times are printed to 4 digits: a tie there is no contradiction */
    CHECK(chosen_us == best, "%s on %s kept %s, the trial's fastest was %s", row, label, chosen,
          fastest);
}

#endif
