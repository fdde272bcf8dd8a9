/* The one allocation-failure path (oom.c). Private. */
#ifndef BENCHSITE_OOM_H
#define BENCHSITE_OOM_H

#include "benchsite/error.h"

/* The words of every allocation failure, where a parser or a process
 * reports it on its own path (with a file and line, say). */
#define BS__OOM_TEXT "out of memory"

/* Sets err (may be NULL) to BS_ENOMEM, "out of memory", and returns
 * BS_ENOMEM: `return bs__oom(err);` wherever an allocation fails. */
bs_status bs__oom(bs_error *err);
/* The same for a failed append to a growable buffer, whose status `st`
 * is BS_ENOMEM or, past the buffer's cap, BS_ELIMIT: returns st with the
 * same message. */
bs_status bs__oom_as(bs_error *err, bs_status st);

#endif
