// Writes <folder>/README.md: every screenshot `make screenshots` took, the laptop and phone views side by side.
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const folder = process.argv[2];
if (!folder) throw new Error("usage: node screenshots-index.mjs <folder>");

const shots = (size) => new Set(readdirSync(path.join(folder, size)).filter((f) => f.endsWith(".png")));
const laptop = shots("laptop");
const phone = shots("phone");
const names = [...new Set([...laptop, ...phone])].sort();

const cell = (size, set, file) => (set.has(file) ? `<a href="${size}/${file}"><img src="${size}/${file}" width="${size === "laptop" ? 480 : 160}"></a>` : "");
const rows = names.map((f) => `| \`${f.replace(/\.png$/, "")}\` | ${cell("laptop", laptop, f)} | ${cell("phone", phone, f)} |`);

writeFileSync(
  path.join(folder, "README.md"),
  [
    "# Screenshots",
    "",
    "Every screen of Valuator at 1440x900 (laptop) and 390x844 (phone), public pages signed out and the app signed in",
    "as the seeded demo account; Markets with two ZIP codes compared; the Support panel, and the operators' console",
    "(`admin-*`) as the seeded operator admin@valuator.dev sees it. Written by `make screenshots`",
    "(e2e/tests/screens.spec.ts, markets.spec.ts, admin.spec.ts); the same walks run in `make test` and fail on",
    "sideways scrolling, console errors, clipped code blocks or tables, unreadable chart labels and accessibility",
    "violations. Click an image for the full page.",
    "",
    "| Screen | Laptop | Phone |",
    "| --- | --- | --- |",
    ...rows,
    "",
  ].join("\n"),
);
console.log(`wrote ${path.join(folder, "README.md")}: ${names.length} screens`);
