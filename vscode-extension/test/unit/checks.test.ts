import * as assert from 'assert';
import { test } from 'node:test';
import { checkAt, checksOf } from '../../src/checks';

const range = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 20 } });
const checks = checksOf({ checks: [{ name: 'a', range: range(10), model: 'TSO' }, { name: 'b', range: range(24), model: 'PSO' }] });

test('the checks of a tsocheck/checks result', () => {
  assert.deepStrictEqual(checks.map((c) => [c.name, c.model]), [['a', 'TSO'], ['b', 'PSO']]);
  assert.deepStrictEqual(checksOf(null), []);
  assert.deepStrictEqual(checksOf({ checks: 'x' }), []);
  assert.deepStrictEqual(checksOf({ checks: [{ name: 1 }, { name: 'ok', range: range(3), model: 'SC' }] }).map((c) => c.name), ['ok']);
});

test('the check a line belongs to: the last one declared at or above it', () => {
  assert.strictEqual(checkAt(checks, 10)?.name, 'a');
  assert.strictEqual(checkAt(checks, 23)?.name, 'a');
  assert.strictEqual(checkAt(checks, 24)?.name, 'b');
  assert.strictEqual(checkAt(checks, 90)?.name, 'b');
  assert.strictEqual(checkAt(checks, 2), undefined);  // above every check, and two of them
  assert.strictEqual(checkAt([checks[1]], 2)?.name, 'b');  // the only one
  assert.strictEqual(checkAt([], 2), undefined);
});
