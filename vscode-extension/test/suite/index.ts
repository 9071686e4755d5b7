// Extension-host tests: run inside VS Code (code-server) with a copy of
// samples/ as the first workspace folder. Entry point: run() (extensionTestsPath).
// Each test appends {"name","ok","error"} to $TSOCHECK_TEST_RESULTS (else
// <workspace>/.tsocheck-test-results.jsonl); the last line is
// {"done":true,"passed":n,"failed":m}. Nothing is skipped: a missing server
// feature is a failure.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { TsocheckApi } from '../../src/extension';
import { CheckPayload, pendingAfter, TraceStep, staleReadAt } from '../../src/traceModel';

interface Test {
  name: string;
  timeoutMs: number;
  fn: () => Promise<void>;
}

const tests: Test[] = [];
function test(name: string, timeoutMs: number, fn: () => Promise<void>): void {
  tests.push({ name, timeoutMs, fn });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it returns a value (not undefined/false) or `ms` pass. */
async function waitFor<T>(what: string, ms: number, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await sleep(200);
  }
}

function folder(): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('no workspace folder (the harness opens a copy of samples/)');
  return f;
}

let api: TsocheckApi | undefined;
async function getApi(): Promise<TsocheckApi> {
  if (api) return api;
  const ext = vscode.extensions.getExtension<TsocheckApi>('tsocheck.tsocheck');
  assert.ok(ext, 'extension tsocheck.tsocheck is not loaded');
  api = await ext.activate();
  return api;
}

async function open(rel: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder().uri.fsPath, rel)));
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

const tsoErrors = (uri: vscode.Uri) =>
  vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'tsocheck' && d.severity === vscode.DiagnosticSeverity.Error);

async function violationOf(doc: vscode.TextDocument): Promise<vscode.Diagnostic> {
  return waitFor(`a tsocheck Error with trace steps on ${path.basename(doc.uri.fsPath)}`, 60000,
    () => tsoErrors(doc.uri).find((d) => (d.relatedInformation?.length ?? 0) > 0));
}

// ---- language server ----------------------------------------------------------

test('extension activates and the language server starts', 30000, async () => {
  const a = await getApi();
  await open('peterson_buggy.c');
  assert.strictEqual(await a.ready, true, 'the language server did not start (see the tsocheck output channel)');
  assert.ok(a.server.running, 'client not running');
});

test('peterson_buggy.c: an Error whose related information walks the trace', 70000, async () => {
  const doc = await open('peterson_buggy.c');
  const d = await violationOf(doc);
  assert.match(d.message, /assertion fails under TSO/);
  const steps = d.relatedInformation!.map((r) => r.message);
  assert.ok(steps.every((m) => /^step \d+ · T\d+ · /.test(m)), `step labels: ${steps.slice(0, 3).join(' | ')}`);
  assert.ok(steps.some((m) => /store .* \(buffered\)/.test(m)), 'no buffered store among the steps');
});

test('a fresh profile: no settings warning (the model "default" and an empty compileCommandsDir are defaults)', 30000, async () => {
  const a = await getApi();
  await violationOf(await open('peterson_buggy.c'));
  const warnings = a.server.shownMessages.filter((m) => /settings/.test(m));
  assert.deepStrictEqual(warnings, []);
});

test('tsocheck.model: SC, then back to "from annotation / default": the TSO violation comes back, no warning', 120000, async () => {
  const a = await getApi();
  const doc = await open('peterson_buggy.c');
  await violationOf(doc);
  const config = () => vscode.workspace.getConfiguration('tsocheck');
  try {
    await config().update('model', 'sc', vscode.ConfigurationTarget.Global);
    await waitFor('no violation under SC', 60000, () => tsoErrors(doc.uri).length === 0);
    await waitFor('the status bar to say verified under SC', 20000, () => /^\$\(check\) tsocheck: verified under SC$/.test(a.statusText() ?? ''));
    await config().update('model', 'default', vscode.ConfigurationTarget.Global);
    await violationOf(doc);
    await waitFor('the status bar to say the violation under TSO', 20000, () => /violation under TSO$/.test(a.statusText() ?? ''));
  } finally {
    await config().update('model', undefined, vscode.ConfigurationTarget.Global);
  }
  assert.deepStrictEqual(a.server.shownMessages.filter((m) => /settings/.test(m)), []);
});

test('status bar: a file that does not compile and a bounded result are not "verified"', 90000, async () => {
  const a = await getApi();
  const dir = folder().uri.fsPath;
  const broken = path.join(dir, 'does_not_compile.c');
  const bounded = path.join(dir, 'litmus', 'sb_bounded.c');
  fs.writeFileSync(broken, '#include <tsocheck.h>\nTSOCHECK void f(void) { undeclared_name = 1; }\n');
  const fenced = fs.readFileSync(path.join(dir, 'litmus', 'sb_fenced.c'), 'utf8');
  const annotated = fenced.replace(/^TSOCHECK void /m, 'TSOCHECK_WITH("buffer_bound=0") void ');
  assert.notStrictEqual(annotated, fenced, 'could not annotate sb_fenced.c');
  fs.writeFileSync(bounded, annotated);
  try {
    await open('does_not_compile.c');
    const t1 = await waitFor('a "does not compile" status', 30000, () => { const t = a.statusText(); return t && /does not compile/.test(t) ? t : undefined; });
    assert.match(t1, /^\$\(error\) tsocheck: does not compile: .*undeclared_name.* \(line 2\)$/);
    await open('litmus/sb_bounded.c');
    const t2 = await waitFor('a bounded status', 30000, () => { const t = a.statusText(); return t && /bounded/.test(t) ? t : undefined; });
    assert.ok(t2.startsWith('$(info) tsocheck: bounded under TSO: no violation with store buffers of at most 0 entries'), t2);
  } finally {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(broken, { force: true });
    fs.rmSync(bounded, { force: true });
  }
});

