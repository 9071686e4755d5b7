#!/usr/bin/env node
'use strict';
// Runs the tsocheck extension's extension-host test suite inside a real VS Code
// (code-server 4.100.3 = VS Code 1.100.3), driven by headless Chromium.
//
//   node run-extension-tests.js --code-server BIN --tsocheck BIN --extension DIR --samples DIR
//        [--tests FILE] [--artifacts DIR] [--timeout SECONDS] [--debug-adapter BIN]
//
// --debug-adapter sets tsocheck.debugAdapterPath (a binary with `tsocheck dap`
// when the language-server binary has none yet).
//
// --extension is the extension folder (package.json + built dist/); the suite
// entry defaults to <extension>/dist/test/suite/index.js.
//
// Completion is detected two ways: the suite appends JSON lines to the file
// named by TSOCHECK_TEST_RESULTS (also <workspace>/.tsocheck-test-results.jsonl),
// ending with {"done":true,"passed":n,"failed":m}; and the workbench calls
// window.codeAutomationExit(code) when the extension host's test run ends.
//
// Exit status: 0 all passed, 1 failure / timeout / set-up error.

const fs = require('fs');
const path = require('path');
const L = require('./lib');

const REPO = path.resolve(__dirname, '..', '..');

function describe(r) {
  const name = r.fullTitle || r.title || r.name || r.test || JSON.stringify(r);
  let ok;
  if (typeof r.passed === 'boolean') ok = r.passed;
  else if (typeof r.ok === 'boolean') ok = r.ok;
  else if (typeof r.state === 'string') ok = r.state === 'passed' ? true : r.state === 'failed' ? false : undefined;
  else if (typeof r.status === 'string') ok = /^(pass|passed|ok)$/i.test(r.status) ? true : /^(fail|failed|error)$/i.test(r.status) ? false : undefined;
  const err = r.error || r.err || r.message;
  const errText = err ? (typeof err === 'string' ? err : err.message || JSON.stringify(err)) : '';
  const dur = typeof r.duration === 'number' ? ` (${r.duration} ms)` : '';
  const skipped = r.skipped === true || r.state === 'skipped' || r.state === 'pending' || /^skip/i.test(r.status || '');
  const tag = skipped ? 'SKIP' : ok === true ? 'PASS' : ok === false ? 'FAIL' : 'INFO';
  const why = skipped && r.message ? `: ${r.message}` : '';
  return `${tag} ${name}${dur}${why}${ok === false && errText ? `\n       ${errText.split('\n').join('\n       ')}` : ''}`;
}

