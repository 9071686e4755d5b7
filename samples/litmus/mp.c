/* Message passing (MP) without waiting: the writer stores data then flag; the
 * reader loads flag then data. Seeing flag == 1 but stale data needs the two
 * stores to reach memory out of order: only PSO allows it.
 *
 * expect: SC=verified TSO=verified PSO=violation
 * expect-executions: SC=3 TSO=3 PSO=4
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int data, flag;
int r1, r2;

static void *writer(void *arg) {
  data = 1;
  flag = 1;
  return NULL;
}

static void *reader(void *arg) {
  r1 = flag;
  r2 = data;
  return NULL;
}

TSOCHECK void message_passing_litmus(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 1 && r2 == 0));
}
