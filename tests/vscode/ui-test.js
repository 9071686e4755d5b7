#!/usr/bin/env node
'use strict';
// UI test of the packaged tsocheck extension in a real VS Code (code-server
// 4.100.3 = VS Code 1.100.3) clicked through with headless Chromium:
//
//   open peterson_buggy.c -> red squiggle -> Problems panel lists the tsocheck
//   error and its trace steps -> clicking a step moves the cursor there ->
//   "tsocheck: Show Interleaving Picture" -> the picture in a webview beside
//   the editor; clicking its failing step moves the cursor there -> quick fix
//   "Insert fence…" -> save -> the error is gone.
//
//   node ui-test.js --code-server BIN --tsocheck BIN --vsix FILE --samples DIR
//        [--artifacts DIR] [--timeout SECONDS]
//
// Screenshots of every stage go to the artefacts dir (default
// build/test-artifacts/vscode/ui-test/), plus logs when something fails.
// Selectors were checked against the VS Code 1.100.3 DOM; they rely on the
// accessibility labels of the Problems tree and action widget, which change
// less often than class names.

const fs = require('fs');
const path = require('path');
const L = require('./lib');

const REPO = path.resolve(__dirname, '..', '..');
const SAMPLE = 'peterson_buggy.c';

const SEL = {
  squiggle: '.monaco-editor .squiggly-error',
  problemsPanel: '.markers-panel',
  // Problems tree: level 1 = file, 2 = marker, 3 = related information.
  errorRow: '.markers-panel .monaco-list-row[aria-level="2"][aria-label^="Error:"]',
  relatedRow: '.markers-panel .monaco-list-row[aria-level="3"]',
  cursorStatus: '#status\\.editor\\.selection',
  problemsStatus: '#status\\.problems',
  actionWidget: '.action-widget',
  fixRow: '.action-widget .monaco-list-row.action[aria-label^="Insert atomic_thread_fence"]',
  dirtyTab: '.tabs-container .tab.dirty',
  codeLens: '.monaco-editor .codelens-decoration',
};

