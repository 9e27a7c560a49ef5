// restart_policy.ts: how often a crashed hone-server is restarted: at most `maxRestarts` crashes
// within a sliding `windowMs`, after which it stays down until the user restarts it.

export interface RestartDecision {
  restart: boolean;
  /** Crashes inside the current window, this one included. */
  recentCrashes: number;
  /** What to tell the user, in words. */
  message: string;
}

export class RestartPolicy {
  private crashes: number[] = [];

  constructor(
    readonly maxRestarts = 4,
    readonly windowMs = 3 * 60_000,
  ) {}

  /** Called by the client's close handler (extension host thread) when the server exits unexpectedly. */
  onCrash(nowMs: number): RestartDecision {
    this.crashes = this.crashes.filter((t) => nowMs - t < this.windowMs);
    this.crashes.push(nowMs);
    const n = this.crashes.length;
    const minutes = Math.round(this.windowMs / 60_000);
    if (n <= this.maxRestarts) {
      return {
        restart: true,
        recentCrashes: n,
        message: `hone-server stopped unexpectedly; restarting (${n}/${this.maxRestarts} in ${minutes} min).`,
      };
    }
    return {
      restart: false,
      recentCrashes: n,
      message: `hone-server crashed ${n} times in ${minutes} min and will not be restarted. See the hone output for its last words, then run "hone: Restart server".`,
    };
  }

  /** A deliberate (re)start by the user forgets earlier crashes. */
  reset(): void {
    this.crashes = [];
  }
}
