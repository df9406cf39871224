// What the determinism child changes about its JavaScript world before it runs the upgrade, beyond the time zone
// and locale its parent gives it through TZ, LANG and LC_ALL (ICU reads those once, at start-up): the wall clock
// (Date.now() and `new Date()` shifted) and Math.random (a seeded generator of its own). A handler whose output
// depends on any of them writes other bytes in the child than in the first run, and the app hashes differ.

/** Shifts this process's wall clock by `offsetMs` for Date.now() and `new Date()` (explicit dates are untouched). */
export function shiftWallClock(offsetMs: number): void {
  const RealDate = Date;
  class ShiftedDate extends RealDate {
    constructor(...args: [] | [string | number | Date]) {
      if (args.length === 0) super(RealDate.now() + offsetMs);
      else super(args[0]);
    }
    static override now(): number {
      return RealDate.now() + offsetMs;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
}

/** Replaces Math.random with a seeded xorshift generator (another sequence than V8's). */
export function seedRandom(seed: number): void {
  let state = seed >>> 0 || 1;
  Math.random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

/** The environment of the child: a time zone and a locale other than this process's. */
export function otherEnvironment(): { timeZone: string; locale: string } {
  const here = Intl.DateTimeFormat().resolvedOptions();
  const timeZone = here.timeZone === "Pacific/Chatham" ? "America/St_Johns" : "Pacific/Chatham";
  const locale = here.locale.startsWith("de") ? "tr_TR.UTF-8" : "de_DE.UTF-8";
  return { timeZone, locale };
}

/** This process's time zone and locale as ICU resolved them. */
export function currentEnvironment(): { timeZone: string; locale: string } {
  const here = Intl.DateTimeFormat().resolvedOptions();
  return { timeZone: here.timeZone, locale: here.locale };
}
