/* tsocheck: annotations for test harnesses.
 *
 *   #include <tsocheck.h>
 *   TSOCHECK void sb(void) { ... spawn threads, join, assert ... }
 *   TSOCHECK_WITH("model=pso buffer_bound=2") void mp(void) { ... }
 *
 * The frontend adds this directory to the include path by itself. */
#ifndef TSOCHECK_H
#define TSOCHECK_H

/* `used` keeps static check functions that nothing calls. */
#define TSOCHECK __attribute__((annotate("tsocheck"), used))
#define TSOCHECK_WITH(opts) __attribute__((annotate("tsocheck " opts), used))

#ifdef __cplusplus
extern "C" {
#endif
/* Executions in which cond is 0 are discarded (not errors). */
void __tsocheck_assume(int cond);
#ifdef __cplusplus
}
#endif

#endif /* TSOCHECK_H */
