// Protocol test of `tsocheck dap`: the real adapter over pipes, driven by
// @vscode/debugadapter-testsupport's DebugClient (the same messages VS Code
// sends). Run: TSOCHECK_BIN=<build>/lsp/tsocheck node --test tests/dap/
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const BIN = process.env.TSOCHECK_BIN;
if (!BIN) throw new Error('set TSOCHECK_BIN to the tsocheck binary');
const SAMPLES = process.env.TSOCHECK_SAMPLES || path.resolve(__dirname, '../../samples');
const TESTS = path.resolve(__dirname, '..');  // shared inputs of the CLI and LSP tests
const SB = path.join(SAMPLES, 'litmus/sb.c');
const PETERSON = path.join(SAMPLES, 'peterson_buggy.c');

async function withAdapter(fn) {
  const dc = new DebugClient(BIN, 'dap', 'tsocheck');
  dc.defaultTimeout = 20000;
  await dc.start();
  const proc = dc._adapterProcess;
  proc.stdin.on('error', () => {});  // the adapter may have exited already
  let gone = false;
  const exited = new Promise((resolve) => proc.on('exit', (code) => { gone = true; resolve(code); }));
  try {
    await fn(dc, exited);
  } finally {
    if (gone) dc.stopAdapter();
    else await dc.stop();
  }
}

// The first of several events (no timer left behind, unlike waitForEvent).
function firstEvent(dc, names) {
  return new Promise((resolve) => {
    const handlers = names.map((name) => {
      const h = (e) => {
        names.forEach((n, i) => dc.removeListener(n, handlers[i]));
        resolve(e);
      };
      dc.on(name, h);
      return h;
    });
  });
}

// initialize → initialized → launch + configurationDone; resolves with the
// initialize response and the first event among `events`.
async function start(dc, args, events = ['stopped']) {
  const initialized = dc.waitForEvent('initialized');
  const init = await dc.initializeRequest();
  await initialized;
  const first = firstEvent(dc, events);
  await Promise.all([dc.launchRequest(args), dc.configurationDoneRequest()]);
  return { init, event: await first };
}

async function stepAndWait(dc, request, threadId = 1) {
  const stopped = dc.waitForEvent('stopped');
  await dc[request]({ threadId });
  return stopped;
}

async function topFrame(dc, threadId) {
  const r = await dc.stackTraceRequest({ threadId });
  return r.body.stackFrames[0];
}

async function scopesOf(dc, frameId) {
  const r = await dc.scopesRequest({ frameId });
  const byName = {};
  for (const s of r.body.scopes) byName[s.name] = s.variablesReference;
  return byName;
}

async function vars(dc, ref) {
  return (await dc.variablesRequest({ variablesReference: ref })).body.variables;
}

// { 'T1 (t1)': ['x = 1@16'], ... }: every thread's buffer with store lines.
async function buffers(dc, frameId) {
  const scopes = await scopesOf(dc, frameId);
  const out = {};
  for (const v of await vars(dc, scopes['Store buffers'])) {
    out[v.name] = [];
    if (v.variablesReference === 0) {
      assert.equal(v.value, 'empty');
      continue;
    }
    for (const e of await vars(dc, v.variablesReference)) {
      const m = /line (\d+)/.exec(e.value);
      out[v.name].push(`${e.name}@${m ? m[1] : '?'}`);
    }
  }
  return out;
}

// Stops' locations: [threadId, line] after the stop event.
async function where(dc, ev) {
  const f = await topFrame(dc, ev.body.threadId);
  return [ev.body.threadId, f.line];
}

