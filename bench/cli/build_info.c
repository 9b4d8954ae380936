/* build_info.c — what the binary was built from and how (see cli.h): its
 * own file, so that the header, options and outputs ask it, not `run`. */
#include "bench/cli/cli.h"
#include "spb_commit.h" /* SPB_GIT_COMMIT, written at build time */

const char *spb_git_commit(void) { return SPB_GIT_COMMIT; }

const char *spb_build(void) { return SPB_BUILD_TYPE " (" SPB_BUILD_C_FLAGS ")"; }
