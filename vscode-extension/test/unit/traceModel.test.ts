import * as assert from 'assert';
import { test } from 'node:test';
import { execFileSync } from 'child_process';
import * as path from 'path';
import { buffersText, CheckPayload, pendingAfter, planDecorations, resolveFile, staleReadAt, stepLabel, summaryLines, TraceStep } from '../../src/traceModel';

// The shape of `tsocheck check samples/litmus/sb.c --json` under TSO.
const f = 'samples/litmus/sb.c';
const steps: TraceStep[] = [
  { step: 1, thread: 0, event: 'spawn', file: f, line: 29, note: 'starts T1', spawned: 1, value: null, label: 'step 1 · T0 · spawn (starts T1)', buffers: [[], [], []] },
  { step: 2, thread: 0, event: 'spawn', file: f, line: 30, note: 'starts T2', spawned: 2, value: null, label: 'step 2 · T0 · spawn (starts T2)', buffers: [[], [], []] },
  { step: 3, thread: 1, event: 'store', address: 'x', value: 1, file: f, line: 16, label: 'step 3 · T1 · store x = 1 (buffered)', buffers: [[], [{ address: 'x', value: 1, store_step: 3 }], []] },
  { step: 4, thread: 2, event: 'store', address: 'y', value: 1, file: f, line: 22, buffers_text: 'T1 [x = 1] · T2 [y = 1]', buffers: [[], [{ address: 'x', value: 1, store_step: 3 }], [{ address: 'y', value: 1, store_step: 4 }]] },
  { step: 5, thread: 1, event: 'load-memory', address: 'y', value: 0, file: f, line: 17, buffers: [[], [{ address: 'x', value: 1, store_step: 3 }], [{ address: 'y', value: 1, store_step: 4 }]],
    stale: { thread: 2, address: 'y', value: 1, store_step: 4 } },
  { step: 6, thread: 1, event: 'flush', address: 'x', value: 1, file: f, line: 16, buffers: [[], [], [{ address: 'y', value: 1, store_step: 4 }]] },
];

test('labels, buffer lines and the summary come from the server', () => {
  assert.strictEqual(stepLabel(steps[2]), 'step 3 · T1 · store x = 1 (buffered)');
  assert.strictEqual(stepLabel(steps[0]), 'step 1 · T0 · spawn (starts T1)');
  assert.strictEqual(stepLabel({ ...steps[2], label: 'given' }), 'given');
  assert.strictEqual(stepLabel(steps[3]), 'store');  // an entry without one: the bare event
  assert.strictEqual(buffersText(steps[3]), 'T1 [x = 1] · T2 [y = 1]');
  assert.strictEqual(buffersText({ ...steps[3], buffers_text: 'given' }), 'given');
  assert.strictEqual(buffersText(steps[0]), 'all empty');
  const p: CheckPayload = { function: 'sb', status: 'violation', violation: { message: 'assertion failed', summary: ['a', 'b'] } };
  assert.deepStrictEqual(summaryLines(p), ['a', 'b']);
  assert.deepStrictEqual(summaryLines({ ...p, violation: { message: 'assertion failed' } }), ['assertion failed']);
  assert.deepStrictEqual(summaryLines({ function: 'f', status: 'verified' }), []);
});

// With the server binary (ctest passes it): the trace model shows, for a
// real report, the very step and buffer text of the CLI's text report.
test('a real trace reads as in the CLI text report', { skip: !process.env.TSOCHECK_BIN && 'TSOCHECK_BIN not set' }, () => {
  const bin = process.env.TSOCHECK_BIN!;
  const file = path.resolve(__dirname, '../../../../samples/peterson_buggy.c');
  const run = (args: string[]) => {
    try {
      return execFileSync(bin, ['check', file, '--model', 'tso', ...args], { encoding: 'utf8' });
    } catch (e) {
      return String((e as { stdout?: string }).stdout ?? '');  // a violation exits 1
    }
  };
  const payload = JSON.parse(run(['--json'])).results[0] as CheckPayload;
  const text = run([]).split('\n');
  const trace = payload.violation?.trace ?? [];
  assert.ok(trace.length > 5);
  for (const s of trace) {
    const line = text.find((l) => l.startsWith(`  ${stepLabel(s)} `));
    assert.ok(line, `CLI text has ${stepLabel(s)}`);
    if (s.buffers_text) assert.ok(line!.includes(`buffers: ${buffersText(s)}`), `${line} has ${buffersText(s)}`);
  }
  const summary = summaryLines(payload);
  assert.strictEqual(summary.length, 3);
  for (const l of summary) assert.ok(text.includes(`  ${l}`), `CLI text has ${l}`);
});

test('pending stores are placed at the line of their store', () => {
  assert.deepStrictEqual(pendingAfter(steps, 4).map((p) => [p.thread, p.address, p.value, p.line]), [[1, 'x', 1, 16], [2, 'y', 1, 22]]);
  assert.deepStrictEqual(pendingAfter(steps, 5).map((p) => [p.thread, p.address, p.line]), [[2, 'y', 22]]);
  assert.deepStrictEqual(pendingAfter(steps, 0), []);
});

test('a stale read: a load from memory while another buffer holds the address', () => {
  const s = staleReadAt(steps, 4);
  assert.deepStrictEqual(s && [s.thread, s.address, s.value, s.pendingIn, s.pendingValue, s.line], [1, 'y', 0, 2, 1, 17]);
  assert.strictEqual(staleReadAt(steps, 3), undefined);
});

test('decoration plan groups ghosts per line and resolves files', () => {
  const resolve = (file: string | undefined) => resolveFile(file, ['/w/samples/litmus/sb.c'], ['/w'], () => false);
  const plan = planDecorations({ file: f, line: 17, label: 'T1 · load' },
    [{ thread: 0, address: 'x', value: 1, file: f, line: 16 }, { thread: 0, address: 'z', value: 2, file: f, line: 16 }],
    { thread: 1, address: 'x', value: 0, file: f, line: 17, pendingIn: 0, pendingValue: 1 }, resolve);
  assert.deepStrictEqual(plan.current, { file: '/w/samples/litmus/sb.c', line: 17, label: 'T1 · load' });
  assert.deepStrictEqual(plan.ghosts, [{ file: '/w/samples/litmus/sb.c', line: 16, text: "x = 1 ⟶ still in T0's buffer; z = 2 ⟶ still in T0's buffer" }]);
  assert.deepStrictEqual(plan.notes, [{ file: '/w/samples/litmus/sb.c', line: 17, text: "reads x = 0 from memory — T0's x = 1 is still buffered" }]);
});

test('file resolution: absolute, suffix of a hint, first existing root', () => {
  assert.strictEqual(resolveFile('/a/b.c', [], [], () => false), '/a/b.c');
  assert.strictEqual(resolveFile('litmus/sb.c', ['/w/samples/litmus/sb.c'], ['/x'], () => false), '/w/samples/litmus/sb.c');
  assert.strictEqual(resolveFile('sb.c', [], ['/r1', '/r2'], (p) => p === '/r2/sb.c'), '/r2/sb.c');
  assert.strictEqual(resolveFile('sb.c', [], ['/r1'], () => false), '/r1/sb.c');
  assert.strictEqual(resolveFile(undefined, [], ['/r1'], () => true), undefined);
});