test('serverPath and debugAdapterPath: machine-overridable, restricted in untrusted workspaces', 10000, async () => {
  const pj = vscode.extensions.getExtension('tsocheck.tsocheck')!.packageJSON;
  const props = pj.contributes.configuration.properties;
  for (const k of ['tsocheck.serverPath', 'tsocheck.debugAdapterPath']) {
    assert.strictEqual(props[k].scope, 'machine-overridable', k);
    assert.ok(pj.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(k), k);
  }
  assert.strictEqual(pj.capabilities.untrustedWorkspaces.supported, 'limited');
});

test('peterson_buggy.c: lenses are rewritten, status bar counts the violation, trace request works', 30000, async () => {
  const a = await getApi();
  const doc = await open('peterson_buggy.c');
  await violationOf(doc);
  const lenses = await waitFor('code lenses', 15000, async () => {
    const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    return l && l.some((x) => x.command?.command === 'tsocheck.openTrace') ? l : undefined;
  });
  const ids = lenses.map((l) => l.command?.command);
  assert.ok(ids.includes('tsocheck.debugInterleaving'), `lens commands: ${ids.join(', ')}`);
  assert.ok(ids.includes('tsocheck.showPicture'), `lens commands: ${ids.join(', ')}`);
  assert.ok(!ids.includes('tsocheck.showTrace') && !ids.includes('tsocheck.runWithModel'), `server ids left: ${ids.join(', ')}`);
  const text = await waitFor('status bar with a violation', 10000, () => { const t = a.statusText(); return t && /violation/.test(t) ? t : undefined; });
  assert.match(text, /^\$\(error\) tsocheck: \d+ violations? under TSO$/);
  const payload = await a.trace(doc.uri, 'peterson');
  assert.strictEqual(payload.status, 'violation');
  assert.ok((payload.violation?.trace?.length ?? 0) > 3, 'short trace');
});

