/* test_text.c — spb_appendf, the one bounded append: text after a string
 * cut to its buffer and always ended, a cut told by its return, nothing
 * written past the buffer however long the text or however full it was. */
#include <string.h>

#include "check.h"
#include "core/spb.h"

/* A buffer of `size` bytes with a guard behind it, where an overrun shows. */
typedef struct {
    char text[16], guard[64];
} guarded;

static void guarded_init(guarded *g, const char *start)
{
    memset(g, 'g', sizeof *g);
    snprintf(g->text, sizeof g->text, "%s", start);
}

static void check_guard(const char *label, const guarded *g)
{
    size_t intact = 0;
    while (intact < sizeof g->guard && g->guard[intact] == 'g') intact++;
    CHECK(intact == sizeof g->guard, "%s: written past the buffer", label);
    CHECK(memchr(g->text, '\0', sizeof g->text) != NULL, "%s: the text not ended", label);
}

static void test_fits(void)
{
    guarded g;
    guarded_init(&g, "ab");
    CHECK(spb_appendf(g.text, sizeof g.text, "%s%d", ", c", 7) == 1 && !strcmp(g.text, "ab, c7"),
          "an append that fits: '%s'", g.text);
    /* 15 characters and the end: exactly full, still all of it */
    CHECK(spb_appendf(g.text, sizeof g.text, "%s", "123456789") == 1 &&
              !strcmp(g.text, "ab, c7123456789"),
          "an append to exactly full: '%s'", g.text);
    check_guard("exactly full", &g);
    guarded_init(&g, "");
    CHECK(spb_appendf(g.text, sizeof g.text, "%s", "") == 1 && g.text[0] == '\0',
          "nothing appended to nothing: '%s'", g.text);
}

static void test_cut(void)
{
    guarded g;
    guarded_init(&g, "abcdef");
    CHECK(spb_appendf(g.text, sizeof g.text, "%s", "0123456789") == 0 &&
              !strcmp(g.text, "abcdef012345678"),
          "one byte too many: cut, told: '%s'", g.text);
    check_guard("one byte too many", &g);
    /* the buffer full: every further append takes nothing, says so */
    for (int k = 0; k < 3; k++) {
        CHECK(spb_appendf(g.text, sizeof g.text, "%.300f", 1e200) == 0 &&
                  !strcmp(g.text, "abcdef012345678"),
              "an append to a full buffer: '%s'", g.text);
        check_guard("appends to a full buffer", &g);
    }
    /* a buffer with no end within its size is full, and gets one */
    memset(g.text, 'x', sizeof g.text);
    CHECK(spb_appendf(g.text, sizeof g.text, "%s", "y") == 0 &&
              strlen(g.text) == sizeof g.text - 1 && !strchr(g.text, 'y'),
          "an unended buffer: '%s'", g.text);
    check_guard("an unended buffer", &g);
    CHECK(spb_appendf(NULL, 8, "%s", "y") == 0 && spb_appendf(g.text, 0, "%s", "y") == 0,
          "no buffer, or one of no bytes: nothing written, told");
    check_guard("a buffer of no bytes", &g);
}

int main(void)
{
    test_fits();
    test_cut();
    return check_done();
}
