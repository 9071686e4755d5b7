import * as assert from 'assert';
import { test } from 'node:test';
import { classifyDiagnostics, DocumentInput, problemsFirst, summarize, summarizeFor } from '../../src/statusModel';

const doc = (uri: string, state: string, text: string, checks: DocumentInput['status'] extends infer S ? S extends { checks?: infer C } ? C : never : never = []): DocumentInput =>
  ({ uri, name: `${uri}.c`, diagnosed: true, diagnostics: [], status: { uri, checking: false, checks, file: { state, text } } });

test('checking shows the executions so far', () => {
  const s = summarize([
    { uri: 'a', name: 'a.c', diagnosed: false, diagnostics: [], status: { uri: 'a', checking: true, executions: 41200, checks: [], file: { state: 'checking', text: 'checking… 41,200 executions' } } },
    doc('b', 'verified', 'verified under TSO', [{ function: 'f', status: 'verified', executions: 5, model: 'TSO' }]),
  ]);
  assert.strictEqual(s.kind, 'checking');
  assert.strictEqual(s.text, '$(sync~spin) tsocheck: checking… 41,200 executions');
});

test('one file: the server\'s words with the state\'s icon; bounded, a compile error and a timeout are not verified', () => {
  const v = summarize([doc('a', 'violation', '2 violations under TSO', [
    { function: 'f', status: 'violation', model: 'TSO', executions: 3 }, { function: 'g', status: 'violation' }, { function: 'h', status: 'verified' }])]);
  assert.strictEqual(v.text, '$(error) tsocheck: 2 violations under TSO');
  assert.strictEqual(v.violations, 2);
  assert.match(v.tooltip, /a\.c: 2 violations under TSO\n {2}f: violation \(under TSO, 3 executions\)/);
  const b = summarize([doc('a', 'bounded', 'bounded under TSO: no violation with store buffers of at most 2 entries',
    [{ function: 'f', status: 'bounded', model: 'TSO', message: 'no violation with store buffers of at most 2 entries' }])]);
  assert.strictEqual(b.kind, 'bounded');
  assert.strictEqual(b.text, '$(info) tsocheck: bounded under TSO: no violation with store buffers of at most 2 entries');
  const broken = summarize([doc('a', 'input-error', "does not compile: use of undeclared identifier 'x' (line 5)")]);
  assert.strictEqual(broken.kind, 'input-error');
  assert.strictEqual(broken.text, "$(error) tsocheck: does not compile: use of undeclared identifier 'x' (line 5)");
  assert.ok(problemsFirst(broken));
  const t = summarize([doc('a', 'timeout', 'timed out under TSO: no violation found so far', [{ function: 'f', status: 'timeout' }])]);
  assert.strictEqual(t.kind, 'inconclusive');
  for (const s of [b, broken, t]) assert.doesNotMatch(s.text, /verified/);
  assert.strictEqual(summarize([doc('a', 'verified', 'verified under SC')]).text, '$(check) tsocheck: verified under SC');
  assert.strictEqual(summarize([]).kind, 'idle');
});

test('several files: the worst state names the workspace; verified only when every file is', () => {
  const ok = doc('a', 'verified', 'verified under TSO', [{ function: 'f', status: 'verified' }]);
  assert.strictEqual(summarize([ok, doc('b', 'verified', 'verified under SC')]).text, '$(check) tsocheck: verified (2 files)');
  assert.strictEqual(summarize([ok, doc('b', 'bounded', 'bounded under TSO: …')]).text, '$(info) tsocheck: no violation, 1 file bounded');
  assert.strictEqual(summarize([ok, doc('b', 'input-error', 'does not compile: …')]).text, '$(error) tsocheck: 1 file cannot be checked');
  assert.strictEqual(summarize([doc('c', 'violation', '1 violation under TSO', [{ function: 'g', status: 'violation' }]), doc('b', 'input-error', 'x')]).kind, 'violations');
});

test('fallback without tsocheck/status: Error diagnostics from tsocheck are problems, no diagnostics is not "verified"', () => {
  const diags = [
    { severity: 0, source: 'tsocheck', code: 'tso-assertion' },
    { severity: 0, source: 'clang', code: 'x' },
    { severity: 3, source: 'tsocheck', code: 'fence' },
    { severity: 1, source: 'tsocheck', code: { value: 'bounded' } },
  ];
  assert.deepStrictEqual(classifyDiagnostics(diags), { violations: 1, inconclusive: 0 });
  assert.strictEqual(summarize([{ uri: 'a', name: 'a.c', diagnosed: true, diagnostics: diags }]).text, '$(error) tsocheck: 1 problem');
  const none = summarize([{ uri: 'a', name: 'a.c', diagnosed: true, diagnostics: [] }]);
  assert.doesNotMatch(none.text, /verified/);
  // A status for one document, diagnostics for another.
  const mixed = summarize([
    doc('a', 'violation', '1 violation under TSO', [{ function: 'f', status: 'violation' }]),
    { uri: 'b', name: 'b.c', diagnosed: true, diagnostics: diags },
  ]);
  assert.strictEqual(mixed.violations, 2);
});

test('the active file decides the text; the workspace total is in the tooltip; an active file without results is not checked yet', () => {
  const docs: DocumentInput[] = [
    doc('a', 'violation', '1 violation under TSO', [{ function: 'f', status: 'violation' }]),
    doc('b', 'verified', 'verified under TSO', [{ function: 'g', status: 'verified' }]),
    { uri: 'c', name: 'c.c', diagnosed: false, diagnostics: [] },
  ];
  const onB = summarizeFor(docs, 'b');
  assert.strictEqual(onB.text, '$(check) tsocheck: verified under TSO');
  assert.match(onB.tooltip, /Workspace \(3 C files\): 1 violation/);
  assert.strictEqual(summarizeFor(docs, 'a').text, '$(error) tsocheck: 1 violation under TSO');
  assert.strictEqual(summarizeFor(docs, 'c').text, '$(circle-slash) tsocheck: not checked yet');
  assert.strictEqual(summarizeFor(docs, undefined).text, '$(error) tsocheck: 1 violation');
  assert.strictEqual(summarizeFor(docs, 'other').text, '$(error) tsocheck: 1 violation');
});