test('peterson_buggy.c: check current function, re-run under SC, show trace and reveal a step', 60000, async () => {
  const a = await getApi();
  const doc = await open('peterson_buggy.c');
  await violationOf(doc);
  const editor = vscode.window.activeTextEditor!;
  const line = doc.getText().split('\n').findIndex((l) => l.includes('assert(counter == 2)'));
  assert.ok(line > 0, 'assert line');
  editor.selection = new vscode.Selection(line, 2, line, 2);
  const here = await vscode.commands.executeCommand<CheckPayload>('tsocheck.checkFunction');
  assert.ok(here, 'checkFunction returned nothing');
  assert.deepStrictEqual([here.function, here.model, here.status], ['peterson', 'TSO', 'violation']);
  const sc = await vscode.commands.executeCommand<CheckPayload>('tsocheck.rerun', a.server.uriOf(doc), 'peterson', 'SC');
  assert.deepStrictEqual([sc?.model, sc?.status], ['SC', 'verified']);
  const payload = await vscode.commands.executeCommand<CheckPayload>('tsocheck.openTrace', a.server.uriOf(doc), 'peterson');
  assert.strictEqual(payload?.status, 'violation');
  const steps = payload!.violation!.trace!;
  const i = steps.findIndex((st) => st.event === 'store');
  assert.ok(i >= 0, 'a store step');
  // The quick pick previews steps as they become active; close it first.
  await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  await sleep(500);
  await vscode.commands.executeCommand('tsocheck.revealStep', i);
  const shown = await waitFor(`step ${i} highlighted`, 5000, () => {
    const sh = a.decorations.shown;
    return sh.owner === 'trace' && sh.plan?.current?.line === steps[i].line ? sh : undefined;
  });
  assert.ok(shown.plan!.ghosts.some((g) => /⟶ still in T\d's buffer/.test(g.text)), 'ghost text for the buffered store');
  assert.strictEqual(vscode.window.activeTextEditor?.selection.active.line, steps[i].line! - 1, 'cursor on the step');
  await vscode.commands.executeCommand('tsocheck.clearTrace');
  assert.strictEqual(a.decorations.shown.plan, undefined);
});

test('peterson_buggy.c: "Show Interleaving Picture" opens the server\'s page beside the editor; a click reveals the step', 60000, async () => {
  const a = await getApi();
  const doc = await open('peterson_buggy.c');
  await violationOf(doc);
  const editorColumn = vscode.window.activeTextEditor!.viewColumn;
  const picture = await vscode.commands.executeCommand<{ html: string; text: string } | null>(
    'tsocheck.showPicture', a.server.uriOf(doc), 'peterson');
  assert.ok(picture && picture.html.startsWith('<!DOCTYPE html>'), 'no page from the server');
  const panel = a.picture.panel;
  assert.ok(panel, 'no webview panel');
  assert.strictEqual(a.picture.shownHtml, picture.html, 'the panel does not show the server\'s page');
  assert.notStrictEqual(panel.viewColumn, editorColumn, 'the picture is not beside the editor');
  const html = panel.webview.html;
  // The server's page, under a CSP that admits only its nonce'd inline script.
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-[^']+'">/);
  assert.strictEqual((html.match(/Content-Security-Policy/g) ?? []).length, 1, 'a second CSP left in the page');
  assert.ok(!/https?:\/\//.test(html), 'a remote reference in the page');
  assert.ok(/<script nonce="[^"]+">/.test(html) && !/<script>/.test(html), 'a script without the nonce');
  assert.ok(html.includes('<rect class="lane"') && html.includes('data-step="1"'), 'no lanes or steps in the page');
  assert.ok(picture.text.includes('T0 · peterson'), `text lanes: ${picture.text.slice(0, 200)}`);
  // A click posts {step, file, line}: the step's line is revealed in the source column.
  const step = Number(/class="step [^"]*failing" data-step="(\d+)"/.exec(html)?.[1]);
  const line = Number(new RegExp(`data-step="${step}" data-thread="\\d+" data-file="[^"]*" data-line="(\\d+)"`).exec(html)?.[1]);
  assert.ok(step > 0 && line > 0, 'no failing step with a line in the page');
  await a.picture.reveal({ step, file: doc.uri.fsPath, line });
  assert.strictEqual(vscode.window.activeTextEditor?.document.uri.fsPath, doc.uri.fsPath);
  assert.strictEqual(vscode.window.activeTextEditor?.selection.active.line, line - 1, 'cursor not on the step');
  await a.picture.reveal({ step: 'x', file: 7 });  // not a click's message: ignored
  assert.strictEqual(a.picture.revealed.length, 1);
  panel.dispose();
  assert.strictEqual(a.picture.panel, undefined);
});

test('peterson_buggy.c: the server names the check functions; the hover shows the summary and opens the trace; the trace view shows the server\'s text', 60000, async () => {
  const a = await getApi();
  const doc = await open('peterson_buggy.c');
  await violationOf(doc);
  const lines = doc.getText().split('\n');
  const checks = await a.server.checks(a.server.uriOf(doc));
  assert.deepStrictEqual(checks.map((c) => [c.name, c.model, c.range.start.line]),
    [['peterson', 'TSO', lines.findIndex((l) => l.includes('TSOCHECK void peterson'))]]);
  const payload = await a.trace(doc.uri, 'peterson');
  const summary = payload.violation?.summary ?? [];
  assert.strictEqual(summary.length, 3, `summary: ${summary.join(' | ')}`);
  const assertLine = lines.findIndex((l) => l.includes('assert(counter == 2)'));
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(assertLine, 4));
  const md = hovers.flatMap((h) => h.contents).map((c) => (typeof c === 'string' ? c : c.value)).join('\n');
  for (const l of summary) assert.ok(md.includes(l), `hover has "${l}": ${md}`);
  assert.match(md, /\]\(command:tsocheck\.openTrace\?/, 'the hover links the client\'s trace command');
  await vscode.commands.executeCommand('tsocheck.openTrace', a.server.uriOf(doc), 'peterson');
  await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  const root = a.traceView.getChildren()[0];
  const steps = payload.violation!.trace!;
  const items = a.traceView.getChildren(root).slice(0, steps.length).map((n) => a.traceView.getTreeItem(n));
  steps.forEach((s, i) => {
    assert.strictEqual(String(items[i].label), `${s.step}. ${s.label!.replace(/^step \d+ · /, '')}`);
    const tip = (items[i].tooltip as vscode.MarkdownString).value;
    assert.ok(tip.includes(`**${s.label}**`) && tip.includes(`buffers: ${s.buffers_text || 'all empty'}`), tip);
  });
  await a.traceView.clear('end of test');
});

test('peterson_buggy.c: the preferred fence fix removes the Error after save', 90000, async () => {
  const doc = await open('peterson_buggy.c');
  const d = await violationOf(doc);
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, d.range);
  const preferred = (actions ?? []).find((x) => x.isPreferred && /^Insert /.test(x.title) && x.edit);
  assert.ok(preferred, `no preferred fence action among: ${(actions ?? []).map((x) => x.title).join(', ')}`);
  assert.ok(await vscode.workspace.applyEdit(preferred.edit!), 'applyEdit failed');
  assert.ok(await doc.save(), 'save failed');
  assert.match(doc.getText(), /atomic_thread_fence\(memory_order_seq_cst\);/);
  await waitFor('the Error to disappear after the fix', 60000, () => tsoErrors(doc.uri).length === 0);
  const a = await getApi();
  await waitFor('status bar without violations in peterson', 10000, () => !/peterson_buggy\.c: .*violation/.test(a.statusText() ?? '') || undefined);
});

test('tsocheck.model rc11: on a copy of c11_mp_relaxed_buggy.c the order-upgrade action makes the flag load acquire; saved, the Error goes', 120000, async () => {
  const dir = folder().uri.fsPath;
  const copy = path.join(dir, 'c11_mp_order_fix.c');
  fs.copyFileSync(path.join(dir, 'c11_mp_relaxed_buggy.c'), copy);
  const config = () => vscode.workspace.getConfiguration('tsocheck');
  // The setting re-checks every open document: only the copy stays open.
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  try {
    await config().update('model', 'rc11', vscode.ConfigurationTarget.Global);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(copy));
    await vscode.window.showTextDocument(doc, { preview: false });
    const before = doc.getText();
    const d = await waitFor('the RC11 assertion Error', 60000, () => tsoErrors(doc.uri).find((x) => /RC11/.test(x.message)));
    assert.strictEqual(String(typeof d.code === 'object' ? d.code.value : d.code), 'rc11-assertion', d.message);
    const lines = before.split('\n');
    const load = lines.findIndex((l) => l.includes('atomic_load_explicit(&flag, memory_order_relaxed)'));
    assert.ok(load > 0, 'no relaxed flag load in the copy');
    // The fixes follow the verdict once the fix search ends: ask until the upgrade is offered.
    const title = `Make this load memory_order_acquire (line ${load + 1})`;
    let titles: string[] = [];
    const upgrade = await waitFor(`"${title}" among the code actions`, 30000, async () => {
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, d.range);
      titles = (actions ?? []).map((x) => x.title);
      return (actions ?? []).find((x) => x.title === title && x.edit);
    }).catch((e) => { throw new Error(`${e.message}; offered: ${titles.join(' | ')}`); });
    assert.ok(upgrade.isPreferred, 'the upgrade is not the preferred fix');
    assert.ok(await vscode.workspace.applyEdit(upgrade.edit!), 'applyEdit failed');
    const want = lines.map((l, i) => (i === load ? l.replace('memory_order_relaxed', 'memory_order_acquire') : l)).join('\n');
    assert.strictEqual(doc.getText(), want, 'the edit changed more than the flag load\'s order');
    assert.ok(await doc.save(), 'save failed');
    await waitFor('the Error to disappear after the upgrade', 60000, () => tsoErrors(doc.uri).length === 0);
    const a = await getApi();
    await waitFor('the status bar to say verified under RC11', 20000, () => /verified under RC11/.test(a.statusText() ?? ''));
  } finally {
    await config().update('model', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(copy, { force: true });
  }
});

test('tsocheck.compareModels: the lens and the hover of c11_mp_relaxed_buggy.c show where it breaks; the diagnostics stay TSO\'s', 120000, async () => {
  const config = () => vscode.workspace.getConfiguration('tsocheck');
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  try {
    await config().update('compareModels', ['sc', 'tso', 'pso', 'rc11'], vscode.ConfigurationTarget.Global);
    const doc = await open('c11_mp_relaxed_buggy.c');
    const line = 'SC \u2713  TSO \u2713  PSO \u2713  RC11 \u2717';
    let titles: string[] = [];
    await waitFor(`the lens "${line}"`, 90000, async () => {
      const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
      titles = (l ?? []).map((x) => x.command?.title ?? '');
      return titles.includes(line);
    }).catch((e) => { throw new Error(`${e.message}; lenses: ${titles.join(' | ')}`); });
    assert.ok(titles.some((t) => t.startsWith('\u2713 verified under TSO')), `the verdict lens is TSO's: ${titles.join(' | ')}`);
    assert.deepStrictEqual(tsoErrors(doc.uri), [], 'no Error: the diagnostics are TSO\'s');
    const fnLine = doc.getText().split('\n').findIndex((l) => l.includes('c11_message_passing'));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(fnLine, 6));
    const md = hovers.flatMap((h) => h.contents).map((c) => (typeof c === 'string' ? c : c.value)).join('\n');
    assert.ok(md.includes(line), `the hover shows the line: ${md}`);
  } finally {
    await config().update('compareModels', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  }
});

test('a copy of litmus/sb.c: "Insert All Suggested Fences" inserts both fences and fixes it', 90000, async () => {
  const dir = path.join(folder().uri.fsPath, 'litmus');
  const copy = path.join(dir, 'sb_insert_all.c');
  fs.copyFileSync(path.join(dir, 'sb.c'), copy);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(copy));
  await vscode.window.showTextDocument(doc, { preview: false });
  await violationOf(doc);
  const d = await violationOf(doc);
  // The verdict is published first; the fence hints (and their fixes) follow when synthesis ends.
  await waitFor('the fence hints', 60000, () => vscode.languages.getDiagnostics(doc.uri).some((x) => x.source === 'tsocheck' && x.code === 'fence'));
  const direct = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, d.range);
  const n = await vscode.commands.executeCommand<number>('tsocheck.insertAllFences');
  assert.strictEqual(n, 2, `fences inserted; actions at the diagnostic: ${direct.map((a) => `${a.title} ${a.isPreferred} ${!!a.edit} ${a.diagnostics?.map((x) => x.source)}`).join(' | ')}`);
  assert.strictEqual(doc.getText().split('atomic_thread_fence(memory_order_seq_cst);').length - 1, 2);
  assert.strictEqual(doc.getText().split('#include <stdatomic.h>').length - 1, 1);
  assert.ok(await doc.save(), 'save failed');
  await waitFor('the Error to disappear', 60000, () => tsoErrors(doc.uri).length === 0);
  await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
});

