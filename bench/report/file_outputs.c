/* file_outputs.c — the results files a reporter owns whole, one row each
 * (see reporter.h): run takes their options, lists them in its --help,
 * checks their paths and ends them with the run. A new format is its own
 * reporter file and a row here. */
#include "bench/report/reporter.h"

const spb_file_output spb_file_outputs[] = {
    {"--md", "FILE",
     "the run's rows as one Markdown table, its settings above and its totals below, put in "
     "place whole when the run ends (not with --processes)",
     md_reporter_open},
};
const int spb_file_output_count = (int)(sizeof spb_file_outputs / sizeof spb_file_outputs[0]);

_Static_assert(sizeof spb_file_outputs / sizeof spb_file_outputs[0] <= SPB_MAX_FILE_OUTPUTS,
               "a run holds at most SPB_MAX_FILE_OUTPUTS file reporters");
