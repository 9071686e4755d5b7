/* Message passing without an assertion: under PSO the reader can see the flag
   and still read the old data (the writer's stores reach memory out of
   order); TSO keeps them in order. The annotation asks for robustness. */
#include <pthread.h>
#include <tsocheck.h>
int data, flag, seen_flag, seen_data;
static void *writer(void *a) {
  data = 42;
  flag = 1;
  return 0;
}
static void *reader(void *a) {
  seen_flag = flag;
  seen_data = data;
  return 0;
}
TSOCHECK_WITH("robustness") void mp_no_assert(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  pthread_join(w, 0);
  pthread_join(r, 0);
}
