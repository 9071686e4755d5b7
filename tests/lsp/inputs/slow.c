/* Many interleavings: used to test cancellation and progress. */
#include <tsocheck.h>

#include "slow_worker.h"

TSOCHECK void slow(void) { slow_body(); }
