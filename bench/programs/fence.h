/* FENCE() for the mutual-exclusion bench programs: a full fence with
 * -DFENCED (the repaired variants, which are safe under SC, TSO and PSO),
 * nothing without it (the plain ones, broken under TSO/PSO). Their shared
 * ints are volatile: plain (non-atomic) accesses, each done as written by
 * every tool's compiler pipeline (GenMC optimises its input and would hoist
 * a plain load out of a wait loop, which a data race allows). */
#ifndef BENCH_FENCE_H
#define BENCH_FENCE_H
#ifdef FENCED
#define FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#else
#define FENCE() ((void)0)
#endif
#endif
