/**
 * Reads a natural-language search ("portrait photos from last week that are not blue") into
 * structured intent, with no model: a small set of rules for media kinds, time, orientation,
 * duration, size, colours, tags and negation. What is left becomes full-text words.
 */
export type MediaKind = "image" | "video" | "audio" | "pdf";
export type Intent = {
  kinds: MediaKind[];
  notKinds: MediaKind[];
  since?: Date;
  until?: Date;
  orientation?: "portrait" | "landscape" | "square";
  minDurationSeconds?: number;
  maxDurationSeconds?: number;
  minBytes?: number;
  maxBytes?: number;
  colors: string[];
  notColors: string[];
  tags: string[];
  words: string[];
  notWords: string[];
  /** How the query was read, one phrase per rule that fired. */
  explanation: string[];
};

const KIND_WORDS: Record<string, MediaKind> = {
  photo: "image", photos: "image", image: "image", images: "image", picture: "image", pictures: "image", pic: "image", pics: "image",
  screenshot: "image", screenshots: "image", illustration: "image", illustrations: "image", graphics: "image",
  video: "video", videos: "video", clip: "video", clips: "video", movie: "video", movies: "video", footage: "video", film: "video", films: "video",
  audio: "audio", song: "audio", songs: "audio", music: "audio", recording: "audio", recordings: "audio", podcast: "audio", podcasts: "audio",
  pdf: "pdf", pdfs: "pdf", document: "pdf", documents: "pdf", docs: "pdf",
};

export const COLOR_NAMES = ["red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white", "gray"] as const;
const COLOR_ALIASES: Record<string, string> = { grey: "gray", violet: "purple", teal: "blue", navy: "blue", golden: "yellow", dark: "black", bright: "white" };

const STOP = new Set(
  "a an the of my our your me show find get give list search for all any some every with from that which who are is was were be been in on at to and or by of about please i want need look looking can you those these this them it its".split(" "),
);

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const monthIndex = (w: string) => MONTHS.findIndex((m) => m.slice(0, 3) === w.slice(0, 3));

const UNIT_SECONDS: Record<string, number> = { s: 1, sec: 1, secs: 1, second: 1, seconds: 1, m: 60, min: 60, mins: 60, minute: 60, minutes: 60, h: 3600, hr: 3600, hrs: 3600, hour: 3600, hours: 3600 };
const UNIT_BYTES: Record<string, number> = { b: 1, kb: 1e3, k: 1e3, mb: 1e6, m: 1e6, gb: 1e9, g: 1e9, kib: 1024, mib: 1048576, gib: 1073741824 };
const NUMBER_WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, thirty: 30 };

const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
const addDays = (d: Date, n: number) => new Date(d.getTime() + n * 86_400_000);
const iso = (d: Date) => d.toISOString().slice(0, 10);

