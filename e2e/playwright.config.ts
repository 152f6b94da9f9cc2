import { defineConfig } from "@playwright/test";
import { existsSync, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

// The real binary (built by `make build`) runs on a free loopback port with a fresh SQLite database in a temp
// folder, in development mode (so password-reset requests answer with the token, as the reset journey needs).
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      if (addr && typeof addr === "object") {
        const port = addr.port;
        srv.close(() => resolve(port));
      } else {
        reject(new Error("no port"));
      }
    });
  });
}

// The config is evaluated in the runner and again in every worker; the port and folder are chosen once and handed
// to the workers through the environment.
process.env.E2E_PORT ??= String(await freePort());
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "valuator-e2e-"));
const port = process.env.E2E_PORT;
const dataDir = process.env.E2E_DATA_DIR;
const baseURL = `http://127.0.0.1:${port}`;
const binary = path.resolve(import.meta.dirname, "..", "bin", "valuator");
const testDay = process.env.VALUATOR_TEST_TODAY || "2026-11-28";
// Debian's Chromium, as its headless shell when installed (Debian's chromium-headless-shell, the same build without
// the windowed browser around it, which Playwright itself runs for headless tests): the same engine, and a third less
// CPU on this 2-core machine (the screen walks: 8.1 -> 5.6 min), which is most of what the suite spends. CHROMIUM_PATH
// names another.
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const chromium = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");

export default defineConfig({
  testDir: "./tests",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // A test's whole budget. On this 2-core machine with two workers the longest tests on the default budget take up to
  // 50 s on an idle run (the API key dialogs' scans, the scenes, the account journey's six steps at 27-37 s), and a
  // busier CI machine once stretched the account journey past 60 s. The budget catches hangs, not slowness: every
  // expectation still has its own 10 s.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  // Tests that move the server's clock (tests/later) run after all the others, alone: the clock is the whole
  // server's, and a day passing under another test's open payment would expire it.
  projects: [
    { name: "main", testIgnore: /later\// },
    { name: "later", testMatch: /later\/.*\.spec\.ts$/, dependencies: ["main"], workers: 1 },
  ],
  outputDir: "./test-results",
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      // Debian's Chromium; Playwright never downloads a browser here.
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: {
    command: `${binary} serve`,
    url: `${baseURL}/readyz`,
    reuseExistingServer: false,
    timeout: 180_000, // the first start generates the demo market and trains the engine
    stdout: "ignore",
    stderr: "pipe",
    env: {
      VALUATOR_ADDR: `127.0.0.1:${port}`,
      VALUATOR_BASE_URL: baseURL,
      VALUATOR_DATA_DIR: dataDir,
      VALUATOR_DATABASE_URL: `sqlite://${path.join(dataDir, "valuator.db")}`,
      VALUATOR_ENV: "development",
      VALUATOR_LOG_LEVEL: "warn",
      // The server runs on the tests' day, not the calendar's: the demo market, billing periods and expiry follow
      // it, and tests let time pass with POST /api/dev/clock (internal/testclock.Default unless the Makefile's
      // VALUATOR_TEST_TODAY says otherwise).
      VALUATOR_CLOCK: testDay,
      // Accounts made through the API say their own network (tests/public-api.ts registerByApi), so the 50 sign-ups
      // an hour from one network are left to the browser's sign-ups, which all come from 127.0.0.1.
      VALUATOR_TRUST_PROXY: "true",
    },
  },
});
