/* output_file.h — a results file of `spbench run`, claimed before anything
 * is written: opened without truncation and locked (flock) for this process
 * alone, so a second run on the same file is refused at once, naming the
 * holder, and a run that stops on a bad argument has truncated nothing. The
 * lock goes with the process: one killed leaves nothing to clean up. */
#ifndef SPB_OUTPUT_FILE_H
#define SPB_OUTPUT_FILE_H

#include <stdio.h>

#include "core/spb.h"

typedef struct {
    const char *path, *option; /* "--csv" */
    int fd;                    /* -1: not claimed */
    int created;               /* this run made the file */
    int regular;               /* a regular file (else a device or pipe: neither locked nor cut) */
} spb_output;

/* Opens path for writing (appending when `append`), creating it when
 * missing, and takes its lock. */
spb_status output_claim(spb_output *o, const char *path, const char *option, int append, char *msg);

/* Claims this process's temporary file temp (spb_temp_path), whose lock it
 * already holds: a second descriptor of it, sharing that lock. */
spb_status output_claim_temp(spb_output *o, const char *temp, const char *option, char *msg);

/* The process holding the lock on another PATH.tmp.PID (a run writing
 * PATH through its temporary file), or 0. */
long output_temp_writer(const char *path);

/* Whether path names the claimed file (by device and inode). */
int output_is_file(const spb_output *o, const char *path);

/* The claimed file as a stream, emptied first when `empty_it`; the lock is
 * kept until the stream is closed. NULL with msg on failure. */
FILE *output_stream(spb_output *o, int empty_it, char *msg);

/* Gives up a claimed file that nothing was written to: unlocked, and
 * removed when this run created it. */
void output_abandon(spb_output *o);

#endif