test('SB under TSO: entry, threads, next, buffers, stale read, stepBack, continue', async () => {
  await withAdapter(async (dc) => {
    const { init, event } = await start(dc, { program: SB, model: 'tso' });
    assert.equal(init.body.supportsStepBack, true);
    assert.equal(init.body.supportsConfigurationDoneRequest, true);
    assert.equal(init.body.supportsTerminateRequest, true);
    assert.equal(event.body.reason, 'entry');
    assert.equal(event.body.threadId, 1);
    // The step's label is the stop's text; the badge (description) stays short.
    assert.match(event.body.text, /spawn/);
    assert.equal(event.body.description, 'step 1/19');

    const entry = await topFrame(dc, 1);
    assert.equal(entry.line, 29);
    assert.equal(entry.source.path, SB);
    assert.equal(entry.source.name, 'sb.c');
    // Step 1 spawns T1: T2 is not listed until its spawn (step 2).
    const threads = (await dc.threadsRequest()).body.threads;
    assert.deepEqual(threads.map((t) => t.name), ['T0 (main)', 'T1 (t1)']);
    assert.match((await topFrame(dc, 3)).name, /not started/);
    assert.deepEqual(await buffers(dc, 1), { 'T0 (main)': [], 'T1 (t1)': [], 'T2 (t2)': [] });

    // step 2: second spawn; step 3: T1 stores x (buffered).
    assert.deepEqual(await where(dc, await stepAndWait(dc, 'nextRequest')), [1, 30]);
    assert.deepEqual((await dc.threadsRequest()).body.threads.map((t) => [t.id, t.name]),
      [[1, 'T0 (main)'], [2, 'T1 (t1)'], [3, 'T2 (t2)']]);
    let ev = await stepAndWait(dc, 'nextRequest');
    assert.equal(ev.body.reason, 'step');
    assert.deepEqual(await where(dc, ev), [2, 16]);
    assert.deepEqual(await buffers(dc, 2), { 'T0 (main)': [], 'T1 (t1)': ['x = 1@16'], 'T2 (t2)': [] });
    // step 4: T1 loads y from memory; step 5: T2 stores y.
    assert.deepEqual(await where(dc, await stepAndWait(dc, 'stepInRequest')), [2, 17]);
    ev = await stepAndWait(dc, 'nextRequest');
    assert.deepEqual(await where(dc, ev), [3, 22]);
    assert.deepEqual(await buffers(dc, 3), { 'T0 (main)': [], 'T1 (t1)': ['x = 1@16'], 'T2 (t2)': ['y = 1@22'] });
    // T0's frame stays at its last step (the second spawn).
    assert.equal((await topFrame(dc, 1)).line, 30);

    // step 6: T2 loads x from memory while T1 still buffers x = 1.
    ev = await stepAndWait(dc, 'nextRequest');
    assert.deepEqual(await where(dc, ev), [3, 23]);
    let state = (await dc.customRequest('tsocheckState')).body;
    assert.equal(state.step, 5);
    assert.equal(state.current.line, 23);
    assert.equal(state.current.thread, 2);
    assert.deepEqual(state.pending.map((p) => [p.thread, p.address, p.value, p.line]), [[1, 'x', 1, 16], [2, 'y', 1, 22]]);
    assert.equal(state.pending[0].file.endsWith('sb.c'), true);
    assert.ok(state.staleRead, 'stale read at T2 load of x');
    assert.equal(state.staleRead.thread, 2);
    assert.equal(state.staleRead.address, 'x');
    assert.equal(state.staleRead.value, 0);
    assert.equal(state.staleRead.line, 23);
    assert.equal(state.staleRead.pendingIn, 1);
    assert.equal(state.staleRead.pendingValue, 1);
    assert.equal(state.violation.line, 33);
    const scopes = await scopesOf(dc, 3);
    const reads = await vars(dc, scopes['T2 reads']);
    assert.deepEqual(reads.map((v) => v.name), ['x']);
    assert.match(reads[0].value, /^0 \(memory, line 23/);
    const next = await vars(dc, scopes['Next event']);
    assert.match(next[0].value, /flush x = 1/);
    assert.match(next[1].value, /still buffers x = 1/);

    // step 7: T1's store reaches memory; stepBack restores the buffer.
    ev = await stepAndWait(dc, 'nextRequest');
    assert.deepEqual(await where(dc, ev), [2, 16]);
    assert.deepEqual((await buffers(dc, 2))['T1 (t1)'], []);
    const memory = await vars(dc, (await scopesOf(dc, 2))['Shared memory']);
    assert.ok(memory.some((v) => v.name === 'x' && v.value === '1'), JSON.stringify(memory));
    assert.equal((await dc.customRequest('tsocheckState')).body.staleRead, null);
    ev = await stepAndWait(dc, 'stepBackRequest');
    assert.equal(ev.body.reason, 'step');
    assert.deepEqual(await where(dc, ev), [3, 23]);
    assert.deepEqual((await buffers(dc, 3))['T1 (t1)'], ['x = 1@16']);
    const x = await dc.evaluateRequest({ expression: 'x', context: 'hover' });
    assert.equal(x.body.result, "x = 0 in memory; x = 1 in T1's buffer (line 16)");
    state = (await dc.customRequest('tsocheckState')).body;
    assert.equal(state.step, 5);
    assert.equal(state.staleRead.pendingIn, 1);

    // continue: the violation.
    ev = await stepAndWait(dc, 'continueRequest');
    assert.equal(ev.body.reason, 'exception');
    assert.match(ev.body.text, /assertion/);
    assert.deepEqual(await where(dc, ev), [1, 33]);
    const hover = await dc.evaluateRequest({ expression: 'r1', context: 'hover' });
    assert.equal(hover.body.result, 'r1 = 0 in memory');
    await assert.rejects(dc.evaluateRequest({ expression: 'nothing' }), /no value known/);
    const info = await dc.exceptionInfoRequest({ threadId: 1 });
    assert.equal(info.body.exceptionId, 'assertion');
    // next at the end stays there and says so.
    const said = dc.waitForEvent('output');
    ev = await stepAndWait(dc, 'nextRequest');
    assert.equal(ev.body.reason, 'exception');
    assert.match((await said).body.output, /already at the last step/);
    // Plain text, not "console" (which VS Code draws as a warning).
    assert.equal((await said).body.category, 'stdout');
    assert.equal((await dc.customRequest('tsocheckState')).body.step, state.total - 1);
    // reverseContinue: back to the entry; stepBack there stays.
    ev = await stepAndWait(dc, 'reverseContinueRequest');
    assert.deepEqual(await where(dc, ev), [1, 29]);
    ev = await stepAndWait(dc, 'stepBackRequest');
    assert.deepEqual(await where(dc, ev), [1, 29]);
    await dc.pauseRequest({ threadId: 1 });
  });
});

test('threads: listed from their spawn to their exit ("· exited" on the exit step only), short badges keep names whole', async () => {
  await withAdapter(async (dc) => {
    const { event } = await start(dc, { program: SB, model: 'tso' });
    const total = (await dc.customRequest('tsocheckState')).body.total;
    // What the trace says, step by step: spawns ("starts Tn") and exits.
    const spawned = new Set([0]), exited = new Set();
    let ev = event, sawExitStop = false;
    const names = [];
    for (let i = 0; i < total; i++) {
      const st = (await dc.customRequest('tsocheckState')).body;
      assert.equal(st.step, i);
      const m = /starts T(\d+)/.exec(st.current.note || '');
      if (st.current.event === 'spawn' && m) spawned.add(Number(m[1]));
      if (st.current.event === 'exit') exited.add(st.current.thread);
      // A finished thread leaves the list (no "Paused" beside it), but on its own exit step.
      const want = [...spawned].filter((t) => !exited.has(t) || t === st.current.thread).sort().map((t) => t + 1);
      const threads = (await dc.threadsRequest()).body.threads;
      assert.deepEqual(threads.map((t) => t.id), want, `threads at step ${i + 1}`);
      for (const t of threads) {
        // The name first and short; the state after it.
        assert.match(t.name, /^T\d+ \((main|t1|t2)\)( · exited)?$/, t.name);
        assert.equal(t.name.endsWith(' · exited'), exited.has(t.id - 1), `${t.name} at step ${i + 1}`);
        if (exited.has(t.id - 1)) assert.equal(t.id - 1, st.current.thread, `${t.name} listed after its exit step`);
      }
      names.push(threads.map((t) => t.name).join(', '));
      // The badge beside the stopped thread: a few words, never the step label.
      const badge = ev.body.description;
      assert.ok(badge.length <= 24, `badge too long: ${badge}`);
      if (i === total - 1) {
        assert.equal(badge, `violation · step ${total}/${total}`);
        assert.match(ev.body.text, /^Violation: assertion/);
      } else if (st.current.event === 'exit') {
        assert.equal(badge, `exited · step ${i + 1}/${total}`);
        assert.equal(ev.body.threadId, st.current.thread + 1);
        sawExitStop = true;
      } else {
        assert.equal(badge, `step ${i + 1}/${total}`);
        assert.equal(ev.body.text, st.current.label);
      }
      if (i + 1 < total) ev = await stepAndWait(dc, 'nextRequest');
    }
    assert.ok(sawExitStop, 'the trace has an exit step');
    assert.deepEqual([...exited].sort(), [1, 2]);
    assert.equal(names[names.length - 1], 'T0 (main)');
    assert.ok(names.some((n) => / · exited/.test(n)), 'an exit step lists its thread as exited');
    // Back before the exits: the threads are live again; back to the entry: T2 is gone.
    await stepAndWait(dc, 'reverseContinueRequest');
    assert.deepEqual((await dc.threadsRequest()).body.threads.map((t) => t.name), ['T0 (main)', 'T1 (t1)']);
  });
});

test('Peterson under TSO: both stores of T2 buffered in order, violation at the assert', async () => {
  await withAdapter(async (dc) => {
    const { event } = await start(dc, { program: PETERSON, function: 'peterson', model: 'TSO', loopBound: 4 });
    assert.equal(event.body.reason, 'entry');
    assert.equal((await topFrame(dc, 1)).line, 38);
    const names = (await dc.threadsRequest()).body.threads.map((t) => t.name);
    assert.deepEqual(names, ['T0 (main)', 'T1 (worker)']);  // T2 is spawned at step 2
    // Step until T2 has issued its store to turn (line 21).
    let loc;
    for (let i = 0; i < 10; i++) {
      loc = await where(dc, await stepAndWait(dc, 'nextRequest'));
      if (loc[0] === 3 && loc[1] === 21) break;
    }
    assert.deepEqual(loc, [3, 21]);
    assert.deepEqual((await buffers(dc, 3))['T2 (worker)'], ['flag[1] = 1@20', 'turn = 0@21']);
    // Its load of flag[0] comes next, served by memory.
    const ev = await stepAndWait(dc, 'nextRequest');
    assert.match(ev.body.text, /load flag\[0\] → 0 \(memory\)/);
    assert.deepEqual((await buffers(dc, 3))['T2 (worker)'], ['flag[1] = 1@20', 'turn = 0@21']);
    const back = await stepAndWait(dc, 'stepBackRequest');
    assert.deepEqual(await where(dc, back), [3, 21]);
    const end = await stepAndWait(dc, 'continueRequest');
    assert.equal(end.body.reason, 'exception');
    assert.deepEqual(await where(dc, end), [1, 42]);
    assert.deepEqual((await dc.customRequest('tsocheckState')).body.pending, []);
  });
});

test('stopOnEntry false stops at the violation; restart re-checks, with the old or new arguments', async () => {
  await withAdapter(async (dc) => {
    const { event } = await start(dc, { program: SB, stopOnEntry: false });
    assert.equal(event.body.reason, 'exception');
    assert.equal((await topFrame(dc, event.body.threadId)).line, 33);
    const stopped = dc.waitForEvent('stopped');
    await dc.restartRequest({});
    const again = await stopped;
    assert.equal(again.body.reason, 'exception');  // same launch arguments: stopOnEntry false
    const entry = await stepAndWait(dc, 'reverseContinueRequest');
    assert.equal(entry.body.reason, 'entry');
    // Restart with new arguments: another program, stop on entry.
    const third = dc.waitForEvent('stopped');
    await dc.restartRequest({ arguments: { program: PETERSON } });
    assert.equal((await third).body.reason, 'entry');
    assert.equal((await topFrame(dc, 1)).line, 38);
    assert.equal((await dc.threadsRequest()).body.threads[1].name, 'T1 (worker)');
    await assert.rejects(dc.restartRequest({ arguments: { program: SB, stopOnEntry: 'yes' } }), /stopOnEntry/);
  });
});

test('0-based lines and columns when the client asks for them', async () => {
  await withAdapter(async (dc) => {
    const initialized = dc.waitForEvent('initialized');
    await dc.initializeRequest({ adapterID: 'tsocheck', linesStartAt1: false, columnsStartAt1: false });
    await initialized;
    const stopped = dc.waitForEvent('stopped');
    await Promise.all([dc.launchRequest({ program: SB }), dc.configurationDoneRequest()]);
    await stopped;
    const f = await topFrame(dc, 1);
    assert.deepEqual([f.line, f.column], [28, 2]);  // sb.c:29:3
    // tsocheckState stays 1-based.
    assert.equal((await dc.customRequest('tsocheckState')).body.current.line, 29);
  });
});

test('launch errors: missing file, unknown function, syntax error, unsupported construct, bad model', async () => {
  const cases = [
    [{ program: path.join(__dirname, 'nope.c') }, /nope\.c: no such file/],
    [{ program: SB, function: 'nosuch' }, /no check function `nosuch`.*check functions: store_buffering/],
    [{ program: path.join(TESTS, 'cli/inputs/syntax_error.c') }, /syntax_error\.c:6:8: error: expected ';'/],
    [{ program: path.join(TESTS, 'cli/inputs/unsupported_asm.c') }, /`odd_asm` was not checked: .*cpuid.*unsupported_asm\.c:8:3/s],
    [{ program: SB, model: 'arm' }, /model must be "sc", "tso", "pso" or "rc11", got "arm"/],
    [{ program: SB, bufferBound: -1 }, /bufferBound must be/],
    [{}, /launch needs `program`/],
  ];
  for (const [args, expected] of cases) {
    await withAdapter(async (dc) => {
      await dc.initializeRequest();
      await assert.rejects(dc.launchRequest(args), (err) => {
        assert.match(err.message, expected);
        return true;
      });
      // The adapter is still there.
      assert.deepEqual((await dc.threadsRequest()).body.threads, []);
    });
  }
});

test('a verified program reports its verdict and terminates', async () => {
  await withAdapter(async (dc) => {
    let output = '';
    const categories = new Set();
    dc.on('output', (e) => { output += e.body.output; categories.add(e.body.category); });
    const { event } = await start(dc, { program: path.join(SAMPLES, 'litmus/sb_fenced.c') }, ['terminated', 'stopped']);
    assert.equal(event.event, 'terminated');
    assert.match(output, /`store_buffering_fenced`: verified under TSO · 3 executions/);
    assert.deepEqual([...categories], ['stdout']);
  });
});

test('malformed input and unknown requests do not stop the adapter', async () => {
  await withAdapter(async (dc) => {
    await start(dc, { program: SB });
    const stdin = dc._adapterProcess.stdin;
    const frame = (s) => `Content-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}`;
    stdin.write(frame('{not json'));
    stdin.write(frame('[1,2,3]'));
    stdin.write(frame('{"type":"request","command":"threads"}'));  // no seq: ignored
    stdin.write('Content-Length: abc\r\n\r\n');
    await assert.rejects(dc.customRequest('noSuchCommand'), /unknown request `noSuchCommand`/);
    await assert.rejects(dc.variablesRequest({ variablesReference: 424242 }), /unknown variablesReference/);
    await assert.rejects(dc.customRequest('launch', { program: SB }), /already launched/);
    const threads = (await dc.threadsRequest()).body.threads;
    assert.equal(threads.length, 2);  // T0 and T1 (spawned at the entry step)
    const ev = await stepAndWait(dc, 'nextRequest');
    assert.equal((await topFrame(dc, ev.body.threadId)).line, 30);
  });
});

test('disconnect during a long check cancels it and the adapter exits 0', async () => {
  await withAdapter(async (dc, exited) => {
    await dc.initializeRequest();
    const launched = dc.launchRequest({ program: path.join(TESTS, 'lsp/inputs/slow.c') }).catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    await dc.disconnectRequest({});
    const code = await exited;
    assert.equal(code, 0);
    assert.ok(Date.now() - t0 < 10000, 'adapter exits soon after disconnect');
    void launched;
  });
});

test('terminate during a long check cancels it; disconnect then ends the adapter with 0', async () => {
  await withAdapter(async (dc, exited) => {
    await dc.initializeRequest();
    const launch = dc.launchRequest({ program: path.join(TESTS, 'lsp/inputs/slow.c') });
    await new Promise((r) => setTimeout(r, 500));
    const terminated = dc.waitForEvent('terminated');
    await dc.terminateRequest({});
    await terminated;
    await assert.rejects(launch, /cancelled/);
    await dc.disconnectRequest({});
    assert.equal(await exited, 0);
  });
});
