// What a long run shows while it runs. On a terminal: one live line naming
// the part, its progress and the elapsed time, rewritten in place. Anywhere
// else (a CI log): a heartbeat line every few seconds with the same facts,
// so that a log shows life and progress without a line per trace.
import type { Output } from './output.ts';

export const HEARTBEAT_MS = 5000;

export interface ProgressOptions {
  /** Milliseconds between heartbeats when stderr is not a terminal (default 5 s). */
  readonly heartbeatMs?: number;
  /** The clock (tests pass their own). */
  readonly now?: () => number;
  /** Whether a timer beats while nothing ticks (default true; tests drive the clock instead). */
  readonly timer?: boolean;
}

export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

export class LiveProgress {
  private readonly started: number;
  private readonly now: () => number;
  private readonly heartbeatMs: number;
  private current = 'starting';
  private status = '';
  private lastBeat: number;
  private live = false;
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly out: Output,
    private readonly command: string,
    options: ProgressOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.started = this.now();
    this.lastBeat = this.started;
    if (!out.interactive && options.timer !== false) {
      this.timer = setInterval(() => this.beatIfDue(), Math.max(50, Math.floor(this.heartbeatMs / 5)));
      this.timer.unref();
    }
  }

  /** Elapsed milliseconds since the start. */
  elapsed(): number {
    return this.now() - this.started;
  }

  /** The part now running (`exhaustive handoff-under-traffic`, `part k1`). */
  part(name: string): void {
    this.current = name;
    this.status = '';
    this.tick('');
  }

  /** How far the part is (`1200/3368 interleavings`). */
  tick(status: string): void {
    this.status = status;
    if (this.out.interactive) {
      this.out.stderr(`\r\x1b[K${this.describe()}`);
      this.live = true;
    } else this.beatIfDue();
  }

  /** A line that stays (a result): clears the live line first. */
  line(text: string): void {
    this.clear();
    this.out.stderr(`${text}\n`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.clear();
  }

  private describe(): string {
    // A part named as the command itself (`conform`) is not said twice: `streamjoin conform: still running: exhaustive …`.
    const what =
      this.status && this.command.endsWith(` ${this.current}`) ? this.status : `${this.current}${this.status ? `: ${this.status}` : ''}`;
    return `${what} (${formatElapsed(this.elapsed())})`;
  }

  /** Clears the live line (before other output to the terminal). */
  clear(): void {
    if (this.live) this.out.stderr('\r\x1b[K');
    this.live = false;
  }

  private beatIfDue(): void {
    const t = this.now();
    if (t - this.lastBeat < this.heartbeatMs) return;
    this.lastBeat = t;
    this.out.stderr(`${this.command}: still running: ${this.describe()}\n`);
  }
}
