import * as assert from 'assert';
import { test } from 'node:test';
import { findCheckFunctions, functionAt } from '../../src/functions';

const src = `/* TSOCHECK in a comment: not a function */
#include <tsocheck.h>
#define TSOCHECK_ALIAS TSOCHECK
int x; // TSOCHECK void nope(void)

static void *t1(void *arg) {
  x = 1;
  return NULL;
}

TSOCHECK void first(void) {
  const char *s = "TSOCHECK void fake(void) {";
  if (x) { x = 2; }
}

TSOCHECK_WITH("model=pso buffer_bound=2")
static void
second(int unused)
{
  x = 3;
}

__attribute__((annotate("tsocheck loop_bound=3"), used)) void third(void) { x = 4; }
__attribute__((used)) void helper(void) { }
TSOCHECK void declared_only(void);
`;

test('finds annotated functions, not comments, strings or unannotated ones', () => {
  const fns = findCheckFunctions(src);
  assert.deepStrictEqual(fns.map((f) => f.name), ['first', 'second', 'third', 'declared_only']);
  const second = fns[1];
  assert.deepStrictEqual([second.annotationLine, second.nameLine, second.bodyStart, second.bodyEnd], [15, 17, 18, 20]);
  assert.deepStrictEqual([fns[0].annotationLine, fns[0].bodyEnd], [10, 13]);
  assert.strictEqual(fns[3].bodyStart, -1);
});

test('the function around a line', () => {
  const fns = findCheckFunctions(src);
  assert.strictEqual(functionAt(fns, 12)?.name, 'first');
  assert.strictEqual(functionAt(fns, 15)?.name, 'second');
  assert.strictEqual(functionAt(fns, 19)?.name, 'second');
  assert.strictEqual(functionAt(fns, 22)?.name, 'third');
  assert.strictEqual(functionAt(fns, 6), undefined); // in a helper, several candidates
  const one = findCheckFunctions('static void w(void) { }\nTSOCHECK void only(void) {\n}\n');
  assert.strictEqual(functionAt(one, 0)?.name, 'only'); // a single check function is "the" one
});
