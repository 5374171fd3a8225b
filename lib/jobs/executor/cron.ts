/**
 * Five-field cron schedules (minute hour day-of-month month day-of-week) in UTC, with lists,
 * ranges, steps, month/day names and the @hourly-style macros. A `TZ=` prefix other than UTC is
 * refused at sync rather than silently run in the wrong zone.
 */
type Field = Set<number>;
export type CronSchedule = { minute: Field; hour: Field; dom: Field; month: Field; dow: Field; domAny: boolean; dowAny: boolean };

const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

function parseField(src: string, min: number, max: number, names: string[] = [], nameBase = 0): Field {
  const value = (s: string) => {
    const idx = names.indexOf(s.toUpperCase());
    const n = idx >= 0 ? idx + nameBase : Number(s);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`"${s}" is out of range ${min}-${max}`);
    return n;
  };
  const out: Field = new Set();
  for (const part of src.split(",")) {
    const [range, stepSrc] = part.split("/");
    const step = stepSrc === undefined ? 1 : Number(stepSrc);
    if (!Number.isInteger(step) || step < 1) throw new Error(`bad step in "${part}"`);
    let lo = min;
    let hi = max;
    if (range !== "*" && range !== "?") {
      const [a, b] = range.split("-");
      lo = value(a);
      hi = b === undefined ? (stepSrc === undefined ? lo : max) : value(b);
    }
    for (let n = lo; n <= hi; n += step) out.add(n);
  }
  return out;
}

export function parseCron(expression: string): CronSchedule {
  let src = expression.trim();
  const tz = /^(?:CRON_)?TZ=(\S+)\s+(.*)$/.exec(src);
  if (tz) {
    if (!["UTC", "Etc/UTC", "GMT"].includes(tz[1])) throw new Error(`cron time zones other than UTC are not supported: ${expression}`);
    src = tz[2];
  }
  src = MACROS[src] ?? src;
  const parts = src.split(/\s+/);
  if (parts.length !== 5) throw new Error(`a cron schedule has five fields: ${expression}`);
  const dow = parseField(parts[4], 0, 7, DAYS);
  if (dow.has(7)) dow.add(0);
  return {
    minute: parseField(parts[0], 0, 59),
    hour: parseField(parts[1], 0, 23),
    dom: parseField(parts[2], 1, 31),
    month: parseField(parts[3], 1, 12, MONTHS, 1),
    dow,
    domAny: parts[2] === "*" || parts[2] === "?",
    dowAny: parts[4] === "*" || parts[4] === "?",
  };
}

function dayMatches(s: CronSchedule, d: Date): boolean {
  const dom = s.dom.has(d.getUTCDate());
  const dow = s.dow.has(d.getUTCDay());
  // Classic cron: when both day fields are restricted, either one matching is enough.
  if (!s.domAny && !s.dowAny) return dom || dow;
  return dom && dow;
}

/** The first tick strictly after `after`. */
export function nextCronTime(s: CronSchedule, after: Date): Date {
  const t = new Date(after.getTime());
  t.setUTCSeconds(0, 0);
  t.setUTCMinutes(t.getUTCMinutes() + 1);
  for (let guard = 0; guard < 100_000; guard++) {
    if (!s.month.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0);
    } else if (!dayMatches(s, t)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0);
    } else if (!s.hour.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0);
    } else if (!s.minute.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1);
    } else {
      return t;
    }
  }
  throw new Error("cron schedule never fires");
}
