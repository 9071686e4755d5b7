import * as assert from 'assert';
import { test } from 'node:test';
import { classifyDiagnostics, summarize, summarizeFor } from '../../src/statusModel';

test('checking shows the executions so far', () => {
  const s = summarize([
    { uri: 'a', name: 'a.c', diagnosed: false, diagnostics: [], status: { uri: 'a', checking: true, executions: 41200, checks: [] } },
    { uri: 'b', name: 'b.c', diagnosed: false, diagnostics: [], status: { uri: 'b', checking: false, executions: 5, checks: [{ function: 'f', status: 'verified', executions: 5, model: 'TSO' }] } },
  ]);
  assert.strictEqual(s.kind, 'checking');
  assert.strictEqual(s.text, '$(sync~spin) tsocheck: checking… 41,200 executions');
});

test('violations, verified and inconclusive from status', () => {
  const v = summarize([{ uri: 'a', name: 'a.c', diagnosed: true, diagnostics: [], status: { uri: 'a', checking: false, checks: [
    { function: 'f', status: 'violation', model: 'TSO', executions: 3 }, { function: 'g', status: 'violation' }, { function: 'h', status: 'verified' }] } }]);
  assert.strictEqual(v.text, '$(error) tsocheck: 2 violations');
  assert.match(v.tooltip, /a\.c: f ✗ violation \(TSO, 3 executions\)/);
  const ok = summarize([{ uri: 'a', name: 'a.c', diagnosed: false, diagnostics: [], status: { uri: 'a', checking: false, checks: [{ function: 'f', status: 'bounded' }] } }]);
  assert.strictEqual(ok.text, '$(check) tsocheck: verified');
  const t = summarize([{ uri: 'a', name: 'a.c', diagnosed: false, diagnostics: [], status: { uri: 'a', checking: false, checks: [{ function: 'f', status: 'timeout' }] } }]);
  assert.strictEqual(t.kind, 'inconclusive');
  assert.strictEqual(summarize([]).kind, 'idle');
});

test('fallback without tsocheck/status: Error diagnostics from tsocheck are violations', () => {
  const diags = [
    { severity: 0, source: 'tsocheck', code: 'tso-assertion' },
    { severity: 0, source: 'clang', code: 'x' },
    { severity: 3, source: 'tsocheck', code: 'fence' },
    { severity: 1, source: 'tsocheck', code: { value: 'bounded' } },
  ];
  assert.deepStrictEqual(classifyDiagnostics(diags), { violations: 1, inconclusive: 0 });
  assert.strictEqual(summarize([{ uri: 'a', name: 'a.c', diagnosed: true, diagnostics: diags }]).text, '$(error) tsocheck: 1 violation');
  assert.strictEqual(summarize([{ uri: 'a', name: 'a.c', diagnosed: true, diagnostics: [] }]).text, '$(check) tsocheck: verified');
  // A status for one document, diagnostics for another.
  const mixed = summarize([
    { uri: 'a', name: 'a.c', diagnosed: true, diagnostics: [], status: { uri: 'a', checking: false, checks: [{ function: 'f', status: 'violation' }] } },
    { uri: 'b', name: 'b.c', diagnosed: true, diagnostics: diags },
  ]);
  assert.strictEqual(mixed.violations, 2);
});

test('the active file decides the text; the workspace total is in the tooltip', () => {
  const docs = [
    { uri: 'a', name: 'a.c', diagnosed: false, diagnostics: [], status: { uri: 'a', checking: false, checks: [{ function: 'f', status: 'violation' }] } },
    { uri: 'b', name: 'b.c', diagnosed: false, diagnostics: [], status: { uri: 'b', checking: false, checks: [{ function: 'g', status: 'verified' }] } },
  ];
  const onB = summarizeFor(docs, 'b');
  assert.strictEqual(onB.text, '$(check) tsocheck: verified');
  assert.match(onB.tooltip, /Workspace \(2 C files\): 1 violation/);
  assert.strictEqual(summarizeFor(docs, 'a').text, '$(error) tsocheck: 1 violation');
  assert.strictEqual(summarizeFor(docs, undefined).text, '$(error) tsocheck: 1 violation');
  assert.strictEqual(summarizeFor(docs, 'other').text, '$(error) tsocheck: 1 violation');
});
