// CSV written in the browser (history export, and any other client-side download): RFC 4180 quoting and
// protection against spreadsheet formula injection, the same rule as the server's report (internal/valuation
// SafeCell), so a value a user typed (an address, a key name) can never run as a formula when the file is opened.

export type CsvValue = string | number | boolean | null | undefined;

const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * Protects one cell: a value that starts like a formula (=, +, -, @, or a tab or carriage return that some
 * spreadsheets skip first) gets a leading apostrophe, which spreadsheets show as text. Plain negative numbers are
 * left alone, since they are data, not formulas.
 */
export function safeCell(value: string): string {
  if (value === "") return value;
  const first = value[0];
  if (first === "=" || first === "+" || first === "@" || first === "\t" || first === "\r") return `'${value}`;
  if (first === "-") return PLAIN_NUMBER.test(value) ? value : `'${value}`;
  return value;
}

/** Quotes a cell when it holds a comma, a quote or a line break; quotes inside are doubled. */
export function quoteCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function cellText(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  return String(value);
}

/** Rows to CSV text: every cell protected and quoted, rows ended by CRLF. */
export function toCsv(rows: readonly (readonly CsvValue[])[]): string {
  return rows.map((row) => row.map((v) => quoteCell(safeCell(cellText(v)))).join(",")).join("\r\n") + "\r\n";
}

/** Saves text as a file in the browser (see saveBlobFile). */
export function saveTextFile(text: string, fileName: string, type = "text/csv;charset=utf-8"): void {
  saveBlobFile(new Blob([text], { type }), fileName);
}

/**
 * Saves a Blob (text built here, or a downloaded spreadsheet as it came) as a file: an object URL and a temporary
 * <a download> that is clicked and removed. The URL is released on the next tick, after the browser has started the
 * download (revoking it at once cancels the download in some browsers).
 */
export function saveBlobFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.style.display = "none";
  document.body.appendChild(link);
  try {
    link.click();
  } finally {
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}
