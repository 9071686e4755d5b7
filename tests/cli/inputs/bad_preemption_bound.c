/* A preemption bound range that runs backwards is an annotation error. */
#include <tsocheck.h>

int x;

TSOCHECK_WITH("preemption_bound=3..1") void backwards(void) { x = 1; }
