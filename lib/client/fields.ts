/** Custom fields as the details form edits them: one "name: value" per line. */

export const fieldsToText = (fields: Record<string, string>) => Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join("\n");

/** "name: value" per line → custom fields; blank lines are skipped, a line without ":" is an error. */
export function parseFields(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf(":");
    if (at <= 0) return `“${line.trim()}” is not “name: value”.`;
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}
