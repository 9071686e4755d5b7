// Text shown in the UI: counts, status bar, ghost text. Pure.

/** 41200 -> "41,200". */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '0';
  const neg = n < 0;
  const digits = String(Math.trunc(Math.abs(n)));
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return neg ? '-' + out : out;
}

export function plural(n: number, one: string, many: string = one + 's'): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** A trace value as the user wrote it: numbers as numbers, unknown as "?". */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '?';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

export interface PendingStore {
  thread: number;
  address: string;
  value: unknown;
  file?: string;
  line?: number;
  column?: number;
}

export interface StaleRead extends PendingStore {
  /** The thread whose buffer still holds the newer store. */
  pendingIn: number;
  pendingValue: unknown;
}

/** Ghost text after a buffered store's line: `x = 1 ⟶ still in T0's buffer`. */
export function pendingGhostText(p: PendingStore): string {
  return `${p.address} = ${valueText(p.value)} ⟶ still in T${p.thread}'s buffer`;
}

/** Note on a stale load's line: `reads x = 0 from memory — T0's x = 1 is still buffered`. */
export function staleReadNote(s: StaleRead): string {
  return `reads ${s.address} = ${valueText(s.value)} from memory — T${s.pendingIn}'s ${s.address} = ${valueText(s.pendingValue)} is still buffered`;
}

/** "step 3 · T1 · store x = 1 (buffered)" without the "step 3 · " prefix. */
export function shortStepLabel(label: string): string {
  return label.replace(/^step \d+ · /, '');
}