async function main() {
  let args;
  try {
    args = L.parseArgs(process.argv.slice(2), ['code-server', 'tsocheck', 'vsix', 'samples', 'artifacts', 'timeout']);
    for (const k of ['code-server', 'tsocheck', 'vsix', 'samples'])
      if (!args[k]) throw new Error(`--${k} is required`);
    for (const k of ['code-server', 'tsocheck', 'vsix', 'samples'])
      if (!fs.existsSync(args[k])) throw new Error(`--${k} ${args[k]}: not found`);
  } catch (e) {
    console.error(`ui-test: ${e.message}`);
    return 1;
  }
  const artifacts = path.resolve(args.artifacts || path.join(REPO, 'build', 'test-artifacts', 'vscode', 'ui-test'));
  fs.mkdirSync(artifacts, { recursive: true });
  // Per-step budget for the checker to publish / clear diagnostics.
  const waitMs = Number(args.timeout || process.env.TSOCHECK_VSCODE_UI_TIMEOUT || 90) * 1000;

  const root = L.mkTemp('tsocheck-vscode-ui-');
  const workspace = path.join(root, 'workspace');
  L.copyDir(path.resolve(args.samples), workspace);
  const file = path.join(workspace, SAMPLE);
  const server = new L.CodeServer({
    bin: path.resolve(args['code-server']), root,
    // LSP traffic goes to the extension's output channel, saved on failure.
    settings: L.userSettings(path.resolve(args.tsocheck), { 'tsocheck.trace.server': 'verbose' }),
  });

  let context = null, page = null, flushConsole = () => {};
  const cleanup = L.cleanupOnce(server, root, () => ({ context, flushConsole }));

  let passed = 0, failed = 0, shot = 0;
  const started = Date.now();
  const screenshot = async (name) => {
    const p = path.join(artifacts, `${String(++shot).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: p, timeout: 15000 }).catch(e => L.log(`screenshot ${name}: ${e.message}`));
  };
  // Each check runs in order; the first failure stops the run (later stages depend on it).
  const check = async (name, fn) => {
    const t0 = Date.now();
    try {
      await fn();
      passed++;
      console.log(`  PASS ${name} (${Date.now() - t0} ms)`);
      await screenshot(name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
    } catch (e) {
      failed++;
      console.log(`  FAIL ${name} (${Date.now() - t0} ms)\n       ${String(e && e.message || e).split('\n').slice(0, 6).join('\n       ')}`);
      await screenshot(`FAILED-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
      throw e;
    }
  };
  const cursorLine = async () => {
    const text = await page.locator(SEL.cursorStatus).innerText({ timeout: 5000 });
    const m = /Ln (\d+)/.exec(text);
    if (!m) throw new Error(`status bar cursor item reads "${text}"`);
    return Number(m[1]);
  };
  const waitCursorLine = async (line) => {
    const deadline = Date.now() + 10000;
    let last;
    while (Date.now() < deadline) {
      last = await cursorLine().catch(() => undefined);
      if (last === line) return;
      await L.sleep(200);
    }
    throw new Error(`cursor is on line ${last}, expected ${line}`);
  };

  let errorLine = null;
  try {
    const installOut = server.installExtension(path.resolve(args.vsix));
    L.log(`installed ${path.basename(args.vsix)}: ${installOut.split('\n').pop()}`);
    await server.start();
    L.log(`code-server ${server.url}, workspace ${workspace}`);
    context = await L.launchBrowser(root);
    page = context.pages()[0] || await context.newPage();
    flushConsole = L.recordConsole(page, path.join(root, 'browser-console.log'));
    const payload = [['openFile', L.remoteUri(server, file)]];
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}` +
                    `&payload=${encodeURIComponent(JSON.stringify(payload))}`,
                    { waitUntil: 'domcontentloaded', timeout: 60000 });

    await check(`open ${SAMPLE}`, async () => {
      await page.locator(`.tabs-container .tab[aria-label^="${SAMPLE}"]`).first().waitFor({ timeout: 60000 });
      await page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: 30000 });
    });

    await check('red squiggle appears', async () => {
      // The editor only renders visible lines, and the check's error is near
      // the end of the file: move the caret to the end so it is on screen.
      await page.locator('.monaco-editor .view-lines').first().click({ position: { x: 200, y: 10 } });
      await page.keyboard.press('Control+End');
      await page.locator(SEL.squiggle).first().waitFor({ state: 'attached', timeout: waitMs });
    });

    let steps = [];
    await check('Problems panel lists the tsocheck error and its trace steps', async () => {
      await page.keyboard.press('Control+Shift+M');
      await page.locator(SEL.problemsPanel).waitFor({ timeout: 15000 });
      const row = page.locator(SEL.errorRow).filter({ hasText: 'tsocheck' }).first();
      await row.waitFor({ timeout: 15000 });
      const label = await row.getAttribute('aria-label');
      const m = / at line (\d+) and character \d+/.exec(label);
      if (!m) throw new Error(`unexpected error row label: ${label}`);
      errorLine = Number(m[1]);
      if (!/tsocheck/.test(label)) throw new Error(`error row not from tsocheck: ${label}`);
      if (row && await row.getAttribute('aria-expanded') === 'false') await row.locator('.monaco-tl-twistie').click();
      await page.locator(SEL.relatedRow).first().waitFor({ timeout: 10000 });
      const labels = await page.locator(SEL.relatedRow).evaluateAll(els => els.map(e => e.getAttribute('aria-label')));
      // Related-information rows read "<message> at line N and character M in <file>".
      steps = labels.map(l => /^(.+) at line (\d+) and character (\d+) in /.exec(l || ''))
                    .filter(Boolean).map(x => ({ label: x[1], line: Number(x[2]) }));
      if (steps.length < 2) throw new Error(`expected trace steps under the error, got: ${JSON.stringify(labels)}`);
      L.log(`error on line ${errorLine}; ${steps.length} trace steps visible, e.g. "${steps[0].label}"`);
    });

    await check('clicking a trace step moves the cursor to its line', async () => {
      const current = await cursorLine();
      const target = steps.find(s => s.line !== current && s.line !== errorLine) || steps[0];
      await page.locator(`${SEL.relatedRow}[aria-label^="${target.label.replace(/"/g, '\\"')} at line ${target.line} "]`)
        .first().click();
      await waitCursorLine(target.line);
      L.log(`clicked "${target.label}" -> Ln ${target.line}`);
    });

    await check('"Show Interleaving Picture" draws the lanes beside the editor; clicking a step moves the cursor', async () => {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10000 });
      await input.fill('>tsocheck: Show Interleaving Picture');
      await page.locator('.quick-input-widget .monaco-list-row[aria-label*="Show Interleaving Picture"]').first()
        .waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      // A webview is an iframe holding the page's own iframe.
      const frame = page.frameLocator('iframe.webview').frameLocator('#active-frame');
      const failing = frame.locator('.step.failing');
      await failing.waitFor({ timeout: 30000 });
      const lanes = await frame.locator('rect.lane').count();
      const stepsDrawn = await frame.locator('.step').count();
      if (lanes < 3 || stepsDrawn < 10) throw new Error(`${lanes} lanes and ${stepsDrawn} steps drawn`);
      await page.locator('.tabs-container .tab[aria-label^="Interleaving: peterson"]').first().waitFor({ timeout: 10000 });
      await L.sleep(500);
      await screenshot('interleaving-picture-webview');
      const line = Number(await failing.getAttribute('data-line'));
      await failing.click();
      await waitCursorLine(line);
      L.log(`picture: ${lanes} lanes, ${stepsDrawn} steps; clicked the failing step -> Ln ${line}`);
      // Close the picture: the next steps want the whole editor.
      await page.locator('.tabs-container .tab[aria-label^="Interleaving: peterson"]').first().click({ button: 'middle' });
      await page.locator('.tabs-container .tab[aria-label^="Interleaving: peterson"]').first()
        .waitFor({ state: 'detached', timeout: 10000 });
    });

    await check('quick fix "Insert fence…" is offered and applied', async () => {
      // Back to the error, then put the caret on the squiggle and press Ctrl+.
      await page.locator(SEL.errorRow).filter({ hasText: 'tsocheck' }).first().click();
      await waitCursorLine(errorLine);
      const squiggle = page.locator(SEL.squiggle).first();
      const fix = page.locator(SEL.fixRow).first();
      for (let attempt = 1; ; attempt++) {
        await squiggle.waitFor({ state: 'visible', timeout: 10000 });
        const box = await squiggle.boundingBox();
        await page.mouse.click(box.x + Math.min(box.width / 2, 20), box.y + box.height / 2);
        await waitCursorLine(errorLine);
        await L.sleep(300);
        await page.keyboard.press('Control+Period');
        const shown = await Promise.race([
          fix.waitFor({ timeout: 15000 }).then(() => 'menu'),
          page.getByText('No code actions available').first().waitFor({ timeout: 15000 }).then(() => 'none'),
        ]).catch(() => 'timeout');
        if (shown === 'menu') break;
        await screenshot(`no-quick-fix-attempt-${attempt}`);
        // Seen once in ~15 runs: VS Code said "No code actions available".
        // Retry (visibly), but fail if it keeps happening.
        if (attempt >= 3) throw new Error(`no "Insert fence" quick fix after ${attempt} attempts (${shown})`);
        L.log(`NOTE: Ctrl+. showed no "Insert fence" action (${shown}); retrying`);
        await page.keyboard.press('Escape');
        await L.sleep(1000);
      }
      const titles = await page.locator(`${SEL.actionWidget} .monaco-list-row.action`)
        .evaluateAll(els => els.map(e => e.getAttribute('aria-label')));
      L.log(`quick fixes offered: ${titles.join(' | ')}`);
      await screenshot('quick-fix-menu');
      // Apply the way a keyboard user does: move the focus to the fix, Enter.
      // (A mouse click on the row never counts as "stable" for Playwright.)
      for (let i = 0; i < titles.length; i++) {
        const focused = await page.locator(`${SEL.actionWidget} .monaco-list-row.action.focused`).first()
          .getAttribute('aria-label').catch(() => null);
        if (focused && focused.startsWith('Insert atomic_thread_fence')) break;
        await page.keyboard.press('ArrowDown');
      }
      await page.keyboard.press('Enter');
      await page.locator(SEL.actionWidget).waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
      await page.locator(SEL.dirtyTab).first().waitFor({ timeout: 10000 });
    });

    await check('after save the error goes away', async () => {
      await page.keyboard.press('Control+S');
      await page.locator(SEL.dirtyTab).first().waitFor({ state: 'detached', timeout: 15000 });
      await page.locator(SEL.squiggle).first().waitFor({ state: 'detached', timeout: waitMs });
      await page.locator(SEL.errorRow).first().waitFor({ state: 'detached', timeout: 15000 });
      // Gone must mean gone: nothing may come back while things settle.
      const settleUntil = Date.now() + 4000;
      while (Date.now() < settleUntil) {
        if (await page.locator(SEL.squiggle).count() || await page.locator(SEL.errorRow).count())
          throw new Error('the error came back after save');
        await L.sleep(250);
      }
      // Informational: the check's code lens should follow (the server sends no
      // workspace/codeLens/refresh, so a stale "✗ … violation" lens is possible).
      const lenses = await page.locator(SEL.codeLens).allInnerTexts();
      L.log(`code lens after the fix: ${lenses.map(t => t.replace(/\s+/g, ' ')).join(' / ') || '(none)'}`);
      if (lenses.some(t => /violation/.test(t))) L.log('NOTE: the code lens still reports the violation (stale)');
      const saved = fs.readFileSync(file, 'utf8');
      const original = fs.readFileSync(path.join(path.resolve(args.samples), SAMPLE), 'utf8');
      if (saved === original) throw new Error(`${SAMPLE} on disk is unchanged after save`);
      const added = saved.split('\n').filter(l => !original.split('\n').includes(l));
      L.log(`lines added by the fix: ${JSON.stringify(added)}`);
      if (!added.some(l => /fence|mfence|atomic_thread_fence|__sync_synchronize/i.test(l)))
        throw new Error(`no fence among the added lines: ${JSON.stringify(added)}`);
    });
  } catch (e) {
    if (failed === 0) {      // set-up error outside any check
      failed++;
      console.log(`  FAIL harness: ${e && e.stack || e}`);
      if (page) await screenshot('FAILED-harness');
    }
  }

  console.log(`${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (failed) {
    flushConsole();
    try { fs.copyFileSync(path.join(root, 'browser-console.log'), path.join(artifacts, 'browser-console.log')); } catch { /* none */ }
    L.saveServerLogs(server, artifacts);
    console.error(`ui-test: FAILED; screenshots and logs in ${artifacts}`);
  } else {
    console.log(`ui-test: screenshots in ${artifacts}`);
  }
  await cleanup();
  return failed ? 1 : 0;
}

main().then(code => process.exit(code), e => { console.error(e); process.exit(1); });
