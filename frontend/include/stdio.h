/* <stdio.h> for tsocheck: the C library's, without its declaration of
 * remove(). tsocheck models no file system (a call to remove() is refused
 * at the call like any other function it does not model), and programs
 * written for other checkers, whose own <stdio.h> has no remove(), define
 * a function of that name (a set's or a tree's remove(s, x)). */
#define remove __tsocheck_libc_remove
#include_next <stdio.h>
#undef remove