test('status bar: "checking… N executions" while a long check runs (tsocheck/status)', 60000, async () => {
  const a = await getApi();
  // About 60 million executions (about a minute on 2 cores; 4 variables give
  // 1.7 million, 1.5 s, too short to be sure of watching): cancelled by the edit below.
  const file = path.join(folder().uri.fsPath, 'long_check.c');
  fs.writeFileSync(file, [
    '#include <pthread.h>', '#include <tsocheck.h>', 'int a, b, c, d, e;',
    'static void *w(void *arg) { a = a + 1; b = b + 1; c = c + 1; d = d + 1; e = e + 1; return 0; }',
    'TSOCHECK void many(void) {', '  pthread_t t[3];',
    '  for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, w, 0);',
    '  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);', '}', ''].join('\n'));
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(doc, { preview: false });
  const text = await waitFor('the status bar to show a running check with executions', 30000, () => {
    const t = a.statusText();
    return t && /^\$\(sync~spin\) tsocheck: checking… [1-9][\d,]* executions$/.test(t) ? t : undefined;
  });
  assert.ok(text);
  assert.ok(a.server.statusNotifications > 0, 'the spinner came without tsocheck/status notifications');
  // An edit cancels the running check; the new text checks at once.
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), '#include <tsocheck.h>\nint x;\nTSOCHECK void quick(void) { x = 1; }\n');
  assert.ok(await vscode.workspace.applyEdit(edit));
  await waitFor('the spinner to stop after the edit', 20000, () => !/checking/.test(a.statusText() ?? '') || undefined);
  // Saved quick text: a later server restart re-opening this document stays cheap.
  await doc.save();
  await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
});

