/* Benchmark programs that declare the pthread API themselves, with a
 * 4-byte pthread_t (the SV-COMP driver tasks): thread ids are stored and
 * read with the size the program declares. Workers record pthread_self()
 * and a value; main compares them with the ids pthread_create stored.
 * -DBUG: main reads a worker's value before joining it. */
typedef int pthread_t;
typedef int pthread_attr_t;
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start_routine)(void *), void *arg);
int pthread_join(pthread_t thread, void **value_ptr);
pthread_t pthread_self(void);
extern void __VERIFIER_error(void);

pthread_t seen[3];
int done[3];

void *worker(void *arg) {
  long i = (long)arg;
  seen[i] = pthread_self();
  done[i] = 1;
  return 0;
}

int main(void) {
  pthread_t t[3];
  pthread_t last;
  for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, (void *)i);
  pthread_create(&last, 0, worker, (void *)2);
#ifdef BUG
  if (!done[2]) __VERIFIER_error();
#endif
  pthread_join(t[0], 0);
  pthread_join(t[1], 0);
  pthread_join(last, 0);
  if (seen[0] != t[0] || seen[1] != t[1] || seen[2] != last) __VERIFIER_error();
  if (t[0] == t[1] || t[1] == last || !done[0] || !done[1] || !done[2]) __VERIFIER_error();
  return 0;
}