export function parseQuery(raw: string, now: Date): Intent {
  const intent: Intent = { kinds: [], notKinds: [], colors: [], notColors: [], tags: [], words: [], notWords: [], explanation: [] };
  let text = ` ${raw.toLowerCase().replace(/[“”"]/g, " ").replace(/\s+/g, " ")} `;
  const take = (re: RegExp, fn: (m: RegExpExecArray) => void) => {
    for (let m = re.exec(text); m; m = re.exec(text)) {
      fn(m);
      text = text.slice(0, m.index) + " " + text.slice(m.index + m[0].length);
      re.lastIndex = 0;
    }
  };
  const num = (s: string) => NUMBER_WORDS[s] ?? Number(s);
  const today = startOfDay(now);

  // ---- tags: "tagged beach", "#beach"
  take(/ (?:tagged|tag) ([\p{L}\p{N}_-]+)/u, (m) => intent.tags.push(m[1]));
  take(/ #([\p{L}\p{N}_-]+)/u, (m) => intent.tags.push(m[1]));

  // ---- durations: "longer than a minute", "shorter than 30 seconds", "over 2 min", "under 10s"
  take(/ (longer than|more than|over|at least|shorter than|less than|under|at most) (\d+(?:\.\d+)?|a|an|one|two|three|five|ten|thirty) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)\b(?: long)?/, (m) => {
    const seconds = num(m[2]) * UNIT_SECONDS[m[3]];
    if (/longer|more|over|least/.test(m[1])) {
      intent.minDurationSeconds = seconds;
      intent.explanation.push(`longer than ${seconds} s`);
    } else {
      intent.maxDurationSeconds = seconds;
      intent.explanation.push(`shorter than ${seconds} s`);
    }
  });

  // ---- sizes: "larger than 5 mb", "smaller than 100kb"
  take(/ (larger|bigger|greater|smaller|less) than (\d+(?:\.\d+)?) ?(b|kb|k|mb|m|gb|g|kib|mib|gib)\b/, (m) => {
    const bytes = Math.round(Number(m[2]) * UNIT_BYTES[m[3]]);
    if (/larger|bigger|greater/.test(m[1])) {
      intent.minBytes = bytes;
      intent.explanation.push(`larger than ${m[2]} ${m[3].toUpperCase()}`);
    } else {
      intent.maxBytes = bytes;
      intent.explanation.push(`smaller than ${m[2]} ${m[3].toUpperCase()}`);
    }
  });

  // ---- time
  const since = (d: Date, label: string) => {
    intent.since = d;
    intent.explanation.push(label);
  };
  take(/ (?:from |since |during |in )?(today)\b/, () => since(today, `created today (${iso(today)})`));
  take(/ (?:from |since |on )?(yesterday)\b/, () => {
    intent.since = addDays(today, -1);
    intent.until = today;
    intent.explanation.push(`created yesterday (${iso(addDays(today, -1))})`);
  });
  take(/ (?:from |in |during |over )?(?:the )?(last|past) (\d+|a|an|one|two|three|four|five|six|seven|ten|thirty) (days?|weeks?|months?|years?)\b/, (m) => {
    const n = num(m[2]);
    const days = m[3].startsWith("day") ? n : m[3].startsWith("week") ? 7 * n : m[3].startsWith("month") ? 30 * n : 365 * n;
    since(addDays(today, -days), `created in the last ${n} ${m[3]}`);
  });
  take(/ (?:from |in |during )?(?:the )?(last|past|this) (week|month|year)\b/, (m) => {
    const days = m[2] === "week" ? 7 : m[2] === "month" ? 30 : 365;
    if (m[1] === "this" && m[2] === "month") since(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), "created this month");
    else if (m[1] === "this" && m[2] === "year") since(new Date(Date.UTC(now.getUTCFullYear(), 0, 1)), "created this year");
    else since(addDays(today, -days), `created in the last ${m[2]}`);
  });
  take(/ (since|after|from|before|in) (january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b(?: (\d{4}))?/, (m) => {
    const month = monthIndex(m[2].slice(0, 3));
    let year = m[3] ? Number(m[3]) : now.getUTCFullYear();
    if (!m[3] && month > now.getUTCMonth()) year -= 1; // "since March" in January means last March
    const start = new Date(Date.UTC(year, month, 1));
    const end = new Date(Date.UTC(year, month + 1, 1));
    if (m[1] === "before") {
      intent.until = start;
      intent.explanation.push(`created before ${iso(start)}`);
    } else if (m[1] === "in") {
      intent.since = start;
      intent.until = end;
      intent.explanation.push(`created in ${MONTHS[month]} ${year}`);
    } else since(start, `created since ${iso(start)}`);
  });
  take(/ (in|from|during|since|before) (\d{4})\b/, (m) => {
    const y = Number(m[2]);
    if (m[1] === "before") {
      intent.until = new Date(Date.UTC(y, 0, 1));
      intent.explanation.push(`created before ${y}`);
    } else if (m[1] === "since") since(new Date(Date.UTC(y, 0, 1)), `created since ${y}`);
    else {
      intent.since = new Date(Date.UTC(y, 0, 1));
      intent.until = new Date(Date.UTC(y + 1, 0, 1));
      intent.explanation.push(`created in ${y}`);
    }
  });
  take(/ older than (?:a|one|1) (week|month|year)\b/, (m) => {
    intent.until = addDays(today, m[1] === "week" ? -7 : m[1] === "month" ? -30 : -365);
    intent.explanation.push(`created more than a ${m[1]} ago`);
  });

  // ---- orientation
  take(/ (portrait|vertical|tall|upright)\b/, () => {
    intent.orientation = "portrait";
    intent.explanation.push("portrait orientation");
  });
  take(/ (landscape|horizontal|wide|widescreen)\b/, () => {
    intent.orientation = "landscape";
    intent.explanation.push("landscape orientation");
  });
  take(/ (square)\b/, () => {
    intent.orientation = "square";
    intent.explanation.push("square");
  });

  // ---- negation: "not X", "no X", "without X", "except X", "excluding X"
  take(/ (?:not|no|without|except|excluding|but not) ([\p{L}\p{N}_-]+)/u, (m) => {
    const w = m[1];
    const color = COLOR_ALIASES[w] ?? w;
    if (KIND_WORDS[w]) intent.notKinds.push(KIND_WORDS[w]);
    else if ((COLOR_NAMES as readonly string[]).includes(color)) intent.notColors.push(color);
    else if (!STOP.has(w)) intent.notWords.push(w);
  });

  // ---- remaining words: kinds, colours, free text
  for (const w of text.match(/[\p{L}\p{N}_-]+/gu) ?? []) {
    const color = COLOR_ALIASES[w] ?? w;
    if (KIND_WORDS[w]) {
      if (!intent.kinds.includes(KIND_WORDS[w])) intent.kinds.push(KIND_WORDS[w]);
    } else if ((COLOR_NAMES as readonly string[]).includes(color)) {
      if (!intent.colors.includes(color)) intent.colors.push(color);
    } else if (!STOP.has(w) && !/^(created|uploaded|taken|made|added|files?|assets?|things|stuff|ones|than|ago|everything|anything|something)$/.test(w)) intent.words.push(w);
  }
  if (intent.kinds.length) intent.explanation.unshift(`${intent.kinds.join(" or ")} files`);
  if (intent.notKinds.length) intent.explanation.push(`not ${intent.notKinds.join(" or ")} files`);
  if (intent.colors.length) intent.explanation.push(`mostly ${intent.colors.join(" or ")}`);
  if (intent.notColors.length) intent.explanation.push(`not mostly ${intent.notColors.join(" or ")}`);
  if (intent.tags.length) intent.explanation.push(`tagged ${intent.tags.join(", ")}`);
  if (intent.words.length) intent.explanation.push(`matching “${intent.words.join(" ")}”`);
  if (intent.notWords.length) intent.explanation.push(`not matching “${intent.notWords.join(" ")}”`);
  return intent;
}
