// The `tsocheck/trace` payload (the server's check JSON with labels and
// memory per step) and the `tsocheckState` of the debug adapter, turned into
// what the editor shows. Pure.
import * as path from 'path';
import { PendingStore, StaleRead, pendingGhostText, staleReadNote, valueText } from './format';

export interface TraceStep {
  step: number;
  thread: number;
  event: string;
  address?: string | null;
  value?: unknown;
  file?: string;
  line?: number;
  column?: number;
  note?: string;
  /** Written by the server (service/report_json.h): rendered, never recomputed. */
  label?: string;
  /** The non-empty store buffers after the step, as the server words them ("" when all are empty). */
  buffers_text?: string;
  /** Each entry names the step (1-based) that stored it. */
  buffers?: Array<Array<{ address: string; value: unknown; store_step?: number | null }>>;
  /** A spawn: the thread it starts. */
  spawned?: number | null;
  /** A load from memory while another thread's buffer holds a store to the address. */
  stale?: { thread: number; address: string; value: unknown; store_step?: number | null } | null;
  memory?: Record<string, unknown>;
}

export interface CheckPayload {
  function: string;
  file?: string;
  line?: number;
  model?: string;
  status: string;
  message?: string;
  executions?: number;
  violation?: {
    kind?: string;
    message?: string;
    file?: string;
    line?: number;
    column?: number;
    thread?: number;
    /** What failed, the stale read and the buffers at it, worded by the server. */
    summary?: string[];
    trace?: TraceStep[];
  } | null;
}

/** A step's label as the server wrote it (the bare event for an entry without one). */
export function stepLabel(s: TraceStep): string {
  return s.label ?? s.event;
}

/** The server's "T1 [x = 1] · T2 [y = 1]", or "all empty". */
export function buffersText(s: TraceStep): string {
  return s.buffers_text || 'all empty';
}

/** The violation's summary lines as the server wrote them (its message when it sent none). */
export function summaryLines(p: CheckPayload | undefined): string[] {
  const v = p?.violation;
  if (!v) return [];
  return Array.isArray(v.summary) && v.summary.length ? v.summary.map(String) : v.message ? [v.message] : [];
}

export function memoryText(s: TraceStep): string {
  const m = s.memory ?? {};
  const keys = Object.keys(m);
  return keys.length ? keys.map((k) => `${k}=${valueText(m[k])}`).join(' ') : 'initial values';
}

/**
 * A trace/state file name as an absolute path. Names may be relative to the
 * compile directory: a document or program path ending in it wins, then the
 * first root where it exists.
 */
export function resolveFile(file: string | undefined, hints: string[], roots: string[], exists: (p: string) => boolean): string | undefined {
  if (!file) return undefined;
  if (path.isAbsolute(file)) return path.normalize(file);
  const norm = path.normalize(file);
  for (const h of hints) if (h === norm || h.endsWith(path.sep + norm)) return h;
  for (const r of roots) {
    const p = path.resolve(r, norm);
    if (exists(p)) return p;
  }
  return roots.length ? path.resolve(roots[0], norm) : undefined;
}

/**
 * The stores still buffered after trace step `index` (0-based), each placed
 * at the line of the store that put it there (its `store_step`).
 */
export function pendingAfter(steps: TraceStep[], index: number): PendingStore[] {
  const out: PendingStore[] = [];
  (steps[index]?.buffers ?? []).forEach((buf, thread) => {
    for (const entry of buf ?? []) {
      const at = entry.store_step ? steps[entry.store_step - 1] : undefined;
      out.push({ thread, address: entry.address, value: entry.value, file: at?.file, line: at?.line, column: at?.column });
    }
  });
  return out;
}

/** The stale read the server marked at step `index`, if any. */
export function staleReadAt(steps: TraceStep[], index: number): StaleRead | undefined {
  const s = steps[index];
  if (!s || !s.stale) return undefined;
  return { thread: s.thread, address: s.address ?? s.stale.address, value: s.value, file: s.file, line: s.line, column: s.column, pendingIn: s.stale.thread, pendingValue: s.stale.value };
}

/** The debug adapter's answer to `tsocheckState`. */
export interface AdapterState {
  step: number;
  total: number;
  current?: { file?: string; line?: number; column?: number; thread?: number; label?: string; [k: string]: unknown } | null;
  pending?: PendingStore[];
  staleRead?: StaleRead | null;
  violation?: { message?: string; file?: string; line?: number } | null;
}

export interface LineMark {
  file: string;
  /** 1-based. */
  line: number;
  text: string;
}

/** What the editor shows for one stop: the current line, ghost text per buffered store, a note on a stale load. */
export interface DecorationPlan {
  current?: { file: string; line: number; label: string };
  ghosts: LineMark[];
  notes: LineMark[];
}

export function planDecorations(
  current: { file?: string; line?: number; label?: string; thread?: number } | null | undefined,
  pending: PendingStore[],
  stale: StaleRead | null | undefined,
  resolve: (file: string | undefined) => string | undefined,
): DecorationPlan {
  const plan: DecorationPlan = { ghosts: [], notes: [] };
  const cf = resolve(current?.file);
  if (cf && current?.line) plan.current = { file: cf, line: current.line, label: current.label ?? (current.thread !== undefined ? `T${current.thread}` : '') };
  const byLine = new Map<string, LineMark>();
  for (const p of pending) {
    const f = resolve(p.file);
    if (!f || !p.line) continue;
    const key = `${f}:${p.line}`;
    const text = pendingGhostText(p);
    const old = byLine.get(key);
    if (old) old.text += '; ' + text;
    else byLine.set(key, { file: f, line: p.line, text });
  }
  plan.ghosts = [...byLine.values()];
  if (stale) {
    const f = resolve(stale.file);
    if (f && stale.line) plan.notes.push({ file: f, line: stale.line, text: staleReadNote(stale) });
  }
  return plan;
}
