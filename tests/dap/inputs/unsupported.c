/* Inline assembly other than a fence cannot be modelled: launch fails and
 * names the line (9). */
#include <pthread.h>
#include <tsocheck.h>

int shared;

static void *worker(void *arg) {
  asm volatile("cpuid" ::: "eax", "ebx", "ecx", "edx", "memory");
  shared = 1;
  return NULL;
}

TSOCHECK void odd_asm(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
}