async function main() {
  let args;
  try {
    args = L.parseArgs(process.argv.slice(2), ['code-server', 'tsocheck', 'extension', 'samples', 'tests', 'artifacts', 'timeout', 'debug-adapter']);
    for (const k of ['code-server', 'tsocheck', 'extension', 'samples'])
      if (!args[k]) throw new Error(`--${k} is required`);
  } catch (e) {
    console.error(`run-extension-tests: ${e.message}`);
    return 1;
  }
  const ext = path.resolve(args.extension);
  const testsEntry = path.resolve(args.tests || path.join(ext, 'dist', 'test', 'suite', 'index.js'));
  const artifacts = path.resolve(args.artifacts || path.join(REPO, 'build', 'test-artifacts', 'vscode', 'extension-tests'));
  const timeoutMs = Number(args.timeout || process.env.TSOCHECK_VSCODE_TEST_TIMEOUT || 240) * 1000;
  for (const [what, p] of [['code-server binary', args['code-server']], ['tsocheck binary', args.tsocheck],
                           ['extension package.json', path.join(ext, 'package.json')],
                           ['extension test entry', testsEntry], ['samples folder', args.samples]]) {
    if (!fs.existsSync(p)) { console.error(`run-extension-tests: ${what} not found: ${p}`); return 1; }
  }

  const root = L.mkTemp('tsocheck-vscode-');
  const workspace = path.join(root, 'workspace');
  L.copyDir(path.resolve(args.samples), workspace);
  const resultsFile = path.join(root, 'results.jsonl');
  const wsResultsFile = path.join(workspace, '.tsocheck-test-results.jsonl');
  const extEnv = {
    TSOCHECK_TEST_RESULTS: resultsFile,
    TSOCHECK_SERVER_PATH: path.resolve(args.tsocheck),
    TSOCHECK_TEST_WORKSPACE: workspace,
  };
  const server = new L.CodeServer({
    bin: path.resolve(args['code-server']), root,
    settings: L.userSettings(path.resolve(args.tsocheck),
                             args['debug-adapter'] ? { 'tsocheck.debugAdapterPath': path.resolve(args['debug-adapter']) } : {}),
    env: extEnv,
  });

  let context = null, page = null, flushConsole = () => {};
  const cleanup = L.cleanupOnce(server, root, () => ({ context, flushConsole }));

  const started = Date.now();
  let failure = null;            // string describing why the run failed
  let summary = null;
  const results = [];
  try {
    await server.start();
    L.log(`code-server ${server.url} (pid ${server.proc.pid}), workspace ${workspace}`);
    context = await L.launchBrowser(root);
    page = context.pages()[0] || await context.newPage();
    flushConsole = L.recordConsole(page, path.join(root, 'browser-console.log'));

    let exitCode = null;
    await page.exposeFunction('codeAutomationExit', (code) => {
      exitCode = Number(code);
      if (!summary) L.log(`extension host test run ended with code ${exitCode}`);
    });

    const payload = [
      ['extensionDevelopmentPath', L.remoteUri(server, ext)],
      ['extensionTestsPath', L.remoteUri(server, testsEntry)],
      ['extensionEnvironment', JSON.stringify(extEnv)],
    ];
    const url = `${server.url}/?folder=${encodeURIComponent(workspace)}` +
                `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60000 });

    // Poll the results files; print each result once.
    const seen = new Map();     // file -> lines consumed
    let exitSeenAt = null;
    const deadline = started + timeoutMs;
    for (;;) {
      // The suite writes to $TSOCHECK_TEST_RESULTS, else to the workspace file.
      for (const f of [fs.existsSync(resultsFile) ? resultsFile : wsResultsFile]) {
        if (!fs.existsSync(f)) continue;
        const lines = fs.readFileSync(f, 'utf8').split('\n');
        const complete = lines.slice(0, -1);        // last element is a partial line (or '')
        for (const line of complete.slice(seen.get(f) || 0)) {
          if (!line.trim()) continue;
          let r;
          try { r = JSON.parse(line); } catch { console.log(`  ?    ${line}`); continue; }
          if (r.done) { summary = r; continue; }
          results.push(r);
          console.log(`  ${describe(r)}`);
        }
        seen.set(f, complete.length);
      }
      if (summary) break;
      if (exitCode !== null) {
        exitSeenAt = exitSeenAt || Date.now();
        if (Date.now() - exitSeenAt > 3000) break;   // grace for the last lines
      }
      if (server.exited) { failure = 'code-server exited during the test run'; break; }
      if (Date.now() > deadline) { failure = `timed out after ${timeoutMs / 1000} s`; break; }
      await L.sleep(300);
    }

    let passed, failed;
    const skipped = summary && Number(summary.skipped) ? Number(summary.skipped)
      : results.filter(r => describe(r).startsWith('SKIP')).length;
    if (summary) {
      passed = Number(summary.passed) || 0;
      failed = Number(summary.failed) || 0;
    } else {
      passed = results.filter(r => describe(r).startsWith('PASS')).length;
      failed = results.filter(r => describe(r).startsWith('FAIL')).length;
      if (!failure) failure = `extension host ended the test run (exit code ${exitCode}) without a {"done":true} line`;
    }
    if (!failure && failed > 0) failure = `${failed} test(s) failed`;
    if (!failure && exitCode !== null && exitCode !== 0) failure = `extension host reported exit code ${exitCode}`;
    if (!failure && passed === 0) failure = 'no test ran';
    if (failure && failed === 0 && !summary) failed = 1;   // a timeout/crash counts as a failure
    console.log(`${passed} passed, ${failed} failed (${skipped ? `${skipped} skipped, ` : ''}${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failure = `harness error: ${e && e.stack || e}`;
    console.log('0 passed, 1 failed');
  }

  if (failure) {
    console.error(`run-extension-tests: FAILED: ${failure}`);
    fs.mkdirSync(artifacts, { recursive: true });
    if (page) await page.screenshot({ path: path.join(artifacts, 'failure.png'), timeout: 10000 }).catch(() => {});
    flushConsole();
    try { fs.copyFileSync(path.join(root, 'browser-console.log'), path.join(artifacts, 'browser-console.log')); } catch { /* none */ }
    for (const f of [resultsFile, wsResultsFile])
      try { fs.copyFileSync(f, path.join(artifacts, path.basename(f))); } catch { /* none */ }
    L.saveServerLogs(server, artifacts);
    console.error(`run-extension-tests: artefacts in ${artifacts}`);
  }
  await cleanup();
  return failure ? 1 : 0;
}

main().then(code => process.exit(code), e => { console.error(e); process.exit(1); });