// ---- trace view follows the results ----------------------------------------------

const traceOf = (a: TsocheckApi) => a.traceView.loaded;

test('trace view: names its file, follows the active editor, the failing step once', 120000, async () => {
  const a = await getApi();
  const sb = await open('litmus/sb.c');
  await violationOf(sb);
  const doc = await open('dekker_buggy.c');
  await violationOf(doc);
  await vscode.commands.executeCommand('tsocheck.openTrace', a.server.uriOf(doc), 'dekker');
  await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  const t = traceOf(a);
  assert.strictEqual(path.basename(t.docPath ?? ''), 'dekker_buggy.c');
  const root = a.traceView.getChildren()[0];
  assert.match(String(a.traceView.getTreeItem(root).label), /^dekker_buggy\.c: dekker — TSO violation/);
  // The last step is the failed assertion: no second row repeating it.
  assert.strictEqual(t.steps[t.steps.length - 1].event, 'error');
  assert.strictEqual(a.traceView.getChildren(root).length, t.steps.length);
  // Another file with a violation in front: its trace.
  await open('litmus/sb.c');
  await waitFor('the trace view to show sb.c', 20000, () => path.basename(traceOf(a).docPath ?? '') === 'sb.c' && traceOf(a).payload?.function === 'store_buffering');
  // A file without a violation in front: the view empties.
  await open('peterson_fixed.c');
  await waitFor('the trace view to empty', 60000, () => traceOf(a).payload === undefined);
  // Back to the first file: its trace again.
  await open('dekker_buggy.c');
  await waitFor('the trace view to show dekker_buggy.c again', 20000, () => path.basename(traceOf(a).docPath ?? '') === 'dekker_buggy.c');
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await a.traceView.clear('end of test');
});

test('trace view and its highlights follow new results: refreshed after an edit, cleared by a re-run, a fix, a close', 150000, async () => {
  const a = await getApi();
  const dir = path.join(folder().uri.fsPath, 'litmus');
  const file = path.join(dir, 'sb_trace_follow.c');
  fs.copyFileSync(path.join(dir, 'sb.c'), file);
  let doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(doc, { preview: false });
  await violationOf(doc);
  const uri = a.server.uriOf(doc);
  const showTrace = async () => {
    const p = await vscode.commands.executeCommand<CheckPayload>('tsocheck.openTrace', uri, 'store_buffering');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await sleep(300);
    assert.strictEqual(p?.status, 'violation');
    assert.strictEqual(traceOf(a).payload?.function, 'store_buffering');
    await vscode.commands.executeCommand('tsocheck.revealStep', 2);
    await waitFor('the step highlight', 5000, () => a.decorations.shown.owner === 'trace' || undefined);
    return p!;
  };
  const saveEdit = async (line: number, text: string) => {
    const e = new vscode.WorkspaceEdit();
    e.insert(doc.uri, new vscode.Position(line, 0), text);
    assert.ok(await vscode.workspace.applyEdit(e));
    assert.ok(await doc.save());
  };

  // 1. An edit that moves every line: the new results bring a new trace with the new lines.
  const before = await showTrace();
  const lines0 = before.violation!.trace!.map((s) => s.line);
  await saveEdit(0, '// a line that moves the others\n');
  const moved = await waitFor('the trace view to show the new trace', 60000, () => {
    const st = traceOf(a).steps;
    return st.length && st[0].line === lines0[0]! + 1 ? st : undefined;
  });
  assert.deepStrictEqual(moved.map((s) => s.line), lines0.map((l) => l! + 1));
  assert.strictEqual(a.decorations.shown.plan, undefined, 'the old step highlight is gone');

  // 2. A re-run of the function replaces the result the trace came from.
  await showTrace();
  const sc = await vscode.commands.executeCommand<CheckPayload>('tsocheck.rerun', uri, 'store_buffering', 'SC');
  assert.strictEqual(sc?.status, 'verified');
  assert.strictEqual(traceOf(a).payload, undefined, 'trace view cleared by the re-run');
  assert.strictEqual(a.decorations.shown.plan, undefined, 'highlights cleared by the re-run');

  // 3. A trace from a re-run (PSO; what its "Show Trace" button loads) goes when the file changes.
  const pso = await vscode.commands.executeCommand<CheckPayload>('tsocheck.rerun', uri, 'store_buffering', 'PSO');
  assert.strictEqual(pso?.status, 'violation');
  await a.traceView.load(pso!, file, 'run', doc.version);
  await vscode.commands.executeCommand('tsocheck.revealStep', 1);
  await waitFor('the PSO step highlight', 5000, () => a.decorations.shown.owner === 'trace' || undefined);
  await saveEdit(doc.lineCount - 1, '// one more line at the end\n');
  await waitFor('the PSO trace to go after the edit', 60000, () => traceOf(a).payload === undefined || undefined);
  assert.strictEqual(a.decorations.shown.plan, undefined);

  // 4. The fix: no violation any more, no trace. Fence fixes exist only for
  // the text their check saw: wait for the re-check of the edit.
  await showTrace();
  await waitFor('the fence fixes of the edited file', 60000, async () => {
    const acts = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider', doc.uri, new vscode.Range(0, 0, doc.lineCount, 0));
    return (acts ?? []).some((x) => x.isPreferred && /^Insert /.test(x.title)) || undefined;
  });
  assert.strictEqual(await vscode.commands.executeCommand<number>('tsocheck.insertAllFences'), 2);
  assert.ok(await doc.save());
  await waitFor('the Error to disappear', 60000, () => tsoErrors(doc.uri).length === 0);
  await waitFor('the trace view to be cleared after the fix', 20000, () => traceOf(a).payload === undefined || undefined);
  assert.strictEqual(a.decorations.shown.plan, undefined);

  // 5. Closing the document clears its trace.
  fs.copyFileSync(path.join(dir, 'sb.c'), file);
  doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(doc, { preview: false });
  await waitFor('the violation again', 60000, () => tsoErrors(doc.uri).length > 0 || undefined);
  await violationOf(doc);
  await showTrace();
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await waitFor('the trace view to be cleared after closing the file', 30000, () => traceOf(a).payload === undefined || undefined);
  assert.strictEqual(a.decorations.shown.plan, undefined);
});

