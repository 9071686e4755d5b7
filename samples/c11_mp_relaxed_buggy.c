/* Message passing with C11 atomics: the writer stores the payload relaxed
 * and raises `flag` with a release store; the reader checks `flag` and
 * then reads the payload.
 *
 * Bug: the reader's load of `flag` is relaxed, so reading flag == 1 does
 * not synchronise with the release store: by the C standard (RC11) the
 * payload load may still read 0, and on ARM it does. SC, x86-TSO and
 * SPARC-PSO never reorder the two loads, so the bug hides there. An
 * acquire load of `flag` fixes it (c11_mp_relaxed_fixed.c).
 *
 * expect: SC=verified TSO=verified PSO=verified RC11=violation
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int data, flag;

static void *writer(void *arg) {
  atomic_store_explicit(&data, 42, memory_order_relaxed);
  atomic_store_explicit(&flag, 1, memory_order_release);
  return NULL;
}

static void *reader(void *arg) {
  if (atomic_load_explicit(&flag, memory_order_relaxed))
    assert(atomic_load_explicit(&data, memory_order_relaxed) == 42);
  return NULL;
}

TSOCHECK void c11_message_passing(void) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
}
