#!/usr/bin/env node
// make lighthouse: Lighthouse's mobile performance score of the public pages (issue 33), with each pinned version of
// Lighthouse in perf/lighthouse (12 and 13 weigh and simulate differently, and visitors' tools run either). One run
// says as much about the machine's load as about the page, so each page runs RUNS times per version and the median
// counts. Prints per page and version the median score, LCP and TBT, and exits 1 when a median score is below
// MIN_SCORE. Not part of make test: it takes a few minutes and needs an idle machine to mean anything.
//
// Environment:
//   LIGHTHOUSE_URL  base URL of a running server to measure (default: start bin/valuator on a free port, with a
//                   fresh SQLite database in development mode, as `make run` does, and stop it at the end)
//   RUNS            runs per page and version (3)
//   MIN_SCORE       the lowest median score that passes (95)
//   PAGES           comma-separated paths (/,/pricing,/login)
//   VERSIONS        comma-separated Lighthouse versions of perf/lighthouse (12,13)
//   CHROME_PATH     the browser (/usr/bin/chromium, Debian's)

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const RUNS = Number(process.env.RUNS ?? 3);
const MIN_SCORE = Number(process.env.MIN_SCORE ?? 95);
const PAGES = (process.env.PAGES ?? "/,/pricing,/login").split(",");
const VERSIONS = (process.env.VERSIONS ?? "12,13").split(",");
const CHROME_PATH = process.env.CHROME_PATH ?? "/usr/bin/chromium";
// The machine has no internet: without these Chromium spends the run on requests that cannot succeed (component
// updates, sync, QUIC probes), which shows up as noise in the timings.
const CHROME_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
].join(" ");

function cli(version) {
  return path.join(root, "perf", "lighthouse", "node_modules", `lighthouse${version}`, "cli", "index.js");
}

function run(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], ...options });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts bin/valuator on a free port with a fresh database; resolves with its base URL and a stop function. */
async function startServer() {
  const bin = path.join(root, "bin", "valuator");
  const dir = mkdtempSync(path.join(os.tmpdir(), "valuator-lighthouse-"));
  const port = await freePort();
  const child = spawn(bin, ["serve"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      VALUATOR_ADDR: `127.0.0.1:${port}`,
      VALUATOR_DATA_DIR: dir,
      VALUATOR_DATABASE_URL: `sqlite://${path.join(dir, "valuator.db")}`,
      VALUATOR_ENV: "development",
      VALUATOR_LOG_LEVEL: "warn",
    },
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  // The first start of an empty development database generates the demo market, which takes a while on 2 cores.
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`bin/valuator exited ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`${base}/readyz`)).ok) return { base, stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`bin/valuator was not ready at ${base}/readyz within 3 minutes`);
}

/** One Lighthouse run of `url`, mobile (Lighthouse's default form factor and throttling), performance only. */
async function lighthouse(version, url, outDir) {
  const out = path.join(outDir, "report.json");
  await run(process.execPath, [
    cli(version),
    url,
    "--only-categories=performance",
    "--output=json",
    `--output-path=${out}`,
    `--chrome-flags=${CHROME_FLAGS}`,
    "--quiet",
  ], { env: { ...process.env, CHROME_PATH } });
  const lhr = JSON.parse(readFileSync(out, "utf8"));
  if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  const ms = (id) => lhr.audits[id]?.numericValue ?? NaN;
  return {
    version: lhr.lighthouseVersion,
    score: Math.round(lhr.categories.performance.score * 100),
    fcp: ms("first-contentful-paint"),
    lcp: ms("largest-contentful-paint"),
    tbt: ms("total-blocking-time"),
    cls: lhr.audits["cumulative-layout-shift"]?.numericValue ?? NaN,
    benchmarkIndex: lhr.environment?.benchmarkIndex,
  };
}

/**
 * Runs `run` again once when it fails: on a loaded machine Lighthouse now and then loses the page's trace
 * (NO_NAVSTART, NO_FCP), which says nothing about the page.
 */
async function withRetry(run) {
  try {
    return await run();
  } catch (err) {
    console.log(`  (run failed, trying again: ${String(err instanceof Error ? err.message : err).split("\n")[0].slice(0, 200)})`);
    return run();
  }
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const millis = (ms) => `${Math.round(ms)} ms`;

async function main() {
  for (const v of VERSIONS) {
    try {
      readFileSync(cli(v));
    } catch {
      throw new Error(`no Lighthouse ${v} in perf/lighthouse/node_modules: run make lighthouse (it installs them)`);
    }
  }
  const server = process.env.LIGHTHOUSE_URL ? null : await startServer();
  const base = (process.env.LIGHTHOUSE_URL ?? server.base).replace(/\/$/, "");
  const outDir = mkdtempSync(path.join(os.tmpdir(), "lighthouse-report-"));
  const rows = [];
  try {
    console.log(`Lighthouse mobile performance of ${base}, ${RUNS} runs per page and version (load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")})`);
    for (const v of VERSIONS) {
      for (const page of PAGES) {
        const runs = [];
        for (let i = 0; i < RUNS; i++) {
          const r = await withRetry(() => lighthouse(v, base + page, outDir));
          runs.push(r);
          console.log(`  Lighthouse ${r.version} ${page} run ${i + 1}: ${r.score} (FCP ${seconds(r.fcp)}, LCP ${seconds(r.lcp)}, TBT ${millis(r.tbt)}, CLS ${r.cls.toFixed(3)}, benchmark index ${Math.round(r.benchmarkIndex)})`);
        }
        rows.push({
          version: runs[0].version,
          page,
          scores: runs.map((r) => r.score),
          score: median(runs.map((r) => r.score)),
          lcp: median(runs.map((r) => r.lcp)),
          tbt: median(runs.map((r) => r.tbt)),
        });
      }
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
    await server?.stop();
  }

  console.log(`\nMedians of ${RUNS} runs (load average now ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}):`);
  console.log(`  ${"Lighthouse".padEnd(11)} ${"page".padEnd(10)} ${"score".padStart(5)}  ${"LCP".padStart(7)}  ${"TBT".padStart(6)}  runs`);
  for (const r of rows) {
    console.log(`  ${r.version.padEnd(11)} ${r.page.padEnd(10)} ${String(r.score).padStart(5)}  ${seconds(r.lcp).padStart(7)}  ${millis(r.tbt).padStart(6)}  ${r.scores.join(", ")}`);
  }
  const failed = rows.filter((r) => r.score < MIN_SCORE);
  if (failed.length > 0) {
    console.log(`\nBelow ${MIN_SCORE}: ${failed.map((r) => `${r.page} on Lighthouse ${r.version} (${r.score})`).join(", ")}`);
    process.exit(1);
  }
  console.log(`\nEvery median is ${MIN_SCORE} or more.`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
