/* Typed nondeterministic inputs: each call is a choice point over the
   check's nondet range (default -1..1) within its type. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <tsocheck.h>

extern char __VERIFIER_nondet_char(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern short __VERIFIER_nondet_short(void);
extern unsigned short __VERIFIER_nondet_ushort(void);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern unsigned __VERIFIER_nondet_unsigned(void);
extern long __VERIFIER_nondet_long(void);
extern unsigned long __VERIFIER_nondet_ulong(void);
extern size_t __VERIFIER_nondet_size_t(void);
extern void *__VERIFIER_nondet_pointer(void);
extern _Bool __VERIFIER_nondet__Bool(void);
extern void __VERIFIER_assume(int);

/* A thread draws a value; the harness fails only for one value of the range
   (-1 for signed types, 1 for unsigned ones, which get 0..1 from -1..1). */
#define BUG(T, NAME, BAD)                                                  \
  static T NAME##_v;                                                       \
  static void *NAME##_thread(void *a) {                                    \
    NAME##_v = __VERIFIER_nondet_##NAME();                                 \
    return 0;                                                              \
  }                                                                        \
  TSOCHECK void bug_##NAME(void) {                                         \
    pthread_t t;                                                           \
    pthread_create(&t, 0, NAME##_thread, 0);                               \
    pthread_join(t, 0);                                                    \
    assert(NAME##_v != (T)(BAD));                                          \
  }

BUG(char, char, -1)
BUG(unsigned char, uchar, 1)
BUG(short, short, -1)
BUG(unsigned short, ushort, 1)
BUG(int, int, -1)
BUG(unsigned int, uint, 1)
BUG(unsigned, unsigned, 1)
BUG(long, long, -1)
BUG(unsigned long, ulong, 1)
BUG(size_t, size_t, 1)

/* The range's integers as addresses: NULL is fine, 1 and -1 point nowhere. */
TSOCHECK void bug_pointer(void) {
  int *p = __VERIFIER_nondet_pointer();
  if (p) *p = 1;
}

/* Every unsigned char value: bounded by default (only 0..1), verified with
   --nondet-range 0..255 (or wider). */
int seen[256];
TSOCHECK void all_uchar(void) {
  unsigned char c = __VERIFIER_nondet_uchar();
  seen[c] = 1;
  assert(c <= 255);
}

/* _Bool is always fully covered: verified. */
TSOCHECK void bool_spelling(void) {
  _Bool b = __VERIFIER_nondet__Bool();
  assert(b == 0 || b == 1);
}

/* The annotation's range: -3 is a value only there (a flag overrides it). */
TSOCHECK_WITH("nondet=-3..3") void annotated_range(void) {
  int v = __VERIFIER_nondet_int();
  assert(v != -3);
}

/* An assume prunes the values: with -1..1 only v = 1 goes on (bounded), with
   -1..2 also v = 2, which fails. */
TSOCHECK void assume_range(void) {
  int v = __VERIFIER_nondet_int();
  __VERIFIER_assume(v > 0);
  assert(v == 1);
}