// ---- restart ---------------------------------------------------------------------

test('tsocheck: Restart Server logs the stop as info, no "[Error] … exited with code 0"', 60000, async () => {
  const a = await getApi();
  assert.strictEqual(await a.ready, true);
  assert.ok(await vscode.commands.executeCommand<boolean>('tsocheck.restartServer'), 'restart failed');
  await waitFor('the server to run again', 30000, () => a.server.running);
  await sleep(1000);
  const all = a.outputLines();
  const from = all.map((l) => /restarting the language server/.test(l)).lastIndexOf(true);
  assert.ok(from >= 0, 'no "restarting the language server" line');
  const lines = all.slice(from);
  assert.ok(lines.some((l) => /language server stopped \(pid \d+, exit code 0\)/.test(l)), `no info line about the stop:\n${lines.join('\n')}`);
  const bad = lines.filter((l) => /exited with code 0|^\[Error/.test(l));
  assert.deepStrictEqual(bad, [], 'error lines on a normal restart');
  const doc = await open('litmus/sb.c');
  await violationOf(doc);
});

// ---- debugger -------------------------------------------------------------------

function dapSupported(binary: string | undefined): boolean {
  if (!binary) return false;
  const r = spawnSync(binary, ['dap'], { input: '', timeout: 10000 });
  return r.status === 0;
}

test('litmus/sb.c: the debugger replays the trace (next, stepBack, continue, tsocheckState, decorations)', 120000, async () => {
  const a = await getApi();
  const binary = vscode.workspace.getConfiguration('tsocheck').get<string>('debugAdapterPath') || a.server.binary;
  assert.ok(dapSupported(binary), `${binary} does not support "dap"`);
  const doc = await open('litmus/sb.c');
  await violationOf(doc);
  const payload = await a.trace(doc.uri, 'store_buffering');
  const trace: TraceStep[] = payload.violation?.trace ?? [];
  assert.ok(trace.length > 4, 'trace too short');

  const stops: Array<{ threadId?: number; reason?: string }> = [];
  const tracker = vscode.debug.registerDebugAdapterTrackerFactory('tsocheck', {
    createDebugAdapterTracker: () => ({
      onDidSendMessage: (m: { type?: string; event?: string; body?: { threadId?: number; reason?: string } }) => {
        if (m.type === 'event' && m.event === 'stopped') stops.push(m.body ?? {});
      },
    }),
  });
  let session: vscode.DebugSession | undefined;
  const started = vscode.debug.onDidStartDebugSession((s) => { if (s.type === 'tsocheck') session = s; });
  let terminated = false;
  const ended = vscode.debug.onDidTerminateDebugSession((s) => { if (s === session) terminated = true; });
  try {
    const ok = await vscode.debug.startDebugging(folder(), {
      type: 'tsocheck', request: 'launch', name: 'replay', program: doc.uri.fsPath, function: 'store_buffering', model: 'tso',
    });
    assert.ok(ok, 'startDebugging returned false');
    const s = await waitFor('the debug session', 20000, () => session);
    await waitFor('the first stop', 60000, () => stops.length > 0);

    type State = { step: number; total: number; current: TraceStep; pending: Array<{ thread: number; address: string; value: unknown; line: number }>; staleRead: null | { thread: number; address: string; value: unknown; pendingIn: number; pendingValue: unknown; line: number }; violation: { line: number; message: string } };
    const state = async () => (await s.customRequest('tsocheckState')) as State;
    const expectAt = (st: State, i: number) => {
      assert.strictEqual(st.step, i, 'step');
      assert.strictEqual(st.total, trace.length, 'total');
      assert.strictEqual(st.current.line, trace[i].line, `line of step ${i}`);
      assert.strictEqual(st.current.thread, trace[i].thread, `thread of step ${i}`);
      const want = pendingAfter(trace, i).map((p) => `T${p.thread} ${p.address}=${JSON.stringify(p.value)}@${p.line}`);
      const got = st.pending.map((p) => `T${p.thread} ${p.address}=${JSON.stringify(p.value)}@${p.line}`);
      assert.deepStrictEqual(got, want, `pending buffers after step ${i}`);
      const stale = staleReadAt(trace, i);
      if (stale) {
        assert.ok(st.staleRead, `step ${i} is a stale read`);
        assert.deepStrictEqual([st.staleRead.thread, st.staleRead.address, st.staleRead.pendingIn, st.staleRead.line], [stale.thread, stale.address, stale.pendingIn, stale.line]);
      } else {
        assert.strictEqual(st.staleRead, null, `step ${i} is no stale read`);
      }
    };
    const stepWith = async (command: string) => {
      const n = stops.length;
      await s.customRequest(command, { threadId: stops[stops.length - 1].threadId ?? 1 });
      await waitFor(`a stop after ${command}`, 10000, () => stops.length > n);
      return state();
    };
    const decorated = (line: number) => waitFor(`decorations on line ${line}`, 10000, () => a.decorations.shown.plan?.current?.line === line || undefined);

    const states: State[] = [await state()];
    expectAt(states[0], 0);
    assert.strictEqual(stops[0].threadId, trace[0].thread + 1, 'threadId = tsocheck thread + 1');
    await decorated(trace[0].line!);
    let sawStale = false, sawGhost = false;
    for (let i = 1; i < trace.length; i++) {
      const st = await stepWith('next');
      expectAt(st, i);
      assert.strictEqual(stops[stops.length - 1].threadId, trace[i].thread + 1, `threadId at step ${i}`);
      states.push(st);
      await decorated(trace[i].line!);
      const plan = a.decorations.shown.plan!;
      if (st.pending.length) {
        assert.ok(plan.ghosts.length > 0, `ghost text at step ${i}`);
        assert.match(plan.ghosts.map((g) => g.text).join('; '), /⟶ still in T\d's buffer/);
        sawGhost = true;
      }
      if (st.staleRead) {
        assert.match(plan.notes.map((n) => n.text).join('; '), /^reads \w+ = 0 from memory — T\d's \w+ = 1 is still buffered$/);
        sawStale = true;
      }
    }
    assert.ok(sawGhost, 'no step had buffered stores');
    assert.ok(sawStale, 'no stale read in the SB trace under TSO');
    assert.strictEqual(states[states.length - 1].violation.line, payload.violation!.line, 'violation line');

    const back = await stepWith('stepBack');
    assert.deepStrictEqual(back, states[states.length - 2], 'stepBack returns to the previous state');
    const start = await stepWith('reverseContinue');
    assert.deepStrictEqual(start, states[0], 'reverseContinue returns to the first step');
    const end = await stepWith('continue');
    assert.deepStrictEqual(end, states[states.length - 1], 'continue runs to the violation');

    await vscode.debug.stopDebugging(s);
    await waitFor('the session to end', 15000, () => terminated);
    await waitFor('decorations to be cleared', 5000, () => a.decorations.shown.plan === undefined);
  } finally {
    tracker.dispose();
    started.dispose();
    ended.dispose();
    if (session && !terminated) await vscode.debug.stopDebugging(session);
  }
});

test('litmus/sb.c: a launch configuration without program is filled from the active editor', 60000, async () => {
  const a = await getApi();
  const binary = vscode.workspace.getConfiguration('tsocheck').get<string>('debugAdapterPath') || a.server.binary;
  assert.ok(dapSupported(binary), `${binary} does not support "dap"`);
  const doc = await open('litmus/sb.c');
  let session: vscode.DebugSession | undefined;
  let stopped = false, terminated = false;
  const tracker = vscode.debug.registerDebugAdapterTrackerFactory('tsocheck', {
    createDebugAdapterTracker: () => ({ onDidSendMessage: (m: { type?: string; event?: string }) => { if (m.type === 'event' && m.event === 'stopped') stopped = true; } }),
  });
  const started = vscode.debug.onDidStartDebugSession((s) => { if (s.type === 'tsocheck') session = s; });
  const ended = vscode.debug.onDidTerminateDebugSession((s) => { if (s === session) terminated = true; });
  try {
    assert.ok(await vscode.debug.startDebugging(folder(), { type: 'tsocheck', request: 'launch', name: 'from the editor' }), 'startDebugging');
    const s = await waitFor('the debug session', 20000, () => session);
    assert.strictEqual(s.configuration.program, doc.uri.fsPath);
    // The function: the server's check function (tsocheck/checks), the file's only one.
    assert.strictEqual(s.configuration.function, 'store_buffering');
    assert.strictEqual(s.configuration.stopOnEntry, true);
    await waitFor('the first stop', 60000, () => stopped);
    const st = await s.customRequest('tsocheckState');
    assert.strictEqual(st.step, 0);
    const adapterErrors = () => a.outputLines().filter((l) => /read error|debug adapter error/.test(l));
    const before = adapterErrors().length;
    await vscode.debug.stopDebugging(s);
    await waitFor('the session to end', 15000, () => terminated);
    // A normal stop closes the adapter's pipe: no error about it in the log.
    await sleep(1000);
    assert.deepStrictEqual(adapterErrors().slice(before), []);
  } finally {
    tracker.dispose();
    started.dispose();
    ended.dispose();
  }
});

test('a wrong tsocheck.serverPath gives an error that names the path; fixing it restarts the server', 60000, async () => {
  const a = await getApi();
  const config = vscode.workspace.getConfiguration('tsocheck');
  const before = config.inspect<string>('serverPath')?.globalValue;
  const bogus = path.join(folder().uri.fsPath, 'no-such-dir', 'tsocheck');
  try {
    await config.update('serverPath', bogus, vscode.ConfigurationTarget.Global);
    const err = await waitFor('the start failure', 20000, () => !a.server.running && a.server.lastStartError);
    assert.ok(err.includes(bogus) && err.includes('tsocheck.serverPath'), err);
  } finally {
    await vscode.workspace.getConfiguration('tsocheck').update('serverPath', before, vscode.ConfigurationTarget.Global);
  }
  await waitFor('the server to run again', 30000, () => a.server.running);
  const doc = await open('litmus/sb.c');
  await violationOf(doc);
});

// ---- a program of several files ---------------------------------------------------

test('samples/project: the harness gets the PSO violation, the library its hints, the workspace command runs, fixing the library re-checks the harness', 240000, async () => {
  const proj = path.join(folder().uri.fsPath, 'project');
  const build = path.join(proj, 'build');
  // The compile database comes from CMake, as the project's README says; the
  // server is pointed at it with tsocheck.compileCommandsDir.
  const cmake = spawnSync('cmake', ['-S', proj, '-B', build], { encoding: 'utf8' });
  assert.strictEqual(cmake.status, 0, `cmake: ${cmake.stderr}`);
  assert.ok(fs.existsSync(path.join(build, 'compile_commands.json')), 'CMake wrote no compile database');
  const config = () => vscode.workspace.getConfiguration('tsocheck');
  const libUri = vscode.Uri.file(path.join(proj, 'src', 'spsc.c'));
  const hints = () => vscode.languages.getDiagnostics(libUri).filter((d) => d.source === 'tsocheck' && d.severity === vscode.DiagnosticSeverity.Hint);
  const codeOf = (d: vscode.Diagnostic) => String(typeof d.code === 'object' ? d.code.value : d.code);
  try {
    await config().update('compileCommandsDir', build, vscode.ConfigurationTarget.Workspace);
    const doc = await open('project/tests/test_spsc.c');
    const d = await waitFor('the PSO violation on the harness', 90000,
      () => tsoErrors(doc.uri).find((x) => x.message.includes('PSO') && (x.relatedInformation?.length ?? 0) > 0));
    const files = new Set(d.relatedInformation!.map((r) => path.basename(r.location.uri.fsPath)));
    assert.ok(files.has('spsc.c') && files.has('test_spsc.c'), `the trace's files: ${[...files].join(', ')}`);
    // The library (not open) gets hints at the stale read and the buffered store, with the trace.
    const stale = await waitFor('the stale-read hint in src/spsc.c', 60000, () => hints().find((x) => codeOf(x) === 'stale-read'));
    assert.ok((stale.relatedInformation?.length ?? 0) > 0, 'the hint has no trace');
    assert.ok(hints().some((x) => codeOf(x) === 'buffered-store'), `hints: ${hints().map(codeOf).join(', ')}`);
    // The workspace command: both files of the database.
    const r = await vscode.commands.executeCommand<{ files: number; checked: number; harnesses: number; violations: number }>(
      'tsocheck.checkAllHarnesses');
    assert.deepStrictEqual([r?.files, r?.checked, r?.harnesses, r?.violations], [2, 2, 1, 1], JSON.stringify(r));
    // Fix the library in the editor: the harness is re-checked, the hints go.
    const lib = await vscode.workspace.openTextDocument(libUri);
    await vscode.window.showTextDocument(lib, { preview: false });
    const edit = new vscode.WorkspaceEdit();
    for (const [from, to] of [['SPSC_PUBLISH memory_order_relaxed', 'SPSC_PUBLISH memory_order_release'],
                              ['SPSC_OBSERVE memory_order_relaxed', 'SPSC_OBSERVE memory_order_acquire']]) {
      const at = lib.getText().indexOf(`#define ${from}`);
      assert.ok(at >= 0, `no #define ${from}`);
      edit.replace(libUri, new vscode.Range(lib.positionAt(at + 8), lib.positionAt(at + 8 + from.length)), to);
    }
    assert.ok(await vscode.workspace.applyEdit(edit), 'applyEdit failed');
    await waitFor('the harness verified and the library hints gone', 90000, () => tsoErrors(doc.uri).length === 0 && hints().length === 0);
    const lenses = await waitFor('the lens naming the library', 20000, async () => {
      const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
      return (l ?? []).some((x) => x.command?.title === 're-checked: spsc.c changed') && l;
    });
    assert.ok(lenses);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  } finally {
    await config().update('compileCommandsDir', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

// ---- runner ---------------------------------------------------------------------

export async function run(): Promise<void> {
  const resultsFile = process.env.TSOCHECK_TEST_RESULTS || path.join(folder().uri.fsPath, '.tsocheck-test-results.jsonl');
  const write = (o: object) => fs.appendFileSync(resultsFile, JSON.stringify(o) + '\n');
  const only = process.env.TSOCHECK_TEST_GREP ? new RegExp(process.env.TSOCHECK_TEST_GREP) : undefined;
  let passed = 0, failed = 0;
  for (const t of tests) {
    if (only && !only.test(t.name)) continue;
    const t0 = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        t.fn(),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`test timed out after ${t.timeoutMs / 1000} s`)), t.timeoutMs); }),
      ]);
      passed++;
      write({ name: t.name, ok: true, error: null, duration: Date.now() - t0 });
    } catch (e) {
      failed++;
      write({ name: t.name, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e), duration: Date.now() - t0 });
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
  write({ done: true, passed, failed });
  if (failed > 0) throw new Error(`${failed} of ${passed + failed} tsocheck extension tests failed`);
}
