/* genmc.h for tsocheck: the interface of GenMC's <genmc.h>, so that test
 * programs written for GenMC compile and run under tsocheck as they are
 * (`tsocheck check --main prog.c`). Written for tsocheck; what each name
 * means here:
 *
 *   __VERIFIER_assume, __VERIFIER_nondet_*     tsocheck's own (README); the assume
 *                                              prototype is GenMC's (bool), so a
 *                                              program's own `void
 *                                              __VERIFIER_assume(bool)` is accepted
 *   __VERIFIER_xchg_await_aint(p, v, cond, x), __VERIFIER_load_await_aint(p, cond, x)
 *                                              Nidhugg's await helpers: wait until
 *                                              *p compares to x as cond says (bits
 *                                              0..3: greater, equal, less, signed),
 *                                              then exchange v into *p / read it;
 *                                              the value seen is returned. As in
 *                                              Nidhugg, an execution where it is
 *                                              never satisfied is blocked (not a
 *                                              deadlock)
 *   __VERIFIER_spawn[_symmetric], _join[...]   pthread_create / pthread_join
 *   __VERIFIER_loop_begin, __VERIFIER_spin_start
 *                                              nothing
 *   __VERIFIER_spin_end(c)                     the spin iteration ends unless c holds:
 *                                              an execution that would spin on is
 *                                              blocked (assume(!c)), as in GenMC
 *   __VERIFIER_local_write(s), final_write(s), helped_CAS(c), helping_CAS(c),
 *   speculative_read(c), confirming_read(c), confirming_CAS(c), final_CAS(c)
 *                                              s / c themselves (hints only)
 *   __VERIFIER_optional(x)                     both: x skipped, or x run and the
 *                                              execution then blocked (the choice
 *                                              keeps no loop from being a spin)
 *   __VERIFIER_hp_*                            hazard pointers: protect is an acquire
 *                                              load; retired blocks are never freed
 *                                              (no reclamation, so no use after free)
 *   __VERIFIER_method_begin/end, __VERIFIER_annotate_begin/end
 *                                              nothing
 *
 * Persistency (__VERIFIER_palloc, __VERIFIER_pbarrier, recovery routines,
 * persistent locks) is declared only: a program calling it is refused with
 * the call's file:line:col. */
#ifndef TSOCHECK_GENMC_H
#define TSOCHECK_GENMC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

void __VERIFIER_assume(bool);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
_Bool __VERIFIER_nondet_bool(void);
_Bool __VERIFIER_opt_begin(void);
int __VERIFIER_xchg_await_aint(atomic_int *, int, int, int);
int __VERIFIER_load_await_aint(atomic_int *, int, int);

typedef pthread_t __VERIFIER_thread_t;

static inline __attribute__((always_inline)) __VERIFIER_thread_t
__VERIFIER_spawn(void *(*__start_routine)(void *), void *__arg) {
  pthread_t __t;
  pthread_create(&__t, NULL, __start_routine, __arg);
  return __t;
}

static inline __attribute__((always_inline)) __VERIFIER_thread_t
__VERIFIER_spawn_symmetric(void *(*__start_routine)(void *), void *__arg, __VERIFIER_thread_t __th) {
  (void)__th;
  return __VERIFIER_spawn(__start_routine, __arg);
}

static inline __attribute__((always_inline)) void *__VERIFIER_join(__VERIFIER_thread_t __th) {
  void *__r = NULL;
  pthread_join(__th, &__r);
  return __r;
}

static inline __attribute__((always_inline)) void __VERIFIER_join_symmetric(__VERIFIER_thread_t __th) {
  pthread_join(__th, NULL);
}

#define __VERIFIER_loop_begin() ((void)0)
#define __VERIFIER_spin_start() ((void)0)
#define __VERIFIER_spin_end(c) __VERIFIER_assume(!(c))

#define __VERIFIER_annotate_begin(m) ((void)0)
#define __VERIFIER_annotate_end(m) ((void)0)
#define __VERIFIER_local_write(s) do { s; } while (0)
#define __VERIFIER_final_write(s) do { s; } while (0)
#define __VERIFIER_helped_CAS(c) do { c; } while (0)
#define __VERIFIER_helping_CAS(c) do { c; } while (0)
#define __VERIFIER_speculative_read(c) (c)
#define __VERIFIER_confirming_read(c) (c)
#define __VERIFIER_confirming_CAS(c) (c)
#define __VERIFIER_final_CAS(c) (c)
#define __VERIFIER_optional(x)                     \
  do {                                             \
    if (__VERIFIER_opt_begin()) {                  \
      x;                                           \
      __VERIFIER_assume(0);                        \
    }                                              \
  } while (0)

typedef struct __tsocheck_hazptr { void *__protected; } __VERIFIER_hazptr_t;
typedef __VERIFIER_hazptr_t __VERIFIER_hp_t;
#define __VERIFIER_hp_alloc() ((__VERIFIER_hp_t *)calloc(1, sizeof(__VERIFIER_hp_t)))
#define __VERIFIER_hp_protect(hp, p) ((void)(hp), __atomic_load_n((void **)(p), __ATOMIC_ACQUIRE))
#define __VERIFIER_hp_clear(hp) ((void)(hp))
#define __VERIFIER_hp_free(hp) free(hp)
#define __VERIFIER_hp_retire(p) ((void)(p))

#define __VERIFIER_method_begin(name, arg) ((void)0)
#define __VERIFIER_method_end(name, ret) ((void)0)

/* Persistency: declared only (refused when called). */
void *__VERIFIER_palloc(size_t);
void __VERIFIER_recovery_routine(void);
void __VERIFIER_pbarrier(void);
typedef struct __tsocheck_plock { int __unused; } __VERIFIER_plock_t;
int __VERIFIER_plock_lock(__VERIFIER_plock_t *);
int __VERIFIER_plock_unlock(__VERIFIER_plock_t *);
#define __VERIFIER_persistent_storage(d) d

#ifdef __cplusplus
}
#endif

#endif /* TSOCHECK_GENMC_H */
